"""The search: written once, specialised per (game, heuristic) by numba.

Two algorithms share this module:

``minimax``
    The seed's engine: depth-limited negamax with a memo keyed on (position,
    remaining depth). All root moves get exact values; ties are broken by a
    seeded RNG.
``alphabeta``
    Iterative deepening, a transposition table with bounds, move ordering
    (table move, killers, history), limited by depth, a node budget or a time
    limit. Root moves are shuffled by a seeded RNG first, so ties are broken
    randomly yet reproducibly.

``random``
    A uniformly random legal move from the seeded RNG (the classic baseline).

Decided games score ``±(WIN_SCORE - ply)``: a win sooner is worth more (this
only breaks ties among wins; the seed's ±1 ranks positions the same way since
its heuristic lies inside (-1, 1)). Draws score 0. Leaves are scored by the
heuristic for the root player, as the seeds' engines do (their scores need not
be antisymmetric: Isolation's ``open`` counts only the player's own moves),
and negated where the other side is to move.

The template functions below call the game kernel and the heuristic through
free globals (``gen_moves``, ``evaluate``...) that :func:`specialise` binds.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
from numba import carray

from heurtune.engine.heuristic import Heuristic
from heurtune.games.base import ONGOING, GameKernel
from heurtune.games.bits import data_pointer
from heurtune.games.specialise import specialise

WIN_SCORE = 1.0e9
MAX_PLY = 128
MATE_ZONE = WIN_SCORE - 10 * MAX_PLY
INF = 1.0e18

EXACT, LOWER, UPPER = 0, 1, 2
# A table entry is one 32-byte row: key, info (move << 10 | depth << 2 | bound),
# value (read through a float64 view of the same memory), padding. One probe
# touches one cache line, not three arrays.
TT_KEY, TT_INFO, TT_VALUE = 0, 1, 2
SORTED_PICKS = 4

# ctx slots (int64 array shared with Python: a timer thread may set C_STOP)
C_NODES, C_LIMIT, C_STOP, C_ABORT, C_ARMED, C_ROOT = 0, 1, 2, 3, 4, 5
CTX_SIZE = 8

# Bound per specialisation.
gen_moves = make_move = unmake_move = outcome = position_hash = side_to_move = evaluate = None


def _to_tt(v, ply):  # type: ignore[no-untyped-def]
    """Make a mate score relative to the node (table entries are shared across plies)."""
    if v > MATE_ZONE:
        return v + ply
    if v < -MATE_ZONE:
        return v - ply
    return v


def _from_tt(v, ply):  # type: ignore[no-untyped-def]
    if v > MATE_ZONE:
        return v - ply
    if v < -MATE_ZONE:
        return v + ply
    return v


def _decided(res, ply):  # type: ignore[no-untyped-def]
    if res == 0:
        return 0.0
    return res * (WIN_SCORE - ply)


def _rand(rng):  # type: ignore[no-untyped-def]
    """xorshift64*: a tiny, fully reproducible RNG whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    rng[0] = x
    return (x * 2685821657736338717) >> 1 & 0x7FFFFFFFFFFFFFFF


def _minimax(state, params, depth, ply, moves, tt, ttf, ctx):  # type: ignore[no-untyped-def]
    ctx[C_NODES] += 1
    res = outcome(state)  # noqa: F821
    if res != ONGOING:
        return _decided(res, ply)
    if depth == 0:
        return _leaf(state, params, ctx)
    h = position_hash(state)  # noqa: F821
    slot = h & (tt.shape[0] - 1)
    if tt[slot, TT_KEY] == h and tt[slot, TT_INFO] == depth:
        return _from_tt(ttf[slot, TT_VALUE], ply)
    n = gen_moves(state, moves, ply)  # noqa: F821
    best = -INF
    for i in range(n):
        make_move(state, moves[ply, i])  # noqa: F821
        v = -_minimax(state, params, depth - 1, ply + 1, moves, tt, ttf, ctx)
        unmake_move(state, moves[ply, i])  # noqa: F821
        if v > best:
            best = v
    tt[slot, TT_KEY] = h
    ttf[slot, TT_VALUE] = _to_tt(best, ply)
    tt[slot, TT_INFO] = depth
    return best


