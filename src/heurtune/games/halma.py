"""Halma rules kernel: 16x16 board, two players, 19 pieces each, chain jumps.

Cell ``row * 16 + col``; row 0 is rank 1 and col 0 is file a, so cell 0 is ``a1``
and cell 255 is ``p16``.

Rules (seed 002, with its generator's defect fixed):

* Player 0 starts in the (0, 0) corner camp and moves first; player 1 in the
  opposite corner. A camp is 19 cells: rows of 5, 5, 4, 3 and 2 cells from the
  corner. Each player's target is the opponent's camp.
* A move takes one own piece one step to any of the 8 neighbouring empty cells,
  or through a chain of jumps: a jump goes over an adjacent piece (either
  colour) in any of the 8 directions onto the empty cell directly behind it, and
  the chain may go on from where it lands, never landing on a cell it has
  visited (its start included). The moving piece has left its start cell, so it
  cannot jump over it. A move is (from, to): chains that end on the same cell
  are one move. Rule ``chain_jumps`` = 0 allows single jumps only, as the
  seed's generator did (its recursion never continued a chain).
* Win (``camp_rule`` = 0, the seed's): all 19 cells of the target camp hold
  your pieces. ``camp_rule`` = 1: the target camp is full and at least one of
  its pieces is yours (so one piece left at home cannot block the opponent
  forever). The side that just moved is checked first.
* After ``max_plies`` plies the game is adjudicated (``adjudicate`` = 1): the
  side whose pieces have the smaller total distance (Chebyshev) to its target
  corner wins, equal totals draw; ``adjudicate`` = 0 makes it a draw. Otherwise
  the side to move with no legal move loses.

A move is ``from | to << 8`` (int64); its notation is ``a1-c3``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np
from numba import njit

from heurtune.games.base import (
    DRAW,
    EMPTY_CELL,
    HASH,
    HEADER,
    LOSS,
    ONGOING,
    PLY,
    STM,
    UNFINISHED,
    WIN,
    GameKernel,
    RuleOption,
    grid_rows,
)

SIZE = 16
CELLS = SIZE * SIZE
PIECES = 19
FILES = "abcdefghijklmnop"
NAMES = [f"{FILES[c % SIZE]}{c // SIZE + 1}" for c in range(CELLS)]
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
CAMP_ROWS = (5, 5, 4, 3, 2)  # cells per row, counted from the corner


def _camps() -> np.ndarray:
    """``CAMP[side, cell]``: 1 where the cell is in ``side``'s home camp."""
    camp = np.zeros((2, CELLS), dtype=np.int64)
    for r, width in enumerate(CAMP_ROWS):
        for c in range(width):
            camp[0, r * SIZE + c] = 1
            camp[1, (SIZE - 1 - r) * SIZE + (SIZE - 1 - c)] = 1
    assert camp[0].sum() == camp[1].sum() == PIECES
    return camp


def _geometry() -> tuple[np.ndarray, np.ndarray]:
    """``STEP[cell, d]``: the neighbour in direction d (or -1); ``JUMP[cell, d]``:
    the cell two away in that direction (or -1)."""
    step = np.full((CELLS, 8), -1, dtype=np.int64)
    jump = np.full((CELLS, 8), -1, dtype=np.int64)
    for cell in range(CELLS):
        r, c = divmod(cell, SIZE)
        for d, (dr, dc) in enumerate(DIRECTIONS):
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
                step[cell, d] = (r + dr) * SIZE + c + dc
            if 0 <= r + 2 * dr < SIZE and 0 <= c + 2 * dc < SIZE:
                jump[cell, d] = (r + 2 * dr) * SIZE + c + 2 * dc
    return step, jump


def _distances() -> np.ndarray:
    """``DIST[side, cell]``: Chebyshev distance from the cell to ``side``'s target corner."""
    dist = np.zeros((2, CELLS), dtype=np.int64)
    for cell in range(CELLS):
        r, c = divmod(cell, SIZE)
        dist[0, cell] = max(SIZE - 1 - r, SIZE - 1 - c)
        dist[1, cell] = max(r, c)
    return dist


CAMP = _camps()
TARGET = CAMP[::-1].copy()  # TARGET[side]: the opponent's camp
STEP, JUMP = _geometry()
DIST = _distances()

