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

Search, match and tuning code only ever talk to this interface, so adding a
game means writing one kernel module and registering it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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

    def new_state(self, rules: Mapping[str, Any] | None = None) -> State:
        """The start position under the given rule options."""
        return self._new_state(self.resolve_rules(rules))

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
        """The legal move whose notation is ``text``."""
        from heurtune.errors import HeurtuneError

        for move in self.legal_moves(state):
            if self.move_to_str(move) == text.strip():
                return move
        raise HeurtuneError(f"illegal or malformed {self.name} move {text!r}")


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

