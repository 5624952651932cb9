"""Chess, standard and Chess960, on python-chess: heurtune referees, engines play.

The rules are python-chess's (PyPI ``chess``: move generation, FEN, SAN, PGN);
heurtune writes none of them. This module is the adapter that makes them a
:class:`~heurtune.games.PythonGame`, so that matches, opening books, records,
studies and reports treat chess like the other games, and UCI engines
(:mod:`heurtune.engine.process`) play it.

* **Moves** are integers ``from | to << 6 | promotion << 12`` (squares 0 = a1
  to 63 = h8, python-chess's piece types for a promotion) and are written in
  UCI notation (``e2e4``, ``e7e8q``; castling ``e1g1``, or king-takes-rook
  ``e1h1`` under the Chess960 rule, as UCI engines expect with
  ``UCI_Chess960``). Records and PGN files write SAN.
* **Results**: checkmate, stalemate, threefold repetition, the fifty-move rule
  and insufficient material end the game, each with its termination reason.
  heurtune claims a draw by repetition or by the fifty-move rule for the
  players as soon as it may be claimed (the position stands for the third
  time; 100 plies without a capture or a pawn move), as cutechess and fishtest
  do, and checkmate on the hundredth ply stands (FIDE Article 9.3).
* **Starts**: the standard position, a FEN (an opening book's position), and
  under the rule ``chess960 = 1`` the 960 Chess960 arrangements (random
  openings draw one). An opening and its colour-flipped mirror image are the
  same opening (each is played with both colours).

The game's plain-Python heuristics (``material``) live in
:mod:`heurtune.engine.heuristics.chess`; they exist to referee-test the
loop in process and for tests. Chess engines worth tuning are UCI engines.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import chess
import chess.pgn
import chess.polyglot
import numpy as np

from heurtune.games.base import DRAW, LOSS, ONGOING, BookError, BookLine, RuleOption
from heurtune.games.python import PythonGame

CHESS960_STANDARD = 518  # the Chess960 number of the standard arrangement
PROMOTION_SHIFT = 12
TO_SHIFT = 6
SQUARE_MASK = 63

# what each board character shows: the piece and the CSS colour a picture gives it
_WHITE_PIECE, _BLACK_PIECE = "#f5f0e1", "#2b2b2b"
_LEGEND = {
    ".": ("empty square", "#d9c9a8"),
    **{c: (f"White {chess.piece_name(chess.PIECE_SYMBOLS.index(c.lower()))}", _WHITE_PIECE)
       for c in "PNBRQK"},
    **{c: (f"Black {chess.piece_name(chess.PIECE_SYMBOLS.index(c))}", _BLACK_PIECE)
       for c in "pnbrqk"},
}

# termination reasons (python-chess's Termination, in words)
CHECKMATE = "checkmate"
STALEMATE = "stalemate"
REPETITION = "threefold repetition"
FIFTY_MOVES = "fifty-move rule"
INSUFFICIENT = "insufficient material"


def encode(move: chess.Move) -> int:
    """A python-chess move as heurtune's integer."""
    return (move.from_square | move.to_square << TO_SHIFT
            | (move.promotion or 0) << PROMOTION_SHIFT)


def decode(move: int) -> chess.Move:
    """heurtune's integer as a python-chess move."""
    promotion = move >> PROMOTION_SHIFT
    return chess.Move(move & SQUARE_MASK, (move >> TO_SHIFT) & SQUARE_MASK,
                      promotion if promotion else None)


def _ending(board: chess.Board) -> str | None:
    """Why the game ends in ``board`` (None: it goes on), checkmate and stalemate
    before the draws a player may claim."""
    if not any(board.generate_legal_moves()):
        return CHECKMATE if board.is_check() else STALEMATE
    if board.is_insufficient_material():
        return INSUFFICIENT
    if board.halfmove_clock >= 100:
        return FIFTY_MOVES
    if board.is_repetition(3):
        return REPETITION
    return None


def _epd_line(line: str, chess960: bool) -> str:
    """The FEN of one line of an EPD file: an EPD record (four fields, then
    operations such as ``hmvc 0; c0 "...";``) or a whole FEN."""
    try:
        board, _ops = chess.Board.from_epd(line, chess960=chess960)
    except ValueError as epd_error:
        try:
            board = chess.Board(line, chess960=chess960)
        except ValueError:
            raise epd_error from None
    return board.fen()


class _Strict(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's game builder, raising on the first error (an illegal or
    ambiguous move) instead of logging it and cutting the game short."""

    def handle_error(self, error: Exception) -> None:
        raise ValueError(str(error).split(" while parsing")[0])


def read_pgn(text: str) -> list[BookLine]:
    """Every game of a PGN text as an opening: its start (the ``FEN`` tag, else
    the standard position) and its mainline moves in UCI notation; the line is
    the game's first."""
    out: list[BookLine] = []
    handle = io.StringIO(text)
    lines = text.splitlines()
    while True:
        # the game's first line: after ``offset``, the first neither blank nor a
        # "%" escape line (which PGN readers skip)
        line = 1 + text.count("\n", 0, handle.tell())
        while line <= len(lines) and (not lines[line - 1].strip()
                                      or lines[line - 1].startswith("%")):
            line += 1
        try:
            game = chess.pgn.read_game(handle, Visitor=_Strict)
        except ValueError as exc:
            raise BookError(line, f"game {len(out) + 1}: {exc}") from None
        if game is None:
            return out
        board = game.board()
        # the start as a whole FEN (a tag may leave fields out), "" for the standard
        start = board.fen() if game.headers.get("FEN") else ""
        moves = []
        for move in game.mainline_moves():  # each written where it is played (castling)
            moves.append(board.uci(move))
            board.push(move)
        out.append(BookLine(line, start, tuple(moves)))