# state layout: the common header (STM, PLY, HASH), then the rules,
R_CHAIN = HEADER
R_CAMP = HEADER + 1
R_MAXPLY = HEADER + 2
R_ADJ = HEADER + 3
BOARD = 8  # CELLS entries: 0 empty, 1 + side for a piece
IN_TARGET = BOARD + CELLS  # + side: own pieces in the side's target camp
FILLED = IN_TARGET + 2  # + side: occupied cells of the side's target camp
TOTAL = FILLED + 2  # + side: total distance of the side's pieces to its target corner
# + side * PIECES: the side's pieces' cells in ascending order, kept so by make /
# unmake; what move generation and the heuristics walk instead of the 256 cells
# (in the same order, so every sum is the one a scan of the board gives)
PLIST = TOTAL + 2
PCOUNT = PLIST + 2 * PIECES  # + side: how many pieces the side has (19 in a game)
HIST = PCOUNT + 2  # per ply: the move and the hash before it
# after the history: generation scratch (visit stamps, a stack, the stamp counter)

_rng = np.random.default_rng(0x48616C6D61)
Z_PIECE = _rng.integers(-(2**63), 2**63 - 1, size=(2, CELLS), dtype=np.int64)
Z_STM = np.int64(_rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))


def new_state(rules: Mapping[str, int]) -> np.ndarray:
    """The start position: both camps full, player 0 to move."""
    max_plies = int(rules["max_plies"])
    scratch = HIST + 2 * (max_plies + 1)
    s = np.zeros(scratch + 2 * CELLS + 1, dtype=np.int64)
    s[R_CHAIN] = rules["chain_jumps"]
    s[R_CAMP] = rules["camp_rule"]
    s[R_MAXPLY] = max_plies
    s[R_ADJ] = rules["adjudicate"]
    board = np.full(CELLS, -1, dtype=np.int64)
    for side in range(2):
        board[CAMP[side] == 1] = side
    set_board(s, board)
    return s


def set_board(state: np.ndarray, board: np.ndarray) -> None:
    """Put the pieces of ``board`` (per cell: -1 empty, else the owner 0 or 1) on
    ``state``'s board and derive the rest (piece lists, camp counts, distances,
    hash), keeping the side to move. For positions that no game reaches, such as
    one piece on an empty board (the heuristics' per-cell weights)."""
    state[BOARD:BOARD + CELLS] = 0
    state[IN_TARGET:HIST] = 0
    h = 0
    for cell in range(CELLS):
        side = int(board[cell])
        if side < 0:
            continue
        if state[PCOUNT + side] >= PIECES:
            raise ValueError(f"side {side} has more than {PIECES} pieces")
        state[PLIST + side * PIECES + state[PCOUNT + side]] = cell
        state[PCOUNT + side] += 1
        state[BOARD + cell] = 1 + side
        state[TOTAL + side] += DIST[side, cell]
        state[IN_TARGET + side] += TARGET[side, cell]
        for s in range(2):
            state[FILLED + s] += TARGET[s, cell]
        h ^= int(Z_PIECE[side, cell])
    if state[STM] == 1:
        h ^= int(Z_STM)
    state[HASH] = np.int64(h)


@njit(cache=True, nogil=True, error_model="numpy")
def _scratch_base(state):
    return HIST + 2 * (state[R_MAXPLY] + 1)


@njit(cache=True, nogil=True, error_model="numpy")
def _piece_moves(state, cell, out, row, n, base):
    """Append the moves of the piece on ``cell`` to ``out[row]`` from index ``n``."""
    for d in range(8):
        t = STEP[cell, d]
        if t >= 0 and state[BOARD + t] == 0:
            out[row, n] = cell | t << 8
            n += 1
    visit = base
    stack = base + CELLS
    stamp_at = base + 2 * CELLS
    stamp = state[stamp_at] + 1
    state[stamp_at] = stamp
    piece = state[BOARD + cell]
    state[BOARD + cell] = 0  # the piece has left: it cannot be jumped over
    state[visit + cell] = stamp
    top = 0
    state[stack] = cell
    top = 1
    chain = state[R_CHAIN] != 0
    while top > 0:
        top -= 1
        c = state[stack + top]
        for d in range(8):
            t = JUMP[c, d]
            if t < 0 or state[visit + t] == stamp or state[BOARD + t] != 0:
                continue
            if state[BOARD + STEP[c, d]] == 0:
                continue
            state[visit + t] = stamp
            out[row, n] = cell | t << 8
            n += 1
            if chain:
                state[stack + top] = t
                top += 1
    state[BOARD + cell] = piece
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def gen_moves(state, out, row):
    """Write the legal moves of the side to move into ``out[row]``; return their number."""
    side = state[STM]
    base = _scratch_base(state)
    first = PLIST + side * PIECES
    n = 0
    for k in range(state[PCOUNT + side]):
        n = _piece_moves(state, state[first + k], out, row, n, base)
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def _lift(state, side, cell):
    state[BOARD + cell] = 0
    state[TOTAL + side] -= DIST[side, cell]
    if TARGET[side, cell]:
        state[IN_TARGET + side] -= 1
    for s in range(2):
        if TARGET[s, cell]:
            state[FILLED + s] -= 1


