"""The search: written once, specialised per (game, heuristic) by numba.

Two algorithms share this module:

``minimax``
    The seed's engine: depth-limited negamax with a memo keyed on (position,
    remaining depth). All root moves get exact values; ties are broken by a
    seeded RNG.
``alphabeta``
    Iterative deepening, a transposition table with bounds, move ordering
    (table move, killers, history), limited by depth, a node budget or a time
    limit. Root moves are shuffled by a seeded RNG first. Among root moves of
    equal value it plays, as ``root_ties`` says, the first in its root order
    (``first``: iterative deepening puts each iteration's best move first, so
    this prefers the shallower iterations' choice) or one drawn by the seeded
    RNG among all of them (``random``: the root searches each move with a
    window opening just below the best value so far, so equal values are
    exact, and the draw is minimax's: the same seed picks the same move from
    the same tied set).

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba.np.numpy_support import carray

from heurtune.engine.heuristic import Heuristic
from heurtune.games.base import ONGOING, GameKernel
from heurtune.games.bits import address, at_address
from heurtune.games.specialise import specialise

WIN_SCORE = 1.0e9
MAX_PLY = 128
MATE_ZONE = WIN_SCORE - 10 * MAX_PLY
INF = 1.0e18

EXACT, LOWER, UPPER = 0, 1, 2
# A table entry is one 32-byte row: key, info, value (read through a float64
# view of the same memory), padding. One probe touches one cache line.
TT_KEY, TT_INFO, TT_VALUE = 0, 1, 2
# info packs the best move, the depth searched and the bound of the value
INFO_MOVE_SHIFT, INFO_DEPTH_SHIFT, INFO_DEPTH_MASK, INFO_BOUND_MASK = 10, 2, 0xFF, 3
SORTED_PICKS = 4
HISTORY_SIZE = 4096
# move-ordering keys: table move, first and second killer, then history
KEY_TT, KEY_KILLER0, KEY_KILLER1 = 1 << 62, 1 << 61, 1 << 60
# how nodes whose children are leaves order their moves: not at all, table move
# and killers first, or like every other node (selection sort by key)
ORDER_NONE, ORDER_KILLERS, ORDER_FULL = 0, 1, 2
LEAF_ORDERS = ("none", "killers", "full")  # indexed by the ORDER_* codes
# a table that is never probed: ``table = false`` sets the minimum depth this high
NO_TABLE_DEPTH = 1 << 30

ALGO_MINIMAX, ALGO_ALPHABETA, ALGO_RANDOM = 0, 1, 2
ALGORITHMS = ("minimax", "alphabeta", "random")  # indexed by the ALGO_* codes
# how alpha-beta picks among root moves of equal value (minimax always draws)
TIES_FIRST, TIES_RANDOM = 0, 1
ROOT_TIES = ("first", "random")  # indexed by the TIES_* codes

# The search context: one int64 array that the recursion reaches through its
# address. The first slots are shared with Python (a timer thread may set
# C_STOP); the rest are the addresses and sizes of the buffers and the search
# settings, written by Searcher.search before each call.
C_NODES, C_LIMIT, C_STOP, C_ABORT, C_ARMED, C_ROOT = 0, 1, 2, 3, 4, 5
C_STATE, C_STATE_LEN, C_PARAMS, C_PARAMS_LEN = 6, 7, 8, 9
C_TT, C_TT_SIZE, C_TT_MIN_DEPTH, C_LEAF_ORDER = 10, 11, 12, 13
C_MOVES, C_SCORES, C_KILLERS, C_HISTORY = 14, 15, 16, 17
C_CANDIDATES = 18  # 1: search the kernel's candidate moves instead of all legal moves
C_ROOT_TIES = 19  # a TIES_* code
CTX_SIZE = 20
# ordering keys: the kernel's move_key (below 2^24) above history counts (below 2^32)
MOVE_KEY_SHIFT = 32

# Bound per specialisation (``MAX_MOVES``: the kernel's bound on legal moves,
# the row length of the move buffers). Any to mypy: numba dispatchers once bound.
gen_moves: Any = None
gen_candidates: Any = None
move_key: Any = None
make_move: Any = None
unmake_move: Any = None
outcome: Any = None
position_hash: Any = None
side_to_move: Any = None
evaluate: Any = None
MAX_MOVES = 0


def _to_tt(v, ply):
    """Make a mate score relative to the node (table entries are shared across plies)."""
    if v > MATE_ZONE:
        return v + ply
    if v < -MATE_ZONE:
        return v - ply
    return v


def _from_tt(v, ply):
    if v > MATE_ZONE:
        return v - ply
    if v < -MATE_ZONE:
        return v + ply
    return v


def _decided(res, ply):
    if res == 0:
        return 0.0
    return res * (WIN_SCORE - ply)


def _rand(rng):
    """xorshift64*: a tiny, fully reproducible RNG whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    rng[0] = x
    return (x * 2685821657736338717) >> 1 & 0x7FFFFFFFFFFFFFFF


