"""A plain-Python Isolation agent written the way the original agents were.

A ``Board`` object keeps a 2-D list of cells and both players' locations;
``forecast_move`` returns a full copy with the move applied, legal moves are
rebuilt from the knight's offsets each time, and the agent is the classic
fixed-depth alpha-beta with ``improved_score`` (own moves - opponent moves).
This is the baseline ``run_benchmarks.py`` compares the numba search against.
"""

from __future__ import annotations

import copy

BLANK = 0
DIRECTIONS = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]


class Board:
    def __init__(self, width=7, height=7):
        self.width = width
        self.height = height
        self._board_state = [[BLANK] * width for _ in range(height)]
        self._locations = {1: None, 2: None}
        self._active = 1

    def copy(self):
        return copy.deepcopy(self)

    def forecast_move(self, move):
        new_board = self.copy()
        new_board.apply_move(move)
        return new_board

    def apply_move(self, move):
        r, c = move
        self._board_state[r][c] = self._active
        self._locations[self._active] = move
        self._active = 2 if self._active == 1 else 1

    def get_opponent(self, player):
        return 2 if player == 1 else 1

    def move_is_legal(self, move):
        r, c = move
        return 0 <= r < self.height and 0 <= c < self.width and self._board_state[r][c] == BLANK

    def get_legal_moves(self, player=None):
        player = self._active if player is None else player
        loc = self._locations[player]
        if loc is None:
            return [(r, c) for r in range(self.height) for c in range(self.width)
                    if self._board_state[r][c] == BLANK]
        r, c = loc
        return [(r + dr, c + dc) for dr, dc in DIRECTIONS if self.move_is_legal((r + dr, c + dc))]

    def is_loser(self, player):
        return player == self._active and not self.get_legal_moves(self._active)

    def is_winner(self, player):
        return player != self._active and not self.get_legal_moves(self._active)


def improved_score(game, player):
    if game.is_loser(player):
        return float("-inf")
    if game.is_winner(player):
        return float("inf")
    own = len(game.get_legal_moves(player))
    opp = len(game.get_legal_moves(game.get_opponent(player)))
    return float(own - opp)


class AlphaBetaPlayer:
    """Fixed-depth alpha-beta from the player's point of view; ``nodes`` counts calls."""

    def __init__(self, player, depth):
        self.player = player
        self.depth = depth
        self.nodes = 0

    def value(self, game, depth, alpha, beta, maximizing):
        self.nodes += 1
        moves = game.get_legal_moves()
        if depth == 0 or not moves:
            return improved_score(game, self.player)
        if maximizing:
            best = float("-inf")
            for m in moves:
                best = max(best, self.value(game.forecast_move(m), depth - 1, alpha, beta, False))
                if best >= beta:
                    return best
                alpha = max(alpha, best)
            return best
        best = float("inf")
        for m in moves:
            best = min(best, self.value(game.forecast_move(m), depth - 1, alpha, beta, True))
            if best <= alpha:
                return best
            beta = min(beta, best)
        return best

    def search(self, game):
        return self.value(game, self.depth, float("-inf"), float("inf"), True)
