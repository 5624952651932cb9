"""Halma heuristics.

``distance``
    Seed 002's ``distance_heuristic``, its constants as parameters: for every own
    piece, ``base - d`` with ``d`` the Euclidean distance to the target corner,
    plus ``near_bonus`` when ``d <= near_radius``, minus ``dead_penalty`` on the
    "dead zone" cell (three cells diagonally in from the target corner, where
    pieces got stuck) and plus ``golden_bonus`` on the five "golden" cells at the
    edge of the target camp. As in the seed, only the player's own pieces count
    (the opponent's progress is invisible to it).

``wall_corner``
    The seed's ``wall_corner_heuristic``: ``base - d`` per own piece (no near,
    dead or golden terms), plus a table of bonuses on the target camp's edge
    cells, scaled by ``edge_scale``. The seed's code adds each bonus whether or
    not a piece stands on the cell, which makes the table a constant that never
    changes a decision; ``edges_need_piece`` = 0 reproduces that, 1 gives the
    intent (a bonus only for an own piece on the cell).
``dispersion``
    The seed's ``goal_dispersion_heuristic``: ``progress_weight`` (0.6) times the
    distance heuristic's score minus a penalty table on the home camp (scaled by
    ``home_scale``), plus ``dispersion_weight`` (0.4) times the sum of the own
    pieces' distances to their centre of mass (spread-out pieces jam less).
``manhattan``
    The seed's ``manhattan_heuristic``: minus the Manhattan distance to the target
    corner per own piece, plus ``near_bonus`` within ``near_radius``, minus
    ``dead_penalty`` on two "dead" cells on the target's walls and minus the home
    penalty table (scaled by ``home_scale``).

``family``
    One tunable family that holds the seed's heuristics as points and goes beyond
    them: the distance score's terms (``progress`` weight, base, near radius and
    bonus, dead-zone penalty, golden bonus), wall_corner's edge table under own
    pieces (``edge_scale``), the home-camp penalty table (``home_scale``), the
    spread term (``dispersion``), and three terms the seed lacks: the opponent's
    progress subtracted (``opponent``), the distance of the rearmost own piece
    (``straggler``) and the own pieces still in the home camp (``at_home``). Its
    defaults are ``distance``'s, so by default it plays exactly like it.

Every evaluator walks the kernel's piece lists (19 cells per side, kept in
ascending order by make / unmake) instead of scanning the 256 cells, in the
order a scan would visit them, so every sum is the scan's to the last bit.

The seed's tables are written below as offsets from a corner, for the player
that aims at (15, 15) (the seed's player 1, our player 0); the other player's
are their point reflections, as in the seed.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numba import njit

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, IntParam, ParamSpace, Value
from heurtune.games import get_game
from heurtune.games.halma import CAMP, CELLS, PCOUNT, PIECES, PLIST, SIZE, set_board


def _corner_cell(side: int, row: int, col: int) -> int:
    """A cell given relative to ``side``'s target corner (side 0 aims at (15, 15))."""
    if side == 0:
        return (SIZE - 1 - row) * SIZE + (SIZE - 1 - col)
    return row * SIZE + col


def _home_cell(side: int, row: int, col: int) -> int:
    """A cell given relative to ``side``'s home corner (side 0 starts at (0, 0))."""
    return _corner_cell(1 - side, row, col)


# the seed's edge bonuses (wall_corner), as offsets from the target corner
EDGE_BONUSES = {(4, 1): 9, (4, 0): 4, (3, 0): 4, (2, 0): 5, (1, 0): 6, (0, 0): 10,
                (0, 1): 6, (0, 2): 5, (0, 3): 4, (0, 4): 4, (1, 4): 9}
# the seed's home-camp penalties (dispersion, manhattan), as offsets from the home corner
HOME_PENALTIES = {(0, 0): 10, (0, 1): 8, (0, 2): 6, (0, 3): 4, (0, 4): 2, (1, 0): 8, (1, 1): 6,
                  (1, 2): 4, (1, 3): 2, (1, 4): 1, (2, 0): 6, (2, 1): 4, (2, 2): 2, (2, 3): 1,
                  (3, 0): 4, (3, 1): 2, (3, 2): 1, (4, 0): 2, (4, 1): 1}
# manhattan's two dead cells on the target camp's walls, from the target corner
MANHATTAN_DEAD = ((5, 0), (0, 5))