# -- views of the context's buffers ---------------------------------------------
# The recursion receives the context's address (one integer) instead of a dozen
# arrays: numba passes every array as a structure of about seven words and
# updates its reference count on each call, which cost more than a third of the
# search time. A view rebuilt from an address has no reference count, and the
# buffers are kept alive by the Searcher that owns them for the whole call.

def _ctx(cp):
    return carray(at_address(cp), CTX_SIZE, np.int64)


def _state(ctx):
    return carray(at_address(ctx[C_STATE]), ctx[C_STATE_LEN], np.int64)


def _params(ctx):
    return carray(at_address(ctx[C_PARAMS]), ctx[C_PARAMS_LEN], np.float64)


def _table(ctx):
    return carray(at_address(ctx[C_TT]), (ctx[C_TT_SIZE], 4), np.int64)


def _table_values(ctx):
    return carray(at_address(ctx[C_TT]), (ctx[C_TT_SIZE], 4), np.float64)


def _move_row(ctx, slot, top):
    """A one-row view of the move (or score) stack from entry ``top`` on.

    Each node writes its moves where its parent's end, so the moves of a whole
    line stay in a few cache lines whatever the kernel's bound on their number
    (a row per ply of MAX_MOVES entries spread them over many pages)."""
    return carray(at_address(ctx[slot] + 8 * top), (1, MAX_MOVES), np.int64)


def _killers(ctx):
    return carray(at_address(ctx[C_KILLERS]), (MAX_PLY + 1, 2), np.int64)


def _history(ctx):
    return carray(at_address(ctx[C_HISTORY]), HISTORY_SIZE, np.int64)


def _history_index(m):
    return (m ^ (m >> 11) ^ (m >> 22)) & (HISTORY_SIZE - 1)


def _to_front(moves, n, front, m):
    """Swap move ``m`` (if present in ``moves[0, front:n]``) to index ``front``;
    return the next free front index."""
    if m < 0:
        return front
    for j in range(front, n):
        if moves[0, j] == m:
            moves[0, j] = moves[0, front]
            moves[0, front] = m
            return front + 1
    return front


def _gen(ctx, state, moves):
    """The moves to search: the kernel's candidates when the setting asks for them."""
    if ctx[C_CANDIDATES] != 0:
        return gen_candidates(state, moves, 0)  # noqa: F821
    return gen_moves(state, moves, 0)  # noqa: F821


def _out_of_budget(ctx):
    """Once armed: stop past the node budget, or (checked every 1,024 nodes) when
    the timer has set C_STOP. Sets C_ABORT, which unwinds the whole search."""
    if ctx[C_LIMIT] > 0 and ctx[C_NODES] > ctx[C_LIMIT]:
        ctx[C_ABORT] = 1
    elif ctx[C_NODES] & 1023 == 0 and ctx[C_STOP] != 0:
        ctx[C_ABORT] = 1
    return ctx[C_ABORT] != 0


