"""A plain-Python Halma, written straight from the rules (the specification).

This is a reference for tests of the fast kernel: it is meant to be obvious,
not quick. Cells are integers ``row * 16 + col`` (row and col 0..15); the board
is a list of 256 ints, -1 for empty and 0 / 1 for a player's piece.

Rules in brief:

* Each player has 19 pieces filling its own corner camp; player 0's camp is at
  the (0, 0) corner, player 1's is its point reflection at (15, 15). Each
  player's target camp is the opponent's camp. Player 0 moves first.
* A move is one piece either stepping to an empty neighbour (8 directions), or
  making a chain of jumps: each jump goes over an adjacent occupied cell (any
  colour) onto the empty cell directly behind it, never landing on a cell
  already visited in the chain (the start cell counts as visited; the moving
  piece has left it, so it is empty and cannot be jumped over). With
  ``chain_jumps=0`` only single jumps are allowed. Moves are identified by
  (from, to) only.
* Win (``camp_rule=0``): all 19 target-camp cells hold the player's pieces.
  Win (``camp_rule=1``): all 19 target-camp cells are occupied (by anyone) and
  at least one holds the player's piece. The player who just moved is checked
  first, then the other one.
* At ``max_plies`` plies without a winner: with ``adjudicate=1`` the player
  whose pieces have the smaller total Chebyshev distance to its target corner
  wins (equal totals draw); with ``adjudicate=0`` it is a draw.
* A side to move with no legal move loses.
"""

from __future__ import annotations

import random

SIZE = 16
EMPTY = -1

DIRECTIONS: list[tuple[int, int]] = [
    (-1, -1), (-1, 0), (-1, 1),
    (0, -1), (0, 1),
    (1, -1), (1, 0), (1, 1),
]

# Player 0's camp: how many columns (from column 0) each of rows 0..4 covers.
_CAMP_ROW_WIDTHS: list[int] = [5, 5, 4, 3, 2]

