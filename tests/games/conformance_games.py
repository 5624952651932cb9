"""Tic-tac-toe as a plain-Python game, kept and broken on purpose, for the tests of
the conformance check (tests/games/test_conformance_promises.py).

A real module, not a test's local class: the check loads every game again in a
fresh Python process (as a match's workers do), which imports it by name. Each
game is registered as ``tests.games.conformance_games:NAME``, an object holding
its ``GAME``, ``HEURISTICS`` and ``PRESETS``; :data:`PLUGINS` lists them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from heurtune.engine import FloatParam, ParamSpace, PythonHeuristic
from heurtune.games import DRAW, LOSS, ONGOING, WIN, PythonGame

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class Board:
    """Nine cells (0 empty, 1 X, 2 O; a1 = 0, c3 = 8) and the plies played."""

    def __init__(self, cells: list[int] | None = None, ply: int = 0) -> None:
        self.cells = [0] * 9 if cells is None else cells
        self.ply = ply

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and (self.cells, self.ply) == (other.cells, other.ply)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Board({self.cells}, {self.ply})"


def won(board: Board) -> bool:
    """Whether a line is full of one side's stones (then the last mover made it)."""
    cells = board.cells
    return any(cells[a] and cells[a] == cells[b] == cells[c] for a, b, c in LINES)