class Chess(PythonGame[chess.Board]):
    """Chess on a python-chess :class:`chess.Board` (see the module docstring)."""

    name = "chess"
    description = ("chess on python-chess: standard or Chess960 (rule chess960), moves in "
                   "UCI notation; engines speak UCI")
    rules = (RuleOption("chess960", 0, "1: Chess960 (Fischer random chess): its castling "
                        "rules, and random openings start from one of its 960 arrangements",
                        0, 1),)
    # random openings: 4 random plies from the start (an opening book is better:
    # `openings = FILE` in a study, `--openings FILE` on the commands)
    opening_plies = 4
    side_names = ("White", "Black")
    board_legend = _LEGEND
    protocol = "uci"

    def new_state(self, rules: Mapping[str, int]) -> chess.Board:
        if rules.get("chess960"):
            return chess.Board.from_chess960_pos(CHESS960_STANDARD)
        return chess.Board()

    def new_state_from(self, rules: Mapping[str, int], text: str) -> chess.Board:
        board = chess.Board(text, chess960=bool(rules.get("chess960")))
        status = board.status()
        if status != chess.STATUS_VALID:
            problems = [(flag.name or "").lower().replace("_", " ") for flag in chess.Status
                        if flag and flag in status]
            raise ValueError("an impossible position: " + ", ".join(problems))
        return board

    def position_text(self, state: chess.Board) -> str:
        return state.fen()

    def random_start(self, rng: np.random.Generator, rules: Mapping[str, int]) -> str:
        if not rules.get("chess960"):
            return ""
        return chess.Board.from_chess960_pos(int(rng.integers(960))).fen()

    def legal_moves(self, state: chess.Board) -> Sequence[int]:
        return [encode(m) for m in state.generate_legal_moves()]

    def play(self, state: chess.Board, move: int) -> None:
        state.push(decode(move))

    def undo(self, state: chess.Board, move: int) -> None:
        state.pop()

    def copy(self, state: chess.Board) -> chess.Board:
        return state.copy()

    def result(self, state: chess.Board) -> int:
        ending = _ending(state)
        if ending is None:
            return ONGOING
        return LOSS if ending == CHECKMATE else DRAW

    def termination(self, state: chess.Board) -> str | None:
        ending = _ending(state)
        if ending is None:
            return None
        if ending == CHECKMATE:
            winner = "Black" if state.turn == chess.WHITE else "White"
            return f"{winner} won by checkmate"
        return f"draw by {ending}"

    def to_move(self, state: chess.Board) -> int:
        return 0 if state.turn == chess.WHITE else 1

    def key(self, state: chess.Board) -> int:
        return int(chess.polyglot.zobrist_hash(state))

    def symmetric_keys(self, state: chess.Board) -> Sequence[int]:
        return (self.key(state), self.key(state.mirror()))

    def move_to_str(self, move: int) -> str:
        return decode(move).uci()

    def parse_move(self, state: chess.Board, text: str) -> int:
        try:
            move = state.parse_uci(text)
        except chess.InvalidMoveError as exc:  # a subclass of ValueError
            raise ValueError(str(exc)) from None
        if not move:  # UCI's null move, 0000: no move of chess's
            raise ValueError(f"{text!r} is the null move")
        return encode(move)

    def record_move(self, state: chess.Board, move: int) -> str:
        return state.san(decode(move))

    def record_tags(self, rules: Mapping[str, int], start: str) -> Mapping[str, str]:
        if rules.get("chess960"):  # PGN's Chess960 convention: the start always given
            fen = start or self.new_state(rules).fen()
            return {"Variant": "Chess960", "SetUp": "1", "FEN": fen}
        return {"SetUp": "1", "FEN": start} if start else {}

    def book_entry(self, state: chess.Board, moves: Sequence[int]) -> str:
        return state.epd()

    def engine_options(self, rules: Mapping[str, int]) -> Mapping[str, Any]:
        return {"UCI_Chess960": True} if rules.get("chess960") else {}

    def read_openings(self, text: str, name: str, rules: Mapping[str, int]) -> list[BookLine]:
        """EPD (or FEN) files: a position per line; PGN files (``.pgn``): each
        game's mainline from its start. Blank lines and lines starting with
        ``#`` or ``%`` are skipped in EPD files (PGN files: by PGN's rules)."""
        if name.lower().endswith(".pgn"):
            return read_pgn(text)
        out = []
        chess960 = bool(rules.get("chess960"))
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if not stripped or stripped[0] in "#%":
                continue
            try:
                out.append(BookLine(number, _epd_line(stripped, chess960), ()))
            except ValueError as exc:
                raise BookError(number, f"not an EPD or FEN position ({exc})") from None
        return out

    def board_rows(self, state: chess.Board) -> list[str]:
        rows = []
        for rank in range(7, -1, -1):
            row = ""
            for file in range(8):
                piece = state.piece_at(chess.square(file, rank))
                row += piece.symbol() if piece is not None else "."
            rows.append(row)
        return rows

    def board_caption(self, state: chess.Board) -> str:
        return state.fen()


GAME = Chess()


def chess_board(state: Any) -> chess.Board:
    """The python-chess board inside a chess position as the match layer holds it
    (a :class:`~heurtune.games.python.PyState`)."""
    board = getattr(state, "state", state)
    if not isinstance(board, chess.Board):
        raise TypeError(f"not a chess position: {state!r}")
    return board


__all__ = ["GAME", "Chess", "chess_board", "decode", "encode"]
