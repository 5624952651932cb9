"""Games written in plain Python: the contract, and its adapter to :class:`GameKernel`.

A game that is not worth a numba kernel (yet) subclasses :class:`PythonGame`.
Its state is any Python object the game likes (a list, a class of its own);
its moves are integers, as OpenSpiel's actions are, with a notation for
people and for game records. heurtune wraps the game in a
:class:`~heurtune.games.base.GameKernel` (:func:`python_kernel`), so that
matches, openings, records, replays, studies and reports treat it like the
built-in games, and searches it with a plain-Python alpha-beta
(:mod:`heurtune.engine.pysearch`) instead of a compiled one.

What a game must say (abstract methods) and may say (methods with defaults)::

    class ConnectFour(PythonGame[Board]):
        name = "connect4"
        description = "Connect Four on a 7x6 board"
        side_names = ("Red", "Yellow")

        def new_state(self, rules): ...         # the start position
        def legal_moves(self, state): ...       # ints, in a fixed order
        def play(self, state, move): ...        # in place
        def undo(self, state, move): ...        # optional: else states are copied
        def result(self, state): ...            # ONGOING, or WIN/DRAW/LOSS for the side to move
        def to_move(self, state): ...           # 0 or 1
        def key(self, state): ...               # hashable: equal for equal positions
        def move_to_str(self, move): ...        # optional: str(move)

See ``docs/your-game.md`` for the whole tutorial, and
``examples/connect4/`` for a complete plugin package.
"""

from __future__ import annotations

import copy as _copy
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from heurtune.errors import HeurtuneError
from heurtune.games.base import BookLine, GameKernel, RuleOption, read_move_lines

S = TypeVar("S")

_MASK63 = (1 << 63) - 1


