"""Isolation rules kernel: two knights on a 7x7 board (bitboards over 49 squares).

Square ``row * 7 + col``; row 0 is rank 1 and col 0 is file a, so square 0 is
``a1`` and square 48 is ``g7``.

Rules (the seed's tournament game):

* Each player's first move may go to any empty square; afterwards a player
  moves like a chess knight, jumping over anything in between.
* Every square a player has stood on stays blocked for both players.
* The player to move with no legal move loses. There are no draws.

A move is the destination square (int64); its notation is the square's name.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np
from numba import njit

from heurtune.games.base import (
    EMPTY_CELL,
    HASH,
    HEADER,
    LOSS,
    ONGOING,
    PLY,
    STM,
    GameKernel,
    grid_rows,
)
from heurtune.games.bits import lsb, permute_mask

SIZE = 7
SQUARES = SIZE * SIZE
FULL = (1 << SQUARES) - 1
NAMES = [f"{'abcdefg'[s % SIZE]}{s // SIZE + 1}" for s in range(SQUARES)]


def _knight_masks() -> np.ndarray:
    masks = np.zeros(SQUARES, dtype=np.int64)
    for s in range(SQUARES):
        r, c = divmod(s, SIZE)
        for dr, dc in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                masks[s] |= 1 << (rr * SIZE + cc)
    return masks


KNIGHT = _knight_masks()

# state layout: the common header (STM, PLY, HASH), then
BLOCKED = HEADER  # squares stood on so far (both players' current squares included)
POS = BLOCKED + 1  # POS + side: current square, -1 before the first move
HIST = 8  # per ply: the mover's previous square and the hash before the move

_rng = np.random.default_rng(0x49736F6C6174)
Z_SQUARE = _rng.integers(-(2**63), 2**63 - 1, size=(2, SQUARES), dtype=np.int64)
Z_BLOCK = _rng.integers(-(2**63), 2**63 - 1, size=SQUARES, dtype=np.int64)
Z_STM = np.int64(_rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))


def new_state(rules: Mapping[str, int]) -> np.ndarray:
    """The empty board, first player to move, both knights off the board."""
    s = np.zeros(HIST + 2 * (SQUARES + 2), dtype=np.int64)
    s[POS] = s[POS + 1] = -1
    return s


@njit(cache=True, nogil=True, error_model="numpy")
def targets(state, side):
    """Squares ``side`` could move to now (its mobility is their number)."""
    pos = state[POS + side]
    if pos < 0:
        return FULL & ~state[BLOCKED]
    return KNIGHT[pos] & ~state[BLOCKED]


@njit(cache=True, nogil=True, error_model="numpy")
def gen_moves(state, out, row):
    """Write the legal moves of the side to move into ``out[row]``; return their number."""
    t = targets(state, state[STM])
    n = 0
    while t:
        out[row, n] = lsb(t)
        t &= t - 1
        n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def make_move(state, move):
    s = state[STM]
    ply = state[PLY]
    prev = state[POS + s]
    state[HIST + 2 * ply] = prev
    state[HIST + 2 * ply + 1] = state[HASH]
    h = state[HASH]
    if prev >= 0:
        h ^= Z_SQUARE[s, prev]
    h ^= Z_SQUARE[s, move] ^ Z_BLOCK[move] ^ Z_STM
    state[BLOCKED] |= 1 << move
    state[POS + s] = move
    state[STM] = 1 - s
    state[PLY] = ply + 1
    state[HASH] = h


@njit(cache=True, nogil=True, error_model="numpy")
def unmake_move(state, move):
    s = 1 - state[STM]
    ply = state[PLY] - 1
    state[BLOCKED] &= ~(1 << move)
    state[POS + s] = state[HIST + 2 * ply]
    state[HASH] = state[HIST + 2 * ply + 1]
    state[STM] = s
    state[PLY] = ply


@njit(cache=True, nogil=True, error_model="numpy")
def outcome(state) -> int:
    """ONGOING, or LOSS when the side to move is stuck (Isolation has no draws)."""
    if targets(state, state[STM]) == 0:
        return LOSS
    return ONGOING


def move_to_str(move: int) -> str:
    return NAMES[move]


def hash_from_scratch(state: np.ndarray) -> int:
    """Zobrist hash of the blocked squares, each knight's square and the side to move."""
    h = 0
    for sq in range(SQUARES):
        if int(state[BLOCKED]) >> sq & 1:
            h ^= int(Z_BLOCK[sq])
    for side in range(2):
        if state[POS + side] >= 0:
            h ^= int(Z_SQUARE[side, int(state[POS + side])])
    if state[STM] == 1:
        h ^= int(Z_STM)
    return int(np.int64(h))


def _square_symmetries() -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the square board (rotations and reflections) as square
    permutations, the identity first; each maps knight moves to knight moves."""
    last = SIZE - 1
    maps = (lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (last - r, c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r))
    out = []
    for f in maps:
        perm = []
        for sq in range(SQUARES):
            r, c = f(*divmod(sq, SIZE))
            perm.append(r * SIZE + c)
        out.append(tuple(perm))
    return tuple(out)


SYMMETRIES = _square_symmetries()


def symmetry_hashes(state: np.ndarray) -> list[int]:
    """The hashes of the position under the 8 symmetries of the board; the first is
    its own. (Two-ply Isolation has 2,352 openings in 315 classes under them.)"""
    out = []
    for perm in SYMMETRIES:
        image = state.copy()
        image[BLOCKED] = permute_mask(int(state[BLOCKED]), perm)
        for side in range(2):
            if state[POS + side] >= 0:
                image[POS + side] = perm[int(state[POS + side])]
        out.append(hash_from_scratch(image))
    return out


SIDE_NAMES = ("player 1", "player 2")
KNIGHTS = "12"  # board_rows: each player's knight
BLOCKED_SQUARE = "x"
LEGEND = {
    "1": ("player 1's knight", "#1f77b4"),
    "2": ("player 2's knight", "#d62728"),
    BLOCKED_SQUARE: ("blocked square", "#7f7f7f"),
    EMPTY_CELL: ("empty square", "#c8c8c8"),
}


def board_rows(state: np.ndarray) -> list[str]:
    """The board, rank 7 first: the knights, the blocked squares, the empty ones."""

    def char(r: int, c: int) -> str:
        sq = r * SIZE + c
        for side in range(2):
            if state[POS + side] == sq:
                return KNIGHTS[side]
        return BLOCKED_SQUARE if int(state[BLOCKED]) >> sq & 1 else EMPTY_CELL

    return grid_rows(SIZE, SIZE, char)


# where the registry finds this game's heuristics and presets (engine layer)
HEURISTICS_MODULE = "heurtune.engine.heuristics.isolation"

KERNEL = GameKernel(
    name="isolation",
    description="Isolation: two knights on a 7x7 board, visited squares blocked",
    module=sys.modules[__name__],
    rules=(),
    max_moves=SQUARES,
    opening_plies=2,
    _new_state=new_state,
    move_to_str=move_to_str,
    gen_moves=gen_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    outcome=outcome,
    symmetry_hashes=symmetry_hashes,
    max_game_plies=lambda rules: SQUARES,  # every ply blocks a square for good
    hash_from_scratch=hash_from_scratch,
    live_length=lambda state: HIST + 2 * int(state[PLY]),
    board_rows=board_rows,
    board_legend=LEGEND,
    side_names=SIDE_NAMES,  # the default termination says it: the stuck side loses
)
