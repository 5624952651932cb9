"""The uniform interface every rules kernel offers (OpenSpiel-style).

A position is one flat ``int64`` numpy array; a move is one ``int64``. The
kernel functions are numba dispatchers compiled with ``nogil=True`` so that a
search built on them never holds the GIL:

``gen_moves(state, out, row) -> n``
    writes the legal moves of the side to move into ``out[row, :n]`` (a row of
    a 2-D buffer: the search keeps one row per ply and never has to create an
    array view, whose reference counting would cost more than the move
    generation itself).
``make_move(state, move)`` / ``unmake_move(state, move)``
    play and take back a move in place (the kernel keeps its own undo stack
    inside ``state``).
``outcome(state) -> int``
    :data:`ONGOING`, or the result for the side to move: :data:`WIN`,
    :data:`DRAW` or :data:`LOSS`.
``position_hash(state) -> int``, ``side_to_move(state) -> int``, ``ply(state) -> int``
    read the common header (:data:`STM`, :data:`PLY`, :data:`HASH`) that
    starts every kernel's state; the hash is a Zobrist hash of everything
    that decides the future of the game.

Two optional search hooks, for wide boards (defaults: none needed):

``gen_candidates(state, out, row) -> n``
    the moves worth searching, a non-empty subset of the legal moves while the
    game goes on (Gomoku: a winning point alone, forced blocks, points near
    stones). The search uses it when its ``candidates`` setting is on; the
    default is :func:`gen_moves` itself.
``move_key(state, move) -> int``
    a cheap ordering key (larger first, below 2^24) for a move of the side to
    move, which the search ranks after the table move and killers and before
    its history counts (Gomoku: threats first). The default, :func:`no_key`,
    keeps the history order.

Optional replay hooks (plain Python, for game records, ``heurtune replay`` and
the HTML report's board pictures; every game names its cells with a file
letter and a rank number, ``a1`` at the bottom left):

``board_rows(state) -> list[str]``
    the board as rows of one character per cell, the top rank first and file
    ``a`` on the left (a space where the grid has no cell, as between Morris's
    points); :attr:`GameKernel.board_legend` says what each character shows.
    Without it a text board only says the ply and the side to move.
``board_caption(state) -> str``
    what the rows cannot show (Morris: the stones still to place).
``board_lines``
    the straight lines a picture draws under the cells, each between two cells
    named as moves name them (Morris: its three squares and the four lines
    that join them, ``("a1", "a7")``, ``("d1", "d3")``, ...); default none (a
    grid of cells, as Gomoku's).
``termination(state) -> str``
    why a finished game ended ("Black made five in a row"); the default says
    who won or that it was a draw, and when the side to move is stuck.

Optional start-position hooks, for games whose openings may start elsewhere
than the game's own start (chess: a FEN from an opening book, a Chess960
arrangement); the defaults: every game starts from ``new_state(rules)``:

``new_state_from(rules, text) -> state``
    the position a text names (chess: a FEN), checked; a bad text raises
    ``ValueError`` with the reason.
``position_text(state) -> str``
    the position as such a text (what an engine is sent as ``position fen``).
``random_start(rng, rules) -> str``
    a start position drawn with ``rng`` for a random opening ("" : the game's
    own start; Chess960: one of its 960 arrangements).

An optional book hook, ``book_reader(text, name, rules) -> list[BookLine]``,
reads the game's own opening-book formats (chess: EPD and PGN, through
python-chess); the default is :func:`read_move_lines` (a line of moves per
opening), which every game reads.

Optional notation hooks: ``parse_move(state, text) -> int`` reads a move
without listing every legal move's notation (chess: python-chess's parser;
default: compare the notation of every legal move) and ``record_move(state,
move) -> str`` writes a move for a PGN record (chess: SAN; default: the
game's notation).

Search, match and tuning code only ever talk to this interface, so adding a
game means writing one kernel module and registering it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit

ONGOING = 2
WIN = 1
DRAW = 0
LOSS = -1

# Every kernel's state starts with this header (its own fields follow from
# HEADER on), so the accessors below serve all games.
STM = 0  # side to move: 0 or 1
PLY = 1  # plies played
HASH = 2  # Zobrist hash of the position
HEADER = 3

EMPTY_CELL = "."  # board_rows: an empty cell (pictures draw it as a small dot)
NO_CELL = " "  # board_rows: no cell at this place of the grid
FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"
UNFINISHED = "unfinished"  # termination: the game goes on


@njit(cache=True, nogil=True)
def position_hash(state):  # type: ignore[no-untyped-def]
    return state[HASH]


@njit(cache=True, nogil=True)
def side_to_move(state):  # type: ignore[no-untyped-def]
    return state[STM]


@njit(cache=True, nogil=True)
def ply(state):  # type: ignore[no-untyped-def]
    return state[PLY]


@njit(cache=True, nogil=True)
def no_key(state, move):  # type: ignore[no-untyped-def]
    """The default ordering key: none (moves keep their history order)."""
    return 0


# A position as the match layer holds it: a kernel's int64 array, or a
# :class:`~heurtune.games.python.PyState` for a game written in plain Python.
State = Any


def grid_rows(ranks: int, files: int, char: Callable[[int, int], str]) -> list[str]:
    """``board_rows`` of a rectangular board: ``char(rank, file)`` for every cell
    (both counted from 0 at a1), the top rank first."""
    return ["".join(char(r, c) for c in range(files)) for r in range(ranks - 1, -1, -1)]


@dataclass(frozen=True)
class BookLine:
    """One opening of an opening book as its game reads it: the line of the file
    it starts on, its start position as text ("" : the game's own start) and its
    moves in the game's notation. heurtune checks both (the start through
    :attr:`GameKernel.new_state_from`, every move for legality)."""

    line: int
    start: str
    moves: tuple[str, ...]


class BookError(ValueError):
    """An opening book a game cannot read: the line (1 is the first) and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def read_move_lines(text: str) -> list[BookLine]:
    """The default opening-book format of every game: one opening per line, its
    moves in the game's notation separated by spaces, from the game's start
    (``d4 c2`` in Isolation). Blank lines and lines starting with ``#`` are
    skipped."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if words and not words[0].startswith("#"):
            out.append(BookLine(number, "", tuple(words)))
    return out


@dataclass(frozen=True)
class RuleOption:
    """One switchable rule of a game, with its default and a one-line description."""

    name: str
    default: int
    help: str
    low: int = 0
    high: int = 1_000_000


@dataclass(frozen=True)
class GameKernel:
    """A game's rules kernel plus the plain-Python helpers around it."""

    name: str
    description: str
    module: ModuleType
    rules: tuple[RuleOption, ...]
    max_moves: int
    opening_plies: int
    _new_state: Callable[[Mapping[str, int]], State]
    move_to_str: Callable[[int], str]
    gen_moves: Any
    make_move: Any
    unmake_move: Any
    outcome: Any
    # the header accessors are the same for every game
    position_hash: Any = position_hash
    side_to_move: Any = side_to_move
    ply: Any = ply
    # search hooks (numba, hot): the moves worth searching (None: gen_moves) and
    # a threat-first ordering key (default: none)
    gen_candidates: Any = None
    move_key: Any = no_key
    # opening hooks (plain Python, not hot): the moves a random opening may play
    # next (default: every legal move) and whether an opening is acceptable
    # (default: any position where the game goes on)
    opening_moves: Callable[[State], list[int]] | None = None
    opening_ok: Callable[[State], bool] | None = None
    # the hashes of a position's images under the board's symmetries (itself
    # included), so that excluding an opening excludes its mirror images too
    # (default: no symmetry declared, the position's own hash)
    symmetry_hashes: Callable[[State], list[int]] | None = None
    # declarations the conformance suite checks (tests/test_conformance.py):
    # the longest game under the given rules, in plies; the hash of a position
    # computed from scratch (what the incremental hash must equal); and how many
    # leading entries of the state define the position (the rest is undo scratch
    # that unmake_move may leave behind)
    max_game_plies: Callable[[Mapping[str, int]], int] | None = None
    hash_from_scratch: Callable[[State], int] | None = None
    live_length: Callable[[State], int] | None = None
    # replay hooks (plain Python, not hot; see the module docstring): the board
    # as rows of characters, what each character shows (its meaning and the CSS
    # colour a picture gives it), a caption for what the rows cannot show, the
    # lines a picture draws between cells, why a finished game ended, and the
    # names of the two sides
    board_rows: Callable[[State], list[str]] | None = None
    board_legend: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    board_caption: Callable[[State], str] | None = None
    board_lines: tuple[tuple[str, str], ...] = ()
    termination: Callable[[State], str] | None = None
    side_names: tuple[str, str] = ("first player", "second player")
    # start-position and notation hooks (plain Python; see the module docstring)
    new_state_from: Callable[[Mapping[str, int], str], State] | None = None
    position_text: Callable[[State], str] | None = None
    random_start: Callable[[Any, Mapping[str, int]], str] | None = None
    move_parser: Callable[[State, str], int] | None = None
    record_move: Callable[[State, int], str] | None = None
    # engines in other processes: the protocol they speak unless their file says
    # otherwise ("heurtune" or "uci"), and the UCI options the rules require of
    # them (chess960 = 1: UCI_Chess960 = true)
    engine_protocol: str = "heurtune"
    engine_options: Callable[[Mapping[str, int]], Mapping[str, Any]] | None = None
    # tags of a PGN record for games under ``rules`` from a start position's text
    # ("" : the game's own); default: [Game "NAME"] (chess: SetUp/FEN, Variant)
    record_tags: Callable[[Mapping[str, int], str], Mapping[str, str]] | None = None
    # one line of an opening book for the opening that reached ``state`` (its moves
    # from the start given): default, its moves in notation (chess: an EPD record)
    book_entry: Callable[[State, Sequence[int]], str] | None = None
    # the game's own opening-book formats: (file text, file name, rules) -> its
    # openings; raises BookError (default: read_move_lines, a line of moves each)
    book_reader: Callable[[str, str, Mapping[str, int]], list[BookLine]] | None = None

    # -- rules -------------------------------------------------------------
    def resolve_rules(self, overrides: Mapping[str, Any] | None = None) -> dict[str, int]:
        """Defaults updated by ``overrides``; unknown names and bad values are errors."""
        from heurtune.errors import HeurtuneError

        values = {opt.name: opt.default for opt in self.rules}
        for key, raw in (overrides or {}).items():
            opt = next((o for o in self.rules if o.name == key), None)
            if opt is None:
                known = ", ".join(o.name for o in self.rules) or "none"
                raise HeurtuneError(f"unknown rule {key!r} for {self.name} (known: {known})")
            value = _rule_value(raw)
            if value is None or not opt.low <= value <= opt.high:
                raise HeurtuneError(
                    f"rule {key}={raw!r} for {self.name} must be an integer or boolean "
                    f"in [{opt.low}, {opt.high}]"
                )
            values[key] = value
        return values

    def new_state(self, rules: Mapping[str, Any] | None = None, start: str = "") -> State:
        """The start position under the given rule options: the game's own, or the
        one ``start`` names (a FEN in chess; see :attr:`new_state_from`). A start
        the game cannot read is a :class:`~heurtune.errors.HeurtuneError`."""
        resolved = self.resolve_rules(rules)
        if not start:
            return self._new_state(resolved)
        from heurtune.errors import HeurtuneError

        if self.new_state_from is None:
            raise HeurtuneError(f"{self.name} has no start positions other than its own "
                                f"(got {start!r})")
        try:
            return self.new_state_from(resolved, start)
        except ValueError as exc:
            raise HeurtuneError(f"not a {self.name} position: {start!r} ({exc})") from None

    @property
    def has_start_positions(self) -> bool:
        """Whether openings may start from a position given as text (a FEN)."""
        return self.new_state_from is not None

    # -- convenience wrappers (not for hot paths) --------------------------
    def legal_moves(self, state: State) -> list[int]:
        """Legal moves of the side to move, in generation order."""
        buf = np.empty((1, self.max_moves), dtype=np.int64)
        n = self.gen_moves(state, buf, 0)
        return [int(m) for m in buf[0, :n]]

    def opening_candidates(self, state: State) -> list[int]:
        """Moves a random opening may play from ``state`` (the ``opening_moves`` hook)."""
        if self.opening_moves is not None:
            return self.opening_moves(state)
        return self.legal_moves(state)

    def acceptable_opening(self, state: State) -> bool:
        """Whether a random opening may end in ``state`` (the ``opening_ok`` hook)."""
        if self.outcome(state) != ONGOING:
            return False
        return self.opening_ok is None or bool(self.opening_ok(state))

    def image_hashes(self, state: State) -> set[int]:
        """Hashes of ``state`` and its symmetric images (the ``symmetry_hashes`` hook)."""
        if self.symmetry_hashes is not None:
            return {int(h) for h in self.symmetry_hashes(state)}
        return {int(self.position_hash(state))}

    def board_text(self, state: State) -> str:
        """The position as a text board with rank numbers and file letters (the
        ``board_rows`` hook), then its caption and the side to move."""
        mover = f"{self.side_names[int(self.side_to_move(state))]} to move"
        if self.board_rows is None:
            return f"ply {int(self.ply(state))}, {mover}"
        rows = self.board_rows(state)
        width = len(str(len(rows)))
        lines = [f"{len(rows) - r:>{width}} " + " ".join(row).rstrip()
                 for r, row in enumerate(rows)]
        lines.append(" " * (width + 1) + " ".join(FILE_LETTERS[:max(map(len, rows))]))
        caption = self.board_caption(state) if self.board_caption is not None else ""
        lines.append("; ".join(part for part in (caption, mover) if part))
        return "\n".join(lines)

    def termination_reason(self, state: State) -> str:
        """Why the game ended in ``state`` (a finished position): the
        ``termination`` hook, else who won (or a draw) and whether the side to
        move was stuck."""
        if self.termination is not None:
            return self.termination(state)
        return self.default_termination(state)

    def default_termination(self, state: State) -> str:
        """Who won (or a draw), and whether the side to move was stuck: what
        :meth:`termination_reason` says without a ``termination`` hook."""
        result = self.outcome(state)
        mover = self.side_names[int(self.side_to_move(state))]
        other = self.side_names[1 - int(self.side_to_move(state))]
        if result == ONGOING:
            return UNFINISHED
        if result == DRAW:
            return "draw"
        if result == LOSS and not self.legal_moves(state):
            return f"{mover} has no legal move"
        return f"{mover if result == WIN else other} won"

    def parse_move(self, state: State, text: str) -> int:
        """The legal move whose notation is ``text`` (the ``move_parser`` hook
        where the game has one)."""
        from heurtune.errors import HeurtuneError

        if self.move_parser is not None:
            try:
                return int(self.move_parser(state, text.strip()))
            except ValueError:
                raise HeurtuneError(f"illegal or malformed {self.name} move {text!r}") from None
        for move in self.legal_moves(state):
            if self.move_to_str(move) == text.strip():
                return move
        raise HeurtuneError(f"illegal or malformed {self.name} move {text!r}")


    def read_book(self, text: str, name: str, rules: Mapping[str, int]) -> list[BookLine]:
        """The openings of an opening book's text (``name``: the file's name, whose
        suffix may pick a format): the ``book_reader`` hook, else
        :func:`read_move_lines`. A :class:`BookError` names the line."""
        if self.book_reader is not None:
            return self.book_reader(text, name, rules)
        return read_move_lines(text)

    def pgn_tags(self, rules: Mapping[str, int], start: str) -> dict[str, str]:
        """The game's tags of a PGN record (the ``record_tags`` hook, else
        ``Game``, and the start position as ``FEN`` where there is one)."""
        if self.record_tags is not None:
            return dict(self.record_tags(rules, start))
        return {"Game": self.name, **({"SetUp": "1", "FEN": start} if start else {})}

    def book_line(self, state: State, moves: Sequence[int]) -> str:
        """The opening that played ``moves`` to reach ``state`` as a line of an
        opening book (the ``book_entry`` hook, else its moves in notation)."""
        if self.book_entry is not None:
            return self.book_entry(state, moves)
        return " ".join(self.move_to_str(m) for m in moves)

    def record_text(self, state: State, move: int) -> str:
        """``move`` (legal in ``state``) as a PGN record writes it: the
        ``record_move`` hook (chess: SAN), else the game's notation."""
        if self.record_move is not None:
            return self.record_move(state, move)
        return self.move_to_str(move)


def _rule_value(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in ("true", "yes", "on"):
            return 1
        if text in ("false", "no", "off"):
            return 0
        try:
            return int(text)
        except ValueError:
            return None
    return None

