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
                squared distance between the knights. Defaults: a = b = 1, the
                rest 0, i.e. exactly ``improved``.
"""

from __future__ import annotations

import math
import sys

from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.games.bits import lsb, popcount
from heurtune.games.isolation import BLOCKED, KNIGHT, POS, SIZE, SQUARES, targets

_NUMBA = {"cache": True, "nogil": True, "error_model": "numpy"}


@njit(**_NUMBA)
def _moves(state, player):  # type: ignore[no-untyped-def]
    return popcount(targets(state, player))


@njit(**_NUMBA)
def evaluate_open(state, params, player):  # type: ignore[no-untyped-def]
    return float(_moves(state, player))


@njit(**_NUMBA)
def evaluate_center(state, params, player):  # type: ignore[no-untyped-def]
    pos = state[POS + player]
    if pos < 0:
        return 0.0
    half = SIZE / 2.0
    y, x = pos // SIZE, pos % SIZE
    return (half - y) ** 2 + (half - x) ** 2


@njit(**_NUMBA)
def evaluate_improved(state, params, player):  # type: ignore[no-untyped-def]
    return float(_moves(state, player) - _moves(state, 1 - player))


@njit(**_NUMBA)
def evaluate_custom(state, params, player):  # type: ignore[no-untyped-def]
    own = _moves(state, player)
    opp = _moves(state, 1 - player)
    if opp == 0:
        return float(own)
    return own / (opp * opp)


@njit(**_NUMBA)
def evaluate_custom_2(state, params, player):  # type: ignore[no-untyped-def]
    own = _moves(state, player)
    opp = _moves(state, 1 - player)
    if own > opp and opp > 0:
        return 1.0 / opp
    return float(own)


@njit(**_NUMBA)
def evaluate_custom_3(state, params, player):  # type: ignore[no-untyped-def]
    # As printed, the distance branch requires a non-empty list that was just
    # created empty, so only the fallback ever runs.
    return float(_moves(state, player))


@njit(**_NUMBA)
def evaluate_custom_3_intent(state, params, player):  # type: ignore[no-untyped-def]
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
def _second_order(state, player):  # type: ignore[no-untyped-def]
    """Squares reachable in two moves through empty squares."""
    first = targets(state, player)
    free = ~state[BLOCKED]
    reach = 0
    t = first
    while t:
        sq = lsb(t)
        t &= t - 1
        reach |= KNIGHT[sq]
    return popcount(reach & free)


@njit(**_NUMBA)
def evaluate_weighted(state, params, player):  # type: ignore[no-untyped-def]
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
    return score


NO_PARAMS = ParamSpace("none", ())

WEIGHTED_SPACE = ParamSpace(
    "weighted",
    (
        FloatParam("own_start", 0.0, 3.0, 1.0, help="weight of own moves at the start"),
        FloatParam("own_end", 0.0, 3.0, 1.0, help="weight of own moves on a full board"),
        FloatParam("opp_start", 0.0, 3.0, 1.0, help="weight of opponent moves at the start"),
        FloatParam("opp_end", 0.0, 3.0, 1.0, help="weight of opponent moves on a full board"),
        FloatParam("own2", 0.0, 1.0, 0.0, help="own squares reachable in two moves"),
        FloatParam("opp2", 0.0, 1.0, 0.0, help="opponent squares reachable in two moves"),
        FloatParam("centrality", -1.0, 1.0, 0.0, help="minus squared distance from the centre"),
        FloatParam("distance", -1.0, 1.0, 0.0, help="squared distance between the knights"),
    ),
)

_MODULE = sys.modules[__name__]


def _h(name: str, description: str, evaluate, space: ParamSpace = NO_PARAMS) -> Heuristic:  # type: ignore[no-untyped-def]
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