@njit(cache=True, nogil=True, error_model="numpy")
def _drop(state, side, cell):
    state[BOARD + cell] = 1 + side
    state[TOTAL + side] += DIST[side, cell]
    if TARGET[side, cell]:
        state[IN_TARGET + side] += 1
    for s in range(2):
        if TARGET[s, cell]:
            state[FILLED + s] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def _relist(state, side, frm, to):
    """Replace ``frm`` by ``to`` in the side's piece list, keeping it in ascending order."""
    first = PLIST + side * PIECES
    last = first + state[PCOUNT + side] - 1
    i = first
    while state[i] != frm:
        i += 1
    while i > first and state[i - 1] > to:
        state[i] = state[i - 1]
        i -= 1
    while i < last and state[i + 1] < to:
        state[i] = state[i + 1]
        i += 1
    state[i] = to


@njit(cache=True, nogil=True, error_model="numpy")
def make_move(state, move):
    side = state[STM]
    ply = state[PLY]
    frm = move & 255
    to = (move >> 8) & 255
    state[HIST + 2 * ply] = move
    state[HIST + 2 * ply + 1] = state[HASH]
    _lift(state, side, frm)
    _drop(state, side, to)
    _relist(state, side, frm, to)
    state[HASH] ^= Z_PIECE[side, frm] ^ Z_PIECE[side, to] ^ Z_STM
    state[STM] = 1 - side
    state[PLY] = ply + 1


@njit(cache=True, nogil=True, error_model="numpy")
def unmake_move(state, move):
    side = 1 - state[STM]
    ply = state[PLY] - 1
    frm = move & 255
    to = (move >> 8) & 255
    _lift(state, side, to)
    _drop(state, side, frm)
    _relist(state, side, to, frm)
    state[HASH] = state[HIST + 2 * ply + 1]
    state[STM] = side
    state[PLY] = ply


@njit(cache=True, nogil=True, error_model="numpy")
def _wins(state, side):
    if state[R_CAMP] == 0:
        return state[IN_TARGET + side] == PIECES
    return state[FILLED + side] == PIECES and state[IN_TARGET + side] >= 1


@njit(cache=True, nogil=True, error_model="numpy")
def _has_move(state):
    """Whether the side to move has a legal move (a step, or a first jump)."""
    side = state[STM]
    first = PLIST + side * PIECES
    for k in range(state[PCOUNT + side]):
        cell = state[first + k]
        for d in range(8):
            t = STEP[cell, d]
            if t < 0:
                continue
            if state[BOARD + t] == 0:
                return True
            j = JUMP[cell, d]
            if j >= 0 and state[BOARD + j] == 0:
                return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def outcome(state) -> int:
    """ONGOING, or the result for the side to move."""
    stm = state[STM]
    if _wins(state, 1 - stm):
        return LOSS
    if _wins(state, stm):
        return WIN
    if state[PLY] >= state[R_MAXPLY]:
        if state[R_ADJ] == 0:
            return DRAW
        own, opp = state[TOTAL + stm], state[TOTAL + 1 - stm]
        if own < opp:
            return WIN
        if own > opp:
            return LOSS
        return DRAW
    if not _has_move(state):
        return LOSS
    return ONGOING


def move_to_str(move: int) -> str:
    return f"{NAMES[move & 255]}-{NAMES[(move >> 8) & 255]}"


