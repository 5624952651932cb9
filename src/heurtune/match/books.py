"""Opening books: openings read from a file, checked, and drawn without overlap.

A book is a file of openings in one of its game's formats (chess: EPD and PGN,
read by python-chess; every game: a line of moves per opening in its own
notation, see :func:`heurtune.games.base.read_move_lines`). :func:`load_book`
reads and checks it before any game is played: a start position the game
cannot read, an illegal move, an opening whose game is already over, an empty
file: one :class:`~heurtune.errors.HeurtuneError` naming the file and the line.

Matches draw from a book as they draw random openings: :meth:`Book.draw` takes
openings in an order shuffled by the match's seed, skipping those it must
leave out (a study's, and their mirror images, for a confirmation), so that
tuning, selection and confirmation play disjoint openings of one book. Each
opening is played twice, colours swapped, as always.

Books heurtune ships are named ``heurtune:NAME`` (:data:`SHIPPED_BOOKS`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from heurtune.engine import Engine, EngineConfig
from heurtune.engine.process import EngineFault
from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, BookError, get_game
from heurtune.match.openings import (
    Opening,
    opening_images,
    play_notation,
    random_openings,
    reach,
    start_of,
)
from heurtune.tomlio import read_text

BOOK_FOLDER = Path(__file__).resolve().parent.parent / "data" / "books"
SHIPPED_PREFIX = "heurtune:"
# heurtune:NAME -> a file of BOOK_FOLDER
SHIPPED_BOOKS = {"chess-balanced": "chess-balanced.epd"}


def book_path(name: str | os.PathLike[str], base_dir: str | os.PathLike[str] = ".") -> Path:
    """The file a book reference names: ``heurtune:NAME`` (a book heurtune ships),
    else a path (relative paths from ``base_dir``)."""
    text = os.fspath(name)
    if text.startswith(SHIPPED_PREFIX):
        short = text[len(SHIPPED_PREFIX):]
        if short not in SHIPPED_BOOKS:
            raise HeurtuneError(f"no book {text!r} (heurtune ships: "
                                f"{', '.join(SHIPPED_PREFIX + n for n in SHIPPED_BOOKS)})")
        return BOOK_FOLDER / SHIPPED_BOOKS[short]
    path = Path(text).expanduser()
    return path if path.is_absolute() else Path(base_dir, path)


@dataclass(frozen=True)
class Book:
    """The checked openings of a book file, with each one's hashes (its position's
    and its mirror images'), in the file's order."""

    name: str  # as the user gave it (a path or heurtune:NAME)
    game: str
    openings: tuple[Opening, ...]
    # each opening's position hash, and those of its images under the board's
    # symmetries (itself included)
    keys: tuple[int, ...] = field(repr=False, compare=False, default=())
    images: tuple[frozenset[int], ...] = field(repr=False, compare=False, default=())

    def __len__(self) -> int:
        return len(self.openings)

    @property
    def digest(self) -> str:
        """A SHA-256 of the openings themselves (their starts and moves, in order):
        the same for a file whose comments or header change (a study recorded with
        one release's shipped book goes on with the next's when its openings are
        the same), different where any opening is."""
        text = "\n".join(f"{op.start}|{' '.join(map(str, op))}" for op in self.openings)
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def distinct(self) -> int:
        """How many openings differ up to the board's symmetries."""
        seen: set[int] = set()
        count = 0
        for images in self.images:
            if not images & seen:
                count += 1
                seen |= images
        return count

    def draw(self, rules: Mapping[str, Any], count: int, seed: int,
             exclude: Iterable[Sequence[int]] = (), by_symmetry: bool = True,
             fewer_ok: bool = False, needed_for: str = "") -> list[Opening]:
        """``count`` openings of the book in an order shuffled by ``seed``, none
        reaching the position of another drawn one, nor of an ``exclude`` opening,
        nor a mirror image of either (with ``by_symmetry``). With ``fewer_ok`` a
        book with fewer gives what it has; else too few is an error that says how
        many are left (``needed_for`` names who needs them)."""
        kernel = get_game(self.game)
        seen: set[int] = set()
        for op in exclude:
            seen |= opening_images(kernel, rules, op)
        order = np.random.default_rng(seed).permutation(len(self.openings))
        out: list[Opening] = []
        for i in order:
            own = self.images[i] if by_symmetry else frozenset((self.keys[i],))
            if own & seen:
                continue
            seen |= own
            out.append(self.openings[i])
            if len(out) == count:
                return out
        if fewer_ok and out:
            return out
        held = f"opening book {self.name} holds {len(self.openings)} openings " \
            f"({self.distinct} distinct up to symmetry)"
        if seen and len(out) < self.distinct:
            held += f", {len(out)} of them not played before (by the study, or its tuning)"
        raise HeurtuneError(f"{held}; {needed_for or 'this match'} needs {count} "
                            "(use a larger book or fewer pairs)")


