"""Gomoku rules kernel: five in a row on an N x N board (7 <= N <= 19, default 15).

Black (player 0) moves first; the players alternate placing a stone on an empty
point. Five of one's own stones in a row (horizontally, vertically or
diagonally) win at once; with rule ``exact_five`` only a line of exactly five
wins (an overline of six or more does not, although a move that makes an
overline in one direction and an exact five in another wins). A full board
without a five is a draw.

A move is ``row * 32 + col`` (row 0 is rank 1, col 0 is file a), whatever the
board size, so its notation needs no state: ``h8`` is the centre of 15 x 15.

The board lives in the state as a padded grid: ``PAD`` cells of wall around the
N x N points, so that a line of four points on either side of any point can be
read without bounds checks (:func:`line_cells`), which the heuristics use.
"""

from __future__ import annotations

import sys
from typing import Mapping

import numpy as np
from numba import njit

from heurtune.games.base import DRAW, HASH, HEADER, LOSS, ONGOING, PLY, STM, GameKernel, RuleOption

MIN_SIZE, MAX_SIZE, DEFAULT_SIZE = 7, 19, 15
PAD = 4  # wall cells around the board: a point's line reaches 4 points either way
STRIDE = 32  # move = row * STRIDE + col
EMPTY, BLACK, WHITE, WALL = 0, 1, 2, 3  # cell values (a player's stone is 1 + player)
FILES = "abcdefghijklmnopqrs"

# state layout: the common header (STM, PLY, HASH), then
R_SIZE = HEADER  # N
R_EXACT = HEADER + 1  # rule exact_five
R_WIDTH = HEADER + 2  # N + 2 * PAD, the row length of the padded grid
WON = HEADER + 3  # 1 when the last move made a winning line
HIST = HEADER + 4  # where the moves played so far start (after the grid)
GRID = 8  # the padded grid, (N + 2 PAD)^2 cells, then the N^2 moves played

_rng = np.random.default_rng(0x476F6D6F6B75)
Z_STONE = _rng.integers(-(2**63), 2**63 - 1, size=(2, MAX_SIZE * STRIDE), dtype=np.int64)
Z_STM = np.int64(_rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))


def new_state(rules: Mapping[str, int]) -> np.ndarray:
    """The empty board, Black to move."""
    n = int(rules["size"])
    width = n + 2 * PAD
    s = np.zeros(GRID + width * width + n * n, dtype=np.int64)
    s[R_SIZE] = n
    s[HIST] = GRID + width * width
    s[R_EXACT] = rules["exact_five"]
    s[R_WIDTH] = width
    grid = s[GRID:GRID + width * width].reshape(width, width)
    grid[:, :] = WALL
    grid[PAD:PAD + n, PAD:PAD + n] = EMPTY
    return s


@njit(cache=True, nogil=True, error_model="numpy")
def cell_index(state, move):  # type: ignore[no-untyped-def]
    """Index into ``state`` of the grid cell of point ``move``."""
    return GRID + ((move >> 5) + PAD) * state[R_WIDTH] + (move & 31) + PAD


@njit(cache=True, nogil=True, error_model="numpy")
def gen_moves(state, out, row):  # type: ignore[no-untyped-def]
    """Every empty point, in increasing order."""
    n = state[R_SIZE]
    width = state[R_WIDTH]
    k = 0
    for r in range(n):
        base = GRID + (r + PAD) * width + PAD
        for c in range(n):
            if state[base + c] == EMPTY:
                out[row, k] = r * STRIDE + c
                k += 1
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def run_length(state, idx, step, stone):  # type: ignore[no-untyped-def]
    """Stones ``stone`` in a row from ``idx`` (excluded) in direction ``step``."""
    k = 0
    j = idx + step
    while state[j] == stone:
        k += 1
        j += step
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def makes_five(state, idx, stone):  # type: ignore[no-untyped-def]
    """Whether a stone ``stone`` on grid cell ``idx`` makes a winning line (the
    cell itself is not read, so this also answers "would it")."""
    width = state[R_WIDTH]
    exact = state[R_EXACT] != 0
    for step in (1, width, width + 1, width - 1):
        k = 1 + run_length(state, idx, step, stone) + run_length(state, idx, -step, stone)
        if k == 5 or (k > 5 and not exact):
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def make_move(state, move):  # type: ignore[no-untyped-def]
    s = state[STM]
    idx = cell_index(state, move)
    state[idx] = 1 + s
    state[WON] = 1 if makes_five(state, idx, 1 + s) else 0
    state[HASH] ^= Z_STONE[s, move] ^ Z_STM
    state[state[HIST] + state[PLY]] = move
    state[STM] = 1 - s
    state[PLY] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def unmake_move(state, move):  # type: ignore[no-untyped-def]
    s = 1 - state[STM]
    state[cell_index(state, move)] = EMPTY
    state[WON] = 0  # play only continues from positions without a five
    state[HASH] ^= Z_STONE[s, move] ^ Z_STM
    state[STM] = s
    state[PLY] -= 1


