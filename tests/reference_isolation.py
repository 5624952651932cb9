"""A plain-Python Isolation, written straight from the rules.

A board object holds the blocked squares as a set of (row, col) and each
player's location (None before its first move); moves return a new board. The
seed's score functions are transcribed below as printed, on top of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

SIZE = 7
KNIGHT_STEPS = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]


@dataclass
class Board:
    blocked: set = field(default_factory=set)
    locations: list = field(default_factory=lambda: [None, None])
    active: int = 0  # the player to move (0 or 1)

    def legal_moves(self, player: int | None = None) -> list[tuple[int, int]]:
        player = self.active if player is None else player
        loc = self.locations[player]
        if loc is None:
            return [(r, c) for r in range(SIZE) for c in range(SIZE) if (r, c) not in self.blocked]
        r, c = loc
        return [
            (r + dr, c + dc) for dr, dc in KNIGHT_STEPS
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE and (r + dr, c + dc) not in self.blocked
        ]

    def forecast(self, move: tuple[int, int]) -> Board:
        new = Board(set(self.blocked), list(self.locations), 1 - self.active)
        new.blocked.add(move)
        new.locations[self.active] = move
        return new

    def winner(self) -> int | None:
        return None if self.legal_moves() else 1 - self.active


def name(move: tuple[int, int]) -> str:
    r, c = move
    return f"{'abcdefg'[c]}{r + 1}"


# -- the seed's scores, for ``player`` ----------------------------------------------
def open_score(b: Board, player: int) -> float:
    return float(len(b.legal_moves(player)))


def center_score(b: Board, player: int) -> float:
    w, h = SIZE / 2.0, SIZE / 2.0
    y, x = b.locations[player]
    return float((h - y) ** 2 + (w - x) ** 2)


def improved_score(b: Board, player: int) -> float:
    return float(len(b.legal_moves(player)) - len(b.legal_moves(1 - player)))


def custom(b: Board, player: int) -> float:
    own_moves = len(b.legal_moves(player))
    opp_moves = len(b.legal_moves(1 - player))
    if opp_moves == 0:
        return float(own_moves)
    return own_moves / opp_moves**2


def custom_2(b: Board, player: int) -> float:
    own_moves = len(b.legal_moves(player))
    opp_moves = len(b.legal_moves(1 - player))
    if own_moves > opp_moves and opp_moves > 0:
        return 1 / opp_moves
    return float(own_moves)


def custom_3(b: Board, player: int) -> float:
    own_moves = b.legal_moves(player)
    opp_moves = b.legal_moves(1 - player)
    x, y = b.locations[1 - player]
    distances: list[float] = []
    if own_moves > opp_moves and len(distances) > 0 and opp_moves > 0:  # as printed
        for move in own_moves:
            distances.append(math.hypot(move[0] - x, move[1] - y))
        return sum(distances) / len(distances)
    return float(len(own_moves))
