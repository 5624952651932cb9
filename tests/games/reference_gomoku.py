"""A plain-Python Gomoku, written straight from the rules.

Deliberately naive and independent of the kernel: the board is a 2-D list of
cells (``None``, 0 for Black, 1 for White), a move is a ``(row, col)`` pair
(row 0 is the bottom row "1", col 0 is column "a"), and whether someone has
won is decided by scanning every line of the whole board for maximal runs of
one colour after every move; nothing is incremental.

Rules: on an N x N board (7 <= N <= 19) Black moves first and the players
alternate placing a stone on an empty point. Five in a row (horizontal,
vertical or diagonal) wins at once; with ``exact_five`` only a run of exactly
five wins (a run of six or more does not, but exactly five in another
direction through the same move still does). A full board without a win is a
draw.

The whole-board scan agrees with "only the lines through the stone just
placed" because play stops at the first win: the colours' runs only ever grow
by the stone just placed, so a winning run that is on the board was made by
the last move.
"""

from __future__ import annotations

from functools import cache

MIN_SIZE, MAX_SIZE = 7, 19
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# the four line directions, as (row step, col step)
DIRECTIONS = [(0, 1), (1, 0), (1, 1), (1, -1)]

Move = tuple[int, int]


@cache
def lines(size: int) -> list[list[Move]]:
    """Every full line of the board (rows, columns, both diagonals), as point lists.

    A line starts at a point whose predecessor in its direction is off the
    board and runs to the edge; lines shorter than five are kept too (they
    simply never hold a run of five).
    """
    result = []
    for dr, dc in DIRECTIONS:
        for r in range(size):
            for c in range(size):
                pr, pc = r - dr, c - dc
                if 0 <= pr < size and 0 <= pc < size:
                    continue  # not the start of a line
                line = []
                rr, cc = r, c
                while 0 <= rr < size and 0 <= cc < size:
                    line.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                result.append(line)
    return result


def move_name(move: Move) -> str:
    """``(row, col)`` in the game's notation: column letter, then row number from 1."""
    r, c = move
    return f"{LETTERS[c]}{r + 1}"


def parse_name(text: str) -> Move:
    """The ``(row, col)`` of a name like ``h8`` (no check against a board size)."""
    return int(text[1:]) - 1, LETTERS.index(text[0])


def encode(move: Move) -> int:
    """The kernel's integer for a move: ``row * 32 + col``."""
    r, c = move
    return r * 32 + c


class Board:
    """A Gomoku position: the stones, the side to move and the last move."""

    def __init__(self, size: int = 15, exact_five: int = 0) -> None:
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size {size} outside [{MIN_SIZE}, {MAX_SIZE}]")
        self.size = size
        self.exact_five = bool(exact_five)
        self.cells: list[list[int | None]] = [[None] * size for _ in range(size)]
        self.to_move = 0  # 0 = Black, 1 = White
        self.plies = 0
        self.last: Move | None = None
        self._runs: dict[int, list[list[Move]]] | None = None

    def copy(self) -> Board:
        new = Board(self.size, int(self.exact_five))
        new.cells = [row[:] for row in self.cells]
        new.to_move, new.plies, new.last = self.to_move, self.plies, self.last
        new._runs = self._runs
        return new

    # -- moves ---------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Every empty point, in increasing order of ``row * 32 + col`` (row-major).

        Also returned at a won position (the tests do not play on from one).
        """
        return [(r, c) for r in range(self.size) for c in range(self.size) if self.cells[r][c] is None]

    def play(self, move: Move) -> None:
        """Place the side to move's stone on ``move`` (in place)."""
        r, c = move
        if not (0 <= r < self.size and 0 <= c < self.size) or self.cells[r][c] is not None:
            raise ValueError(f"illegal move {move_name(move)}")
        if self.result() != "ongoing":
            raise ValueError("the game is over")
        self.cells[r][c] = self.to_move
        self.to_move = 1 - self.to_move
        self.plies += 1
        self.last = move
        self._runs = None

    def play_names(self, names: str) -> None:
        """Play a space-separated list of moves such as ``"h8 h9 i8"``."""
        for name in names.split():
            self.play(parse_name(name))

    # -- runs and the result ---------------------------------------------------
    def runs(self) -> dict[int, list[list[Move]]]:
        """Every maximal run of one colour (one stone or more) along every line, by colour.

        One pass over every line of the whole board; cached until the next move.
        """
        if self._runs is None:
            found: dict[int, list[list[Move]]] = {0: [], 1: []}
            for line in lines(self.size):
                run: list[Move] = []
                run_colour: int | None = None
                for r, c in line:
                    cell = self.cells[r][c]
                    if cell is not None and cell == run_colour:
                        run.append((r, c))
                        continue
                    if run_colour is not None:
                        found[run_colour].append(run)
                    run, run_colour = [(r, c)], cell
                if run_colour is not None:
                    found[run_colour].append(run)
            self._runs = found
        return self._runs

    def winning_runs(self, colour: int) -> list[list[Move]]:
        """The runs of ``colour`` that win: five or more, or exactly five under ``exact_five``."""
        if self.exact_five:
            return [run for run in self.runs()[colour] if len(run) == 5]
        return [run for run in self.runs()[colour] if len(run) >= 5]

    def result(self) -> str:
        """``"win_previous"`` (the player who just moved has won), ``"draw"`` or ``"ongoing"``."""
        if self.winning_runs(self.to_move):
            # the side to move won earlier: play should have stopped there
            raise AssertionError("the player to move already has a winning run")
        if self.winning_runs(1 - self.to_move):
            return "win_previous"
        if all(cell is not None for row in self.cells for cell in row):
            return "draw"
        return "ongoing"

    def runs_through_last(self) -> list[int]:
        """The lengths of the last mover's runs through the last move, one per direction."""
        if self.last is None:
            return []
        return [len(run) for run in self.runs()[1 - self.to_move] if self.last in run]