@njit(cache=True, nogil=True, error_model="numpy")
def outcome(state) -> int:  # type: ignore[no-untyped-def]
    """LOSS for the side to move when the last move made five, DRAW on a full board."""
    if state[WON] != 0:
        return LOSS
    if state[PLY] >= state[R_SIZE] * state[R_SIZE]:
        return DRAW
    return ONGOING


def move_to_str(move: int) -> str:
    return f"{FILES[move & 31]}{(move >> 5) + 1}"


def hash_from_scratch(state: np.ndarray) -> int:
    """The Zobrist hash of the stones on the board and the side to move."""
    n = int(state[R_SIZE])
    h = 0
    for r in range(n):
        for c in range(n):
            v = int(state[cell_index(state, r * STRIDE + c)])
            if v in (BLACK, WHITE):
                h ^= int(Z_STONE[v - 1, r * STRIDE + c])
    if state[STM] == 1:
        h ^= int(Z_STM)
    return int(np.int64(h))


# -- openings (plain Python) -----------------------------------------------------
# Random legal plies would scatter stones over the whole board. A Gomoku opening
# places its stones on the empty points of the central square (OPENING_RADIUS
# points around the centre each way) and must leave neither side a four or an
# open three, so that the game is still open.
OPENING_RADIUS = 2


def opening_moves(state: np.ndarray) -> list[int]:
    """Empty points of the central square."""
    n = int(state[R_SIZE])
    c = n // 2
    span = range(c - OPENING_RADIUS, c + OPENING_RADIUS + 1)
    return [r * STRIDE + q for r in span for q in span
            if state[cell_index(state, r * STRIDE + q)] == EMPTY]


def _threat(cells: list[int], stone: int) -> bool:
    """Whether a row of cells holds a four (5 points: 4 stones, 1 empty) or an
    open three (6 points, both ends empty, 3 stones and 1 empty inside)."""
    for i in range(len(cells) - 4):
        w = cells[i:i + 5]
        if w.count(stone) == 4 and w.count(EMPTY) == 1:
            return True
    for i in range(len(cells) - 5):
        w = cells[i:i + 6]
        if w[0] == EMPTY and w[5] == EMPTY and w[1:5].count(stone) == 3 and w[1:5].count(EMPTY) == 1:
            return True
    return False


def opening_ok(state: np.ndarray) -> bool:
    """Neither side has a four or an open three."""
    n = int(state[R_SIZE])
    board = [[int(state[cell_index(state, r * STRIDE + c)]) for c in range(n)] for r in range(n)]
    lines = [row for row in board] + [[board[r][c] for r in range(n)] for c in range(n)]
    for d in range(-n + 1, n):
        lines.append([board[r][r - d] for r in range(n) if 0 <= r - d < n])
        lines.append([board[r][d + n - 1 - r] for r in range(n) if 0 <= d + n - 1 - r < n])
    return not any(_threat(line, stone) for line in lines for stone in (BLACK, WHITE))


KERNEL = GameKernel(
    name="gomoku",
    description="Gomoku: five in a row on a 15x15 board (freestyle; exact_five optional)",
    module=sys.modules[__name__],
    rules=(
        RuleOption("size", DEFAULT_SIZE, "board size N (N x N points)", MIN_SIZE, MAX_SIZE),
        RuleOption("exact_five", 0, "only exactly five in a row wins (no overlines)"),
    ),
    max_moves=MAX_SIZE * MAX_SIZE,
    opening_plies=3,
    _new_state=new_state,
    move_to_str=move_to_str,
    gen_moves=gen_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    outcome=outcome,
    opening_moves=opening_moves,
    opening_ok=opening_ok,
    max_game_plies=lambda rules: int(rules["size"]) ** 2,
    hash_from_scratch=hash_from_scratch,
    live_length=lambda state: int(state[HIST] + state[PLY]),
)
