"""Nine Men's Morris heuristics.

``seed``
    The seed's ``HeuristicWeights(stones=1, stash=1, mills=4, possible_mills=2)``
    with its normalisation: each side scores ``stones*board + stash*stash +
    mills*closed_mills + possible_mills*lines_with_two_own_and_one_empty``; the
    difference is divided by ``9*max(stones, stash) + 4*mills +
    8*possible_mills + 1`` so that it stays inside (-1, 1).
``phased``
    Keeps the seed features and adds what strong Morris programs weigh
    (blocked stones, mobility, open mills that can close next move, double
    mills that close on every move), with separate weights for the placing
    and the moving phase. Its defaults are the seed's weights in both phases
    and zero for the new features, so by default it plays exactly like
    ``seed`` (the two differ only by a positive constant factor).
"""

from __future__ import annotations

import sys

from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.games.bits import lsb, popcount
from heurtune.games.morris import ADJ, BB, FULL, MILLS, POINT_MILLS, STASH, mill_counts


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_seed(state, params, player):
    w_stones, w_stash, w_mills, w_pairs = params[0], params[1], params[2], params[3]
    white, black = state[BB], state[BB + 1]
    wm, wp = mill_counts(white, black)
    bm, bp = mill_counts(black, white)
    w = w_stones * popcount(white) + w_stash * state[STASH] + w_mills * wm + w_pairs * wp
    b = w_stones * popcount(black) + w_stash * state[STASH + 1] + w_mills * bm + w_pairs * bp
    maximum = 9.0 * max(w_stones, w_stash) + 4.0 * w_mills + 8.0 * w_pairs
    score = (w - b) / (maximum + 1.0)
    return score if player == 0 else -score


SEED_SPACE = ParamSpace(
    "seed",
    (
        FloatParam("stones", 0.0, 10.0, 1.0, help="per stone on the board"),
        FloatParam("stash", 0.0, 10.0, 1.0, help="per stone still to place"),
        FloatParam("mills", 0.0, 10.0, 4.0, help="per closed mill"),
        FloatParam("possible_mills", 0.0, 10.0, 2.0,
                   help="per line with two own stones, one empty"),
    ),
)


@njit(cache=True, nogil=True, error_model="numpy")
def _side_features(own, opp, empty):
    """(closed mills, two-stone lines, blocked stones, mobility, open mills, double mills)."""
    closed, pairs = mill_counts(own, opp)
    blocked = 0
    mobility = 0
    src = own
    while src:
        p = lsb(src)
        src &= src - 1
        k = popcount(ADJ[p] & empty)
        mobility += k
        if k == 0:
            blocked += 1
    open_mills = 0
    for m in MILLS:
        if popcount(own & m) == 2 and opp & m == 0:
            q = lsb(m & empty)
            if ADJ[q] & own & ~m:
                open_mills += 1
    double = 0
    in_mills = 0
    for m in MILLS:
        if own & m == m:
            in_mills |= m
    src = in_mills
    while src:
        p = lsb(src)
        src &= src - 1
        dst = ADJ[p] & empty
        found = False
        while dst and not found:
            q = lsb(dst)
            dst &= dst - 1
            after = (own & ~(1 << p)) | (1 << q)
            for j in range(2):
                m = MILLS[POINT_MILLS[q, j]]
                if after & m == m:
                    found = True
        if found:
            double += 1
    return closed, pairs, blocked, mobility, open_mills, double


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_phased(state, params, player):
    s = player
    own, opp = state[BB + s], state[BB + 1 - s]
    empty = FULL & ~(own | opp)
    oc, op, ob, om, oo, od = _side_features(own, opp, empty)
    xc, xp, xb, xm, xo, xd = _side_features(opp, own, empty)
    stones = popcount(own) - popcount(opp)
    if state[STASH] + state[STASH + 1] > 0:
        return (
            params[0] * stones
            + params[1] * (state[STASH + s] - state[STASH + 1 - s])
            + params[2] * (oc - xc)
            + params[3] * (op - xp)
            + params[4] * (xb - ob)
            + params[5] * (om - xm)
        )
    return (
        params[6] * stones
        + params[7] * (oc - xc)
        + params[8] * (op - xp)
        + params[9] * (oo - xo)
        + params[10] * (od - xd)
        + params[11] * (xb - ob)
        + params[12] * (om - xm)
    )