def _leaf(state, params, ctx):  # type: ignore[no-untyped-def]
    """The heuristic, scored for the root player (as the seeds' engines do) and
    turned to the side to move's point of view for negamax."""
    v = evaluate(state, params, ctx[C_ROOT])  # noqa: F821
    return v if side_to_move(state) == ctx[C_ROOT] else -v  # noqa: F821


def _history_index(m):  # type: ignore[no-untyped-def]
    return (m ^ (m >> 11) ^ (m >> 22)) & 4095


def _alphabeta(state, params, depth, ply, alpha, beta, moves, scores, tt, ttf, killers, history, ctx):  # type: ignore[no-untyped-def]  # noqa: E501
    ctx[C_NODES] += 1
    if ctx[C_ARMED] != 0:
        if ctx[C_LIMIT] > 0 and ctx[C_NODES] > ctx[C_LIMIT]:
            ctx[C_ABORT] = 1
        elif ctx[C_NODES] & 1023 == 0 and ctx[C_STOP] != 0:
            ctx[C_ABORT] = 1
        if ctx[C_ABORT] != 0:
            return 0.0
    res = outcome(state)  # noqa: F821
    if res != ONGOING:
        return _decided(res, ply)
    if depth <= 0 or ply >= MAX_PLY - 1:
        return _leaf(state, params, ctx)
    h = position_hash(state)  # noqa: F821
    slot = h & (tt.shape[0] - 1)
    tt_move = -1
    if tt[slot, TT_KEY] == h:
        info = tt[slot, TT_INFO]
        tt_move = info >> 10
        if (info >> 2) & 0xFF >= depth:
            v = _from_tt(ttf[slot, TT_VALUE], ply)
            flag = info & 3
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                return v
    # rows of the 2-D buffers are indexed in place: an array view per node
    # would cost two atomic reference-count updates
    n = gen_moves(state, moves, ply)  # noqa: F821
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    for i in range(n):
        m = moves[ply, i]
        if m == tt_move:
            scores[ply, i] = 1 << 62
        elif m == k0:
            scores[ply, i] = 1 << 61
        elif m == k1:
            scores[ply, i] = 1 << 60
        else:
            scores[ply, i] = history[_history_index(m)]
    alpha0 = alpha
    best = -INF
    best_move = moves[ply, 0]
    for i in range(n):
        if i < SORTED_PICKS:  # selection sort for the first picks only: a node that
            j = i             # has not cut off by then visits all moves anyway
            for t in range(i + 1, n):
                if scores[ply, t] > scores[ply, j]:
                    j = t
            if j != i:
                moves[ply, i], moves[ply, j] = moves[ply, j], moves[ply, i]
                scores[ply, i], scores[ply, j] = scores[ply, j], scores[ply, i]
        m = moves[ply, i]
        make_move(state, m)  # noqa: F821
        v = -_alphabeta(state, params, depth - 1, ply + 1, -beta, -alpha, moves, scores,
                        tt, ttf, killers, history, ctx)
        unmake_move(state, m)  # noqa: F821
        if ctx[C_ABORT] != 0:
            return 0.0
        if v > best:
            best = v
            best_move = m
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    if m != k0:
                        killers[ply, 1] = k0
                        killers[ply, 0] = m
                    history[_history_index(m)] += depth * depth
                    break
    flag = EXACT
    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    tt[slot, TT_KEY] = h
    ttf[slot, TT_VALUE] = _to_tt(best, ply)
    tt[slot, TT_INFO] = (best_move << 10) | (min(depth, 255) << 2) | flag
    return best


def _unmanaged_i8(a):  # type: ignore[no-untyped-def]
    return carray(data_pointer(a), a.shape, np.int64)


def _unmanaged_f8(a):  # type: ignore[no-untyped-def]
    return carray(data_pointer(a), a.shape, np.float64)


