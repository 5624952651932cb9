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
read without bounds checks, which the heuristics use.

Besides the grid, make / unmake keep two things up to date for the search
(both functions of the stones alone, so unmake restores them exactly):

* the *line classes*: for every empty point, each of its four lines and each
  side, the seed's ``cscore`` of that line as ``mag * 8 + mul`` (mul not capped;
  0 where mag is 0 or the point holds a stone), and a histogram of them per
  side. Only the lines through the changed point are recomputed, from a table
  indexed by the line's eight cells. Heuristics weight the histogram instead
  of rescanning the board (``threats``);
* the number of stones within two points (king-move distance) of every cell,
  which gives the candidate moves.

:func:`gen_candidates` (the kernel's search-moves hook) returns a winning point
alone if the side to move has one, else the points that stop the opponent's
five if it has any, else the empty points within two points of a stone (the
centre on an empty board). :func:`move_key` (the ordering hook) ranks a point
by the line classes through it, so threats are searched first.
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
    GameKernel,
    RuleOption,
    grid_rows,
)

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
HIST = HEADER + 4  # where the moves played so far start (after everything else)
R_CELLS = HEADER + 5  # cells of the padded grid, (N + 2 PAD)^2
R_NEAR = HEADER + 6  # where the stones-within-two counts start (one per grid cell)
R_CLS = HEADER + 7  # where the line classes start: [side][direction][grid cell]
R_HISTO = HEADER + 8  # where the class histograms start: [side][class]
R_KEYS = HEADER + 9  # where the line keys start: [direction][grid cell]
GRID = 13  # the padded grid; then near counts, line classes, line keys, histograms, moves

# line classes: mag * 8 + mul of the seed's cscore (mag, mul <= 5); class 32 and
# up (mag >= 4) is the only kind of line through which a point can make five
NCLASS = 48
MAG_SHIFT = 3
FOUR_CLASS = 4 << MAG_SHIFT
NEAR = 2  # candidate moves lie within this many points of a stone

_rng = np.random.default_rng(0x476F6D6F6B75)
Z_STONE = _rng.integers(-(2**63), 2**63 - 1, size=(2, MAX_SIZE * STRIDE), dtype=np.int64)
Z_STM = np.int64(_rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))


def new_state(rules: Mapping[str, int]) -> np.ndarray:
    """The empty board, Black to move."""
    n = int(rules["size"])
    width = n + 2 * PAD
    cells = width * width
    s = np.zeros(GRID + 14 * cells + 2 * NCLASS + n * n, dtype=np.int64)
    s[R_SIZE] = n
    s[R_EXACT] = rules["exact_five"]
    s[R_WIDTH] = width
    s[R_CELLS] = cells
    s[R_NEAR] = GRID + cells
    s[R_CLS] = GRID + 2 * cells
    s[R_KEYS] = GRID + 10 * cells
    s[R_HISTO] = GRID + 14 * cells
    s[HIST] = GRID + 14 * cells + 2 * NCLASS
    grid = s[GRID:GRID + cells].reshape(width, width)
    grid[:, :] = WALL
    grid[PAD:PAD + n, PAD:PAD + n] = EMPTY
    # every line class of the empty board is 0 (no stones): the histograms count
    # all 4 lines of all N^2 points there
    s[s[R_HISTO]] = 4 * n * n
    s[s[R_HISTO] + NCLASS] = 4 * n * n
    _init_keys(s)
    return s


# -- the seed's line score, as line classes ------------------------------------------
# A line is the 8 points around a point, a[0..3] from the far end up to it and
# a[4..7] onwards (the point itself is not part of it). heurtune's heuristics
# module documents the seed's windows; they are here because the kernel keeps
# every line's class up to date.

@njit(cache=True, nogil=True, error_model="numpy")
def free_range(line, own):
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
def cscore(line, own, cap):
    """The seed's ``cscore``: ``(mag, mul)`` over the free range's windows: a
    range of ``L`` points has ``L - 3`` windows, window ``i`` the slice
    ``[i:i + 5]`` of the range (centre excluded, so the last ones hold fewer
    than five points); ``mul`` is capped at ``cap``."""
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
def _class_table():
    """Line class of every line for each side, indexed by the line's 8 cells
    (2 bits each, cell ``j`` at bits ``2j``). int8, so that numba can embed it in
    the compiled code (arrays over 1 MB it cannot cache)."""
    table = np.zeros((2, 1 << 16), dtype=np.int8)
    line = np.empty(8, dtype=np.int64)
    for key in range(1 << 16):
        for j in range(8):
            line[j] = (key >> (2 * j)) & 3
        for side in range(2):
            mag, mul = cscore(line, 1 + side, np.int64(8))
            table[side, key] = (mag << MAG_SHIFT) + mul if mag > 0 else 0
    return table


CLASS_TABLE = _class_table()


@njit(cache=True, nogil=True, error_model="numpy")
def line_key(state, idx, step):
    """The 8 cells of the line through grid cell ``idx`` in direction ``step``,
    packed as :data:`CLASS_TABLE` indexes them."""
    key = 0
    for k in range(4):
        key |= state[idx - (4 - k) * step] << (2 * k)
        key |= state[idx + (k + 1) * step] << (2 * (4 + k))
    return key