PHASED_SPACE = ParamSpace(
    "phased",
    (
        FloatParam("place_stones", 0.0, 10.0, 1.0, help="placing: per stone on the board"),
        FloatParam("place_stash", 0.0, 10.0, 1.0, help="placing: per stone still to place"),
        FloatParam("place_mills", 0.0, 10.0, 4.0, help="placing: per closed mill"),
        FloatParam("place_possible_mills", 0.0, 10.0, 2.0, help="placing: two own + one empty"),
        FloatParam("place_blocked", 0.0, 10.0, 0.0, help="placing: per blocked opponent stone"),
        FloatParam("place_mobility", 0.0, 5.0, 0.0, help="placing: per free adjacent point"),
        FloatParam("move_stones", 0.0, 10.0, 1.0, help="moving: per stone on the board"),
        FloatParam("move_mills", 0.0, 10.0, 4.0, help="moving: per closed mill"),
        FloatParam("move_possible_mills", 0.0, 10.0, 2.0, help="moving: two own + one empty"),
        FloatParam("move_open_mills", 0.0, 10.0, 0.0, help="moving: mills that close next move"),
        FloatParam("move_double_mills", 0.0, 10.0, 0.0, help="moving: mill stones that reclose"),
        FloatParam("move_blocked", 0.0, 10.0, 0.0, help="moving: per blocked opponent stone"),
        FloatParam("move_mobility", 0.0, 5.0, 0.0, help="moving: per free adjacent point"),
    ),
)

_MODULE = sys.modules[__name__]

HEURISTICS = (
    Heuristic(
        "morris", "seed", "the seed's HeuristicWeights, normalised", SEED_SPACE, evaluate_seed,
        _MODULE,
    ),
    Heuristic(
        "morris", "phased", "seed features plus mobility, blocked, open and double mills, "
        "weighted per phase", PHASED_SPACE, evaluate_phased, _MODULE,
    ),
)

# `heurtune bench morris`: heuristic, depth and how far into the game positions go.
BENCH = {"heuristic": "seed", "depth": 7, "max_plies": 40}

# Built-in engine configurations, addressed as ``morris:NAME``.
PRESETS = {
    "seed": {
        "heuristic": "seed",
        "search": {"algorithm": "minimax", "depth": 3},
        "description": "the seed's Minimax(limit=2): negamax 3 plies deep, seed weights",
    },
    "seed-ab": {
        "heuristic": "seed",
        "search": {"algorithm": "alphabeta", "depth": 3, "root_ties": "random"},
        "description": "alpha-beta at the seed's depth with the seed weights, drawing among "
                       "equal moves as the seed does (same play, faster)",
    },
    "ab": {
        "heuristic": "seed",
        "search": {"algorithm": "alphabeta", "depth": 64, "nodes": 20000},
        "description": "iterative-deepening alpha-beta, 20k nodes per move, seed weights",
    },
    "phased": {
        "heuristic": "phased",
        "search": {"algorithm": "alphabeta", "depth": 64, "nodes": 20000},
        "description": "iterative-deepening alpha-beta, 20k nodes per move, phased defaults",
    },
}

# Search settings measured on the bench positions (docs/benchmarks.md): Morris
# needs its table (2.8 times the nodes without it) and ordered leaf parents.
SEARCH_DEFAULTS = {"tt_bits": 16, "table": True, "tt_min_depth": 0, "leaf_order": "full"}
