"""The registry of games: which module holds a game's kernel and its heuristics.

Games join in one of two ways, and heurtune's own four use the first:

* **entry points** (group ``heurtune.games``) declared by any installed
  package: the entry point's name is the game's name, its value a module (or
  ``module:object``) that holds the game and its heuristics::

      [project.entry-points."heurtune.games"]
      connect4 = "heurtune_connect4"

  The module (or object) defines ``KERNEL`` (a numba
  :class:`~heurtune.games.base.GameKernel`) or ``GAME`` (a plain-Python
  :class:`~heurtune.games.python.PythonGame`), and ``HEURISTICS`` (a tuple)
  and ``PRESETS`` (a mapping), or ``HEURISTICS_MODULE``, the name of the
  module that holds those two;
* :func:`register_game`, at run time (the simulated oracle, tests).

Plugins are found once per process, when a game is first looked up; a
plugin that fails to load is reported by ``heurtune list`` and by any
command that names it, and hides no other game. Whatever a plugin's import
raises is that report, ``sys.exit`` and ``KeyboardInterrupt`` included (a
Ctrl-C that arrives while it loads still interrupts). A plugin cannot take the
name of a game built into heurtune: heurtune keeps its own, and ``heurtune
list`` and the first use of the name say so, naming both packages.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

from heurtune.errors import HeurtuneError
from heurtune.games.base import GameKernel

ENTRY_POINT_GROUP = "heurtune.games"


@dataclass(frozen=True)
class GameEntry:
    """Where a registered game lives: ``target`` (``module`` or
    ``module:object``) holds its kernel; ``heuristics`` names the module of its
    heuristics and presets (None: ``target`` itself, or its
    ``HEURISTICS_MODULE``); ``source`` says who registered it."""

    name: str
    target: str
    heuristics: str | None = None
    source: str = "register_game"


_REGISTERED: dict[str, GameEntry] = {}
_FOUND: dict[str, GameEntry] | None = None  # entry points, read once
_PROBLEMS: dict[str, str] = {}  # entry points that clash with another
_SAID: set[str] = set()  # the names whose problem was said in this process
_KERNELS: dict[str, GameKernel] = {}

log = logging.getLogger("heurtune")


def _builtin(ep: metadata.EntryPoint) -> bool:
    """Whether ``ep`` is one of heurtune's own games (whoever declares it)."""
    return ep.value == f"heurtune.games.{ep.name}"


def _package(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"package {dist.name!r}" if dist is not None else "a package"


def _entry_points() -> dict[str, GameEntry]:
    global _FOUND
    if _FOUND is None:
        found: dict[str, GameEntry] = {}
        packages: dict[str, str] = {}
        # a built-in game first under its name: a plugin cannot replace it
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP),
                         key=lambda e: (e.name, not _builtin(e), e.value)):
            dist = getattr(ep, "dist", None)
            where = f"entry point of {dist.name}" if dist is not None else "entry point"
            if ep.name in found:
                first = found[ep.name]
                if first.target == ep.value:  # the same game declared again: harmless
                    continue
                if first.target == f"heurtune.games.{ep.name}":
                    _PROBLEMS[ep.name] = (
                        f"{_package(ep)} declares a game {ep.name!r} ({ep.value}), the name of "
                        f"a game built into heurtune ({packages[ep.name]}): heurtune keeps its "
                        f"own {ep.name}; the plugin's game needs another entry point name")
                else:
                    _PROBLEMS[ep.name] = (
                        f"{ep.name!r} is declared twice ({first.target} by "
                        f"{packages[ep.name]} and {ep.value} by {_package(ep)}); using the first")
                continue
            found[ep.name] = GameEntry(ep.name, ep.value, None, where)
            packages[ep.name] = _package(ep)
        _FOUND = found
    return _FOUND


def _entries() -> dict[str, GameEntry]:
    return {**_entry_points(), **_REGISTERED}


def register_game(name: str, module: str, heuristics: str | None = None) -> None:
    """Register a game under ``name``: ``module`` (or ``module:object``) holds its
    ``KERNEL`` or ``GAME``; ``heuristics`` names the module holding its
    ``HEURISTICS`` and ``PRESETS`` (default: ``module`` itself when it has
    them or names a ``HEURISTICS_MODULE``, else ``heurtune.engine.heuristics.NAME``,
    where the built-in games kept theirs)."""
    if not name or ":" in name or name.strip() != name:
        raise HeurtuneError(f"a game's name must be a non-empty word without ':', got {name!r}")
    _REGISTERED[name] = GameEntry(name, module, heuristics)
    _KERNELS.pop(name, None)


def unregister_game(name: str) -> None:
    """Forget a game added by :func:`register_game`."""
    _REGISTERED.pop(name, None)
    _KERNELS.pop(name, None)


def game_names() -> list[str]:
    """Names of the registered games (built-in, plugins, :func:`register_game`)."""
    return sorted(_entries())


def game_entry(name: str) -> GameEntry:
    """Where ``name`` is registered; an unknown name is a :class:`HeurtuneError`.
    A name declared by more than one package is a warning the first time it is
    looked up (in the driver: worker processes leave it to the driver)."""
    entry = _entries().get(name)
    if entry is None:
        raise HeurtuneError(f"unknown game {name!r} (known: {', '.join(game_names())})")
    problem = _PROBLEMS.get(name)
    if problem is not None and name not in _SAID and multiprocessing.parent_process() is None:
        _SAID.add(name)
        log.warning("%s", problem)
    return entry