class CopiedTicTacToe(PythonGame[Board]):
    """Tic-tac-toe, right in every way, without undo (heurtune copies positions)."""

    name = "ttt_copied"
    description = "tic-tac-toe (conformance tests)"
    side_names = ("X", "O")
    opening_plies = 1

    def new_state(self, rules: Mapping[str, int]) -> Board:
        return Board()

    def legal_moves(self, state: Board) -> Sequence[int]:
        if won(state):
            return []
        return [i for i in range(9) if not state.cells[i]]

    def play(self, state: Board, move: int) -> None:
        state.cells[move] = 1 + state.ply % 2
        state.ply += 1

    def result(self, state: Board) -> int:
        if won(state):  # the previous mover made three in a row
            return LOSS
        return DRAW if state.ply == 9 else ONGOING

    def to_move(self, state: Board) -> int:
        return state.ply % 2

    def key(self, state: Board) -> int:
        return sum(c * 3 ** i for i, c in enumerate(state.cells))

    def copy(self, state: Board) -> Board:
        return Board(list(state.cells), state.ply)

    def move_to_str(self, move: int) -> str:
        return "abc"[move % 3] + str(move // 3 + 1)

    def max_game_plies(self, rules: Mapping[str, int]) -> int:
        return 9


class TicTacToe(CopiedTicTacToe):
    """Tic-tac-toe, right in every way, with undo."""

    name = "ttt"

    def undo(self, state: Board, move: int) -> None:
        state.cells[move] = 0
        state.ply -= 1


class Shuffled(TicTacToe):
    """Lists its moves in a new random order each time (as the classic AIND
    Isolation ``Board.get_legal_moves`` does)."""

    name = "ttt_shuffled"

    def legal_moves(self, state: Board) -> Sequence[int]:
        moves = list(super().legal_moves(state))
        random.shuffle(moves)
        return moves


class StringHash(TicTacToe):
    """Keys a position by Python's hash() of a string (as AIND's ``Board.hash``
    does): the same in one process, another in the next."""

    name = "ttt_strhash"

    def key(self, state: Board) -> int:
        return hash(str(state.cells) + str(state.ply % 2))


class Aind(CopiedTicTacToe):
    """The classic AIND Isolation Board as a wrapper sees it: shuffled moves, a key
    from Python's string hash, no undo (its ``forecast_move`` copies the board)."""

    name = "ttt_aind"

    def legal_moves(self, state: Board) -> Sequence[int]:
        moves = list(super().legal_moves(state))
        random.shuffle(moves)
        return moves

    def key(self, state: Board) -> int:
        return hash(str(state.cells) + str(state.ply % 2))


class Reversed(TicTacToe):
    """Says WIN where the side to move has lost: the result from the wrong side."""

    name = "ttt_reversed"

    def result(self, state: Board) -> int:
        outcome = super().result(state)
        return WIN if outcome == LOSS else outcome


class BrokenUndo(TicTacToe):
    """Takes a move back without emptying its cell."""

    name = "ttt_badundo"

    def undo(self, state: Board, move: int) -> None:
        state.ply -= 1


class SharedCopy(CopiedTicTacToe):
    """Copies a position without copying its list of cells."""

    name = "ttt_sharedcopy"

    def copy(self, state: Board) -> Board:
        return Board(state.cells, state.ply)


class OneName(TicTacToe):
    """Writes every move the same way."""

    name = "ttt_onename"

    def move_to_str(self, move: int) -> str:
        return "x"


class IdKey(TicTacToe):
    """Keys a position by the object that holds it."""

    name = "ttt_idkey"

    def key(self, state: Board) -> int:
        return id(state)


class TrailBoard(Board):
    """A board that also keeps the moves that reached it (equal boards may differ
    in it: ``__eq__`` compares the cells and the ply only)."""

    def __init__(self, cells: list[int] | None = None, ply: int = 0,
                 trail: list[int] | None = None) -> None:
        super().__init__(cells, ply)
        self.trail = [] if trail is None else trail


class HistoryKey(TicTacToe):
    """Keys a position by the moves that reached it, not by the position."""

    name = "ttt_historykey"

    def new_state(self, rules: Mapping[str, int]) -> TrailBoard:
        return TrailBoard()

    def play(self, state: Board, move: int) -> None:
        super().play(state, move)
        assert isinstance(state, TrailBoard)
        state.trail.append(move)

    def undo(self, state: Board, move: int) -> None:
        super().undo(state, move)
        assert isinstance(state, TrailBoard)
        state.trail.pop()

    def copy(self, state: Board) -> TrailBoard:
        assert isinstance(state, TrailBoard)
        return TrailBoard(list(state.cells), state.ply, list(state.trail))

    def key(self, state: Board) -> tuple[int, ...]:
        assert isinstance(state, TrailBoard)
        return tuple(state.trail)


class CountedBoard(Board):
    """A board that counts the moves ever played on it (``__eq__`` ignores it)."""

    def __init__(self, cells: list[int] | None = None, ply: int = 0, played: int = 0) -> None:
        super().__init__(cells, ply)
        self.played = played


class CountingKey(TicTacToe):
    """Keys a position with a count that undo does not take back."""

    name = "ttt_countingkey"

    def new_state(self, rules: Mapping[str, int]) -> CountedBoard:
        return CountedBoard()

    def play(self, state: Board, move: int) -> None:
        super().play(state, move)
        assert isinstance(state, CountedBoard)
        state.played += 1

    def copy(self, state: Board) -> CountedBoard:
        assert isinstance(state, CountedBoard)
        return CountedBoard(list(state.cells), state.ply, state.played)

    def key(self, state: Board) -> tuple[int, int]:
        assert isinstance(state, CountedBoard)
        return super().key(state), state.played


def evaluate_lines(state: Board, player: int, params: Mapping[str, Any]) -> float:
    """Open lines of ``player`` minus the opponent's, weighted."""
    own, opp = 1 + player, 2 - player
    cells = state.cells
    mine = sum(1 for line in LINES if all(cells[i] != opp for i in line))
    theirs = sum(1 for line in LINES if all(cells[i] != own for i in line))
    return float(params["open"]) * (mine - theirs)


HEURISTICS = (PythonHeuristic("lines", ParamSpace("lines", (
    FloatParam("open", 0.0, 10.0, 1.0, help="per open line, own minus the opponent's"),)),
    evaluate_lines, "open lines"),)
PRESETS = {"weak": {"heuristic": "lines", "search": {"algorithm": "alphabeta", "depth": 2},
                    "description": "lines, alpha-beta 2 plies deep"}}


def evaluate_badly(state: Board, player: int, params: Mapping[str, Any]) -> float:
    """Fails on every position with three stones or more (which a search from the
    start reaches)."""
    return float(params["open"]) / (3 - min(3, sum(1 for c in state.cells if c)))


class Plugin:
    """What the registry reads for one game: ``GAME``, ``HEURISTICS``, ``PRESETS``."""

    def __init__(self, game: PythonGame[Board],
                 heuristics: tuple[PythonHeuristic, ...] = HEURISTICS) -> None:
        self.GAME = game
        self.HEURISTICS = heuristics
        self.PRESETS = PRESETS if heuristics is HEURISTICS else {}


class BadHeuristic(TicTacToe):
    """Right in every way; its heuristic is not."""

    name = "ttt_badheuristic"


TTT = Plugin(TicTacToe())
TTT_COPIED = Plugin(CopiedTicTacToe())
TTT_SHUFFLED = Plugin(Shuffled())
TTT_STRHASH = Plugin(StringHash())
TTT_AIND = Plugin(Aind())
TTT_REVERSED = Plugin(Reversed())
TTT_BADUNDO = Plugin(BrokenUndo())
TTT_SHAREDCOPY = Plugin(SharedCopy())
TTT_ONENAME = Plugin(OneName())
TTT_IDKEY = Plugin(IdKey())
TTT_HISTORYKEY = Plugin(HistoryKey())
TTT_COUNTINGKEY = Plugin(CountingKey())
TTT_BADHEURISTIC = Plugin(BadHeuristic(), (PythonHeuristic(
    "lines", HEURISTICS[0].space, evaluate_badly, "divides by zero"),))

#: game name -> what register_game is given
PLUGINS = {plugin.GAME.name: f"{__name__}:{attr}" for attr, plugin in sorted(globals().items())
           if isinstance(plugin, Plugin)}
