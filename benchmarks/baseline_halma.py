"""A plain-Python Halma engine written the way seed 002 wrote its own: a numpy
16x16 board, a recursive jump generator with a visited set, heuristics that scan
every cell, and a recursive alpha-beta that makes and unmakes moves on the board.
Unlike the seed's generator, the jump chains do continue (the real rules), so it
searches the same trees as heurtune's kernel; it exists only as the speed
baseline of ``run_benchmarks.py``.

``board[x][y]``: 0 empty, 1 / 2 the pieces of heurtune's player 0 / 1 (x = row).
"""

from __future__ import annotations

import math

import numpy as np

DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
GOLDEN = ({(11, 15), (11, 14), (13, 13), (15, 11), (14, 11)},
          {(0, 4), (1, 4), (2, 2), (4, 0), (4, 1)})


def board_from_cells(cells: list[int]) -> np.ndarray:
    """A numpy board from 256 cell values (0 empty, 1 + side)."""
    return np.array(cells, dtype=int).reshape(16, 16)


def jumps(board: np.ndarray, x: int, y: int, visited: set[tuple[int, int]],
          out: set[tuple[int, int]]) -> None:
    """Every cell a chain of jumps from (x, y) can end on (recursive, as in the seed)."""
    for dx, dy in DIRECTIONS:
        ox, oy, jx, jy = x + dx, y + dy, x + 2 * dx, y + 2 * dy
        if 0 <= jx < 16 and 0 <= jy < 16 and board[ox][oy] != 0 and board[jx][jy] == 0 \
                and (jx, jy) not in visited:
            visited.add((jx, jy))
            out.add((jx, jy))
            jumps(board, jx, jy, visited, out)


def generate_moves(board: np.ndarray, player: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    moves = []
    for x in range(16):
        for y in range(16):
            if board[x][y] != player:
                continue
            for dx, dy in DIRECTIONS:
                nx, ny = x + dx, y + dy
                if 0 <= nx < 16 and 0 <= ny < 16 and board[nx][ny] == 0:
                    moves.append(((x, y), (nx, ny)))
            board[x][y] = 0  # the piece has left its cell
            ends: set[tuple[int, int]] = set()
            jumps(board, x, y, {(x, y)}, ends)
            board[x][y] = player
            moves.extend(((x, y), end) for end in ends)
    return moves


def distance_heuristic(board: np.ndarray, player: int) -> float:
    """The seed's distance heuristic for heurtune's player ``player - 1``."""
    side = player - 1
    target = (15, 15) if side == 0 else (0, 0)
    dead = (12, 12) if side == 0 else (3, 3)
    score = 0.0
    for y in range(16):
        for x in range(16):
            if board[x][y] == player:
                distance = math.sqrt((x - target[0]) ** 2 + (y - target[1]) ** 2)
                score += 22 - distance
                if distance <= 4:
                    score += 5
                if (x, y) == dead:
                    score -= 20
                if (x, y) in GOLDEN[side]:
                    score += 15
    return score


class Counter:
    nodes = 0


def alphabeta(board: np.ndarray, to_move: int, root: int, depth: int, alpha: float,
              beta: float, counter: Counter) -> float:
    counter.nodes += 1
    if depth == 0:
        return distance_heuristic(board, root)
    moves = generate_moves(board, to_move)
    maximizing = to_move == root
    best = -math.inf if maximizing else math.inf
    for (sx, sy), (ex, ey) in moves:
        board[ex][ey], board[sx][sy] = to_move, 0
        value = alphabeta(board, 3 - to_move, root, depth - 1, alpha, beta, counter)
        board[sx][sy], board[ex][ey] = to_move, 0
        if maximizing:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if beta <= alpha:
            break
    return best


def search(board: np.ndarray, player: int, depth: int) -> tuple[float, int]:
    """The root value for ``player`` (1 or 2) at ``depth``, and the nodes visited."""
    counter = Counter()
    value = alphabeta(board, player, player, depth, -math.inf, math.inf, counter)
    return value, counter.nodes