def _leaf(state, params, ctx):
    """The heuristic, scored for the root player (as the seeds' engines do) and
    turned to the side to move's point of view for negamax."""
    v = evaluate(state, params, ctx[C_ROOT])  # noqa: F821
    return v if side_to_move(state) == ctx[C_ROOT] else -v  # noqa: F821


def _leaf_child(state, params, ctx, ply):
    """What :func:`_alphabeta` returns at a leaf (remaining depth 0), computed in
    the parent's loop instead of a call: the same node count, budget check,
    result and score."""
    ctx[C_NODES] += 1
    if ctx[C_ARMED] != 0 and _out_of_budget(ctx):
        return 0.0
    res = outcome(state)  # noqa: F821
    if res != ONGOING:
        return _decided(res, ply)
    return _leaf(state, params, ctx)


def _minimax(cp, depth, ply, top):
    """The seed's memoised negamax: every position's exact value to ``depth``.
    The table is its memo (always on, whatever the table settings say)."""
    ctx = _ctx(cp)
    ctx[C_NODES] += 1
    state = _state(ctx)
    res = outcome(state)  # noqa: F821
    if res != ONGOING:
        return _decided(res, ply)
    if depth == 0:
        return _leaf(state, _params(ctx), ctx)
    tt = _table(ctx)
    ttf = _table_values(ctx)
    h = position_hash(state)  # noqa: F821
    slot = h & (ctx[C_TT_SIZE] - 1)
    if tt[slot, TT_KEY] == h and tt[slot, TT_INFO] == depth:
        return _from_tt(ttf[slot, TT_VALUE], ply)
    moves = _move_row(ctx, C_MOVES, top)
    n = _gen(ctx, state, moves)
    best = -INF
    for i in range(n):
        make_move(state, moves[0, i])  # noqa: F821
        v = -_minimax(cp, depth - 1, ply + 1, top + n)
        unmake_move(state, moves[0, i])  # noqa: F821
        if v > best:
            best = v
    tt[slot, TT_KEY] = h
    ttf[slot, TT_VALUE] = _to_tt(best, ply)
    tt[slot, TT_INFO] = depth
    return best


