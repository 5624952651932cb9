"""Evaluating many positions at once: replayed games, in numba, on threads.

A position set (heurtune.match.positions) holds games and the plies at which
positions were taken, not state arrays. :class:`PositionEvaluator` replays each
game once in numba, and at every sampled ply plays the position's quiet line,
calls the heuristic's evaluator for the side to move, and takes the line back:
no Python per position. The games are split into contiguous chunks, one per
thread; the compiled code releases the GIL, so the chunks run in parallel. A
plain-Python game's positions (:class:`~heurtune.games.PythonGame`) are replayed
and evaluated the same way in Python, as its search evaluates them.

Like the search, the replay loop is written once and specialised per game and
heuristic (:func:`heurtune.games.specialise.specialise`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from heurtune.engine.heuristic import Heuristic
from heurtune.errors import HeurtuneError
from heurtune.games import GameKernel, PythonKernel
from heurtune.games.specialise import specialise

# bound per specialisation
make_move: Any = None
unmake_move: Any = None
side_to_move: Any = None
evaluate: Any = None


def _evaluate_lines(init, moves, game_start, pos_game, pos_ply, extra, extra_start, params,  # type: ignore[no-untyped-def]
                    lo, hi, difference, out):
    """Evaluate positions ``lo`` to ``hi - 1`` (sorted by game and ply) for the
    side to move, into ``out`` (``difference``: less its value for the other side)."""
    state = init.copy()
    game = -1
    played = 0
    for i in range(lo, hi):
        g = pos_game[i]
        if g != game:
            state[:] = init
            game = g
            played = 0
        start = game_start[g]
        while played < pos_ply[i]:
            make_move(state, moves[start + played])
            played += 1
        for j in range(extra_start[i], extra_start[i + 1]):
            make_move(state, extra[j])
        mover = side_to_move(state)
        out[i] = evaluate(state, params, mover)
        if difference:
            out[i] -= evaluate(state, params, 1 - mover)
        for j in range(extra_start[i + 1] - 1, extra_start[i] - 1, -1):
            unmake_move(state, extra[j])


class PositionEvaluator:
    """The heuristic's values of a position set's positions, for any weights.

    ``arrays`` are the set's (``moves``, ``game_start``, ``pos_game``,
    ``pos_ply``, ``extra``, ``extra_start``: see heurtune.match.positions);
    ``threads`` the chunks evaluated at once (default: the machine's cores);
    ``difference``: each value is the side to move's less the other side's (an
    antisymmetric view of a heuristic that scores one side, as Halma's
    ``distance`` does, or weighs the two sides differently)."""

    def __init__(self, kernel: GameKernel, heuristic: Heuristic, rules: Mapping[str, int],
                 arrays: Mapping[str, np.ndarray], threads: int | None = None,
                 difference: bool = False) -> None:
        self.difference = difference
        self.heuristic = heuristic
        self.kernel = kernel
        self._rules = dict(rules)
        names = ("moves", "game_start", "pos_game", "pos_ply", "extra", "extra_start")
        self._arrays = [np.ascontiguousarray(arrays[k], dtype=np.int64) for k in names]
        self.size = self._arrays[2].shape[0]
        self._params_len = len(heuristic.to_array())
        self._pool: ThreadPoolExecutor | None = None
        # a plain-Python game's heuristic: replayed and evaluated in Python (its
        # states are Python objects; so is every node of its search)
        self._python = isinstance(kernel, PythonKernel) or heuristic.kind == "python"
        if self._python:
            if heuristic.kind != "python" or not isinstance(kernel, PythonKernel):
                raise HeurtuneError(f"{heuristic.game}:{heuristic.name} cannot evaluate "
                                    f"{kernel.name} positions")
            return
        if heuristic.kind != "numba":
            raise HeurtuneError(f"{heuristic.game}:{heuristic.name} is not a numba heuristic: "
                                "positions are evaluated in numba")
        bindings = {"make_move": kernel.make_move, "unmake_move": kernel.unmake_move,
                    "side_to_move": kernel.side_to_move, "evaluate": heuristic.evaluate}
        self._fn = specialise([_evaluate_lines], bindings,
                              f"batch_{kernel.name}_{heuristic.name}")["_evaluate_lines"]
        self._init = np.ascontiguousarray(kernel.new_state(rules), dtype=np.int64)
        count = max(1, min(threads or os.cpu_count() or 1, self.size))
        self._chunks = _chunks(self._arrays[2], count)
        self._pool = ThreadPoolExecutor(len(self._chunks)) if len(self._chunks) > 1 else None

    def __call__(self, params: np.ndarray) -> np.ndarray:
        """Every position's value for ``params`` (what :meth:`Heuristic.to_array` builds)."""
        params = np.ascontiguousarray(params, dtype=np.float64)
        if params.shape != (self._params_len,):
            raise ValueError(f"params must have {self._params_len} entries")
        if self._python:
            return self._python_values(params)
        out = np.empty(self.size, dtype=np.float64)

        def run(chunk: tuple[int, int]) -> None:
            self._fn(self._init, *self._arrays, params, chunk[0], chunk[1], self.difference, out)

        if self._pool is None:
            for chunk in self._chunks:
                run(chunk)
        else:
            list(self._pool.map(run, self._chunks))
        return out

    def _python_values(self, params: np.ndarray) -> np.ndarray:
        """The same replay in Python, for a plain-Python game's heuristic (which
        takes the game's own state and the weights by name)."""
        kernel, h = self.kernel, self.heuristic
        values = h.space.from_array([float(x) for x in params])
        moves, game_start, pos_game, pos_ply, extra, extra_start = self._arrays
        out = np.empty(self.size, dtype=np.float64)
        box: Any = None
        game, played = -1, 0
        for i in range(self.size):
            g = int(pos_game[i])
            if g != game:
                box, game, played = kernel.new_state(self._rules), g, 0
            while played < pos_ply[i]:
                kernel.make_move(box, int(moves[game_start[g] + played]))
                played += 1
            line = [int(m) for m in extra[extra_start[i]:extra_start[i + 1]]]
            for m in line:
                kernel.make_move(box, m)
            mover = int(kernel.side_to_move(box))
            value = float(h.evaluate(box.state, mover, values))
            if self.difference:
                value -= float(h.evaluate(box.state, 1 - mover, values))
            out[i] = value
            for m in reversed(line):
                kernel.unmake_move(box, m)
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()

    def __del__(self) -> None:
        self.close()


def _chunks(pos_game: np.ndarray, count: int) -> list[tuple[int, int]]:
    """``count`` contiguous ranges of about equal size, cut between games (a
    chunk replays its games from their starts)."""
    n = pos_game.shape[0]
    cuts = [0]
    for k in range(1, count):
        i = max(cuts[-1], n * k // count)
        while 0 < i < n and pos_game[i] == pos_game[i - 1]:
            i += 1
        if cuts[-1] < i < n:
            cuts.append(i)
    cuts.append(n)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
