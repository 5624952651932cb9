"""Halma heuristics.

``distance``
    Seed 002's ``distance_heuristic``, its constants as parameters: for every own
    piece, ``base - d`` with ``d`` the Euclidean distance to the target corner,
    plus ``near_bonus`` when ``d <= near_radius``, minus ``dead_penalty`` on the
    "dead zone" cell (three cells diagonally in from the target corner, where
    pieces got stuck) and plus ``golden_bonus`` on the five "golden" cells at the
    edge of the target camp. As in the seed, only the player's own pieces count
    (the opponent's progress is invisible to it).

The seed's other heuristics (``wall_corner``, ``goal_dispersion``,
``manhattan``) and a tunable family are not built yet.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.games.halma import BOARD, CELLS, SIZE


def _corner_cell(side: int, row: int, col: int) -> int:
    """A cell given relative to ``side``'s target corner (side 0 aims at (15, 15))."""
    if side == 0:
        return (SIZE - 1 - row) * SIZE + (SIZE - 1 - col)
    return row * SIZE + col


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``EUCLID[side, cell]`` (distance to the target corner), ``DEAD[side, cell]``
    and ``GOLDEN[side, cell]`` (1 on the seed's cells)."""
    euclid = np.zeros((2, CELLS))
    dead = np.zeros((2, CELLS))
    golden = np.zeros((2, CELLS))
    # the seed's cells for the player aiming at (15, 15), as (row, col) offsets
    # from that corner; the other player's are their point reflections
    golden_offsets = ((4, 0), (4, 1), (2, 2), (0, 4), (1, 4))
    for side in range(2):
        corner = (SIZE - 1, SIZE - 1) if side == 0 else (0, 0)
        for cell in range(CELLS):
            r, c = divmod(cell, SIZE)
            euclid[side, cell] = math.sqrt((r - corner[0]) ** 2 + (c - corner[1]) ** 2)
        dead[side, _corner_cell(side, 3, 3)] = 1.0
        for r, c in golden_offsets:
            golden[side, _corner_cell(side, r, c)] = 1.0
    return euclid, dead, golden


EUCLID, DEAD, GOLDEN = _tables()


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_distance(state, params, player):  # type: ignore[no-untyped-def]
    base, radius, near, dead, golden = params[0], params[1], params[2], params[3], params[4]
    own = player + 1
    score = 0.0
    for cell in range(CELLS):
        if state[BOARD + cell] == own:
            d = EUCLID[player, cell]
            score += base - d
            if d <= radius:
                score += near
            score -= dead * DEAD[player, cell]
            score += golden * GOLDEN[player, cell]
    return score


DISTANCE_SPACE = ParamSpace(
    "distance",
    (
        FloatParam("base", 0.0, 40.0, 22.0, help="per piece: base minus its distance to the corner"),
        FloatParam("near_radius", 0.0, 10.0, 4.0, help="distance within which the near bonus counts"),
        FloatParam("near_bonus", 0.0, 20.0, 5.0, help="per piece near the target corner"),
        FloatParam("dead_penalty", 0.0, 40.0, 20.0, help="for a piece on the dead-zone cell"),
        FloatParam("golden_bonus", 0.0, 40.0, 15.0, help="per piece on a golden cell"),
    ),
)

_MODULE = sys.modules[__name__]

HEURISTICS = (
    Heuristic(
        "halma", "distance", "the seed's distance heuristic (own pieces only)", DISTANCE_SPACE,
        evaluate_distance, _MODULE,
    ),
)

# `heurtune bench halma`: heuristic, depth and how far into the game positions go.
BENCH = {"heuristic": "distance", "depth": 3, "max_plies": 60}

# Built-in engine configurations, addressed as ``halma:NAME``.
PRESETS = {
    "distance": {
        "heuristic": "distance",
        "search": {"algorithm": "alphabeta", "depth": 2},
        "description": "the seed's distance heuristic, alpha-beta at the seed's depth 2",
    },
    "random": {
        "heuristic": "distance",
        "search": {"algorithm": "random"},
        "description": "a uniformly random legal move",
    },
}