def _alphabeta(cp, depth, ply, alpha, beta, top):
    ctx = _ctx(cp)
    ctx[C_NODES] += 1
    if ctx[C_ARMED] != 0 and _out_of_budget(ctx):
        return 0.0
    state = _state(ctx)
    res = outcome(state)  # noqa: F821
    if res != ONGOING:
        return _decided(res, ply)
    if depth <= 0 or ply >= MAX_PLY - 1:
        return _leaf(state, _params(ctx), ctx)
    use_tt = depth >= ctx[C_TT_MIN_DEPTH]
    tt = _table(ctx)
    ttf = _table_values(ctx)
    h = position_hash(state)  # noqa: F821
    slot = h & (ctx[C_TT_SIZE] - 1)
    tt_move = -1
    if use_tt and tt[slot, TT_KEY] == h:
        info = tt[slot, TT_INFO]
        tt_move = info >> INFO_MOVE_SHIFT
        if (info >> INFO_DEPTH_SHIFT) & INFO_DEPTH_MASK >= depth:
            v = _from_tt(ttf[slot, TT_VALUE], ply)
            flag = info & INFO_BOUND_MASK
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                return v
    moves = _move_row(ctx, C_MOVES, top)
    n = _gen(ctx, state, moves)
    # children at remaining depth 0 are scored in this loop, not by a call
    leaf_kids = depth <= 1 or ply >= MAX_PLY - 2
    order = ctx[C_LEAF_ORDER] if leaf_kids else ORDER_FULL
    sort = order == ORDER_FULL
    scores = _move_row(ctx, C_SCORES, top)
    killers = _killers(ctx)
    history = _history(ctx)
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    if order == ORDER_KILLERS:  # table move, then killers, to the front; no sorting
        front = _to_front(moves, n, 0, tt_move)
        front = _to_front(moves, n, front, k0)
        _to_front(moves, n, front, k1)
    elif sort:
        for i in range(n):
            m = moves[0, i]
            if m == tt_move:
                scores[0, i] = KEY_TT
            elif m == k0:
                scores[0, i] = KEY_KILLER0
            elif m == k1:
                scores[0, i] = KEY_KILLER1
            else:
                scores[0, i] = ((move_key(state, m) << MOVE_KEY_SHIFT)  # noqa: F821
                                + history[_history_index(m)])
    params = _params(ctx)
    alpha0 = alpha
    best = -INF
    best_move = moves[0, 0]
    for i in range(n):
        if sort and i < SORTED_PICKS:  # selection sort for the first picks only:
            j = i                         # a node that has not cut off by then
            for t in range(i + 1, n):     # visits all moves anyway
                if scores[0, t] > scores[0, j]:
                    j = t
            if j != i:
                moves[0, i], moves[0, j] = moves[0, j], moves[0, i]
                scores[0, i], scores[0, j] = scores[0, j], scores[0, i]
        m = moves[0, i]
        make_move(state, m)  # noqa: F821
        if leaf_kids:
            v = -_leaf_child(state, params, ctx, ply + 1)
        else:
            v = -_alphabeta(cp, depth - 1, ply + 1, -beta, -alpha, top + n)
        unmake_move(state, m)  # noqa: F821
        if ctx[C_ABORT] != 0:
            return 0.0
        if v > best:
            best = v
            best_move = m
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    if order != ORDER_NONE:
                        if m != k0:
                            killers[ply, 1] = k0
                            killers[ply, 0] = m
                        history[_history_index(m)] += depth * depth
                    break
    if use_tt:
        flag = EXACT
        if best <= alpha0:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        tt[slot, TT_KEY] = h
        ttf[slot, TT_VALUE] = _to_tt(best, ply)
        tt[slot, TT_INFO] = ((best_move << INFO_MOVE_SHIFT)
                             | (min(depth, INFO_DEPTH_MASK) << INFO_DEPTH_SHIFT) | flag)
    return best


def _search_root(ctx, algorithm, max_depth, seed, out):
    """Pick a move. ``out`` receives (move, value, depth reached, moves at root,
    nodes of the last completed iteration)."""
    cp = address(ctx)
    state = _state(ctx)
    moves = _move_row(ctx, C_MOVES, 0)
    # Recursive calls must see exactly one signature: a literal ``1`` here would
    # compile a second (Literal[int]) variant, and numba's on-disk cache crashes
    # on reload when a recursive function has mismatched variants (numba #6713).
    child_ply = np.int64(1)
    child_top = np.int64(0)  # root moves are copied: children may reuse the stack
    rng = np.empty(1, dtype=np.int64)
    rng[0] = seed * 2 + 1
    for _ in range(4):
        _rand(rng)
    if algorithm == ALGO_RANDOM:
        n = gen_moves(state, moves, 0)  # noqa: F821
    else:
        n = _gen(ctx, state, moves)
    root = moves[0, :n].copy()
    out[3] = n
    out[4] = 0
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
    if algorithm == ALGO_RANDOM or (n == 1 and algorithm == ALGO_ALPHABETA):  # or a forced move
        out[0], out[1], out[2] = root[0], 0.0, 0
        return
    if algorithm == ALGO_MINIMAX:
        values = np.empty(n, dtype=np.float64)
        best = -INF
        for i in range(n):
            make_move(state, root[i])  # noqa: F821
            values[i] = -_minimax(cp, max_depth - 1, child_ply, child_top)
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
                    out[4] = ctx[C_NODES]
                    return
                pick -= 1
    best_move = root[0]
    best_value = 0.0
    reached = 0
    # root_ties = random: the moves of the last completed iteration's best value,
    # marked by their index in the seeded order (``order[i]``: root[i]'s index)
    exact_ties = ctx[C_ROOT_TIES] == TIES_RANDOM
    seeded = root.copy()
    order = np.arange(n)
    values = np.empty(n, dtype=np.float64)
    tied = np.zeros(n, dtype=np.bool_)
    for depth in range(1, max_depth + 1):
        alpha = -INF
        best = -INF
        bi = 0
        n0 = ctx[C_NODES]
        for i in range(n):
            # exact ties: the window opens just below the best so far, so that a
            # move of equal value gets its exact value instead of failing low
            low = np.nextafter(alpha, -INF) if exact_ties else alpha
            make_move(state, root[i])  # noqa: F821
            v = -_alphabeta(cp, depth - 1, child_ply, -INF, -low, child_top)
            unmake_move(state, root[i])  # noqa: F821
            if ctx[C_ABORT] != 0:
                break
            values[i] = v
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
        out[4] = ctx[C_NODES] - n0
        if exact_ties:
            for i in range(n):
                tied[order[i]] = values[i] == best
        m = root[bi]  # best move first in the next iteration, the rest keep their order
        o = order[bi]
        for i in range(bi, 0, -1):
            root[i] = root[i - 1]
            order[i] = order[i - 1]
        root[0] = m
        order[0] = o
        ctx[C_ARMED] = 1  # budgets apply once one full iteration has produced a move
        if best > MATE_ZONE or best < -MATE_ZONE:
            break  # decided: iterative deepening already found the shortest line
    if exact_ties and reached > 0:
        # minimax's draw: one of the tied moves, counted in the seeded order
        ties = 0
        for j in range(n):
            if tied[j]:
                ties += 1
        pick = _rand(rng) % ties
        for j in range(n):
            if tied[j]:
                if pick == 0:
                    best_move = seeded[j]
                    break
                pick -= 1
    out[0], out[1], out[2] = best_move, best_value, reached