def _search_root(state, params, algorithm, max_depth, seed, moves, scores, tt, ttf, killers, history, ctx, out):  # type: ignore[no-untyped-def]  # noqa: E501
    """Pick a move. ``out`` receives (move, value, depth reached, moves at root).

    The buffers are re-viewed without reference counts before the recursion:
    numba would otherwise increment and decrement every array argument
    atomically at every node, which cost more than half the search time. The
    caller's arrays stay alive for the whole call, so the views are safe.
    """
    return _search_root_unmanaged(
        _unmanaged_i8(state), _unmanaged_f8(params), algorithm, max_depth, seed,
        _unmanaged_i8(moves), _unmanaged_i8(scores), _unmanaged_i8(tt),
        _unmanaged_f8(ttf), _unmanaged_i8(killers),
        _unmanaged_i8(history), _unmanaged_i8(ctx), out,
    )


def _search_root_unmanaged(state, params, algorithm, max_depth, seed, moves, scores, tt, ttf, killers, history, ctx, out):  # type: ignore[no-untyped-def]  # noqa: E501
    # Recursive calls must see exactly one signature: a literal ``1`` here would
    # compile a second (Literal[int]) variant, and numba's on-disk cache crashes
    # on reload when a recursive function has mismatched variants (numba #6713).
    child_ply = np.int64(1)
    rng = np.empty(1, dtype=np.int64)
    rng[0] = seed * 2 + 1
    for _ in range(4):
        _rand(rng)
    n = gen_moves(state, moves, 0)  # noqa: F821
    root = moves[0, :n].copy()  # row 0 is never used below the root
    out[3] = n
    # seeded shuffle: ties go to the earliest move in this order
    for i in range(n - 1, 0, -1):
        j = _rand(rng) % (i + 1)
        root[i], root[j] = root[j], root[i]
    ctx[C_ABORT] = 0
    ctx[C_ARMED] = 0
    ctx[C_ROOT] = side_to_move(state)  # noqa: F821
    if n == 0:
        out[0], out[1], out[2] = -1, 0.0, 0
        return
    if algorithm == 2 or (n == 1 and algorithm == 1):  # random mover, or a forced move
        out[0], out[1], out[2] = root[0], 0.0, 0
        return
    if algorithm == 0:
        values = np.empty(n, dtype=np.float64)
        best = -INF
        for i in range(n):
            make_move(state, root[i])  # noqa: F821
            values[i] = -_minimax(state, params, max_depth - 1, child_ply, moves, tt, ttf, ctx)
            unmake_move(state, root[i])  # noqa: F821
            if values[i] > best:
                best = values[i]
        ties = 0
        for i in range(n):
            if values[i] == best:
                ties += 1
        pick = _rand(rng) % ties
        for i in range(n):
            if values[i] == best:
                if pick == 0:
                    out[0], out[1], out[2] = root[i], best, max_depth
                    return
                pick -= 1
    best_move = root[0]
    best_value = 0.0
    reached = 0
    for depth in range(1, max_depth + 1):
        alpha = -INF
        best = -INF
        bi = 0
        for i in range(n):
            make_move(state, root[i])  # noqa: F821
            v = -_alphabeta(state, params, depth - 1, child_ply, -INF, -alpha, moves, scores,
                            tt, ttf, killers, history, ctx)
            unmake_move(state, root[i])  # noqa: F821
            if ctx[C_ABORT] != 0:
                break
            if v > best:
                best = v
                bi = i
                if v > alpha:
                    alpha = v
        if ctx[C_ABORT] != 0:
            break
        best_move = root[bi]
        best_value = best
        reached = depth
        m = root[bi]  # best move first in the next iteration, the rest keep their order
        for i in range(bi, 0, -1):
            root[i] = root[i - 1]
        root[0] = m
        ctx[C_ARMED] = 1  # budgets apply once one full iteration has produced a move
        if best > MATE_ZONE or best < -MATE_ZONE:
            break  # decided: iterative deepening already found the shortest line
    out[0], out[1], out[2] = best_move, best_value, reached


