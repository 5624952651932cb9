"""The search for games written in plain Python: the compiled search's rules, in Python.

:class:`PySearcher` plays a :class:`~heurtune.games.PythonGame` with a
:class:`~heurtune.engine.heuristic.PythonHeuristic`. It follows
:mod:`heurtune.engine.search` rule for rule, so an engine behaves the same
whichever way its game is written:

* the same algorithms: ``alphabeta`` (iterative deepening, a transposition
  table with bounds, the table move, two killers per ply and history counts
  first), ``minimax`` (the seeds' memoised negamax, exact values, ties broken
  at random) and ``random``;
* the same limits: depth, a node budget and a time limit, both applied once
  the first iteration has produced a move;
* the same tie-breaks: the root moves are shuffled by the same xorshift64*
  generator from the same seed, and alpha-beta's ``root_ties`` plays the first
  of equal moves in its root order or draws among them as minimax does (so a
  game written both ways, searched with the same heuristic to the same depth,
  picks the same moves: ``tests/plugins/test_pysearch.py``);
* the same scores: decided games ``±(WIN_SCORE - ply)``, draws 0, leaves
  scored for the root player and negated where the other side moves.

What it does not have: the compiled search's speed (numba specialises the
kernel and the heuristic into one machine-code function; here every node
calls the game's methods). docs/benchmarks.md measures the difference on
Isolation written both ways. The table is a dict keyed on the game's
:meth:`~heurtune.games.PythonGame.key`, cleared whenever it outgrows
``2^tt_bits`` entries (deterministic, unlike slot replacement keyed on
Python's per-process string hashes).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import Value
from heurtune.engine.search import (
    ALGORITHMS,
    INF,
    MATE_ZONE,
    MAX_PLY,
    ROOT_TIES,
    WIN_SCORE,
    SearchResult,
)
from heurtune.games.base import ONGOING
from heurtune.games.python import PyState, PythonKernel, has_undo

EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 256  # nodes between looks at the clock
_M64 = (1 << 64) - 1
_M63 = (1 << 63) - 1


def _signed(x: int) -> int:
    x &= _M64
    return x - (1 << 64) if x >> 63 else x


class XorShift:
    """xorshift64* on signed 64-bit integers, exactly as the compiled search's
    ``_rand`` (numba's int64 arithmetic: wrapping products, arithmetic shifts)."""

    def __init__(self, seed: int) -> None:
        self.x = _signed(seed * 2 + 1)
        for _ in range(4):
            self.next()

    def next(self) -> int:
        x = self.x
        x ^= x >> 12
        x = _signed(x ^ (x << 25))
        x ^= x >> 27
        self.x = x
        return (_signed(x * 2685821657736338717) >> 1) & _M63


def _to_tt(v: float, ply: int) -> float:
    """A mate score relative to the node (entries are shared across plies)."""
    return v + ply if v > MATE_ZONE else v - ply if v < -MATE_ZONE else v


def _from_tt(v: float, ply: int) -> float:
    return v - ply if v > MATE_ZONE else v + ply if v < -MATE_ZONE else v


class _Abort(Exception):
    """Out of nodes or time: unwinds the whole iteration."""


class PySearcher:
    """Searches a plain-Python game with a plain-Python heuristic (see the module).

    ``search(state, params, ...)`` takes the match layer's
    :class:`~heurtune.games.PyState` and the weights by name; it leaves the
    state as it found it. One per thread.
    """

    def __init__(self, kernel: PythonKernel, heuristic: Heuristic, tt_bits: int = 16) -> None:
        if kernel.game is None:
            raise ValueError(f"{kernel.name} is not a plain-Python game")
        self.kernel = kernel
        self.game = kernel.game
        self.heuristic = heuristic
        self.tt_size = 1 << tt_bits
        self.table: dict[Hashable, tuple[int, int, float, int]] = {}
        self.memo: dict[tuple[Hashable, int], float] = {}
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_PLY + 1)]
        self.history: dict[int, int] = {}
        self._undo = has_undo(self.game)

    def clear(self) -> None:
        """Forget everything learnt (between games, for reproducible matches)."""
        self.table.clear()
        self.memo.clear()
        for k in self.killers:
            k[0] = k[1] = -1
        self.history.clear()

    def search(
        self,
        state: PyState[Any],
        params: Mapping[str, Value],
        *,
        algorithm: str = "alphabeta",
        depth: int = 64,
        nodes: int = 0,
        time_ms: float = 0,
        seed: int = 0,
        table: bool = True,
        tt_min_depth: int = 0,
        leaf_order: str = "full",
        candidates: bool = False,
        root_ties: str = "first",
    ) -> SearchResult:
        """Search ``state`` (left unchanged) and return the chosen move (the
        keyword arguments are the compiled search's; ``leaf_order`` and
        ``candidates`` have no plain-Python counterpart and are accepted as is)."""
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        if root_ties not in ROOT_TIES:
            raise ValueError(f"unknown root_ties {root_ties!r}")
        self.exact_ties = root_ties == "random"
        depth = max(1, min(int(depth), MAX_PLY - 2))
        game = self.game
        root_state = game.copy(state.state)  # the caller's state is never touched
        self.params = dict(params)
        self.evaluate: Callable[[Any, int, Mapping[str, Value]], float] = self.heuristic.evaluate
        self.nodes = 0
        self.limit = int(nodes)
        self.deadline = time.perf_counter() + time_ms / 1000.0 if time_ms > 0 else 0.0
        self.armed = False
        self.tt_min_depth = max(0, int(tt_min_depth)) if table else 1 << 30
        for h in self.history:
            self.history[h] >>= 1
        t0 = time.perf_counter()
        move, value, reached, n, last = self._root(root_state, algorithm, depth,
                                                   seed & 0x3FFFFFFFFFFFFFFF)
        return SearchResult(move=move, value=value, depth=reached, nodes=self.nodes,
                            seconds=time.perf_counter() - t0, legal_moves=n,
                            last_iteration_nodes=last)

    # -- the root ---------------------------------------------------------------
    def _root(self, state: Any, algorithm: str, max_depth: int,
              seed: int) -> tuple[int, float, int, int, int]:
        game = self.game
        rng = XorShift(seed)
        root = [int(m) for m in game.legal_moves(state)]
        n = len(root)
        for i in range(n - 1, 0, -1):  # seeded shuffle: ties go to the earliest move
            j = rng.next() % (i + 1)
            root[i], root[j] = root[j], root[i]
        self.root_player = int(game.to_move(state))
        if n == 0:
            return -1, 0.0, 0, 0, 0
        if algorithm == "random" or (n == 1 and algorithm == "alphabeta"):
            return root[0], 0.0, 0, n, 0
        if algorithm == "minimax":
            values = []
            for m in root:
                child = self._play(state, m)
                values.append(-self._minimax(child, max_depth - 1, 1))
                self._take_back(state, m)
            best = max(values)
            ties = [m for m, v in zip(root, values, strict=True) if v == best]
            return ties[rng.next() % len(ties)], best, max_depth, n, self.nodes
        best_move, best_value, reached, last = root[0], 0.0, 0, 0
        seeded = list(root)
        tied: set[int] = set()  # root_ties = random: the last iteration's best moves
        for depth in range(1, max_depth + 1):
            alpha = best = -INF
            bi = 0
            n0 = self.nodes
            values = []
            try:
                for i, m in enumerate(root):
                    # exact ties: the window opens just below the best so far
                    low = math.nextafter(alpha, -INF) if self.exact_ties else alpha
                    child = self._play(state, m)
                    try:
                        v = -self._alphabeta(child, depth - 1, 1, -INF, -low)
                    finally:
                        self._take_back(state, m)
                    values.append(v)
                    if v > best:
                        best, bi = v, i
                        if v > alpha:
                            alpha = v
            except _Abort:
                break
            best_move, best_value, reached = root[bi], best, depth
            last = self.nodes - n0
            if self.exact_ties:
                tied = {m for m, v in zip(root, values, strict=True) if v == best}
            root.insert(0, root.pop(bi))  # best first next time, the rest in order
            self.armed = True  # budgets apply once an iteration has produced a move
            if best > MATE_ZONE or best < -MATE_ZONE:
                break
        if self.exact_ties and reached > 0:  # minimax's draw, in the seeded order
            ties = [m for m in seeded if m in tied]
            best_move = ties[rng.next() % len(ties)]
        return best_move, best_value, reached, n, last

    # -- moves ------------------------------------------------------------------
    def _play(self, state: Any, move: int) -> Any:
        if self._undo:
            self.game.play(state, move)
            return state
        child = self.game.copy(state)
        self.game.play(child, move)
        return child

    def _take_back(self, state: Any, move: int) -> None:
        if self._undo:
            self.game.undo(state, move)

    def _count(self) -> None:
        self.nodes += 1
        if self.armed:
            if self.limit > 0 and self.nodes > self.limit:
                raise _Abort
            if self.deadline and self.nodes % CHECK_EVERY == 0 \
                    and time.perf_counter() > self.deadline:
                raise _Abort

    def _leaf(self, state: Any) -> float:
        v = float(self.evaluate(state, self.root_player, self.params))
        return v if self.game.to_move(state) == self.root_player else -v

    # -- the algorithms -----------------------------------------------------------
    def _minimax(self, state: Any, depth: int, ply: int) -> float:
        self.nodes += 1
        game = self.game
        res = game.result(state)
        if res != ONGOING:
            return 0.0 if res == 0 else res * (WIN_SCORE - ply)
        if depth == 0:
            return self._leaf(state)
        key = (game.key(state), depth)
        memo = self.memo
        if key in memo:
            return _from_tt(memo[key], ply)
        best = -INF
        for m in game.legal_moves(state):
            child = self._play(state, m)
            v = -self._minimax(child, depth - 1, ply + 1)
            self._take_back(state, m)
            if v > best:
                best = v
        if len(memo) >= self.tt_size:
            memo.clear()
        memo[key] = _to_tt(best, ply)
        return best

    def _alphabeta(self, state: Any, depth: int, ply: int, alpha: float, beta: float) -> float:
        self._count()
        game = self.game
        res = game.result(state)
        if res != ONGOING:
            return 0.0 if res == 0 else res * (WIN_SCORE - ply)
        if depth <= 0 or ply >= MAX_PLY - 1:
            return self._leaf(state)
        use_tt = depth >= self.tt_min_depth
        key = game.key(state) if use_tt else None
        tt_move = -1
        if use_tt:
            entry = self.table.get(key)
            if entry is not None:
                e_depth, flag, v, tt_move = entry
                v = _from_tt(v, ply)
                if e_depth >= depth and (flag == EXACT or (flag == LOWER and v >= beta)
                                         or (flag == UPPER and v <= alpha)):
                    return v
        moves = [int(m) for m in game.legal_moves(state)]
        killers = self.killers[ply]
        history = self.history
        k0, k1 = killers
        if len(moves) > 1:
            moves.sort(key=lambda m: (m == tt_move, m == k0, m == k1, history.get(m, 0)),
                       reverse=True)
        alpha0 = alpha
        best = -INF
        best_move = moves[0] if moves else -1
        for m in moves:
            child = self._play(state, m)
            try:
                v = -self._alphabeta(child, depth - 1, ply + 1, -beta, -alpha)
            finally:
                self._take_back(state, m)
            if v > best:
                best, best_move = v, m
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        if m != k0:
                            killers[1] = k0
                            killers[0] = m
                        history[m] = history.get(m, 0) + depth * depth
                        break
        if use_tt:
            flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
            if len(self.table) >= self.tt_size:
                self.table.clear()
            self.table[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best