@contextmanager
def _signals_noted() -> Iterator[list[int]]:
    """The Ctrl-C (SIGINT) and SIGTERM that arrive inside the block, noted as
    they are handled as before: a ``KeyboardInterrupt`` raised inside with
    none noted came from the code the block ran, not from the user. Nothing is
    noted outside the main thread (where no signal handler runs) or for a
    signal without a Python handler (ignored, or left to the system)."""
    noted: list[int] = []
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if callable(handler):
                def note(signum: int, frame: Any, handler: Any = handler) -> None:
                    noted.append(signum)
                    handler(signum, frame)

                previous[sig] = handler
                signal.signal(sig, note)
    try:
        yield noted
    finally:
        for noted_sig, handler in previous.items():
            signal.signal(noted_sig, handler)


def _load(target: str, what: str) -> Any:
    """The module (or ``module:object``) ``target``: anything its import raises
    is one :class:`HeurtuneError` naming ``what``, ``SystemExit`` and a
    ``KeyboardInterrupt`` of its own making included; a Ctrl-C or SIGTERM that
    arrives meanwhile interrupts as anywhere else."""
    module_name, _, attr = target.partition(":")
    with _signals_noted() as noted:
        try:
            obj: Any = importlib.import_module(module_name)
            for part in filter(None, attr.split(".")):
                obj = getattr(obj, part)
        except Exception as exc:  # a plugin's own bug: reported as one line
            raise HeurtuneError(f"{what}: cannot load {target} "
                                f"({type(exc).__name__}: {exc})") from None
        except KeyboardInterrupt:
            if noted:  # the user's, while it loaded
                raise
            raise HeurtuneError(f"{what}: cannot load {target} (its import raised "
                                "KeyboardInterrupt, with no Ctrl-C)") from None
        except SystemExit as exc:
            raise HeurtuneError(f"{what}: cannot load {target} (its import called "
                                f"sys.exit({exc.code!r}))") from None
        except BaseException as exc:  # a plugin's own (GeneratorExit, a subclass of its own)
            raise HeurtuneError(f"{what}: cannot load {target} (its import raised "
                                f"{type(exc).__name__}: {exc})") from None
    return obj


def game_object(name: str) -> Any:
    """The module (or object) registered for ``name``."""
    entry = game_entry(name)
    return _load(entry.target, f"game {name!r} ({entry.source})")


def heuristics_object(name: str) -> ModuleType | Any:
    """The module (or object) holding ``name``'s ``HEURISTICS`` and ``PRESETS``."""
    entry = game_entry(name)
    if entry.heuristics is not None:
        return _load(entry.heuristics, f"heuristics of {name!r}")
    obj = game_object(name)
    if isinstance(getattr(obj, "HEURISTICS_MODULE", None), str):
        return _load(obj.HEURISTICS_MODULE, f"heuristics of {name!r}")
    if hasattr(obj, "HEURISTICS"):
        return obj
    return _load(f"heurtune.engine.heuristics.{name}", f"heuristics of {name!r}")


def get_game(name: str) -> GameKernel:
    """The kernel registered as ``name``; an unknown name, or a plugin that does not
    load or holds no game, is a :class:`HeurtuneError`."""
    kernel = _KERNELS.get(name)
    if kernel is not None:
        return kernel
    obj = game_object(name)
    found = getattr(obj, "KERNEL", None)
    if found is None and getattr(obj, "GAME", None) is not None:
        from heurtune.games.python import python_kernel

        module = obj if isinstance(obj, ModuleType) else importlib.import_module(
            type(obj).__module__)
        found = python_kernel(obj.GAME, module)
    if not isinstance(found, GameKernel):
        raise HeurtuneError(f"game {name!r}: {game_entry(name).target} defines neither KERNEL "
                            "(a GameKernel) nor GAME (a PythonGame)")
    if found.name != name:
        raise HeurtuneError(f"game {name!r}: {game_entry(name).target} holds a game named "
                            f"{found.name!r}")
    _KERNELS[name] = found
    return found


def runtime_games() -> tuple[GameEntry, ...]:
    """The games added by :func:`register_game` in this process (what worker
    processes, which start empty, are given: :func:`restore_games`)."""
    return tuple(_REGISTERED.values())


def restore_games(entries: tuple[GameEntry, ...]) -> None:
    """Register ``entries`` (from :func:`runtime_games` of another process)."""
    for entry in entries:
        _REGISTERED[entry.name] = entry
        _KERNELS.pop(entry.name, None)


def registry_problems(said: bool = False) -> dict[str, str]:
    """Entry points that could not be used as declared (a name declared twice,
    or a built-in game's name taken by a plugin); ``said``: the caller shows
    them all, and the first use of a name warns no more."""
    _entry_points()
    if said:
        _SAID.update(_PROBLEMS)
    return dict(_PROBLEMS)


__all__ = [
    "ENTRY_POINT_GROUP",
    "GameEntry",
    "game_entry",
    "game_names",
    "game_object",
    "get_game",
    "heuristics_object",
    "register_game",
    "registry_problems",
    "restore_games",
    "runtime_games",
    "unregister_game",
]