class PythonGame(ABC, Generic[S]):
    """The contract of a game written in plain Python.

    Subclass it, set the class attributes, implement the abstract methods.
    The search calls :meth:`legal_moves`, :meth:`play`, :meth:`undo` (or
    :meth:`copy`), :meth:`result`, :meth:`to_move` and :meth:`key` at every
    node, so they are the game's hot path: keep them lean (integers and
    tuples rather than objects per square).
    """

    #: the name studies, presets (``NAME:preset``) and commands use
    name: ClassVar[str] = ""
    #: one line for ``heurtune list``
    description: ClassVar[str] = ""
    #: the game's switchable rules (integers), passed to :meth:`new_state`
    rules: ClassVar[tuple[RuleOption, ...]] = ()
    #: random plies at the start of every opening pair (matches draw them)
    opening_plies: ClassVar[int] = 2
    #: the two sides, as records and boards name them
    side_names: ClassVar[tuple[str, str]] = ("first player", "second player")
    #: what each character of :meth:`board_rows` shows: char -> (meaning, CSS colour)
    board_legend: ClassVar[Mapping[str, tuple[str, str]]] = {}
    #: the protocol engines of this game speak in other processes unless their file
    #: says otherwise: "heurtune" (docs/engine-protocol.md) or "uci" (chess)
    protocol: ClassVar[str] = "heurtune"
    #: the straight lines a picture draws under the cells, each between two cells
    #: named as moves name them (``("a1", "a7")``); none: a grid of cells
    board_lines: ClassVar[Sequence[tuple[str, str]]] = ()

    # -- what every game says ----------------------------------------------
    @abstractmethod
    def new_state(self, rules: Mapping[str, int]) -> S:
        """The start position under ``rules`` (every rule option, resolved)."""

    @abstractmethod
    def legal_moves(self, state: S) -> Sequence[int]:
        """The legal moves of the side to move, in a fixed order (the search's
        tie-breaks and reproducibility depend on it); empty when the game is over
        or the side to move is stuck."""

    @abstractmethod
    def play(self, state: S, move: int) -> None:
        """Play a legal ``move`` in place."""

    @abstractmethod
    def result(self, state: S) -> int:
        """:data:`~heurtune.games.base.ONGOING`, or the result for the side to
        move: :data:`~heurtune.games.base.WIN`, ``DRAW`` or ``LOSS``."""

    @abstractmethod
    def to_move(self, state: S) -> int:
        """The side to move: 0 (moves first) or 1."""

    @abstractmethod
    def key(self, state: S) -> Hashable:
        """A key equal for equal positions (side to move included) and, as far as
        possible, different for different ones: the search's table is keyed on
        it, and openings are told apart by it. An ``int`` (a Zobrist hash) is
        the fastest; a tuple of ints is fine."""

    # -- what a game may say -------------------------------------------------
    def undo(self, state: S, move: int) -> None:
        """Take back ``move``, the last move played, in place. Without it (the
        default raises :class:`NotImplementedError`) the search copies the
        state before every move instead (:meth:`copy`)."""
        raise NotImplementedError

    def copy(self, state: S) -> S:
        """An independent copy of ``state`` (default: :func:`copy.deepcopy`)."""
        return _copy.deepcopy(state)

    def move_to_str(self, move: int) -> str:
        """The move's notation (default: the integer); must be one word, and
        distinct for the distinct legal moves of a position."""
        return str(move)

    def symmetric_keys(self, state: S) -> Sequence[Hashable]:
        """The keys of the position's images under the board's symmetries
        (itself included), so that openings are told apart up to symmetry
        (default: none declared, the position's own key)."""
        return (self.key(state),)

    def opening_moves(self, state: S) -> Sequence[int]:
        """The moves a random opening may play next (default: every legal move)."""
        return self.legal_moves(state)

    def opening_ok(self, state: S) -> bool:
        """Whether a random opening may end here (default: yes, the game goes on)."""
        return True

    def max_game_plies(self, rules: Mapping[str, int]) -> int | None:
        """The longest game under ``rules``, in plies, when the game knows it (the
        conformance suite checks it); None: no bound declared."""
        return None

    def board_rows(self, state: S) -> list[str] | None:
        """The board as rows of one character per cell, the top rank first and
        file ``a`` on the left (for ``heurtune replay`` and report pictures);
        None: no picture."""
        return None

    def board_caption(self, state: S) -> str:
        """What the rows cannot show (default: nothing)."""
        return ""

    def termination(self, state: S) -> str | None:
        """Why a finished game ended, in words; None: heurtune says who won."""
        return None

    # -- start positions and notation (optional; see GameKernel's hooks) ---------
    def new_state_from(self, rules: Mapping[str, int], text: str) -> S:
        """The position ``text`` names (chess: a FEN), under ``rules``; raise
        ``ValueError`` with the reason when it names none. Without it (the
        default) openings start from :meth:`new_state` only."""
        raise NotImplementedError

    def position_text(self, state: S) -> str:
        """``state`` as the text :meth:`new_state_from` reads (chess: its FEN)."""
        raise NotImplementedError

    def random_start(self, rng: np.random.Generator, rules: Mapping[str, int]) -> str:
        """A start position for a random opening, drawn with ``rng``, as
        :meth:`new_state_from` reads it; "" (the default): :meth:`new_state`'s."""
        return ""

    def parse_move(self, state: S, text: str) -> int:
        """The legal move ``text`` names; ``ValueError`` when none. Default: the
        legal move whose :meth:`move_to_str` is ``text`` (a game with many moves
        parses faster itself)."""
        raise NotImplementedError

    def record_move(self, state: S, move: int) -> str:
        """``move`` (legal in ``state``) as a PGN record writes it (chess: SAN);
        default: :meth:`move_to_str`."""
        return self.move_to_str(move)

    def record_tags(self, rules: Mapping[str, int], start: str) -> Mapping[str, str]:
        """The game's tags of a PGN record of a game under ``rules`` from ``start``
        ("" : :meth:`new_state`'s position); default: ``Game``, and ``SetUp`` and
        ``FEN`` where the start is another position."""
        return {"Game": self.name, **({"SetUp": "1", "FEN": start} if start else {})}

    def book_entry(self, state: S, moves: Sequence[int]) -> str:
        """The opening that played ``moves`` (from the start) to reach ``state`` as a
        line of an opening book :meth:`read_openings` reads (chess: an EPD record);
        default: its moves in notation."""
        return " ".join(self.move_to_str(m) for m in moves)

    def engine_options(self, rules: Mapping[str, int]) -> Mapping[str, Any]:
        """The options ``rules`` require of an engine in another process (chess
        under ``chess960 = 1``: ``UCI_Chess960 = true``); default: none."""
        return {}

    def read_openings(self, text: str, name: str, rules: Mapping[str, int]) -> list[BookLine]:
        """The openings of an opening book file's ``text`` (``name``: the file's
        name, whose suffix may pick a format), in the game's own formats (chess:
        EPD and PGN); raise :class:`~heurtune.games.base.BookError` naming the
        line of a malformed one. Default: :func:`~heurtune.games.base.read_move_lines`
        (one opening per line, its moves in the game's notation)."""
        return read_move_lines(text)


@dataclass
class PyState(Generic[S]):
    """A plain-Python game's position as the match layer holds it: the game's
    own state, the moves played from the start, and what taking them back
    needs (copies, for a game without :meth:`PythonGame.undo`)."""

    state: S
    moves: list[int] = field(default_factory=list)
    copies: list[S] = field(default_factory=list)

    def copy(self) -> PyState[S]:
        """An independent copy (the game's states are copied with :func:`copy.deepcopy`)."""
        return _copy.deepcopy(self)