_TEMPLATES = [
    _to_tt, _from_tt, _decided, _rand, _leaf, _history_index, _minimax, _alphabeta,
    _unmanaged_i8, _unmanaged_f8, _search_root_unmanaged, _search_root,
]

ALGORITHMS = ("minimax", "alphabeta", "random")


@dataclass(frozen=True)
class SearchResult:
    """What one call of :meth:`Searcher.search` found."""

    move: int
    value: float
    depth: int
    nodes: int
    seconds: float
    legal_moves: int


class Searcher:
    """A search specialised for one game and heuristic, with its own buffers and table.

    Not thread-safe: use one per thread (buffers are reused between calls).
    """

    def __init__(self, kernel: GameKernel, heuristic: Heuristic, tt_bits: int = 16) -> None:
        self.kernel = kernel
        self.heuristic = heuristic
        bindings = {
            "gen_moves": kernel.gen_moves,
            "make_move": kernel.make_move,
            "unmake_move": kernel.unmake_move,
            "outcome": kernel.outcome,
            "position_hash": kernel.position_hash,
            "side_to_move": kernel.side_to_move,
            "evaluate": heuristic.evaluate,
        }
        self._fn = specialise(_TEMPLATES, bindings, f"{kernel.name}_{heuristic.name}")["_search_root"]
        self.tt = np.zeros((1 << tt_bits, 4), dtype=np.int64)
        self.ttf = self.tt.view(np.float64)
        self.moves = np.empty((MAX_PLY + 1, kernel.max_moves), dtype=np.int64)
        self.scores = np.empty((MAX_PLY + 1, kernel.max_moves), dtype=np.int64)
        self.killers = np.full((MAX_PLY + 1, 2), -1, dtype=np.int64)
        self.history = np.zeros(4096, dtype=np.int64)
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)
        self._out = np.zeros(4, dtype=np.float64)

    def clear(self) -> None:
        """Forget everything learnt (call between games for reproducible matches)."""
        self.tt[:] = 0
        self.killers[:] = -1
        self.history[:] = 0

    def search(
        self,
        state: np.ndarray,
        params: np.ndarray,
        *,
        algorithm: str = "alphabeta",
        depth: int = 64,
        nodes: int = 0,
        time_ms: int = 0,
        seed: int = 0,
    ) -> SearchResult:
        """Search ``state`` (left unchanged) and return the chosen move.

        The transposition table is kept between calls (call :meth:`clear`
        between games); killers and history are aged by halving.
        """
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        # the search re-views these buffers by raw pointer: they must be what it assumes
        for name, arr, dtype in (("state", state, np.int64), ("params", params, np.float64)):
            if arr.dtype != dtype or arr.ndim != 1 or not arr.flags.c_contiguous:
                raise ValueError(f"{name} must be a contiguous 1-D {np.dtype(dtype)} array")
        depth = max(1, min(int(depth), MAX_PLY - 2))
        self.ctx[:] = 0
        self.ctx[C_LIMIT] = nodes
        self.history >>= 1
        timer = None
        if time_ms > 0:
            timer = threading.Timer(time_ms / 1000.0, self._stop)
            timer.daemon = True
            timer.start()
        t0 = time.perf_counter()
        try:
            self._fn(
                state, params, ALGORITHMS.index(algorithm), depth, seed & 0x3FFFFFFFFFFFFFFF,
                self.moves, self.scores, self.tt, self.ttf,
                self.killers, self.history, self.ctx, self._out,
            )
        finally:
            if timer is not None:
                timer.cancel()
        seconds = time.perf_counter() - t0
        return SearchResult(
            move=int(self._out[0]),
            value=float(self._out[1]),
            depth=int(self._out[2]),
            nodes=int(self.ctx[C_NODES]),
            seconds=seconds,
            legal_moves=int(self._out[3]),
        )

    def _stop(self) -> None:
        self.ctx[C_STOP] = 1