def _more_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``EDGE``, ``HOME`` and ``MDEAD`` per side and cell, ``MANHATTAN`` distances to the
    target corner, and each side's constant sum of the edge table."""
    edge = np.zeros((2, CELLS))
    home = np.zeros((2, CELLS))
    mdead = np.zeros((2, CELLS))
    manhattan = np.zeros((2, CELLS))
    for side in range(2):
        for (r, c), v in EDGE_BONUSES.items():
            edge[side, _corner_cell(side, r, c)] = v
        for (r, c), v in HOME_PENALTIES.items():
            home[side, _home_cell(side, r, c)] = v
        for r, c in MANHATTAN_DEAD:
            mdead[side, _corner_cell(side, r, c)] = 1.0
        corner = (SIZE - 1, SIZE - 1) if side == 0 else (0, 0)
        for cell in range(CELLS):
            rr, cc = divmod(cell, SIZE)
            manhattan[side, cell] = abs(rr - corner[0]) + abs(cc - corner[1])
    edge_sum = edge.sum(axis=1)
    return edge, home, mdead, manhattan, edge_sum


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
EDGE, HOME, MDEAD, MANHATTAN, EDGE_SUM = _more_tables()


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_distance(state, params, player):
    base, radius, near, dead, golden = params[0], params[1], params[2], params[3], params[4]
    score = 0.0
    first = PLIST + player * PIECES
    for k in range(state[PCOUNT + player]):
        cell = state[first + k]
        d = EUCLID[player, cell]
        score += base - d
        if d <= radius:
            score += near
        score -= dead * DEAD[player, cell]
        score += golden * GOLDEN[player, cell]
    return score


# the distance score's terms, with the seed's constants (distance, dispersion, family)
BASE = FloatParam("base", 0.0, 40.0, 22.0, help="per piece: base minus its distance to the corner")
DISTANCE_TERMS = (
    BASE,
    FloatParam("near_radius", 0.0, 10.0, 4.0, help="distance within which the near bonus counts"),
    FloatParam("near_bonus", 0.0, 20.0, 5.0, help="per piece near the target corner"),
    FloatParam("dead_penalty", 0.0, 40.0, 20.0, help="for a piece on the dead-zone cell"),
    FloatParam("golden_bonus", 0.0, 40.0, 15.0, help="per piece on a golden cell"),
)
DISTANCE_SPACE = ParamSpace("distance", DISTANCE_TERMS)


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_wall_corner(state, params, player):
    base, scale, need_piece = params[0], params[1], params[2]
    score = 0.0
    first = PLIST + player * PIECES
    for k in range(state[PCOUNT + player]):
        cell = state[first + k]
        score += base - EUCLID[player, cell]
        if need_piece > 0.5:
            score += scale * EDGE[player, cell]
    if need_piece <= 0.5:  # the seed's code: every bonus, occupied or not
        score += scale * EDGE_SUM[player]
    return score


WALL_CORNER_SPACE = ParamSpace(
    "wall_corner",
    (
        BASE,
        FloatParam("edge_scale", 0.0, 5.0, 1.0, help="scale of the edge bonus table"),
        IntParam("edges_need_piece", 0, 1, 0,
                 help="0: every edge bonus counts (the seed's code, a constant); 1: only "
                      "under an own piece (the seed's intent)"),
    ),
)


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_dispersion(state, params, player):
    base, radius, near, dead, golden = params[0], params[1], params[2], params[3], params[4]
    home_scale, w_progress, w_dispersion = params[5], params[6], params[7]
    progress = 0.0
    sum_r = 0.0
    sum_c = 0.0
    count = 0
    first = PLIST + player * PIECES
    for k in range(state[PCOUNT + player]):
        cell = state[first + k]
        d = EUCLID[player, cell]
        progress += base - d
        if d <= radius:
            progress += near
        progress -= dead * DEAD[player, cell]
        progress += golden * GOLDEN[player, cell]
        progress -= home_scale * HOME[player, cell]
        sum_r += cell // SIZE
        sum_c += cell % SIZE
        count += 1
    spread = 0.0
    if count > 0:
        mr = sum_r / count
        mc = sum_c / count
        for k in range(count):
            cell = state[first + k]
            dr = cell // SIZE - mr
            dc = cell % SIZE - mc
            spread += np.sqrt(dr * dr + dc * dc)
    return w_progress * progress + w_dispersion * spread


