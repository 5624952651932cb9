"""Connect Four as a plain-Python heurtune game, on bitboards.

The board is two Python ints, one per side, in the classic layout of
"height + 1 bits per column": column ``c`` owns bits ``c*(rows+1)`` (its
bottom cell) up to ``c*(rows+1) + rows - 1`` (its top cell), and bit
``c*(rows+1) + rows`` is a sentinel that is never set. The sentinel row
keeps lines from wrapping from one column into the next, so that four in a
row in any direction is two shifts and two ANDs::

    t = stones & (stones >> d); won = t & (t >> 2 * d)

with ``d`` = 1 (vertical), ``rows + 1`` (horizontal), ``rows`` (one
diagonal) and ``rows + 2`` (the other). A move is a column number; the cell
it fills is ``(mask + bottom) & ~mask`` (adding the column's bottom bit to
its contiguous stones carries into the first empty cell), and taking it
back clears the column's top stone, ``((mask & column) + bottom) >> 1``.

The position key is the classic unique one, ``stones of the side to move +
mask``: per column it is ``2^height - 1 + (a subset of those bits)``, which
tells the height and every stone apart, and the side to move follows from
the number of stones.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from heurtune.games import PythonGame
from heurtune.games.base import DRAW, LOSS, ONGOING, RuleOption

FILES = "abcdefghi"  # the columns' names (9 columns at most)
SIDE_NAMES = ("Red", "Yellow")
CHARS = ("R", "Y")  # board_rows: Red's and Yellow's stones
EMPTY = "."


class Geometry:
    """What one board size fixes: bit masks, line directions, the legal-move
    table. Shared (never copied) by every board of that size."""

    __slots__ = ("columns", "rows", "stride", "size", "bottom", "column_mask", "board",
                 "top_row", "directions", "legal", "starts", "shifts", "centre", "windows")

    def __init__(self, columns: int, rows: int) -> None:
        self.columns = columns
        self.rows = rows
        self.stride = stride = rows + 1
        self.size = columns * rows
        self.bottom = tuple(1 << (c * stride) for c in range(columns))
        self.column_mask = tuple(((1 << rows) - 1) << (c * stride) for c in range(columns))
        self.board = sum(self.column_mask)
        self.top_row = sum(1 << (c * stride + rows - 1) for c in range(columns))
        # vertical, horizontal, and the two diagonals
        self.directions = (1, stride, rows, rows + 2)
        # the legal moves for every set of full columns (keyed by mask & top_row)
        legal: dict[int, tuple[int, ...]] = {}
        for full in range(1 << columns):
            bits = sum(1 << (c * stride + rows - 1) for c in range(columns) if full >> c & 1)
            legal[bits] = tuple(c for c in range(columns) if not full >> c & 1)
        self.legal = legal
        # every 4-cell window on the board, and per direction the cells where
        # a window starts (its lowest bit)
        windows: list[int] = []
        starts = []
        for d in self.directions:
            start = self.board & (self.board >> d) & (self.board >> 2 * d) & (self.board >> 3 * d)
            starts.append(start)
            bit = 0
            while start >> bit:
                if start >> bit & 1:
                    windows.append(sum(1 << (bit + k * d) for k in range(4)))
                bit += 1
        self.starts = tuple(starts)
        # per direction: the shifts that line a window's cells up, and its starts
        self.shifts = tuple((d, 2 * d, 3 * d, start)
                            for d, start in zip(self.directions, self.starts, strict=True))
        self.windows = tuple(windows)
        middle = (columns - 1) // 2, columns // 2  # one middle column, or two
        self.centre = self.column_mask[middle[0]] | self.column_mask[middle[1]]

    def cell(self, column: int, row: int) -> int:
        """The bit of a cell (row 0 at the bottom)."""
        return 1 << (column * self.stride + row)

    def mirror(self, bits: int) -> int:
        """``bits`` reflected left to right (column c goes to columns - 1 - c)."""
        stride, last = self.stride, self.columns - 1
        full = (1 << stride) - 1
        out = 0
        for c in range(self.columns):
            out |= ((bits >> (c * stride)) & full) << ((last - c) * stride)
        return out


@functools.cache
def geometry(columns: int, rows: int) -> Geometry:
    """The (shared) geometry of a ``columns`` x ``rows`` board."""
    return Geometry(columns, rows)


class Board:
    """A Connect Four position: both sides' stones, their union, the ply, and
    whether the last move connected four (then the game is over)."""

    __slots__ = ("g", "stones", "mask", "ply", "won")

    def __init__(self, g: Geometry, stones: list[int] | None = None, mask: int = 0,
                 ply: int = 0, won: bool = False) -> None:
        self.g = g
        self.stones = [0, 0] if stones is None else stones  # Red's, Yellow's
        self.mask = mask
        self.ply = ply
        self.won = won

    def copy(self) -> Board:
        return Board(self.g, list(self.stones), self.mask, self.ply, self.won)

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> Board:
        return self.copy()  # the geometry is shared, never copied

    def snapshot(self) -> tuple[int, int, int, int, int, int, bool]:
        """Everything the board holds, as a tuple (for comparisons)."""
        g = self.g
        return (g.columns, g.rows, self.stones[0], self.stones[1], self.mask, self.ply, self.won)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        rows = GAME.board_rows(self)
        return f"Board({self.g.columns}x{self.g.rows}, ply {self.ply}: {'/'.join(rows)})"


class ConnectFour(PythonGame[Board]):
    """Connect Four: drop stones into columns; four in a row wins."""

    name = "connect4"
    description = "Connect Four (7x6 by default): four in a row, written in plain Python"
    rules = (
        RuleOption("columns", 7, "board width", 4, 9),
        RuleOption("rows", 6, "board height", 4, 8),
    )
    # four random plies: 2,401 openings (about 1,200 up to the mirror), enough
    # for a study's pairs and a confirmation's fresh ones (two plies give 28)
    opening_plies = 4
    side_names = SIDE_NAMES
    board_legend = {
        "R": ("Red stone", "#d62728"),
        "Y": ("Yellow stone", "#f2c200"),
        EMPTY: ("empty cell", "#9db4d8"),
    }

    # -- the contract ----------------------------------------------------------
    def new_state(self, rules: Mapping[str, int]) -> Board:
        columns = int(rules.get("columns", 7))
        rows = int(rules.get("rows", 6))
        if not (4 <= columns <= 9 and 4 <= rows <= 8):
            raise ValueError(f"connect4: a board of {columns}x{rows} is outside 4..9 x 4..8")
        return Board(geometry(columns, rows))

    def legal_moves(self, state: Board) -> Sequence[int]:
        if state.won:
            return ()
        g = state.g
        return g.legal[state.mask & g.top_row]

    def play(self, state: Board, move: int) -> None:
        g = state.g
        mask = state.mask
        bit = (mask + g.bottom[move]) & ~mask  # the column's first empty cell
        side = state.ply & 1
        stones = state.stones[side] | bit
        state.stones[side] = stones
        state.mask = mask | bit
        state.ply += 1
        d1, d2, d3, d4 = g.directions  # four in a row? (the four directions, unrolled)
        t = stones & (stones >> d1)
        if t & (t >> (d1 + d1)):
            state.won = True
            return
        t = stones & (stones >> d2)
        if t & (t >> (d2 + d2)):
            state.won = True
            return
        t = stones & (stones >> d3)
        if t & (t >> (d3 + d3)):
            state.won = True
            return
        t = stones & (stones >> d4)
        if t & (t >> (d4 + d4)):
            state.won = True

    def undo(self, state: Board, move: int) -> None:
        g = state.g
        mask = state.mask
        top = ((mask & g.column_mask[move]) + g.bottom[move]) >> 1  # the column's top stone
        state.mask = mask ^ top
        ply = state.ply - 1
        state.ply = ply
        state.stones[ply & 1] ^= top
        state.won = False  # no move is played from a finished game

    def result(self, state: Board) -> int:
        if state.won:  # the previous mover connected four
            return LOSS
        if state.ply == state.g.size:
            return DRAW
        return ONGOING

    def to_move(self, state: Board) -> int:
        return state.ply & 1

    def key(self, state: Board) -> int:
        return state.stones[state.ply & 1] + state.mask

    # -- the optional hooks ----------------------------------------------------
    def copy(self, state: Board) -> Board:
        return state.copy()

    def move_to_str(self, move: int) -> str:
        return FILES[move]

    def symmetric_keys(self, state: Board) -> Sequence[int]:
        key = self.key(state)
        return (key, state.g.mirror(key))  # the key has no carries between columns

    def max_game_plies(self, rules: Mapping[str, int]) -> int:
        return int(rules.get("columns", 7)) * int(rules.get("rows", 6))

    def board_rows(self, state: Board) -> list[str]:
        g = state.g
        red, yellow = state.stones
        rows = []
        for r in range(g.rows - 1, -1, -1):
            row = []
            for c in range(g.columns):
                bit = g.cell(c, r)
                row.append(CHARS[0] if red & bit else CHARS[1] if yellow & bit else EMPTY)
            rows.append("".join(row))
        return rows

    def termination(self, state: Board) -> str | None:
        if state.won:
            return f"{SIDE_NAMES[(state.ply - 1) & 1]} connected four"
        if state.ply == state.g.size:
            return "board full"
        return None

    # -- helpers (not part of the contract) --------------------------------------
    def position(self, moves: str | Sequence[int] = "", rules: Mapping[str, int] | None = None,
                 ) -> Board:
        """The board after ``moves`` (column letters, ``"dcd"``, or numbers)
        from the start; an illegal move is a ValueError."""
        state = self.new_state(dict(rules or {}))
        for move in moves:
            column = FILES.index(move) if isinstance(move, str) else int(move)
            if column not in self.legal_moves(state):
                raise ValueError(f"connect4: illegal move {move!r} at ply {state.ply}")
            self.play(state, column)
        return state

    def mirrored(self, state: Board) -> Board:
        """The board reflected left to right."""
        g = state.g
        return Board(g, [g.mirror(s) for s in state.stones], g.mirror(state.mask),
                     state.ply, state.won)


GAME = ConnectFour()
