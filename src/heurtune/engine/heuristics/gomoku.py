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

``threats`` is the board evaluation for the search, built from the same line
scores: every line through every empty point has a class (the seed's
``cscore``, kept up to date by the kernel), and a side's sum is

    sum over empty points p, lines l through p:  weight[mag] * open? * score(l) ** kappa0

where ``score`` is the seed's ``mul ** (1 / kappa1) * mag`` (mul capped at
``cap``), ``weight[mag]`` the searchable ``one`` / ``two`` / ``three`` /
``four`` and ``open`` a factor for threes and fours that two windows reach
(open ones). With every weight 1 a side's sum is the seed's ``total_score **
kappa0`` summed over the empty points: the seed's score as a point of the
family. The defaults weight threats far above single stones (all weights 1
lets the hundreds of one-stone lines drown the threes and fours: it scored
0.125 against ``gomoku:seed`` over 20 pairs, the defaults 0.725). The
position's value is ``to_move * own sum - waiting * other sum`` seen from
the side to move (the side to move has the tempo), for the root player. The
class histogram makes this 80 multiply-adds per leaf; the ``prepare``
hook turns the weights into the table of class values once per engine.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, IntParam, ParamSpace
from heurtune.games.base import PLY, STM
from heurtune.games.gomoku import (
    HIST,
    MAG_SHIFT,
    NCLASS,
    R_HISTO,
    R_WIDTH,
    cell_index,
    cscore,
    makes_five,
)
from heurtune.games.gomoku import free_range as free_range  # re-exported for the tests

# tiers of heuristic_score, far above any line score (a total over four lines
# with mag <= 5 and mul <= 5 stays below 40)
TIER_FORCED, TIER_ATTACK, TIER_DEFEND = 3000.0, 2000.0, 1000.0


@njit(cache=True, nogil=True, error_model="numpy")
def line_score(line, own, kappa1, cap):
    """The seed's ``score`` of an 8-point line for stones ``own``."""
    mag, mul = cscore(line, own, cap)
    if mag == 0:
        return 0.0
    return mul ** (1.0 / kappa1) * mag


@njit(cache=True, nogil=True, error_model="numpy")
def total_score(scores, kappa0):
    """The seed's ``total_score`` of a point from its lines' scores."""
    t = 0.0
    for s in scores:
        t += s**kappa0
    return t ** (1.0 / kappa0)


@njit(cache=True, nogil=True, error_model="numpy")
def point_score(state, idx, own, kappa0, kappa1, cap):
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


# the seed's example of two crossing open threes, "where things get tough"
SEED_CROSSING_LINES = ((0, 0, 1, 0, 1, 0, 0, 2), (1, 1, 0, 0, 0, 2, 0, 2))


def crossing_threes_score(kappa0: float, kappa1: float, cap: int) -> float:
    """``total_score`` of the seed's two crossing open threes under these kappas:
    the seed's tactical threshold (3.3185059187118733 at 1.6, 5, 2)."""
    lines = [np.array(line, dtype=np.int64) for line in SEED_CROSSING_LINES]
    scores = np.array([line_score(line, 1, kappa1, np.int64(cap)) for line in lines]
                      + [0.0, 0.0])
    return float(total_score(scores, kappa0))


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
def evaluate_heuristic_score(state, params, player):
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


THREATS_SPACE = ParamSpace(
    "threats",
    (
        FloatParam("kappa0", 1.0, 3.0, 1.6, help="exponent of a line's score (the seed's kappa0)"),
        FloatParam("kappa1", 1.0, 20.0, 5.0, help="root taken of the number of best windows"),
        IntParam("cap", 1, 5, 2, help="cap on the number of best windows"),
        FloatParam("one", 0.0, 4.0, 0.0, help="weight of lines with one stone in a window"),
        FloatParam("two", 0.0, 4.0, 0.2, help="weight of lines with two"),
        FloatParam("three", 0.0, 8.0, 2.0, help="weight of lines with three"),
        FloatParam("four", 0.0, 16.0, 8.0,
                   help="weight of lines with four (a five threat) or more"),
        FloatParam("open", 0.25, 8.0, 4.0,
                   help="factor for threes and fours that two or more windows reach"),
        FloatParam("to_move", 0.25, 4.0, 1.0, help="weight of the side to move's sum"),
        FloatParam("waiting", 0.25, 4.0, 1.0, help="weight of the other side's sum"),
    ),
)
T_KAPPA0, T_KAPPA1, T_CAP, T_ONE, T_TWO, T_THREE, T_FOUR, T_OPEN, T_TO_MOVE, T_WAITING = range(10)
assert THREATS_SPACE.names == ["kappa0", "kappa1", "cap", "one", "two", "three", "four", "open",
                               "to_move", "waiting"]