CAMP0: frozenset[int] = frozenset(
    r * SIZE + c for r, width in enumerate(_CAMP_ROW_WIDTHS) for c in range(width)
)
CAMP1: frozenset[int] = frozenset(
    (SIZE - 1 - cell // SIZE) * SIZE + (SIZE - 1 - cell % SIZE) for cell in CAMP0
)
# CAMPS[p] is player p's home camp; its target is the opponent's camp.
CAMPS: tuple[frozenset[int], frozenset[int]] = (CAMP0, CAMP1)
TARGET_CAMPS: tuple[frozenset[int], frozenset[int]] = (CAMP1, CAMP0)
# The corner cell each player heads for (for distances): (15, 15) and (0, 0).
TARGET_CORNERS: tuple[tuple[int, int], tuple[int, int]] = ((SIZE - 1, SIZE - 1), (0, 0))

assert len(CAMP0) == 19 and len(CAMP1) == 19 and not (CAMP0 & CAMP1)


def cell_of(row: int, col: int) -> int:
    """The integer cell for (row, col)."""
    return row * SIZE + col


def row_col(cell: int) -> tuple[int, int]:
    """The (row, col) of an integer cell."""
    return cell // SIZE, cell % SIZE


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def cell_name(cell: int) -> str:
    """Column letter a..p then row number 1..16: (0, 0) is "a1", (15, 15) is "p16"."""
    row, col = row_col(cell)
    return "abcdefghijklmnop"[col] + str(row + 1)


def move_name(move: tuple[int, int]) -> str:
    """A move written "from-to", e.g. "a1-c3"."""
    return cell_name(move[0]) + "-" + cell_name(move[1])


def chebyshev(cell: int, target: tuple[int, int]) -> int:
    """Chebyshev distance max(|dr|, |dc|) from ``cell`` to the (row, col) ``target``."""
    row, col = row_col(cell)
    return max(abs(row - target[0]), abs(col - target[1]))


def distance_sum(board: list[int], player: int) -> int:
    """Total Chebyshev distance of ``player``'s pieces to its target corner."""
    corner = TARGET_CORNERS[player]
    return sum(chebyshev(cell, corner) for cell in range(SIZE * SIZE) if board[cell] == player)


def has_won(board: list[int], player: int, camp_rule: int) -> bool:
    """Whether ``player`` satisfies the win condition on ``board``."""
    target = TARGET_CAMPS[player]
    if camp_rule == 0:
        return all(board[cell] == player for cell in target)
    return all(board[cell] != EMPTY for cell in target) and any(
        board[cell] == player for cell in target
    )


def jump_destinations(board: list[int], start: int, chain_jumps: int) -> set[int]:
    """Cells a piece at ``start`` can reach by one jump or (if allowed) a chain of jumps.

    The moving piece is lifted off ``start`` first, so ``start`` is empty (it
    cannot be jumped over) and, being visited, cannot be landed on.
    """
    board = list(board)
    board[start] = EMPTY
    visited: set[int] = {start}
    frontier: list[int] = [start]
    reached: set[int] = set()
    while frontier:
        here = frontier.pop()
        row, col = row_col(here)
        for dr, dc in DIRECTIONS:
            over_r, over_c = row + dr, col + dc
            land_r, land_c = row + 2 * dr, col + 2 * dc
            if not on_board(land_r, land_c):
                continue
            if board[cell_of(over_r, over_c)] == EMPTY:
                continue
            land = cell_of(land_r, land_c)
            if board[land] != EMPTY or land in visited:
                continue
            visited.add(land)
            reached.add(land)
            # Only the start cell's jumps are taken when chains are off.
            if chain_jumps:
                frontier.append(land)
    return reached


class RefHalma:
    """A Halma position plus the rule options; ``play`` mutates it in place."""

    def __init__(
        self, chain_jumps: int = 1, camp_rule: int = 0, max_plies: int = 1000, adjudicate: int = 1
    ) -> None:
        self.chain_jumps = chain_jumps
        self.camp_rule = camp_rule
        self.max_plies = max_plies
        self.adjudicate = adjudicate
        self.board: list[int] = [EMPTY] * (SIZE * SIZE)
        for player in (0, 1):
            for cell in CAMPS[player]:
                self.board[cell] = player
        self.side: int = 0
        self.ply: int = 0

    def copy(self) -> RefHalma:
        new = RefHalma.__new__(RefHalma)
        new.chain_jumps = self.chain_jumps
        new.camp_rule = self.camp_rule
        new.max_plies = self.max_plies
        new.adjudicate = self.adjudicate
        new.board = list(self.board)
        new.side = self.side
        new.ply = self.ply
        return new

    def legal_moves(self) -> set[tuple[int, int]]:
        """All (from, to) moves of the side to move: steps and jumps, deduplicated."""
        moves: set[tuple[int, int]] = set()
        for start in range(SIZE * SIZE):
            if self.board[start] != self.side:
                continue
            row, col = row_col(start)
            for dr, dc in DIRECTIONS:
                r, c = row + dr, col + dc
                if on_board(r, c) and self.board[cell_of(r, c)] == EMPTY:
                    moves.add((start, cell_of(r, c)))
            for dest in jump_destinations(self.board, start, self.chain_jumps):
                moves.add((start, dest))
        return moves

    def play(self, move: tuple[int, int]) -> None:
        assert move in self.legal_moves(), f"illegal move {move_name(move)}"
        start, dest = move
        self.board[dest] = self.board[start]
        self.board[start] = EMPTY
        self.side = 1 - self.side
        self.ply += 1

    def result(self) -> str:
        """"ongoing", "win0", "win1" or "draw" for the current position.

        Order: wins (the player who just moved first), then the ply limit, then
        a side to move with no legal move (which loses).
        """
        mover = 1 - self.side
        for player in (mover, self.side):
            if has_won(self.board, player, self.camp_rule):
                return f"win{player}"
        if self.ply >= self.max_plies:
            if not self.adjudicate:
                return "draw"
            d0 = distance_sum(self.board, 0)
            d1 = distance_sum(self.board, 1)
            if d0 < d1:
                return "win0"
            if d1 < d0:
                return "win1"
            return "draw"
        if not self.legal_moves():
            return f"win{1 - self.side}"
        return "ongoing"


def perft(game: RefHalma, depth: int) -> int:
    """Number of legal move sequences of length ``depth`` (stopping at finished positions)."""
    if depth == 0:
        return 1
    if game.result() != "ongoing":
        return 0
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = game.copy()
        child.play(move)
        total += perft(child, depth - 1)
    return total


def greedy_move(game: RefHalma, rng: random.Random) -> tuple[int, int]:
    """A legal move that most reduces the mover's distance to its target corner.

    Ties are broken by ``rng.choice`` over the tied moves, sorted for determinism.
    """
    corner = TARGET_CORNERS[game.side]
    best_gain: int | None = None
    best: list[tuple[int, int]] = []
    for move in sorted(game.legal_moves()):
        gain = chebyshev(move[0], corner) - chebyshev(move[1], corner)
        if best_gain is None or gain > best_gain:
            best_gain, best = gain, [move]
        elif gain == best_gain:
            best.append(move)
    return rng.choice(best)


def camp_potential(board: list[int], player: int) -> int:
    """How far ``player`` is from filling its target camp (lower is better).

    A piece inside the target camp costs its Chebyshev distance to the target
    corner (so pieces inside move deeper and free the rim). A piece outside
    costs 100 plus 10 times its Chebyshev distance to the nearest target-camp
    cell not holding one of ``player``'s pieces.
    """
    corner = TARGET_CORNERS[player]
    camp = TARGET_CAMPS[player]
    holes = [row_col(cell) for cell in camp if board[cell] != player]
    total = 0
    for cell in range(SIZE * SIZE):
        if board[cell] != player:
            continue
        if cell in camp:
            total += chebyshev(cell, corner)
        else:
            total += 100 + 10 * min((chebyshev(cell, hole) for hole in holes), default=0)
    return total


def camp_greedy_move(game: RefHalma, rng: random.Random) -> tuple[int, int]:
    """A legal move leaving the lowest ``camp_potential`` for the mover.

    Unlike ``greedy_move`` (which parks pieces on non-camp cells near the
    corner and then shuffles forever), this one usually fills the camp, so
    games end in a real win in roughly 170-200 plies. Ties are broken by
    ``rng.choice`` over the tied moves, sorted. About 10 ms per move.
    """
    best_score: int | None = None
    best: list[tuple[int, int]] = []
    for move in sorted(game.legal_moves()):
        board = list(game.board)
        board[move[1]] = board[move[0]]
        board[move[0]] = EMPTY
        score = camp_potential(board, game.side)
        if best_score is None or score < best_score:
            best_score, best = score, [move]
        elif score == best_score:
            best.append(move)
    return rng.choice(best)


def play_greedy_game(game: RefHalma, rng: random.Random, chooser=greedy_move) -> str:
    """Play ``chooser`` (default ``greedy_move``) for both sides to the end; return the result."""
    while (outcome := game.result()) == "ongoing":
        game.play(chooser(game, rng))
    return outcome
