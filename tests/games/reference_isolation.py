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
ALL_SQUARES = [(r, c) for r in range(SIZE) for c in range(SIZE)]


def _steps(sq: tuple[int, int]) -> list[tuple[int, int]]:
    """Squares one knight move from ``sq`` on the board, blocked or not."""
    r, c = sq
    return [(r + dr, c + dc) for dr, dc in KNIGHT_STEPS if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE]


@dataclass
class Board:
    blocked: set = field(default_factory=set)
    locations: list = field(default_factory=lambda: [None, None])
    active: int = 0  # the player to move (0 or 1)

    def legal_moves(self, player: int | None = None) -> list[tuple[int, int]]:
        player = self.active if player is None else player
        loc = self.locations[player]
        squares = ALL_SQUARES if loc is None else _steps(loc)
        return [sq for sq in squares if sq not in self.blocked]

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


# -- the `weighted` family, feature by feature ------------------------------------
def _free(b: Board) -> set:
    return set(ALL_SQUARES) - b.blocked


def second_order(b: Board, player: int) -> int:
    """Empty squares two knight moves away, through an empty first square."""
    free = _free(b)
    return len({s2 for s1 in b.legal_moves(player) for s2 in _steps(s1) if s2 in free})


def distances(b: Board, player: int) -> dict:
    """Knight moves from the player's square to every empty square it can reach."""
    free = _free(b)
    dist = {sq: 1 for sq in b.legal_moves(player)}
    frontier = list(dist)
    while frontier:
        nxt = []
        for sq in frontier:
            for s2 in _steps(sq):
                if s2 in free and s2 not in dist:
                    dist[s2] = dist[sq] + 1
                    nxt.append(s2)
        frontier = nxt
    return dist


class TooLong(Exception):
    """The exhaustive path search went past its call limit."""


def longest_path(start: tuple[int, int], squares: set, limit: int = 10**6) -> int:
    """Longest knight path from ``start`` through ``squares``, by exhaustive DFS.

    Raises :class:`TooLong` once the search needs ``limit`` calls or more (the
    kernel's search is exact only below its step budget).
    """
    calls = [0]

    def dfs(sq: tuple[int, int], left: set) -> int:
        calls[0] += 1
        if calls[0] >= limit:
            raise TooLong
        best = 0
        for nxt in _steps(sq):
            if nxt in left:
                best = max(best, dfs(nxt, left - {nxt}) + 1)
        return best

    return dfs(start, squares)


def separated(b: Board) -> bool:
    """Whether no empty square is reachable by both knights."""
    return not set(distances(b, 0)) & set(distances(b, 1))


def weighted(b: Board, player: int, p: dict) -> float:
    """The `weighted` family written out plainly (same order of operations as documented)."""
    opp = 1 - player
    own_n, opp_n = len(b.legal_moves(player)), len(b.legal_moves(opp))
    t = len(b.blocked) / (SIZE * SIZE)
    a = p["own_start"] + (p["own_end"] - p["own_start"]) * t
    w = p["opp_start"] + (p["opp_end"] - p["opp_start"]) * t
    score = a * own_n - w * opp_n
    score += p["own2"] * second_order(b, player)
    score -= p["opp2"] * second_order(b, opp)
    (r, c), (r2, c2) = b.locations[player], b.locations[opp]
    score -= p["centrality"] * ((r - 3) ** 2 + (c - 3) ** 2)
    score += p["distance"] * ((r - r2) ** 2 + (c - c2) ** 2)
    mine, theirs = distances(b, player), distances(b, opp)
    score += p["region"] * (len(mine) - len(theirs))
    if p["partition"] and not set(mine) & set(theirs):
        me_len = longest_path((r, c), set(mine))
        them_len = longest_path((r2, c2), set(theirs))
        score += p["partition"] * (me_len - them_len + (-0.5 if b.active == player else 0.5))
    far = 10**9
    first_me = sum(1 for sq, d in mine.items() if d < theirs.get(sq, far))
    first_them = sum(1 for sq, d in theirs.items() if d < mine.get(sq, far))
    tied = sum(1 for sq, d in mine.items() if theirs.get(sq) == d)
    score += p["territory"] * (first_me - first_them)
    score += p["contested"] * tied * (1 if b.active == player else -1)
    if p["resolution"] > 0:
        score = math.floor(score / p["resolution"] + 0.5) * p["resolution"]
    return score
