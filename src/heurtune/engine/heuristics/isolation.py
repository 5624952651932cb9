"""Isolation heuristics: the seed's scores and a continuous family around them.

Every score is computed for ``player`` (the agent), as the seed's
``score(game, player)`` functions are; ``own``/``opp`` are the numbers of legal
moves of the player and its opponent.

``open``        own moves (the classic ``open_move_score``).
``center``      squared distance of the player from the centre (3.5, 3.5), as
                the classic ``center_score`` computes it (larger is further out).
``improved``    own - opp (AB_Improved).
``custom``      own / opp**2, or own when opp is 0 (AB_Custom).
``custom_2``    1 / opp when own > opp > 0, else own (AB_Custom_2).
``custom_3``    AB_Custom_3 *as printed*: its distance branch tests
                ``len(distances) > 0`` right after ``distances = []``, so it
                never runs and the score is always ``own`` (same as ``open``).
``custom_3_intent``
                what AB_Custom_3's text describes: among "positive" positions
                (own > opp > 0) prefer the one whose moves lie closer to the
                opponent. Positive positions score ``100 - mean distance`` from
                the player's moves to the opponent (so they rank above every
                non-positive one, and closer ranks higher); others score own.
``weighted``    a tunable family containing ``improved`` as a point:
                ``a(t)*own - b(t)*opp + c*own2 - d*opp2 + e*centrality
                + f*distance`` where ``t`` is the fraction of the board blocked,
                ``a`` and ``b`` move linearly from their ``_start`` to their
                ``_end`` value over the game, ``own2``/``opp2`` count squares
                reachable in two moves (second-order mobility), centrality is
                minus the squared distance from the centre and distance the
                squared distance between the knights; plus ``g*region +
                h*partition``: the difference of the squares each knight can
                ever reach (a flood fill through empty squares), and, once the
                two regions are disjoint (the knights are separated), the
                difference of their longest knight paths (a DFS bounded to
                ``LONGEST_PATH_STEPS`` steps: exact in small regions), with
                half a move for who moves first, so its sign names the winner;
                plus ``i*territory``: Voronoi territory, the squares each knight
                reaches in strictly fewer moves than the other (own - opponent);
                plus ``j*contested``: the squares both reach in the same number
                of moves, + when ``player`` is to move (it arrives first).
                Finally the score may be rounded to a multiple of
                ``resolution`` (coarse scores tie more, so alpha-beta prunes
                more and searches deeper at the same node budget).
                Defaults: a = b = 1, the rest 0, i.e. exactly ``improved``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.games.base import STM
from heurtune.games.bits import lsb, popcount
from heurtune.games.isolation import BLOCKED, KNIGHT, POS, SIZE, SQUARES, targets

_NUMBA: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy"}


@njit(**_NUMBA)
def _moves(state, player):
    return popcount(targets(state, player))


@njit(**_NUMBA)
def evaluate_open(state, params, player):
    return float(_moves(state, player))


@njit(**_NUMBA)
def evaluate_center(state, params, player):
    pos = state[POS + player]
    if pos < 0:
        return 0.0
    half = SIZE / 2.0
    y, x = pos // SIZE, pos % SIZE
    return (half - y) ** 2 + (half - x) ** 2


@njit(**_NUMBA)
def evaluate_improved(state, params, player):
    return float(_moves(state, player) - _moves(state, 1 - player))


@njit(**_NUMBA)
def evaluate_custom(state, params, player):
    own = _moves(state, player)
    opp = _moves(state, 1 - player)
    if opp == 0:
        return float(own)
    return own / (opp * opp)


@njit(**_NUMBA)
def evaluate_custom_2(state, params, player):
    own = _moves(state, player)
    opp = _moves(state, 1 - player)
    if own > opp and opp > 0:
        return 1.0 / opp
    return float(own)


@njit(**_NUMBA)
def evaluate_custom_3(state, params, player):
    # As printed, the distance branch requires a non-empty list that was just
    # created empty, so only the fallback ever runs.
    return float(_moves(state, player))


@njit(**_NUMBA)
def evaluate_custom_3_intent(state, params, player):
    own_t = targets(state, player)
    own = popcount(own_t)
    opp = _moves(state, 1 - player)
    target = state[POS + 1 - player]
    if own > opp and opp > 0 and target >= 0:
        ty, tx = target // SIZE, target % SIZE
        total = 0.0
        t = own_t
        while t:
            sq = lsb(t)
            t &= t - 1
            total += math.hypot(sq // SIZE - ty, sq % SIZE - tx)
        return 100.0 - total / own
    return float(own)


@njit(**_NUMBA)
def _expand(frontier):
    """Squares one knight move away from any square of ``frontier``."""
    out = 0
    t = frontier
    while t:
        sq = lsb(t)
        t &= t - 1
        out |= KNIGHT[sq]
    return out


@njit(**_NUMBA)
def _second_order(state, player):
    """Squares reachable in two moves through empty squares."""
    return popcount(_expand(targets(state, player)) & ~state[BLOCKED])


@njit(**_NUMBA)
def _region(state, player):
    """Empty squares the player's knight can ever reach (flood fill through empty squares)."""
    free = ~state[BLOCKED] & ((1 << SQUARES) - 1)
    reach = targets(state, player)
    frontier = reach
    while frontier:
        frontier = _expand(frontier) & free & ~reach
        reach |= frontier
    return reach