T_TABLE = len(THREATS_SPACE.names)  # the class values follow the weights
# a leaf's value stays far inside the search's win scores, whatever the weights
THREATS_LIMIT = 1.0e8


def threats_class_values(params: np.ndarray) -> np.ndarray:
    """The value of one line of each class (``mag * 8 + mul``) for these weights."""
    kappa0, kappa1, cap = params[T_KAPPA0], params[T_KAPPA1], int(params[T_CAP])
    per_mag = (0.0, params[T_ONE], params[T_TWO], params[T_THREE], params[T_FOUR], params[T_FOUR])
    out = np.zeros(NCLASS, dtype=np.float64)
    for c in range(NCLASS):
        mag, mul = c >> MAG_SHIFT, c & ((1 << MAG_SHIFT) - 1)
        if mag == 0 or mul == 0:
            continue
        value = (min(mul, cap) ** (1.0 / kappa1) * mag) ** kappa0 * per_mag[mag]
        if mag >= 3 and mul >= 2:
            value *= params[T_OPEN]
        out[c] = value
    return out


def prepare_threats(params: np.ndarray) -> np.ndarray:
    """The weights followed by the class values (the ``prepare`` hook)."""
    return np.concatenate([params, threats_class_values(params)])


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_threats(state, params, player):
    """``to_move * S(side to move) - waiting * S(other)`` for ``player``, where S
    sums the class values of a side's lines over the kernel's histogram."""
    stm = state[STM]
    h = state[R_HISTO]
    mine = h + stm * NCLASS
    other = h + (1 - stm) * NCLASS
    s_mine = 0.0
    s_other = 0.0
    for c in range(1 << MAG_SHIFT, NCLASS):
        t = params[T_TABLE + c]
        s_mine += t * state[mine + c]
        s_other += t * state[other + c]
    v = params[T_TO_MOVE] * s_mine - params[T_WAITING] * s_other
    v = min(max(v, -THREATS_LIMIT), THREATS_LIMIT)
    return v if player == stm else -v


_MODULE = sys.modules[__name__]

HEURISTICS = (
    Heuristic("gomoku", "heuristic_score",
              "the seed's HeuristicScore agent: offence / defence line scores of the move played",
              SEED_SPACE, evaluate_heuristic_score, _MODULE),
    Heuristic("gomoku", "threats",
              "board evaluation from the seed's line scores: weighted line classes of both sides",
              THREATS_SPACE, evaluate_threats, _MODULE, prepare=prepare_threats),
)

# `heurtune bench gomoku`
BENCH = {"heuristic": "threats", "depth": 4, "max_plies": 20}
# the search visits the kernel's candidate moves (wins, forced blocks, points near stones)
SEARCH_DEFAULTS = {"tt_bits": 16, "table": True, "tt_min_depth": 0, "leaf_order": "full",
                   "candidates": True}

AB_NODES = 4000  # gomoku:ab's node budget per move

PRESETS = {
    "random": {"heuristic": "heuristic_score", "search": {"algorithm": "random"},
               "description": "a uniformly random legal move"},
    "seed": {"heuristic": "heuristic_score",
             "search": {"algorithm": "alphabeta", "depth": 1, "candidates": False},
             "description": "the seed's HeuristicScore agent (kappa0 1.6, kappa1 5, cap 2): "
                            "the best point by its line scores, over every empty point"},
    "ab": {"heuristic": "threats",
           "search": {"algorithm": "alphabeta", "nodes": AB_NODES},
           "description": f"alpha-beta over candidate moves with the threats evaluation's "
                          f"defaults, {AB_NODES:,} nodes per move"},
}