@njit(cache=True, nogil=True, error_model="numpy")
def _steps(width):
    return (1, width, width + 1, width - 1)


@njit(cache=True, nogil=True, error_model="numpy")
def _init_keys(state):
    """The line key of every point of the board in every direction."""
    n = state[R_SIZE]
    width = state[R_WIDTH]
    keys = state[R_KEYS] - GRID
    cells = state[R_CELLS]
    for r in range(n):
        for c in range(n):
            idx = GRID + (r + PAD) * width + PAD + c
            d = 0
            for step in _steps(width):
                state[keys + d * cells + idx] = line_key(state, idx, step)
                d += 1


@njit(cache=True, nogil=True, error_model="numpy")
def _update(state, idx, change):
    """After grid cell ``idx`` changed by ``change`` (+stone placed, -stone
    removed): the near counts around it, the keys of the lines through it, and
    the classes of the empty points on them (and its own) follow."""
    width = state[R_WIDTH]
    cells = state[R_CELLS]
    near = state[R_NEAR] - GRID
    delta = 1 if change > 0 else -1
    for dr in range(-NEAR, NEAR + 1):
        for dc in range(-NEAR, NEAR + 1):
            state[near + idx + dr * width + dc] += delta
    cls = state[R_CLS] - GRID
    keys = state[R_KEYS] - GRID
    histo = state[R_HISTO]
    d = 0
    for step in _steps(width):
        for k in range(-4, 5):
            p = idx + k * step
            v = state[p]
            if v == WALL:
                continue
            # idx lies -k points from p: cell 3 - k of p's line after p (k < 0),
            # cell 4 - k before it (k > 0); see line_key
            if k < 0:
                state[keys + d * cells + p] += change << (2 * (3 - k))
            elif k > 0:
                state[keys + d * cells + p] += change << (2 * (4 - k))
            b = 0
            w = 0
            if v == EMPTY:
                key = state[keys + d * cells + p]
                b = CLASS_TABLE[0, key]
                w = CLASS_TABLE[1, key]
            at = cls + d * cells + p
            old = state[at]
            if old != b:
                state[histo + old] -= 1
                state[histo + b] += 1
                state[at] = b
            at += 4 * cells
            old = state[at]
            if old != w:
                state[histo + NCLASS + old] -= 1
                state[histo + NCLASS + w] += 1
                state[at] = w
        d += 1


@njit(cache=True, nogil=True, error_model="numpy")
def cell_index(state, move):
    """Index into ``state`` of the grid cell of point ``move``."""
    return GRID + ((move >> 5) + PAD) * state[R_WIDTH] + (move & 31) + PAD


@njit(cache=True, nogil=True, error_model="numpy")
def gen_moves(state, out, row):
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
def run_length(state, idx, step, stone):
    """Stones ``stone`` in a row from ``idx`` (excluded) in direction ``step``."""
    k = 0
    j = idx + step
    while state[j] == stone:
        k += 1
        j += step
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def makes_five(state, idx, stone):
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
def make_move(state, move):
    s = state[STM]
    idx = cell_index(state, move)
    state[idx] = 1 + s
    state[WON] = 1 if makes_five(state, idx, 1 + s) else 0
    _update(state, idx, 1 + s)
    state[HASH] ^= Z_STONE[s, move] ^ Z_STM
    state[state[HIST] + state[PLY]] = move
    state[STM] = 1 - s
    state[PLY] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def unmake_move(state, move):
    s = 1 - state[STM]
    idx = cell_index(state, move)
    state[idx] = EMPTY
    _update(state, idx, -1 - s)
    state[WON] = 0  # play only continues from positions without a five
    state[HASH] ^= Z_STONE[s, move] ^ Z_STM
    state[STM] = s
    state[PLY] -= 1


@njit(cache=True, nogil=True, error_model="numpy")
def outcome(state) -> int:
    """LOSS for the side to move when the last move made five, DRAW on a full board."""
    if state[WON] != 0:
        return LOSS
    if state[PLY] >= state[R_SIZE] * state[R_SIZE]:
        return DRAW
    return ONGOING