DISPERSION_SPACE = ParamSpace(
    "dispersion",
    (
        *DISTANCE_TERMS,
        FloatParam("home_scale", 0.0, 5.0, 1.0, help="scale of the home-camp penalty table"),
        FloatParam("progress_weight", 0.0, 2.0, 0.6, help="weight of the progress score"),
        FloatParam("dispersion_weight", 0.0, 2.0, 0.4,
                   help="weight of the pieces' spread around their centre of mass"),
    ),
)


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_manhattan(state, params, player):
    radius, near, dead, home_scale = params[0], params[1], params[2], params[3]
    score = 0.0
    first = PLIST + player * PIECES
    for k in range(state[PCOUNT + player]):
        cell = state[first + k]
        d = MANHATTAN[player, cell]
        score -= d
        if d <= radius:
            score += near
        score -= dead * MDEAD[player, cell]
        score -= home_scale * HOME[player, cell]
    return score


MANHATTAN_SPACE = ParamSpace(
    "manhattan",
    (
        FloatParam("near_radius", 0.0, 15.0, 5.0, help="Manhattan distance of the near bonus"),
        FloatParam("near_bonus", 0.0, 30.0, 10.0, help="per piece near the target corner"),
        FloatParam("dead_penalty", 0.0, 30.0, 10.0, help="per piece on one of the two dead cells"),
        FloatParam("home_scale", 0.0, 5.0, 1.0, help="scale of the home-camp penalty table"),
    ),
)


@njit(cache=True, nogil=True, error_model="numpy")
def _family_side(state, params, side):
    """(progress score, spread, rearmost distance, pieces at home) of ``side``."""
    base, radius, near, dead, golden = params[1], params[2], params[3], params[4], params[5]
    edge, home = params[6], params[7]
    progress = 0.0
    sum_r = 0.0
    sum_c = 0.0
    count = 0
    rearmost = 0.0
    at_home = 0
    first = PLIST + side * PIECES
    for k in range(state[PCOUNT + side]):
        cell = state[first + k]
        d = EUCLID[side, cell]
        progress += base - d
        if d <= radius:
            progress += near
        progress += (golden * GOLDEN[side, cell] - dead * DEAD[side, cell]
                     + edge * EDGE[side, cell] - home * HOME[side, cell])
        if d > rearmost:
            rearmost = d
        at_home += CAMP[side, cell]
        sum_r += cell // SIZE
        sum_c += cell % SIZE
        count += 1
    spread = 0.0
    if count > 0 and params[8] != 0.0:
        mr = sum_r / count
        mc = sum_c / count
        for k in range(count):
            cell = state[first + k]
            dr = cell // SIZE - mr
            dc = cell % SIZE - mc
            spread += np.sqrt(dr * dr + dc * dc)
    return progress, spread, rearmost, at_home


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_family(state, params, player):
    w_progress, w_dispersion, w_opponent = params[0], params[8], params[9]
    w_straggler, w_home_pieces = params[10], params[11]
    progress, spread, rearmost, at_home = _family_side(state, params, player)
    score = (w_progress * progress + w_dispersion * spread - w_straggler * rearmost
             - w_home_pieces * at_home)
    if w_opponent != 0.0:
        opp, _s, _r, _h = _family_side(state, params, 1 - player)
        score -= w_opponent * w_progress * opp
    return score


FAMILY_SPACE = ParamSpace(
    "family",
    (
        FloatParam("progress", 0.0, 3.0, 1.0,
                   help="weight of the distance score (its terms below)"),
        *DISTANCE_TERMS,
        FloatParam("edge_scale", 0.0, 3.0, 0.0, help="wall_corner's edge table, under own pieces"),
        FloatParam("home_scale", 0.0, 3.0, 0.0, help="the home-camp penalty table"),
        FloatParam("dispersion", 0.0, 2.0, 0.0,
                   help="per unit of spread around the centre of mass"),
        FloatParam("opponent", 0.0, 1.5, 0.0, help="weight of the opponent's score, subtracted"),
        FloatParam("straggler", 0.0, 10.0, 0.0, help="per unit of the rearmost piece's distance"),
        FloatParam("at_home", 0.0, 20.0, 0.0, help="per own piece still in the home camp"),
    ),
)

