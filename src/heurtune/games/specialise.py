"""One implementation, specialised per game.

Search and perft are written once, as plain functions that call the kernel
through free global names (``gen_moves``, ``make_move``, ``evaluate``...).
:func:`specialise` copies such template functions with a globals dictionary in
which those names are bound to one game's (and one heuristic's) numba
dispatchers, then compiles the copies with ``njit(cache=True, nogil=True)``.
numba inlines the kernel calls, so each specialisation is as fast as
hand-written per-game code. Each copy is cached on disk under its own
qualified name (template name + tag); :mod:`heurtune._numba_cache` makes every
edit of heurtune's sources invalidate those caches, since a copy inlines code
from files other than its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from types import FunctionType
from typing import Any, cast

from numba import njit

_CACHE: dict[str, dict[str, Any]] = {}
_LOCK = threading.Lock()


def specialise(
    templates: Sequence[Callable[..., Any]], bindings: Mapping[str, Any], tag: str
) -> dict[str, Any]:
    """Compile ``templates`` with ``bindings`` as extra globals; memoised by ``tag``.

    Templates are plain ``def`` functions; they may call each other (and
    themselves) by name: every copy sees the other copies, not the originals.
    """
    safe = re.sub(r"\W", "_", tag)
    with _LOCK:
        done = _CACHE.get(safe)
        if done is not None:
            return done
        namespace = dict(templates[0].__globals__)
        namespace.update(bindings)
        out: dict[str, Any] = {}
        for template in templates:
            func = cast(FunctionType, template)  # mypy types a ``def`` as a Callable
            copy = FunctionType(
                func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__
            )
            copy.__qualname__ = f"{func.__name__}__{safe}"
            copy.__module__ = func.__module__
            copy.__doc__ = func.__doc__
            dispatcher = njit(cache=True, nogil=True, error_model="numpy")(copy)
            namespace[func.__name__] = dispatcher
            out[func.__name__] = dispatcher
        _CACHE[safe] = out
        return out
