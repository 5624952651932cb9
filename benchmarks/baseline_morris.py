"""A plain-Python Morris engine written the way the seeds wrote theirs.

States are immutable tuples ``((stash_white, stash_black), board)`` with the
board a tuple of 24 cells ('w', 'b' or None), successors are built as lists of
new states, mills are found by scanning the lines, and the search is the
seed's memoised negamax (the memo keyed on (state, player, limit)). This is the
baseline that ``run_benchmarks.py`` compares the numba search against.
"""

from __future__ import annotations

POINTS = "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7".split()
_IDX = {p: i for i, p in enumerate(POINTS)}
LINES = [
    tuple(_IDX[p] for p in line.split())
    for line in [
        "a1 d1 g1", "b2 d2 f2", "c3 d3 e3", "a4 b4 c4", "e4 f4 g4", "c5 d5 e5", "b6 d6 f6",
        "a7 d7 g7", "a1 a4 a7", "b2 b4 b6", "c3 c4 c5", "d1 d2 d3", "d5 d6 d7", "e3 e4 e5",
        "f2 f4 f6", "g1 g4 g7",
    ]
]
NEIGHBOURS: list[list[int]] = [[] for _ in POINTS]
for a, b, c in LINES:
    NEIGHBOURS[a].append(b), NEIGHBOURS[b].extend((a, c)), NEIGHBOURS[c].append(b)


def opponent(player):
    return "b" if player == "w" else "w"


def count_stones(state, player):
    return sum(1 for cell in state[1] if cell == player)


def find_mills(board, player):
    return [line for line in LINES if all(board[i] == player for i in line)]


def find_possible_mills(board, player):
    return [
        line for line in LINES
        if sum(board[i] == player for i in line) == 2 and any(board[i] is None for i in line)
    ]


def in_mill(board, point):
    return any(point in line and all(board[i] == board[point] for i in line) for line in LINES)


def next_states(state, player):
    (stash_w, stash_b), board = state
    opp = opponent(player)
    stash = stash_w if player == "w" else stash_b
    steps = []
    mine = [i for i, c in enumerate(board) if c == player]
    if stash > 0:
        steps = [(None, i) for i, c in enumerate(board) if c is None]
    elif len(mine) == 3:
        steps = [(s, i) for s in mine for i, c in enumerate(board) if c is None]
    else:
        steps = [(s, n) for s in mine for n in NEIGHBOURS[s] if board[n] is None]
    result = []
    for src, dst in steps:
        cells = list(board)
        if src is not None:
            cells[src] = None
        cells[dst] = player
        new_stash = (stash_w - (player == "w" and src is None), stash_b - (player == "b" and src is None))
        if any(dst in line and all(cells[i] == player for i in line) for line in LINES):
            theirs = [i for i, c in enumerate(cells) if c == opp]
            free = [i for i in theirs if not in_mill(cells, i)] or theirs
            if free:
                for r in free:
                    after = list(cells)
                    after[r] = None
                    result.append((new_stash, tuple(after)))
                continue
        result.append((new_stash, tuple(cells)))
    return result


def finished(state, player):
    stash = state[0][0] if player == "w" else state[0][1]
    return count_stones(state, player) + stash < 3 or not next_states(state, player)


def utility(state, player):
    return -1.0  # the player to move in a finished state has lost


def heuristic(state, player, weights=(1, 1, 4, 2)):
    stones, stash_w_, mills, possible = weights
    (stash_white, stash_black), board = state
    white = stones * count_stones(state, "w") + stash_w_ * stash_white
    black = stones * count_stones(state, "b") + stash_w_ * stash_black
    maximum = 9 * max(stones, stash_w_)
    white += mills * len(find_mills(board, "w"))
    black += mills * len(find_mills(board, "b"))
    maximum += 4 * mills
    white += possible * len(find_possible_mills(board, "w"))
    black += possible * len(find_possible_mills(board, "b"))
    maximum += 8 * possible
    score = (white - black) / (maximum + 1)
    return score if player == "w" else -score


class Minimax:
    """The seed's memoised negamax; ``nodes`` counts every call of ``value``."""

    def __init__(self, limit=2):
        self.limit = limit
        self.cache = {}
        self.nodes = 0

    def value(self, state, player, limit):
        self.nodes += 1
        key = (state, player, limit)
        if key in self.cache:
            return self.cache[key]
        if finished(state, player):
            result = utility(state, player)
        elif limit == 0:
            result = heuristic(state, player)
        else:
            result = max(-self.value(ns, opponent(player), limit - 1)
                         for ns in next_states(state, player))
        self.cache[key] = result
        return result

    def best_value(self, state, player):
        return max(-self.value(ns, opponent(player), self.limit)
                   for ns in next_states(state, player))
