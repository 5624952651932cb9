"""Isolation in plain Python: heurtune's ``isolation`` rules, written as a plugin.

Two knights on a 7x7 board; a player's first move goes to any empty square,
later ones jump like a chess knight; every square stood on stays blocked; the
side to move with no move loses. Squares are numbered ``row * 7 + col`` (``a1``
is 0, ``g7`` 48), moves are destination squares in ascending order, exactly
as the numba kernel generates them, so the two versions can be compared move
for move and search for search (heurtune's tests do both) and timed against
each other (docs/benchmarks.md).

The state is a list ``[blocked, pos0, pos1, side]`` of Python ints (a
bitboard of blocked squares, each knight's square or -1, the side to move):
cheap to play, take back and key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from heurtune.engine import FloatParam, ParamSpace, PythonHeuristic, Value
from heurtune.games import LOSS, ONGOING, PythonGame

SIZE = 7
SQUARES = SIZE * SIZE
FULL = (1 << SQUARES) - 1
NAMES = [f"{'abcdefg'[s % SIZE]}{s // SIZE + 1}" for s in range(SQUARES)]
BLOCKED, POS, SIDE = 0, 1, 3  # state[POS + side] is that side's square


def _knight_targets(square: int) -> list[int]:
    r, c = divmod(square, SIZE)
    out = []
    for dr, dc in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append(rr * SIZE + cc)
    return sorted(out)


JUMPS = [_knight_targets(s) for s in range(SQUARES)]
JUMP_MASKS = [sum(1 << t for t in JUMPS[s]) for s in range(SQUARES)]

State = list[int]


def mobility(state: State, side: int) -> int:
    """How many squares ``side`` could move to now."""
    pos = state[POS + side]
    free = ~state[BLOCKED]
    return ((JUMP_MASKS[pos] if pos >= 0 else FULL) & free).bit_count()


class Isolation(PythonGame[State]):
    name = "pyisolation"
    description = "Isolation in plain Python (the rules of heurtune's isolation kernel)"
    opening_plies = 2
    side_names = ("player 1", "player 2")

    def new_state(self, rules: Mapping[str, int]) -> State:
        return [0, -1, -1, 0]

    def legal_moves(self, state: State) -> Sequence[int]:
        pos = state[POS + state[SIDE]]
        blocked = state[BLOCKED]
        if pos < 0:
            return [s for s in range(SQUARES) if not blocked >> s & 1]
        return [s for s in JUMPS[pos] if not blocked >> s & 1]

    def play(self, state: State, move: int) -> None:
        side = state[SIDE]
        state[BLOCKED] |= 1 << move
        state.append(state[POS + side])  # the undo record: where the knight was
        state[POS + side] = move
        state[SIDE] = 1 - side

    def undo(self, state: State, move: int) -> None:
        side = 1 - state[SIDE]
        state[BLOCKED] &= ~(1 << move)
        state[POS + side] = state.pop()
        state[SIDE] = side

    def copy(self, state: State) -> State:
        return list(state)

    def result(self, state: State) -> int:
        return ONGOING if mobility(state, state[SIDE]) else LOSS

    def to_move(self, state: State) -> int:
        return state[SIDE]

    def key(self, state: State) -> int:
        return (state[BLOCKED] | (state[POS] + 1) << 49 | (state[POS + 1] + 1) << 56
                | state[SIDE] << 63)

    def move_to_str(self, move: int) -> str:
        return NAMES[move]

    def symmetric_keys(self, state: State) -> Sequence[int]:
        out = []
        for perm in SYMMETRIES:
            blocked = sum(1 << perm[s] for s in range(SQUARES) if state[BLOCKED] >> s & 1)
            image = [blocked, *(perm[p] if p >= 0 else -1 for p in state[POS:POS + 2]),
                     state[SIDE]]
            out.append(self.key(image))
        return out

    def max_game_plies(self, rules: Mapping[str, int]) -> int:
        return SQUARES

    def board_rows(self, state: State) -> list[str]:
        rows = []
        for r in range(SIZE - 1, -1, -1):
            row = ""
            for c in range(SIZE):
                sq = r * SIZE + c
                row += ("1" if state[POS] == sq else "2" if state[POS + 1] == sq
                        else "x" if state[BLOCKED] >> sq & 1 else ".")
            rows.append(row)
        return rows


def _symmetries() -> list[list[int]]:
    last = SIZE - 1
    maps = (lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (last - r, c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r))
    return [[f(*divmod(s, SIZE))[0] * SIZE + f(*divmod(s, SIZE))[1] for s in range(SQUARES)]
            for f in maps]


SYMMETRIES = _symmetries()


def improved(state: State, player: int, params: Mapping[str, Value]) -> float:
    """AB_Improved: own moves minus the opponent's."""
    return float(mobility(state, player) - mobility(state, 1 - player))


def weighted(state: State, player: int, params: Mapping[str, Value]) -> float:
    """own * own moves - opp * opponent moves (``improved`` at own = opp = 1)."""
    return (float(params["own"]) * mobility(state, player)
            - float(params["opp"]) * mobility(state, 1 - player))


GAME = Isolation()
HEURISTICS = (
    PythonHeuristic("improved", ParamSpace("improved", ()), improved,
                    "own moves - opponent moves (AB_Improved)"),
    PythonHeuristic("weighted", ParamSpace("weighted", (
        FloatParam("own", 0.0, 3.0, 1.0, help="weight of own moves"),
        FloatParam("opp", 0.0, 3.0, 1.0, help="weight of the opponent's moves"),
    )), weighted, "own * own moves - opp * opponent moves"),
)
PRESETS = {
    "ab_improved": {"heuristic": "improved",
                    "search": {"algorithm": "alphabeta", "depth": 64, "nodes": 4000},
                    "description": "AB_Improved: alpha-beta, 4000 nodes per move"},
    "random": {"heuristic": "improved", "search": {"algorithm": "random"},
               "description": "Random: a uniformly random legal move"},
}
