"""A heuristic: a numba evaluator plus the parameter space it reads.

``evaluate(state, params, player) -> float`` scores a position for ``player``
(0 or 1), reading its weights from ``params`` by position in
:attr:`Heuristic.space`. The search calls it for the player to move at the
root, like the seeds' engines; it need not be antisymmetric. Values must stay far below
:data:`heurtune.engine.search.WIN_SCORE`, which scores decided games.

A recursive helper must be called with exactly the argument types it passes
to itself (``np.int64(CONSTANT)``, not a bare global constant, which numba
types as a literal): numba's on-disk cache crashes on reload when a recursive
function has two signatures (numba #6713). ``tests/test_cache_reload.py``
reloads every heuristic's search from the cache to catch this.

A heuristic may also have a ``prepare(params) -> array`` hook (plain Python,
called once when an engine is built): it turns the named weights into the
array the evaluator reads, for example tables derived from them, so that the
evaluator does no per-node arithmetic on the weights themselves. Without it
the evaluator reads the weights as they are.

A heuristic whose score is (mostly) a sum of per-piece terms may also have a
``cell_weights(values) -> array`` hook (plain Python, for pictures): what one
piece of the first player contributes on each cell of an otherwise empty
board, as a ``ranks x files`` array (row 0 is rank 1), with the terms that
depend on the whole position left out. The report draws it as a heat map (the
Halma heuristics have it); without it there is no map.

Heuristics live in ``heurtune.engine.heuristics.<game>`` modules that export a
``HEURISTICS`` tuple and a ``PRESETS`` mapping; adding one touches neither the
search nor the tuning code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from heurtune.engine.params import ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.games import get_game


@dataclass(frozen=True)
class Heuristic:
    """One evaluation function of one game and its parameter space."""

    game: str
    name: str
    description: str
    space: ParamSpace
    evaluate: Any
    module: ModuleType
    prepare: Callable[[np.ndarray], np.ndarray] | None = None
    cell_weights: Callable[[Mapping[str, Value]], np.ndarray] | None = None

    def to_array(self, values: Mapping[str, Value] | None = None) -> np.ndarray:
        """The array :attr:`evaluate` reads for these weights (defaults for the
        missing ones), through the ``prepare`` hook where there is one."""
        arr = self.space.to_array(values or {})
        if self.prepare is None:
            return arr
        return np.ascontiguousarray(self.prepare(arr), dtype=np.float64)


def heuristics_module(game: str) -> ModuleType:
    """The module holding ``game``'s heuristics and presets."""
    get_game(game)  # unknown game -> clear error
    try:
        return importlib.import_module(f"heurtune.engine.heuristics.{game}")
    except ModuleNotFoundError as exc:  # pragma: no cover - a registered game without heuristics
        raise HeurtuneError(f"game {game!r} has no heuristics module") from exc


def heuristics(game: str) -> dict[str, Heuristic]:
    """All heuristics of ``game`` by name."""
    return {h.name: h for h in heuristics_module(game).HEURISTICS}


def get_heuristic(game: str, name: str) -> Heuristic:
    """The heuristic ``name`` of ``game``; unknown names are a :class:`HeurtuneError`."""
    table = heuristics(game)
    if name not in table:
        raise HeurtuneError(
            f"unknown heuristic {name!r} for {game} (known: {', '.join(sorted(table))})"
        )
    return table[name]