@njit(**_NUMBA)
def _longest(pos, free, budget):
    """(longest knight path from ``pos`` through ``free`` squares, DFS steps used).

    Stops expanding once ``budget`` steps are used, so the length is exact for
    small regions and a lower bound otherwise.
    """
    t = KNIGHT[pos] & free
    best = 0
    used = 1
    while t:
        if used >= budget:
            break
        sq = lsb(t)
        t &= t - 1
        length, steps = _longest(sq, free & ~(1 << sq), budget - used)
        used += steps
        if length + 1 > best:
            best = length + 1
    return best, used


LONGEST_PATH_STEPS = 400


@njit(**_NUMBA)
def _voronoi(state, player):
    """(squares ``player`` reaches in strictly fewer moves than the opponent, the
    opponent's such squares, squares both reach in the same number of moves):
    a simultaneous BFS over bitboards."""
    free = ~state[BLOCKED] & ((1 << SQUARES) - 1)
    new_me = targets(state, player)
    new_them = targets(state, 1 - player)
    seen_me = new_me
    seen_them = new_them
    first_me = new_me & ~seen_them
    first_them = new_them & ~seen_me
    tied = new_me & new_them
    while new_me or new_them:
        new_me = _expand(new_me) & free & ~seen_me
        new_them = _expand(new_them) & free & ~seen_them
        seen_me |= new_me
        seen_them |= new_them
        first_me |= new_me & ~seen_them
        first_them |= new_them & ~seen_me
        tied |= new_me & new_them
    return first_me, first_them, tied


@njit(**_NUMBA)
def _separated_margin(state, player, mine, theirs):
    """Moves ``player`` can still make minus the opponent's, +-0.5 for who moves first:
    positive exactly when ``player`` wins the separated endgame (if both paths are exact)."""
    me = state[POS + player]
    them = state[POS + 1 - player]
    # np.int64, not the bare constant: a recursive function must see one
    # signature, or numba's cache crashes on reload (numba #6713)
    budget = np.int64(LONGEST_PATH_STEPS)
    mine_len, _ = _longest(me, mine, budget)
    theirs_len, _ = _longest(them, theirs, budget)
    # the side to move runs out first on equal lengths
    return mine_len - theirs_len + (-0.5 if state[STM] == player else 0.5)


