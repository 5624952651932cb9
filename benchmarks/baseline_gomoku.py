"""A plain-Python Gomoku engine written the way the Gomoku seed wrote its code.

The board is a 2-D numpy int array (0 empty, 1 black, 2 white). For every
point of interest the four lines of 8 neighbours (4 on each side of the point)
are cut out of a padded copy of the board with numpy indexing, recoded for the
side being scored, and handed one at a time to the seed's ``HeuristicScore``
(adversary-free range, windows of five, ``mul ** (1/kappa1) * mag``, combined
over crossing lines with exponent ``kappa0``). The search is a fixed-depth
negamax alpha-beta over the candidate moves, with no transposition table.

This is the seed-style baseline that ``run_benchmarks.py`` compares the numba
Gomoku search against. The seed's printed values are asserted by
``python benchmarks/baseline_gomoku.py --check``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

EMPTY, BLACK, WHITE = 0, 1, 2
OFF = 3  # off-board padding: an opponent stone for both sides
WIN = 1e9
SIDE = np.array([-4, -3, -2, -1, 1, 2, 3, 4])  # offsets of a line's 8 points


class HeuristicScore:
    """Value of an empty point seen along lines of 8 neighbours (own=1, other=2)."""

    def __init__(self, kappa0=1.6, kappa1=5, cap=2):
        self.kappa0 = kappa0
        self.kappa1 = kappa1
        self.cap = cap

    def f_range(self, a):
        """The longest stretch of ``a`` around the centre that holds no opponent stone."""
        a = np.asarray(a)
        lo = 4
        while lo > 0 and a[lo - 1] != 2:
            lo -= 1
        hi = 4
        while hi < 8 and a[hi] != 2:
            hi += 1
        return a[lo:hi]

    def cscore(self, a):
        """(most own stones in one window, number of windows reaching it, capped)."""
        r = self.f_range(a)
        n_windows = len(r) - 3
        if n_windows <= 0:
            return 0, 0
        counts = [int((r[i:i + 5] == 1).sum()) for i in range(n_windows)]
        mag = max(counts)
        mul = min(counts.count(mag), self.cap)
        return mag, mul

    def score(self, a):
        mag, mul = self.cscore(a)
        if mag == 0:
            return 0.0
        return mul ** (1 / self.kappa1) * mag

    def total_score(self, lines):
        return sum(self.score(line) ** self.kappa0 for line in lines) ** (1 / self.kappa0)


# ---------------------------------------------------------------- board

def new_board(n=15):
    return np.zeros((n, n), dtype=int)


def from_cells(cells, to_move):
    """A position from a list of lists (0/1/2); returns (board, to_move)."""
    board = np.array(cells, dtype=int)
    assert board.ndim == 2 and board.shape[0] == board.shape[1]
    assert to_move in (BLACK, WHITE)
    return board, to_move


def other(player):
    return WHITE if player == BLACK else BLACK


def place(board, r, c, player):
    assert board[r, c] == EMPTY
    board[r, c] = player


def pad(board):
    return np.pad(board, 4, constant_values=OFF)


def recode(line, player):
    """own stone -> 1, empty -> 0, other stone or off-board -> 2."""
    return np.where(line == player, 1, np.where(line == EMPTY, 0, 2))


def _lines_padded(padded, r, c):
    r, c = r + 4, c + 4  # (r, c) in padded coordinates
    return [
        padded[r, c + SIDE],             # horizontal
        padded[r + SIDE, c],             # vertical
        padded[r + SIDE, c + SIDE],      # diagonal
        padded[r + SIDE, c - SIDE],      # anti-diagonal
    ]


def lines_at(board, r, c, player=None):
    """The 4 lines of 8 values through (r, c); recoded for ``player`` if given."""
    lines = _lines_padded(pad(board), r, c)
    if player is None:
        return lines
    return [recode(line, player) for line in lines]


def is_five(board, r, c):
    """Does the stone on (r, c) stand in a row of five or more (freestyle)?"""
    n = board.shape[0]
    p = board[r, c]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < n and 0 <= cc < n and board[rr, cc] == p:
                count += 1
                rr, cc = rr + sign * dr, cc + sign * dc
        if count >= 5:
            return True
    return False


def is_full(board):
    return not (board == EMPTY).any()


def candidates(board):
    """Empty points within Chebyshev distance 2 of a stone, row-major."""
    n = board.shape[0]
    stones = np.argwhere(board != EMPTY)
    if len(stones) == 0:
        return [(n // 2, n // 2)]
    near = np.zeros_like(board, dtype=bool)
    for r, c in stones:
        near[max(r - 2, 0):r + 3, max(c - 2, 0):c + 3] = True
    near &= board == EMPTY
    return [(int(r), int(c)) for r, c in np.argwhere(near)]


def evaluate(board, player, h=None):
    """Sum of point values for ``player`` minus the same for the opponent."""
    h = h or HEURISTIC
    padded = pad(board)
    totals = {BLACK: 0.0, WHITE: 0.0}
    for r, c in candidates(board):
        lines = _lines_padded(padded, r, c)
        for side in (BLACK, WHITE):
            totals[side] += sum(h.score(recode(line, side)) ** h.kappa0 for line in lines)
    return totals[player] - totals[other(player)]


HEURISTIC = HeuristicScore()


# ---------------------------------------------------------------- search

class AlphaBeta:
    """Fixed-depth negamax alpha-beta; ``nodes`` counts every position entered."""

    def __init__(self, depth=2, heuristic=None):
        self.depth = depth
        self.h = heuristic or HEURISTIC
        self.nodes = 0

    def negamax(self, board, to_move, depth, alpha, beta, ply, last=None):
        self.nodes += 1
        if last is not None and is_five(board, *last):
            return -(WIN - ply)  # the side that just moved has won
        if is_full(board):
            return 0.0
        if depth == 0:
            v = evaluate(board, self.root, self.h)
            return v if to_move == self.root else -v
        best = -float("inf")
        for r, c in candidates(board):
            child = board.copy()
            child[r, c] = to_move
            v = -self.negamax(child, other(to_move), depth - 1, -beta, -alpha, ply + 1, (r, c))
            if v > best:
                best = v
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best

    def search(self, board, player):
        self.root = player
        self.nodes = 1
        best_move, best = None, -float("inf")
        alpha, beta = -float("inf"), float("inf")
        for r, c in candidates(board):
            child = board.copy()
            child[r, c] = player
            v = -self.negamax(child, other(player), self.depth - 1, -beta, -alpha, 1, (r, c))
            if v > best:
                best_move, best = (r, c), v
            alpha = max(alpha, best)
        return best_move, best


# ---------------------------------------------------------------- main

def check():
    h = HeuristicScore(kappa0=1.6, kappa1=5)
    assert list(h.f_range([0, 1, 1, 0, 1, 0, 2, 2])) == [0, 1, 1, 0, 1, 0]
    assert h.cscore([0, 1, 1, 0, 1, 0, 0, 2]) == (3, 2)
    assert h.score([0, 1, 1, 0, 1, 0, 0, 2]) == 3.4460950649911055
    assert h.score([2, 1, 1, 0, 1, 0, 0, 2]) == 3.0
    assert h.score([1, 1, 0, 1, 0, 0, 2, 0]) == 3.0
    assert h.score([0, 0, 1, 1, 0, 0, 0, 2]) == 2.29739670999407
    assert h.score([0, 1, 1, 0, 0, 2, 0, 2]) == 2.29739670999407
    cross = [[0, 0, 1, 0, 1, 0, 0, 2], [1, 1, 0, 0, 0, 2, 0, 2]]
    assert h.total_score(cross) == 3.3185059187118733
    cross[0][1] = 2
    assert h.total_score(cross) == 3.084421650815882
    print("all seed values reproduced")


def random_position(rng, n=15, lo=6, hi=20):
    """``lo..hi`` stones placed alternately near the centre, no five on the board."""
    board = new_board(n)
    player = BLACK
    for _ in range(int(rng.integers(lo, hi + 1))):
        while True:
            r, c = (int(x) for x in rng.integers(n // 2 - 3, n // 2 + 4, size=2))
            if board[r, c] != EMPTY:
                continue
            board[r, c] = player
            if not is_five(board, r, c):
                break
            board[r, c] = EMPTY
        player = other(player)
    return board, player


def main(depth=2, n_positions=3):
    rng = np.random.default_rng(2024)
    positions = [random_position(rng) for _ in range(n_positions)]
    total_nodes, total_sec = 0, 0.0
    for board, player in positions:
        ab = AlphaBeta(depth=depth)
        t0 = time.perf_counter()
        move, value = ab.search(board, player)
        sec = time.perf_counter() - t0
        total_nodes += ab.nodes
        total_sec += sec
        print(f"{int((board != EMPTY).sum()):2d} stones, to move {player}: move {move} "
              f"value {value:.3f} nodes {ab.nodes} {sec:.2f}s {ab.nodes / sec:.0f} nodes/s")
    print(f"total: {total_nodes} nodes in {total_sec:.2f}s = {total_nodes / total_sec:.0f} nodes/s")


if __name__ == "__main__":
    if "--check" in sys.argv[1:]:
        check()
        sys.exit(0)
    args = sys.argv[1:]
    opts = {k: int(v) for k, v in zip(args[::2], args[1::2], strict=False)}  # --depth D --positions K
    main(opts.get("--depth", 2), opts.get("--positions", 3))