def load_book(name: str | os.PathLike[str], game: str, rules: Mapping[str, Any] | None = None,
              base_dir: str | os.PathLike[str] = ".") -> Book:
    """Read and check the book ``name`` names (see :func:`book_path`) for ``game``
    under ``rules``: every start position read, every move legal, every opening's
    game still going on; an error names the file and the line."""
    kernel = get_game(game)
    resolved = kernel.resolve_rules(rules or {})
    path = book_path(name, base_dir)
    label = os.fspath(name)
    # (utf-8-sig: a byte-order mark is no opening)
    text = read_text(path, f"opening book {label}", "book", encoding="utf-8-sig")
    try:
        lines = kernel.read_book(text, path.name, resolved)
    except BookError as exc:
        raise HeurtuneError(f"opening book {label} line {exc.line}: {exc.reason}") from None
    if not lines:
        raise HeurtuneError(f"opening book {label}: no openings in it")
    openings: list[Opening] = []
    keys: list[int] = []
    images: list[frozenset[int]] = []
    for entry in lines:
        where = f"opening book {label} line {entry.line}"
        if entry.start and not kernel.has_start_positions:
            raise HeurtuneError(f"{where}: {game} openings start from its own start "
                                "position only")
        try:
            state = kernel.new_state(resolved, entry.start)
        except HeurtuneError as exc:
            raise HeurtuneError(f"{where}: {exc}") from None
        # the start as the game writes it (a whole FEN: what engines are sent)
        start = kernel.position_text(state) if entry.start and kernel.position_text else \
            entry.start
        moves = play_notation(kernel, state, entry.moves, where)
        if kernel.outcome(state) != ONGOING:
            raise HeurtuneError(f"{where}: the game is over in this opening's position")
        openings.append(Opening(moves, start, f"{label}:{entry.line}"))
        keys.append(int(kernel.position_hash(state)))
        images.append(frozenset(kernel.image_hashes(state)))
    return Book(label, game, tuple(openings), tuple(keys), tuple(images))


@dataclass(frozen=True)
class MadeBook:
    """What :func:`make_book` found: the openings kept, each with the engine's score
    of its position (for the side to move), and how many were drawn to find them."""

    game: str
    rules: Mapping[str, int]
    openings: tuple[tuple[Opening, float], ...]
    drawn: int
    plies: int
    window: float
    seed: int
    engine: str

    def text(self, header: Sequence[str] = ()) -> str:
        """The book file: ``#`` lines saying how it was made, then one opening per
        line in its game's book format (chess: EPD)."""
        kernel = get_game(self.game)
        lines = [f"# {line}" for line in header]
        for opening, _score in self.openings:
            lines.append(kernel.book_line(reach(kernel, self.rules, opening), opening))
        return "\n".join(lines) + "\n"


def make_book(engine: EngineConfig, count: int, plies: int, seed: int, window: float,
              on_draw: Callable[[int, int], None] | None = None,
              limit: int | None = None) -> MadeBook:
    """An opening book of ``count`` balanced openings: random openings of ``plies``
    plies (distinct up to the board's symmetries, drawn by ``seed``; under rules whose
    games start elsewhere, such as Chess960's, each from its own start) whose
    position ``engine`` scores within ``window`` of 0 (its ``info score`` in
    centipawns for an engine in another process, its search's value for heurtune's
    own). ``on_draw(drawn, kept)`` is told of each opening tried; ``limit`` caps the
    openings tried (default: 50 per opening wanted). An engine that faults while it
    scores one is a :class:`~heurtune.errors.HeurtuneError` naming the opening."""
    if count < 1 or plies < 1 or window < 0:
        raise HeurtuneError("a book needs count and plies of at least 1 and a window of at "
                            "least 0")
    if engine.search.tc:
        raise HeurtuneError(f"{engine.label}: a book scores each opening with one search, "
                            "which a clock does not limit: give the engine file depth, nodes "
                            "or time_ms instead of tc")
    kernel = get_game(engine.game)
    rules = kernel.resolve_rules(engine.rules)
    player = Engine(engine)
    cap = limit if limit is not None else 50 * count
    kept: list[tuple[Opening, float]] = []
    drawn = 0
    try:
        batch = max(count, 64)
        offset = 0
        while len(kept) < count and drawn < cap:
            # openings in batches (distinct from every earlier batch's, as one draw)
            candidates = random_openings(kernel, rules, min(offset + batch, cap), plies,
                                         seed, fewer_ok=True)[offset:]
            if not candidates:
                break
            offset += len(candidates)
            for opening in candidates:
                drawn += 1
                op = Opening(opening, start_of(opening))
                player.new_game()
                try:
                    found = player.choose(reach(kernel, rules, op), seed=drawn, moves=op,
                                          start=op.start)
                except EngineFault as fault:
                    raise HeurtuneError(f"{engine.label} failed while scoring opening "
                                        f"{drawn} ({' '.join(map(kernel.move_to_str, op))}): "
                                        f"{fault.reason}") from None
                score = player.last_score if player.last_score is not None else found.value
                if abs(score) <= window:
                    kept.append((op, float(score)))
                if on_draw is not None:
                    on_draw(drawn, len(kept))
                if len(kept) == count or drawn >= cap:
                    break
    finally:
        player.close()
    if len(kept) < count:
        raise HeurtuneError(f"{len(kept)} of {drawn} openings tried lay within {window:g} of "
                            f"0 by {engine.label}; {count} were wanted (widen the window, or "
                            "allow more tries)")
    return MadeBook(engine.game, rules, tuple(kept), drawn, plies, window, seed, engine.label)


_LOADED: dict[tuple[str, str, str, str, int, int], Book] = {}


def cached_book(name: str, game: str, rules: Mapping[str, Any] | None = None,
                base_dir: str | os.PathLike[str] = ".") -> Book:
    """:func:`load_book`, once per process for the same file (as long as it stays as
    it was), game and rules (a study reads its book at every trial's match)."""
    path = book_path(name, base_dir)
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = (0, 0)  # load_book says what is wrong with it
    key = (str(path.resolve()), game, repr(sorted((rules or {}).items())), name, *stamp)
    book = _LOADED.get(key)
    if book is None:
        book = _LOADED[key] = load_book(name, game, rules, base_dir)
    return book


__all__ = ["BOOK_FOLDER", "SHIPPED_BOOKS", "SHIPPED_PREFIX", "Book", "MadeBook", "book_path",
           "cached_book", "load_book", "make_book"]
