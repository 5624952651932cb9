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

A game written in plain Python (:class:`~heurtune.games.PythonGame`) has
plain-Python heuristics instead: :class:`PythonHeuristic`, whose
``evaluate(state, player, params)`` receives the game's own state, the player
to score for and the weights by name. The pure-Python search calls it
(:mod:`heurtune.engine.pysearch`).

A game's heuristics live in the module its registry entry names
(:func:`heurtune.games.registry.heuristics_object`: the built-in games' are
``heurtune.engine.heuristics.<game>``, a plugin's its own module), which
exports a ``HEURISTICS`` tuple and a ``PRESETS`` mapping; adding one touches
neither the search nor the tuning code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from heurtune.engine.params import ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.games import PythonKernel, get_game
from heurtune.games.registry import heuristics_object


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
    # what evaluates positions: "numba" (an evaluator over the kernel's state
    # array), "python" (a function over a PythonGame's state) or "process" (an
    # engine in another process, whose options are the space)
    kind: str = "numba"

    def to_array(self, values: Mapping[str, Value] | None = None) -> np.ndarray:
        """The array :attr:`evaluate` reads for these weights (defaults for the
        missing ones), through the ``prepare`` hook where there is one."""
        arr = self.space.to_array(values or {})
        if self.prepare is None:
            return arr
        return np.ascontiguousarray(self.prepare(arr), dtype=np.float64)


@dataclass(frozen=True)
class PythonHeuristic:
    """A plain-Python heuristic of a plain-Python game, as a plugin declares it.

    ``evaluate(state, player, params) -> float`` scores the game's own state for
    ``player`` (0 or 1; the search asks for the player to move at the root),
    with ``params`` mapping every parameter of ``space`` to its value. Scores
    must stay far below 1e9, which decided games score.
    """

    name: str
    space: ParamSpace
    evaluate: Callable[[Any, int, Mapping[str, Value]], float]
    description: str = ""


def heuristics_module(game: str) -> ModuleType | Any:
    """The module (or object) holding ``game``'s heuristics and presets."""
    get_game(game)  # unknown game -> clear error
    return heuristics_object(game)


# per game: the kernel the table was built for (a game registered again gets a
# new kernel, and a new table), and the table
_TABLES: dict[str, tuple[object, dict[str, Heuristic]]] = {}


def heuristics(game: str) -> dict[str, Heuristic]:
    """All heuristics of ``game`` by name (a plugin's :class:`PythonHeuristic`
    entries as :class:`Heuristic` values of kind ``python``)."""
    kernel = get_game(game)
    cached = _TABLES.get(game)
    if cached is not None and cached[0] is kernel:
        return dict(cached[1])
    source = heuristics_module(game)
    declared = getattr(source, "HEURISTICS", None)
    if not isinstance(declared, (tuple, list)) or not declared:
        raise HeurtuneError(f"game {game!r}: its heuristics module defines no HEURISTICS "
                            "(a non-empty tuple)")
    python_game = isinstance(kernel, PythonKernel)
    table = {}
    for h in declared:
        if isinstance(h, PythonHeuristic):
            if not python_game:
                raise HeurtuneError(f"game {game!r}: {h.name} is a PythonHeuristic, but the "
                                    "game is a numba kernel (its heuristics are numba too)")
            if not isinstance(h.space, ParamSpace) or not callable(h.evaluate):
                raise HeurtuneError(f"game {game!r}: heuristic {h.name!r} needs a ParamSpace "
                                    "and a callable evaluate")
            mod = source if isinstance(source, ModuleType) else kernel.module
            h = Heuristic(game, h.name, h.description or h.name, h.space, h.evaluate, mod,
                          kind="python")
        elif not isinstance(h, Heuristic):
            raise HeurtuneError(f"game {game!r}: HEURISTICS holds {h!r}, not a Heuristic "
                                "or PythonHeuristic")
        elif python_game:
            raise HeurtuneError(f"game {game!r} is written in Python: its heuristics must "
                                f"be PythonHeuristic values ({h.name} is not)")
        table[h.name] = h
    _TABLES[game] = (kernel, table)
    return dict(table)


def get_heuristic(game: str, name: str) -> Heuristic:
    """The heuristic ``name`` of ``game``; unknown names are a :class:`HeurtuneError`."""
    table = heuristics(game)
    if name not in table:
        raise HeurtuneError(
            f"unknown heuristic {name!r} for {game} (known: {', '.join(sorted(table))})"
        )
    return table[name]
