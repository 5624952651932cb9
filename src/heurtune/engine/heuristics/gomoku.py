"""Gomoku heuristics: the seed's ``HeuristicScore`` and the agent built on it.

The seed scores an empty point by the four lines through it. A *line* is the 8
points around the centre point, 4 on each side (``a[0..3]`` from the far end up
to the centre, ``a[4..7]`` from the centre outwards); the centre itself is not
part of it. For the stones of one side (``fof``, friend or foe):

``f_range``
    the adversary-free range: the longest run of ``a`` around the centre that
    holds no opponent stone and no point off the board.
``cscore``
    ``(mag, mul)``: over the windows of the free range, the largest number of
    own stones in a window and how many windows reach it, ``mul`` capped at
    ``cap`` (2). The windows are the seed's, reproduced from its printed
    values: a range of ``L`` points has ``L - 3`` windows (the number of 5-point
    windows through the centre when the centre is counted), but window ``i``
    is the slice ``range[i:i + 5]`` of the range *without* the centre, so it
    spans five range points (the last one only the four that remain) and may
    not contain the centre at all. A range shorter than 4 has no window (no
    five fits) and scores 0.
``score``
    ``mul ** (1 / kappa1) * mag``.
``total_score``
    ``(sum of score ** kappa0 over the 4 lines) ** (1 / kappa0)``.

With kappa0 = 1.6, kappa1 = 5 these reproduce every value the seed prints (the
tests hold them as test vectors). A point off the board ends a range like an
opponent stone.

``heuristic_score`` is the seed's agent as its notebooks use the score, written
as an evaluation of the move just played for a depth-1 search (preset
``gomoku:seed``): a move that makes five wins (the search sees the result), a
move that takes the point where the opponent would make five is forced, a point
whose offensive score (own stones) reaches the tactical threshold is played
next, then one whose defensive score (the opponent's stones) reaches it; else
the largest ``offence + defence * defensive score``. The threshold's default is
the seed's example of two crossing open threes (``total_score`` 3.3185...), the
score at which "things get tough". Equal scores are broken by the search's
seeded shuffle.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, IntParam, ParamSpace
from heurtune.games.gomoku import HIST, PLY, R_WIDTH, cell_index, makes_five

# tiers of heuristic_score, far above any line score (a total over four lines
# with mag <= 5 and mul <= 5 stays below 40)
TIER_FORCED, TIER_ATTACK, TIER_DEFEND = 3000.0, 2000.0, 1000.0


@njit(cache=True, nogil=True, error_model="numpy")
def free_range(line, own):  # type: ignore[no-untyped-def]
    """The seed's ``f_range``: ``(lo, hi)`` such that ``line[lo:hi]`` is the
    adversary-free range around the centre (cells other than ``own`` and empty
    end it)."""
    lo = 4
    while lo > 0 and (line[lo - 1] == 0 or line[lo - 1] == own):
        lo -= 1
    hi = 4
    while hi < 8 and (line[hi] == 0 or line[hi] == own):
        hi += 1
    return lo, hi


@njit(cache=True, nogil=True, error_model="numpy")
def cscore(line, own, cap):  # type: ignore[no-untyped-def]
    """The seed's ``cscore``: ``(mag, mul)`` over the free range's windows
    (module docstring: ``L - 3`` windows, window ``i`` the slice ``[i:i + 5]``)."""
    lo, hi = free_range(line, own)
    mag = 0
    mul = 0
    for i in range(hi - lo - 3):
        k = 0
        for j in range(lo + i, min(lo + i + 5, hi)):
            if line[j] == own:
                k += 1
        if k > mag:
            mag = k
            mul = 1
        elif k == mag:
            mul += 1
    return mag, min(mul, cap)


@njit(cache=True, nogil=True, error_model="numpy")
def line_score(line, own, kappa1, cap):  # type: ignore[no-untyped-def]
    """The seed's ``score`` of an 8-point line for stones ``own``."""
    mag, mul = cscore(line, own, cap)
    if mag == 0:
        return 0.0
    return mul ** (1.0 / kappa1) * mag


@njit(cache=True, nogil=True, error_model="numpy")
def total_score(scores, kappa0):  # type: ignore[no-untyped-def]
    """The seed's ``total_score`` of a point from its lines' scores."""
    t = 0.0
    for s in scores:
        t += s**kappa0
    return t ** (1.0 / kappa0)


@njit(cache=True, nogil=True, error_model="numpy")
def point_score(state, idx, own, kappa0, kappa1, cap):  # type: ignore[no-untyped-def]
    """``total_score`` of grid cell ``idx`` for stones ``own`` over its 4 lines."""
    width = state[R_WIDTH]
    line = np.empty(8, dtype=np.int64)
    scores = np.empty(4, dtype=np.float64)
    d = 0
    for step in (1, width, width + 1, width - 1):
        for k in range(4):
            line[3 - k] = state[idx - (k + 1) * step]
            line[4 + k] = state[idx + (k + 1) * step]
        scores[d] = line_score(line, own, kappa1, cap)
        d += 1
    return total_score(scores, kappa0)


SEED_SPACE = ParamSpace(
    "heuristic_score",
    (
        FloatParam("kappa0", 1.0, 4.0, 1.6, help="exponent of the sum over a point's 4 lines"),
        FloatParam("kappa1", 1.0, 20.0, 5.0, help="root taken of the number of best windows"),
        IntParam("cap", 1, 5, 2, help="cap on the number of best windows"),
        FloatParam("defence", 0.0, 3.0, 1.0, help="weight of the defensive score"),
        FloatParam("threshold", 2.0, 6.0, 3.3185059187118733,
                   help="score that marks a must-play point (two crossing open threes)"),
    ),
)
# parameter positions, checked against the space below
KAPPA0, KAPPA1, CAP, DEFENCE, THRESHOLD = range(5)
assert SEED_SPACE.names == ["kappa0", "kappa1", "cap", "defence", "threshold"]


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_heuristic_score(state, params, player):  # type: ignore[no-untyped-def]
    """The seed agent's value of the move just played, for ``player`` who played it."""
    ply = state[PLY]
    if ply == 0:
        return 0.0
    move = state[state[HIST] + ply - 1]
    idx = cell_index(state, move)
    own = 1 + player
    opp = 2 - player
    if makes_five(state, idx, opp):
        return TIER_FORCED
    k0, k1, cap = params[KAPPA0], params[KAPPA1], np.int64(params[CAP])
    off = point_score(state, idx, own, k0, k1, cap)
    dfn = point_score(state, idx, opp, k0, k1, cap)
    if off >= params[THRESHOLD]:
        return TIER_ATTACK + off
    if dfn >= params[THRESHOLD]:
        return TIER_DEFEND + dfn
    return off + params[DEFENCE] * dfn


_MODULE = sys.modules[__name__]

HEURISTICS = (
    Heuristic("gomoku", "heuristic_score",
              "the seed's HeuristicScore agent: offence / defence line scores of the move played",
              SEED_SPACE, evaluate_heuristic_score, _MODULE),
)

# `heurtune bench gomoku`
BENCH = {"heuristic": "heuristic_score", "depth": 2, "max_plies": 20}

PRESETS = {
    "random": {"heuristic": "heuristic_score", "search": {"algorithm": "random"},
               "description": "a uniformly random legal move"},
    "seed": {"heuristic": "heuristic_score", "search": {"algorithm": "alphabeta", "depth": 1},
             "description": "the seed's HeuristicScore agent (kappa0 1.6, kappa1 5, cap 2): "
                            "the best point by its line scores"},
}