def stable_hash(key: Hashable) -> int:
    """A 63-bit integer for a position key, the same in every process (Python's
    own ``hash`` of a string changes from one process to the next)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key) & _MASK63
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & _MASK63


def _overrides(game: PythonGame[Any], method: str) -> bool:
    return getattr(type(game), method) is not getattr(PythonGame, method)


def has_undo(game: PythonGame[Any]) -> bool:
    """Whether ``game`` takes moves back in place (else states are copied)."""
    return _overrides(game, "undo")


@dataclass(frozen=True)
class PythonKernel(GameKernel):
    """A :class:`PythonGame` seen through the kernel interface. Its states are
    :class:`PyState` boxes; its functions are plain Python (no numba)."""

    game: PythonGame[Any] | None = None

    def legal_moves(self, state: Any) -> list[int]:
        assert self.game is not None
        return [int(m) for m in self.game.legal_moves(state.state)]


def python_kernel(game: PythonGame[Any], module: ModuleType) -> PythonKernel:
    """The kernel of a plain-Python game (how :func:`heurtune.games.get_game`
    serves one). Checks the declarations that do not need a position."""
    if not isinstance(game, PythonGame):
        raise HeurtuneError(f"{game!r} is not a heurtune.games.PythonGame")
    name = game.name
    if not name or not isinstance(name, str) or ":" in name or name.strip() != name:
        raise HeurtuneError(f"{type(game).__name__}: name must be a non-empty word without ':'")
    if not all(isinstance(r, RuleOption) for r in game.rules):
        raise HeurtuneError(f"{name}: rules must be RuleOption values")
    if game.protocol not in ("heurtune", "uci"):
        raise HeurtuneError(f"{name}: protocol must be 'heurtune' or 'uci'")
    if not isinstance(game.opening_plies, int) or not 0 <= game.opening_plies <= 64:
        raise HeurtuneError(f"{name}: opening_plies must be an integer in [0, 64]")
    undo = has_undo(game)

    def new_state(rules: Mapping[str, int]) -> PyState[Any]:
        return PyState(game.new_state(dict(rules)))

    def make_move(box: PyState[Any], move: int) -> None:
        if not undo:
            box.copies.append(game.copy(box.state))
        game.play(box.state, int(move))
        box.moves.append(int(move))

    def unmake_move(box: PyState[Any], move: int) -> None:
        box.moves.pop()
        if undo:
            game.undo(box.state, int(move))
        else:
            box.state = box.copies.pop()

    def gen_moves(box: PyState[Any], out: np.ndarray, row: int) -> int:
        moves = game.legal_moves(box.state)
        out[row, :len(moves)] = moves
        return len(moves)

    def outcome(box: PyState[Any]) -> int:
        return int(game.result(box.state))

    def termination(box: PyState[Any]) -> str:
        said = game.termination(box.state)
        return said if said is not None else kernel.default_termination(box)

    kernel = PythonKernel(
        name=name,
        description=game.description or name,
        module=module,
        rules=tuple(game.rules),
        max_moves=0,  # a Python game's move lists have no fixed capacity
        opening_plies=game.opening_plies,
        _new_state=new_state,
        move_to_str=lambda move: game.move_to_str(int(move)),
        gen_moves=gen_moves,
        make_move=make_move,
        unmake_move=unmake_move,
        outcome=outcome,
        position_hash=lambda box: stable_hash(game.key(box.state)),
        side_to_move=lambda box: int(game.to_move(box.state)),
        ply=lambda box: len(box.moves),
        opening_moves=lambda box: [int(m) for m in game.opening_moves(box.state)],
        opening_ok=lambda box: bool(game.opening_ok(box.state)),
        symmetry_hashes=lambda box: [stable_hash(k) for k in game.symmetric_keys(box.state)],
        max_game_plies=(None if not _overrides(game, "max_game_plies")
                        else lambda rules: game.max_game_plies(rules) or 0),
        board_rows=(None if not _overrides(game, "board_rows")
                    else lambda box: game.board_rows(box.state) or []),
        board_legend=dict(game.board_legend),
        board_caption=lambda box: game.board_caption(box.state),
        board_lines=tuple((str(a), str(b)) for a, b in game.board_lines),
        termination=termination,
        side_names=tuple(game.side_names),  # type: ignore[arg-type]
        new_state_from=(None if not _overrides(game, "new_state_from")
                        else lambda rules, text: PyState(game.new_state_from(dict(rules), text))),
        position_text=(None if not _overrides(game, "position_text")
                       else lambda box: game.position_text(box.state)),
        random_start=(None if not _overrides(game, "random_start")
                      else lambda rng, rules: game.random_start(rng, dict(rules))),
        move_parser=(None if not _overrides(game, "parse_move")
                     else lambda box, text: int(game.parse_move(box.state, text))),
        record_move=(None if not _overrides(game, "record_move")
                     else lambda box, move: game.record_move(box.state, int(move))),
        record_tags=(None if not _overrides(game, "record_tags")
                     else lambda rules, start: game.record_tags(dict(rules), start)),
        book_entry=(None if not _overrides(game, "book_entry")
                    else lambda box, moves: game.book_entry(box.state, moves)),
        engine_protocol=game.protocol,
        engine_options=(None if not _overrides(game, "engine_options")
                        else lambda rules: dict(game.engine_options(dict(rules)))),
        book_reader=(None if not _overrides(game, "read_openings")
                     else lambda text, name, rules: game.read_openings(text, name, dict(rules))),
        game=game,
    )
    return kernel


__all__ = ["PyState", "PythonGame", "PythonKernel", "has_undo", "python_kernel", "stable_hash"]