def hash_from_scratch(state: np.ndarray) -> int:
    """Zobrist hash of the pieces and the side to move."""
    h = 0
    for cell in range(CELLS):
        v = int(state[BOARD + cell])
        if v:
            h ^= int(Z_PIECE[v - 1, cell])
    if state[STM] == 1:
        h ^= int(Z_STM)
    return int(np.int64(h))


def _transpose() -> tuple[int, ...]:
    return tuple((c % SIZE) * SIZE + c // SIZE for c in range(CELLS))


SYMMETRIES = (tuple(range(CELLS)), _transpose())  # the camps are symmetric about the diagonal


def symmetry_hashes(state: np.ndarray) -> list[int]:
    """The hashes of the position and of its mirror image in the main diagonal
    (the only symmetry that keeps both camps in place); the first is its own."""
    out = []
    for perm in SYMMETRIES:
        image = state.copy()
        for cell in range(CELLS):
            image[BOARD + perm[cell]] = state[BOARD + cell]
        out.append(hash_from_scratch(image))
    return out


SIDE_NAMES = ("player 0", "player 1")
PIECE_CHARS = "XO"  # board_rows: player 0's and player 1's pieces
CAMP_CELL = ","  # board_rows: an empty cell of a camp
LEGEND = {
    "X": ("player 0's piece", "#1f77b4"),
    "O": ("player 1's piece", "#d62728"),
    CAMP_CELL: ("empty camp cell", "#e0c890"),
    EMPTY_CELL: ("empty cell", "#c8c8c8"),
}


def board_rows(state: np.ndarray) -> list[str]:
    """The 16x16 cells, rank 16 first; empty camp cells apart from other empty cells."""

    def char(r: int, c: int) -> str:
        cell = r * SIZE + c
        piece = int(state[BOARD + cell])
        if piece:
            return PIECE_CHARS[piece - 1]
        return CAMP_CELL if CAMP[0, cell] or CAMP[1, cell] else EMPTY_CELL

    return grid_rows(SIZE, SIZE, char)


def termination(state: np.ndarray) -> str:
    """A filled target camp, the adjudication at the ply limit, or no move."""
    stm = int(state[STM])
    camp = ("holds all 19 cells of its target camp" if state[R_CAMP] == 0
            else "completed the full target camp")
    for side in (1 - stm, stm):
        if _wins(state, side):
            return f"{SIDE_NAMES[side]} {camp}"
    limit = int(state[R_MAXPLY])
    if state[PLY] >= limit:
        if state[R_ADJ] == 0:
            return f"draw: {limit} plies played"
        totals = [int(state[TOTAL + side]) for side in range(2)]
        if totals[0] == totals[1]:
            return f"draw: adjudicated after {limit} plies, equal distance {totals[0]}"
        near = 0 if totals[0] < totals[1] else 1
        return (f"adjudicated after {limit} plies: {SIDE_NAMES[near]} is nearer its target "
                f"(total distance {totals[near]} against {totals[1 - near]})")
    if not _has_move(state):
        return f"{SIDE_NAMES[stm]} has no legal move"
    return UNFINISHED


# where the registry finds this game's heuristics and presets (engine layer)
HEURISTICS_MODULE = "heurtune.engine.heuristics.halma"

KERNEL = GameKernel(
    name="halma",
    description="Halma: 16x16 board, 19 pieces each, steps and chain jumps",
    module=sys.modules[__name__],
    rules=(
        RuleOption("chain_jumps", 1, "jumps may continue from where they land (0: the seed's "
                   "single jumps)", 0, 1),
        RuleOption("camp_rule", 0, "0: win with all 19 target cells your own; 1: the target "
                   "camp full with at least one of yours", 0, 1),
        RuleOption("max_plies", 1000, "adjudicate after this many plies", 1, 100_000),
        RuleOption("adjudicate", 1, "at max_plies the smaller total distance to the target "
                   "wins (0: a draw)", 0, 1),
    ),
    max_moves=PIECES * CELLS,
    opening_plies=4,
    _new_state=new_state,
    move_to_str=move_to_str,
    gen_moves=gen_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    outcome=outcome,
    symmetry_hashes=symmetry_hashes,
    max_game_plies=lambda rules: int(rules["max_plies"]),
    hash_from_scratch=hash_from_scratch,
    live_length=lambda state: HIST + 2 * int(state[PLY]),
    board_rows=board_rows,
    board_legend=LEGEND,
    termination=termination,
    side_names=SIDE_NAMES,
)