_MODULE = sys.modules[__name__]

# the family's terms that depend on the whole position rather than on each
# piece: left out of its per-cell map
WHOLE_POSITION_TERMS = ("dispersion", "opponent", "straggler")


def cell_weights(evaluate: Any, space: ParamSpace, leave_out: tuple[str, ...] = ()
                 ) -> Callable[[Mapping[str, Value]], np.ndarray]:
    """The ``cell_weights`` hook of a heuristic: the score one player-0 piece
    (aiming at p16) adds on each cell of an otherwise empty board, minus the
    empty board's score (so terms that do not depend on the pieces, such as
    wall_corner's table as the seed's code adds it, drop out); the terms in
    ``leave_out`` are set to 0. Rows are ranks, rank 1 first."""

    def weights(values: Mapping[str, Value]) -> np.ndarray:
        params = space.to_array({**values, **{name: 0.0 for name in leave_out}})
        state = get_game("halma").new_state()
        board = np.full(CELLS, -1, dtype=np.int64)  # set_board: -1 empty, else the owner
        set_board(state, board)
        empty = evaluate(state, params, 0)
        out = np.zeros((SIZE, SIZE))
        for cell in range(CELLS):
            board[cell] = 0
            set_board(state, board)
            out[cell // SIZE, cell % SIZE] = evaluate(state, params, 0) - empty
            board[cell] = -1
        return out

    return weights


HEURISTICS = (
    Heuristic(
        "halma", "distance", "the seed's distance heuristic (own pieces only)", DISTANCE_SPACE,
        evaluate_distance, _MODULE,
        cell_weights=cell_weights(evaluate_distance, DISTANCE_SPACE),
    ),
    Heuristic(
        "halma", "wall_corner", "the seed's wall_corner heuristic (edge bonus table)",
        WALL_CORNER_SPACE, evaluate_wall_corner, _MODULE,
        cell_weights=cell_weights(evaluate_wall_corner, WALL_CORNER_SPACE),
    ),
    Heuristic(
        "halma", "dispersion", "the seed's goal_dispersion heuristic (progress and spread)",
        DISPERSION_SPACE, evaluate_dispersion, _MODULE,
        cell_weights=cell_weights(evaluate_dispersion, DISPERSION_SPACE),
    ),
    Heuristic(
        "halma", "manhattan", "the seed's manhattan heuristic (home-camp penalties)",
        MANHATTAN_SPACE, evaluate_manhattan, _MODULE,
        cell_weights=cell_weights(evaluate_manhattan, MANHATTAN_SPACE),
    ),
    Heuristic(
        "halma", "family", "the seed's terms weighted, plus opponent, straggler and home terms",
        FAMILY_SPACE, evaluate_family, _MODULE,
        cell_weights=cell_weights(evaluate_family, FAMILY_SPACE, WHOLE_POSITION_TERMS),
    ),
)

# `heurtune bench halma`: heuristic, depth and how far into the game positions go.
BENCH = {"heuristic": "distance", "depth": 3, "max_plies": 60}

# Built-in engine configurations, addressed as ``halma:NAME``.
def _seed_preset(name: str) -> dict[str, object]:
    return {"heuristic": name, "search": {"algorithm": "alphabeta", "depth": 2},
            "description": f"the seed's {name} heuristic, alpha-beta at the seed's depth 2"}


PRESETS = {
    "distance": _seed_preset("distance"),
    "wall_corner": _seed_preset("wall_corner"),
    "dispersion": _seed_preset("dispersion"),
    "manhattan": _seed_preset("manhattan"),
    "wall_corner_intent": {
        "heuristic": "wall_corner", "params": {"edges_need_piece": 1},
        "search": {"algorithm": "alphabeta", "depth": 2},
        "description": "wall_corner as the seed meant it (edge bonuses only under own "
                       "pieces), alpha-beta at depth 2",
    },
    "ab": {
        "heuristic": "family",
        "search": {"algorithm": "alphabeta", "depth": 64, "nodes": 20000},
        "description": "iterative-deepening alpha-beta, 20k nodes per move, family defaults",
    },
    "random": {
        "heuristic": "distance",
        "search": {"algorithm": "random"},
        "description": "a uniformly random legal move",
    },
}