_TEMPLATES: list[Callable[..., Any]] = [
    _to_tt, _from_tt, _decided, _rand, _ctx, _state, _params, _table, _table_values, _move_row,
    _killers, _history, _history_index, _to_front, _gen, _out_of_budget, _leaf, _leaf_child,
    _minimax, _alphabeta, _search_root,
]


@dataclass(frozen=True)
class SearchResult:
    """What one call of :meth:`Searcher.search` found.

    ``nodes`` counts every position entered, over all iterations of iterative
    deepening; ``last_iteration_nodes`` those of the deepest completed one.
    """

    move: int
    value: float
    depth: int
    nodes: int
    seconds: float
    legal_moves: int
    last_iteration_nodes: int = 0


class Searcher:
    """A search specialised for one game and heuristic, with its own buffers and table.

    Not thread-safe: use one per thread (buffers are reused between calls).
    """

    def __init__(self, kernel: GameKernel, heuristic: Heuristic, tt_bits: int = 16) -> None:
        self.kernel = kernel
        self.heuristic = heuristic
        bindings = {
            "gen_moves": kernel.gen_moves,
            "gen_candidates": kernel.gen_candidates or kernel.gen_moves,
            "move_key": kernel.move_key,
            "make_move": kernel.make_move,
            "unmake_move": kernel.unmake_move,
            "outcome": kernel.outcome,
            "position_hash": kernel.position_hash,
            "side_to_move": kernel.side_to_move,
            "evaluate": heuristic.evaluate,
            "MAX_MOVES": kernel.max_moves,
        }
        fns = specialise(_TEMPLATES, bindings, f"{kernel.name}_{heuristic.name}")
        self._fn = fns["_search_root"]
        # the evaluator reads its array by position: it must be what Heuristic.to_array builds
        self._params_len = len(heuristic.to_array())
        self.tt = np.zeros((1 << tt_bits, 4), dtype=np.int64)
        self.moves = np.empty((MAX_PLY + 1, kernel.max_moves), dtype=np.int64)
        self.scores = np.empty((MAX_PLY + 1, kernel.max_moves), dtype=np.int64)
        self.killers = np.full((MAX_PLY + 1, 2), -1, dtype=np.int64)
        self.history = np.zeros(HISTORY_SIZE, dtype=np.int64)
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)
        self._out = np.zeros(5, dtype=np.float64)

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
        time_ms: float = 0,
        seed: int = 0,
        table: bool = True,
        tt_min_depth: int = 0,
        leaf_order: str = "full",
        candidates: bool = False,
        root_ties: str = "first",
    ) -> SearchResult:
        """Search ``state`` (left unchanged) and return the chosen move.

        Alpha-beta probes and stores the table at nodes with at least
        ``tt_min_depth`` plies left (none when ``table`` is false), and orders
        the moves of nodes whose children are leaves as ``leaf_order`` says
        (``"full"``: like every node; ``"killers"``: table move and killers
        first, no sorting; ``"none"``: generation order). With ``candidates``
        every node searches the kernel's candidate moves (its
        ``gen_candidates`` hook) instead of all legal moves; the random mover
        always picks among all. ``root_ties`` says which of the root moves of
        equal value alpha-beta plays (``"first"``: the first in its root order;
        ``"random"``: a seeded draw among all of them, as minimax makes; see the
        module). The defaults are the search as it always was; engines use
        their game's measured defaults (:class:`~heurtune.engine.config.SearchSettings`).
        The transposition table is kept between calls (call :meth:`clear`
        between games); killers and history are aged by halving.
        """
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        if leaf_order not in LEAF_ORDERS:
            raise ValueError(f"unknown leaf order {leaf_order!r}")
        if root_ties not in ROOT_TIES:
            raise ValueError(f"unknown root_ties {root_ties!r}")
        # the search reaches these buffers by address: they must be what it assumes
        for name, arr, dtype in (("state", state, np.int64), ("params", params, np.float64)):
            if arr.dtype != dtype or arr.ndim != 1 or not arr.flags.c_contiguous:
                raise ValueError(f"{name} must be a contiguous 1-D {np.dtype(dtype)} array")
        if params.shape[0] != self._params_len:
            raise ValueError(f"params must have {self._params_len} entries (Heuristic.to_array), "
                             f"got {params.shape[0]}")
        depth = max(1, min(int(depth), MAX_PLY - 2))
        ctx = self.ctx
        ctx[:] = 0
        ctx[C_LIMIT] = nodes
        ctx[C_STATE], ctx[C_STATE_LEN] = state.ctypes.data, state.shape[0]
        ctx[C_PARAMS], ctx[C_PARAMS_LEN] = params.ctypes.data, params.shape[0]
        ctx[C_TT], ctx[C_TT_SIZE] = self.tt.ctypes.data, self.tt.shape[0]
        ctx[C_TT_MIN_DEPTH] = max(0, int(tt_min_depth)) if table else NO_TABLE_DEPTH
        ctx[C_LEAF_ORDER] = LEAF_ORDERS.index(leaf_order)
        ctx[C_CANDIDATES] = 1 if candidates else 0
        ctx[C_ROOT_TIES] = ROOT_TIES.index(root_ties)
        ctx[C_MOVES], ctx[C_SCORES] = self.moves.ctypes.data, self.scores.ctypes.data
        ctx[C_KILLERS], ctx[C_HISTORY] = self.killers.ctypes.data, self.history.ctypes.data
        self.history >>= 1
        timer = None
        if time_ms > 0:
            timer = threading.Timer(time_ms / 1000.0, self._stop)
            timer.daemon = True
            timer.start()
        t0 = time.perf_counter()
        try:
            # state and params stay referenced by this frame for the whole call
            self._fn(ctx, ALGORITHMS.index(algorithm), depth, seed & 0x3FFFFFFFFFFFFFFF, self._out)
        finally:
            if timer is not None:
                timer.cancel()
        seconds = time.perf_counter() - t0
        return SearchResult(
            move=int(self._out[0]),
            value=float(self._out[1]),
            depth=int(self._out[2]),
            nodes=int(ctx[C_NODES]),
            seconds=seconds,
            legal_moves=int(self._out[3]),
            last_iteration_nodes=int(self._out[4]),
        )

    def _stop(self) -> None:
        self.ctx[C_STOP] = 1