@njit(cache=True, nogil=True, error_model="numpy")
def _has_four(state, side):
    """Whether ``side`` has any line of class four or more (a point might make five)."""
    h = state[R_HISTO] + side * NCLASS
    for c in range(FOUR_CLASS, NCLASS):
        if state[h + c] != 0:
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def _five_points(state, side, out, row, first_only):
    """Write the points where ``side`` would make five into ``out[row]``; only
    the first one when ``first_only``. Only points with a line of class four or
    more can (the seed's windows then hold the four stones)."""
    n = state[R_SIZE]
    width = state[R_WIDTH]
    cells = state[R_CELLS]
    cls = state[R_CLS] - GRID + side * 4 * cells
    k = 0
    for r in range(n):
        base = GRID + (r + PAD) * width + PAD
        for c in range(n):
            idx = base + c
            if state[idx] != EMPTY:
                continue
            if (state[cls + idx] < FOUR_CLASS and state[cls + cells + idx] < FOUR_CLASS
                    and state[cls + 2 * cells + idx] < FOUR_CLASS
                    and state[cls + 3 * cells + idx] < FOUR_CLASS):
                continue
            if makes_five(state, idx, 1 + side):
                out[row, k] = r * STRIDE + c
                k += 1
                if first_only:
                    return k
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def gen_candidates(state, out, row):
    """The moves worth searching: a winning point alone, else the points that
    stop the opponent's five, else every empty point within two of a stone (the
    centre on an empty board). A subset of :func:`gen_moves`, never empty while
    the game goes on."""
    n = state[R_SIZE]
    if state[PLY] == 0:
        out[row, 0] = (n // 2) * STRIDE + n // 2
        return 1
    s = state[STM]
    if _has_four(state, s):
        k = _five_points(state, s, out, row, True)
        if k > 0:
            return k
    if _has_four(state, 1 - s):
        k = _five_points(state, 1 - s, out, row, False)
        if k > 0:
            return k
    width = state[R_WIDTH]
    near = state[R_NEAR] - GRID
    k = 0
    for r in range(n):
        base = GRID + (r + PAD) * width + PAD
        for c in range(n):
            if state[base + c] == EMPTY and state[near + base + c] > 0:
                out[row, k] = r * STRIDE + c
                k += 1
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def move_key(state, move):
    """Threat-first ordering key of a move: the magnitudes of the line classes
    through the point, for the side to move (counted double) and the opponent,
    16 times more per extra stone, so a four outranks any number of threes."""
    idx = cell_index(state, move)
    cells = state[R_CELLS]
    at = state[R_CLS] - GRID + idx
    own = state[STM] * 4 * cells
    opp = (1 - state[STM]) * 4 * cells
    key = 0
    for d in range(4):
        key += (2 << (4 * (state[at + own + d * cells] >> MAG_SHIFT)))
        key += (1 << (4 * (state[at + opp + d * cells] >> MAG_SHIFT)))
    return key


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


def symmetry_hashes(state: np.ndarray) -> list[int]:
    """The hashes of the position under the 8 symmetries of the square board
    (rotations and reflections keep every line a line); the first is its own."""
    n = int(state[R_SIZE])
    last = n - 1
    stones = []
    for r in range(n):
        for c in range(n):
            v = int(state[cell_index(state, r * STRIDE + c)])
            if v in (BLACK, WHITE):
                stones.append((r, c, v - 1))
    maps = (lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (last - r, c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r))
    out = []
    for f in maps:
        h = int(Z_STM) if state[STM] == 1 else 0
        for r, c, side in stones:
            rr, cc = f(r, c)
            h ^= int(Z_STONE[side, rr * STRIDE + cc])
        out.append(int(np.int64(h)))
    return out


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
        if (w[0] == EMPTY and w[5] == EMPTY
                and w[1:5].count(stone) == 3 and w[1:5].count(EMPTY) == 1):
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


SIDE_NAMES = ("Black", "White")
STONES = {BLACK: "B", WHITE: "W"}  # board_rows: each side's stones
LEGEND = {
    "B": ("Black stone", "#202020"),
    "W": ("White stone", "#fafafa"),
    EMPTY_CELL: ("empty point", "#c8b070"),
}


def board_rows(state: np.ndarray) -> list[str]:
    """The N x N points, rank N first."""
    n = int(state[R_SIZE])
    return grid_rows(n, n, lambda r, c: STONES.get(int(state[cell_index(state, r * STRIDE + c)]),
                                                   EMPTY_CELL))


def termination(state: np.ndarray) -> str:
    """Who made five, or a full board."""
    if state[WON] != 0:
        return f"{SIDE_NAMES[1 - int(state[STM])]} made five in a row"
    if state[PLY] >= state[R_SIZE] * state[R_SIZE]:
        return "draw: the board is full"
    return UNFINISHED


# where the registry finds this game's heuristics and presets (engine layer)
HEURISTICS_MODULE = "heurtune.engine.heuristics.gomoku"

KERNEL = GameKernel(
    name="gomoku",
    description="Gomoku: five in a row on a 15x15 board (freestyle; exact_five optional)",
    module=sys.modules[__name__],
    rules=(
        RuleOption("size", DEFAULT_SIZE, "board size N (N x N points)", MIN_SIZE, MAX_SIZE),
        RuleOption("exact_five", 0, "1: only exactly five in a row wins (no overlines)", 0, 1),
    ),
    max_moves=MAX_SIZE * MAX_SIZE,
    opening_plies=3,
    _new_state=new_state,
    move_to_str=move_to_str,
    gen_moves=gen_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    outcome=outcome,
    gen_candidates=gen_candidates,
    move_key=move_key,
    opening_moves=opening_moves,
    opening_ok=opening_ok,
    symmetry_hashes=symmetry_hashes,
    max_game_plies=lambda rules: int(rules["size"]) ** 2,
    hash_from_scratch=hash_from_scratch,
    live_length=lambda state: int(state[HIST] + state[PLY]),
    board_rows=board_rows,
    board_legend=LEGEND,
    termination=termination,
    side_names=SIDE_NAMES,
)