@njit(**_NUMBA)
def evaluate_weighted(state, params, player):
    own = _moves(state, player)
    opp = _moves(state, 1 - player)
    t = popcount(state[BLOCKED]) / SQUARES
    a = params[0] + (params[1] - params[0]) * t
    b = params[2] + (params[3] - params[2]) * t
    score = a * own - b * opp
    if params[4] != 0.0:
        score += params[4] * _second_order(state, player)
    if params[5] != 0.0:
        score -= params[5] * _second_order(state, 1 - player)
    me = state[POS + player]
    them = state[POS + 1 - player]
    if params[6] != 0.0 and me >= 0:
        half = (SIZE - 1) / 2.0
        score -= params[6] * ((me // SIZE - half) ** 2 + (me % SIZE - half) ** 2)
    if params[7] != 0.0 and me >= 0 and them >= 0:
        score += params[7] * ((me // SIZE - them // SIZE) ** 2 + (me % SIZE - them % SIZE) ** 2)
    if (params[8] != 0.0 or params[9] != 0.0) and me >= 0 and them >= 0:
        mine = _region(state, player)
        theirs = _region(state, 1 - player)
        diff = popcount(mine) - popcount(theirs)
        score += params[8] * diff
        if params[9] != 0.0 and mine & theirs == 0:  # separated: an endgame of path lengths
            score += params[9] * _separated_margin(state, player, mine, theirs)
    if (params[10] != 0.0 or params[11] != 0.0) and me >= 0 and them >= 0:
        mine, theirs, tied = _voronoi(state, player)
        score += params[10] * (popcount(mine) - popcount(theirs))
        if params[11] != 0.0:  # the side to move gets to tied squares first
            score += params[11] * popcount(tied) * (1 if state[STM] == player else -1)
    if params[12] > 0.0:  # coarser scores tie more often, so alpha-beta cuts more
        score = np.floor(score / params[12] + 0.5) * params[12]
    return score


NO_PARAMS = ParamSpace("none", ())

# Weights sit on a grid: coarse scores keep many ties, which keeps alpha-beta
# efficient (a fine-grained score searched about half a ply shallower at the
# same node budget in our measurements); `improved` (1, 1, 1, 1, 0...) is a point.
WEIGHTED_SPACE = ParamSpace(
    "weighted",
    (
        FloatParam("own_start", 0.0, 5.0, 1.0, step=0.25, help="weight of own moves at the start"),
        FloatParam("own_end", 0.0, 5.0, 1.0, step=0.25, help="weight of own moves on a full board"),
        FloatParam("opp_start", 0.0, 5.0, 1.0, step=0.25,
                   help="weight of opponent moves at the start"),
        FloatParam("opp_end", 0.0, 5.0, 1.0, step=0.25,
                   help="weight of opponent moves on a full board"),
        FloatParam("own2", 0.0, 1.0, 0.0, step=0.05, help="own squares reachable in two moves"),
        FloatParam("opp2", 0.0, 2.0, 0.0, step=0.05,
                   help="opponent squares reachable in two moves"),
        FloatParam("centrality", -2.0, 2.0, 0.0, step=0.05,
                   help="minus squared distance from the centre"),
        FloatParam("distance", -1.0, 1.0, 0.0, step=0.05,
                   help="squared distance between the knights"),
        FloatParam("region", 0.0, 4.0, 0.0, step=0.25,
                   help="own - opponent squares reachable at all"),
        FloatParam("partition", 0.0, 100.0, 0.0, step=5.0,
                   help="own - opponent longest path once the knights are separated"),
        FloatParam("territory", 0.0, 6.0, 0.0, step=0.25,
                   help="squares reached first (Voronoi): own - opponent"),
        FloatParam("contested", -3.0, 3.0, 0.0, step=0.25,
                   help="squares both reach in the same number of moves, "
                        "counted for the side to move"),
        FloatParam("resolution", 0.0, 16.0, 0.0, step=0.5,
                   help="round the score to a multiple of this (0: no rounding)"),
    ),
)

_MODULE = sys.modules[__name__]


def _h(name: str, description: str, evaluate: Any, space: ParamSpace = NO_PARAMS) -> Heuristic:
    return Heuristic("isolation", name, description, space, evaluate, _MODULE)


HEURISTICS = (
    _h("open", "own moves", evaluate_open),
    _h("center", "squared distance from the centre", evaluate_center),
    _h("improved", "own moves - opponent moves (AB_Improved)", evaluate_improved),
    _h("custom", "own / opp^2 (AB_Custom)", evaluate_custom),
    _h("custom_2", "1/opp when ahead, else own (AB_Custom_2)", evaluate_custom_2),
    _h("custom_3", "AB_Custom_3 as printed (always own moves)", evaluate_custom_3),
    _h("custom_3_intent", "AB_Custom_3 as described: ahead and close to the opponent",
       evaluate_custom_3_intent),
    _h("weighted", "time-varying own/opp mobility, second-order mobility, centre, distance",
       evaluate_weighted, WEIGHTED_SPACE),
)

# The seed tournament's opponents and agents. Fixed-depth minimax searches 3
# plies (the classic MinimaxPlayer's search_depth=3); alpha-beta deepens
# iteratively within a fixed node budget per move, so results reproduce on any
# machine (the original gave it 150 ms per move: use search.time_ms for that).
AB_NODES = 4000


def _mm(heuristic: str) -> dict[str, object]:
    return {"heuristic": heuristic, "search": {"algorithm": "minimax", "depth": 3},
            "description": f"MM_{heuristic.title()}: minimax 3 plies, {heuristic} score"}


def _ab(heuristic: str, label: str) -> dict[str, object]:
    return {"heuristic": heuristic,
            "search": {"algorithm": "alphabeta", "depth": 64, "nodes": AB_NODES},
            "description": f"{label}: iterative-deepening alpha-beta, {AB_NODES} nodes per move"}


# `heurtune bench isolation`: heuristic, depth and how far into the game positions go.
BENCH = {"heuristic": "improved", "depth": 12, "max_plies": 16}

PRESETS = {
    "random": {"heuristic": "open", "search": {"algorithm": "random"},
               "description": "Random: a uniformly random legal move"},
    "mm_open": _mm("open"),
    "mm_center": _mm("center"),
    "mm_improved": _mm("improved"),
    "ab_open": _ab("open", "AB_Open"),
    "ab_center": _ab("center", "AB_Center"),
    "ab_improved": _ab("improved", "AB_Improved"),
    "ab_custom": _ab("custom", "AB_Custom"),
    "ab_custom_2": _ab("custom_2", "AB_Custom_2"),
    "ab_custom_3": _ab("custom_3", "AB_Custom_3"),
    "ab_custom_3_intent": _ab("custom_3_intent", "AB_Custom_3 (as described)"),
    "ab_weighted": _ab("weighted", "the weighted family at its defaults (= AB_Improved)"),
}

# Search settings chosen by measurement (docs/benchmarks.md): a table of 2^12
# entries (128 KiB: it stays in cache, and a 4,000-node search stores fewer
# entries than that) probed only with 2 or more plies left saves most of the
# probe cost yet keeps what a game needs from one move to the next (without a
# table the engine loses about 30 Elo at equal nodes); leaf parents put the table
# move and killers first without sorting. Time to depth 14: about 0.6 of the old
# settings', at equal strength per node.
SEARCH_DEFAULTS = {"tt_bits": 12, "table": True, "tt_min_depth": 2, "leaf_order": "killers"}
