"""A plain-Python Nine Men's Morris, written straight from the rules.

Deliberately naive and independent of the kernel: the board is a dict from
point names to "W", "B" or None, the mills are listed by hand, adjacency is
derived from them, and nothing is incremental. The kernel must agree with it
move for move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

MILLS = [
    ("a1", "d1", "g1"), ("b2", "d2", "f2"), ("c3", "d3", "e3"), ("a4", "b4", "c4"),
    ("e4", "f4", "g4"), ("c5", "d5", "e5"), ("b6", "d6", "f6"), ("a7", "d7", "g7"),
    ("a1", "a4", "a7"), ("b2", "b4", "b6"), ("c3", "c4", "c5"), ("d1", "d2", "d3"),
    ("d5", "d6", "d7"), ("e3", "e4", "e5"), ("f2", "f4", "f6"), ("g1", "g4", "g7"),
]
POINTS = sorted({p for m in MILLS for p in m})
NEIGHBOURS: dict[str, set[str]] = {p: set() for p in POINTS}
for a, b, c in MILLS:
    NEIGHBOURS[a].add(b), NEIGHBOURS[b].update((a, c)), NEIGHBOURS[c].add(b)


@dataclass
class Rules:
    flying: bool = True
    double_removal: bool = False
    max_plies: int = 250
    repetition_limit: int = 5
    no_removal_limit: int = 30


@dataclass
class Position:
    rules: Rules = field(default_factory=Rules)
    board: dict[str, str | None] = field(default_factory=lambda: {p: None for p in POINTS})
    to_move: str = "W"
    stash: dict[str, int] = field(default_factory=lambda: {"W": 9, "B": 9})
    plies: int = 0
    quiet: int = 0
    seen: list[tuple] = field(default_factory=list)  # keys since the last irreversible move

    def key(self) -> tuple:
        return (tuple(self.board[p] for p in POINTS), self.to_move, self.stash["W"], self.stash["B"])


def other(side: str) -> str:
    return "B" if side == "W" else "W"


def in_mill(board: dict[str, str | None], point: str) -> bool:
    side = board[point]
    return side is not None and any(
        point in m and all(board[q] == side for q in m) for m in MILLS
    )


def removable(board: dict[str, str | None], side: str) -> list[str]:
    stones = [p for p in POINTS if board[p] == side]
    free = [p for p in stones if not in_mill(board, p)]
    return free or stones


def mills_closed(board: dict[str, str | None], point: str) -> int:
    side = board[point]
    return sum(1 for m in MILLS if point in m and all(board[q] == side for q in m))


def legal_moves(pos: Position) -> list[str]:
    """All legal moves in the issue's notation."""
    me, opp = pos.to_move, other(pos.to_move)
    empty = [p for p in POINTS if pos.board[p] is None]
    steps: list[tuple[str | None, str]] = []
    mine = [p for p in POINTS if pos.board[p] == me]
    if pos.stash[me] > 0:
        steps = [(None, e) for e in empty]
    elif pos.rules.flying and len(mine) == 3:
        steps = [(s, e) for s in mine for e in empty]
    else:
        steps = [(s, e) for s in mine for e in sorted(NEIGHBOURS[s]) if pos.board[e] is None]
    out = []
    for src, dst in steps:
        board = dict(pos.board)
        if src is not None:
            board[src] = None
        board[dst] = me
        text = dst if src is None else f"{src}-{dst}"
        k = mills_closed(board, dst)
        targets = [p for p in POINTS if board[p] == opp]
        if k == 0 or not targets:
            out.append(text)
            continue
        if k == 2 and pos.rules.double_removal and len(targets) >= 2:
            pairs = set()
            for r1 in removable(board, opp):
                after = dict(board)
                after[r1] = None
                for r2 in removable(after, opp):
                    pairs.add(tuple(sorted((r1, r2), key=POINTS.index)))
            out += [f"{text}x{a}x{b}" for a, b in pairs]
        else:
            out += [f"{text}x{r}" for r in removable(board, opp)]
    return out


def play(pos: Position, move: str) -> Position:
    """The position after ``move`` (a legal move), as a new object."""
    me, opp = pos.to_move, other(pos.to_move)
    parts = move.split("x")
    head, removed = parts[0], parts[1:]
    board = dict(pos.board)
    stash = dict(pos.stash)
    if "-" in head:
        src, dst = head.split("-")
        board[src] = None
    else:
        dst = head
        stash[me] -= 1
    board[dst] = me
    for r in removed:
        assert board[r] == opp
        board[r] = None
    nxt = Position(pos.rules, board, opp, stash, pos.plies + 1)
    placing = stash["W"] > 0 or stash["B"] > 0
    irreversible = bool(removed) or "-" not in head
    if removed:
        nxt.quiet = 0
    elif placing:
        nxt.quiet = 0
    else:
        nxt.quiet = pos.quiet + 1
    nxt.seen = [] if irreversible else pos.seen + [pos.key()]
    return nxt


def result(pos: Position) -> str | None:
    """None while the game goes on, else "W", "B" or "draw"."""
    me = pos.to_move
    stones = sum(1 for p in POINTS if pos.board[p] == me) + pos.stash[me]
    if stones < 3 or not legal_moves(pos):
        return other(me)
    if pos.plies >= pos.rules.max_plies:
        return "draw"
    if pos.quiet >= pos.rules.no_removal_limit:
        return "draw"
    if pos.seen.count(pos.key()) + 1 >= pos.rules.repetition_limit:
        return "draw"
    return None


def heuristic_seed(pos: Position, stones=1.0, stash=1.0, mills=4.0, possible_mills=2.0) -> float:
    """The seed's normalised heuristic, from the side to move's point of view."""
    def side_score(side: str) -> float:
        opp = other(side)
        on_board = sum(1 for p in POINTS if pos.board[p] == side)
        closed = sum(1 for m in MILLS if all(pos.board[q] == side for q in m))
        possible = sum(
            1 for m in MILLS
            if sum(pos.board[q] == side for q in m) == 2 and not any(pos.board[q] == opp for q in m)
        )
        return stones * on_board + stash * pos.stash[side] + mills * closed + possible_mills * possible

    maximum = 9 * max(stones, stash) + 4 * mills + 8 * possible_mills
    score = (side_score("W") - side_score("B")) / (maximum + 1)
    return score if pos.to_move == "W" else -score


__all__ = ["MILLS", "POINTS", "Position", "Rules", "combinations", "legal_moves", "play", "result"]
