"""Openings: move sequences from a start position, and distinct random ones
drawn from a seeded RNG (an opening book's are drawn in :mod:`heurtune.match.books`).

An opening is a tuple of moves played from the game's start. One that starts
elsewhere (a position of an opening book, a Chess960 arrangement) is an
:class:`Opening`: the same tuple of moves, with the start position's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, GameKernel

SATURATED = 20_000  # draws in a row without a new opening: the game has no more


class Opening(tuple[int, ...]):
    """Moves played from a start position given as text (chess: a FEN), and
    where the opening came from (``book.epd:12``; not part of its identity).
    With ``start == ""`` it equals the plain tuple of its moves, which is how
    openings from the game's own start are usually held."""

    start: str
    source: str

    def __new__(cls, moves: Iterable[int] = (), start: str = "", source: str = "") -> Opening:
        self = super().__new__(cls, (int(m) for m in moves))
        self.start = start
        self.source = source
        return self

    def __reduce__(self) -> tuple[type[Opening], tuple[tuple[int, ...], str, str]]:
        return Opening, (tuple(self), self.start, self.source)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__eq__(self, other) is True and start_of(other) == self.start

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return tuple.__hash__(self) if not self.start else hash((tuple(self), self.start))

    def __repr__(self) -> str:
        return f"Opening({tuple(self)!r}, start={self.start!r})"


def start_of(opening: Sequence[int]) -> str:
    """The start position's text of an opening ("" : the game's own start)."""
    return getattr(opening, "start", "")


def as_opening(moves: Sequence[int]) -> tuple[int, ...]:
    """An opening as a tuple: its moves, keeping its start where it has one."""
    return moves if isinstance(moves, Opening) else tuple(int(m) for m in moves)


def opening_record(opening: Sequence[int]) -> list[int] | dict[str, Any]:
    """An opening as JSON holds it: its moves, or its start and moves."""
    start = start_of(opening)
    moves = [int(m) for m in opening]
    return {"start": start, "moves": moves} if start else moves


def play_notation(kernel: GameKernel, state: Any, texts: Sequence[str], where: str) -> list[int]:
    """Play moves written in the game's notation on ``state``, in place, and return
    them as the kernel's moves; a move the game does not allow where it stands
    (none once the game is over) is a :class:`HeurtuneError` naming ``where`` and
    the ply."""
    out = []
    for ply, text in enumerate(texts, start=1):
        if kernel.outcome(state) != ONGOING:
            raise HeurtuneError(f"{where}: ply {ply} {text!r} comes after the end of the game "
                                f"({kernel.termination_reason(state)})")
        try:
            move = kernel.parse_move(state, text)
        except HeurtuneError:
            raise HeurtuneError(f"{where}: ply {ply} {text!r} is not a legal {kernel.name} "
                                "move there") from None
        kernel.make_move(state, move)
        out.append(move)
    return out


def reach(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]) -> Any:
    """The position an opening reaches from its start."""
    state = kernel.new_state(rules, start_of(opening))
    for m in opening:
        kernel.make_move(state, m)
    return state


def opening_hash(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]) -> int:
    """The hash of the position an opening reaches."""
    return int(kernel.position_hash(reach(kernel, rules, opening)))


def opening_images(
    kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]
) -> set[int]:
    """The hashes of the position an opening reaches and of its symmetric images."""
    return kernel.image_hashes(reach(kernel, rules, opening))


def random_openings(
    kernel: GameKernel,
    rules: Mapping[str, Any],
    count: int,
    plies: int,
    seed: int,
    exclude: Iterable[Sequence[int]] = (),
    by_symmetry: bool = True,
    fewer_ok: bool = False,
) -> list[tuple[int, ...]]:
    """``count`` move sequences of ``plies`` random moves, pairwise distinct.

    Each starts from the game's start, or where the kernel's ``random_start``
    hook draws one (a Chess960 arrangement: then an :class:`Opening`).

    Moves are drawn from the game's opening candidates (every legal move unless
    the kernel's ``opening_moves`` hook narrows them) and the opening must be
    acceptable (the game goes on, and the ``opening_ok`` hook agrees). Two
    sequences reaching the same position, or mirror images of each other under
    the board's symmetries (the ``symmetry_hashes`` hook), count as the same
    opening; and none reaches the position of an ``exclude`` opening or one of
    its images (for example a tuning study's, so that a confirmation match plays
    fresh positions, mirror images included). ``by_symmetry=False`` keeps mirror
    images of each other apart (how studies recorded before symmetry-aware
    openings drew theirs). With ``fewer_ok``, a game with fewer distinct openings
    than ``count`` gives those it has (a cap, not a demand: the SPRT's) instead
    of an error. The draw depends only on the arguments.
    """
    rng = np.random.default_rng(seed)
    out: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for op in exclude:
        seen |= opening_images(kernel, rules, op)
    attempts = 0
    since_new = 0  # attempts since the last new opening: the space is exhausted when large
    while len(out) < count:
        attempts += 1
        since_new += 1
        if attempts > 50 * count + 1000 or since_new > SATURATED:
            if fewer_ok and out:
                return out
            raise HeurtuneError(
                f"could not draw {count} distinct {plies}-ply openings for {kernel.name} "
                "(the game's opening rules allow too few); use fewer pairs or other opening plies"
            )
        start = kernel.random_start(rng, kernel.resolve_rules(rules)) \
            if kernel.random_start is not None else ""
        state = kernel.new_state(rules, start)
        moves: list[int] = []
        ok = True
        for _ in range(plies):
            if kernel.outcome(state) != ONGOING:
                ok = False
                break
            legal = kernel.opening_candidates(state)
            if not legal:
                ok = False
                break
            m = legal[int(rng.integers(len(legal)))]
            kernel.make_move(state, m)
            moves.append(m)
        if not ok or not kernel.acceptable_opening(state):
            continue
        h = int(kernel.position_hash(state))
        if h in seen:
            continue
        seen |= kernel.image_hashes(state) if by_symmetry else {h}
        out.append(Opening(moves, start) if start else tuple(moves))
        since_new = 0
    return out


def opening_classes(
    kernel: GameKernel,
    rules: Mapping[str, Any],
    plies: int,
    exclude: Iterable[Sequence[int]] = (),
    limit: int = 100_000,
) -> list[tuple[int, ...]]:
    """One opening of every symmetry class of ``plies``-ply openings, in move
    generation order (each class by its first sequence found), leaving out the
    classes of ``exclude``. For small opening spaces (two-ply Isolation: 2,352
    openings in 315 classes), playing every class once removes opening-sampling
    noise from a match. More than ``limit`` sequences is an error: the space is
    too large to enumerate."""
    seen: set[int] = set()
    for op in exclude:
        seen |= opening_images(kernel, rules, op)
    out: list[tuple[int, ...]] = []
    state = kernel.new_state(rules)
    visited = 0

    def walk(moves: list[int]) -> None:
        nonlocal visited
        visited += 1
        if visited > limit:
            raise HeurtuneError(
                f"{kernel.name} has more than {limit:,} {plies}-ply openings: too many to "
                "play them all; draw random openings instead")
        if len(moves) == plies:
            if kernel.acceptable_opening(state) and int(kernel.position_hash(state)) not in seen:
                seen.update(kernel.image_hashes(state))
                out.append(tuple(moves))
            return
        if kernel.outcome(state) != ONGOING:
            return
        for m in kernel.opening_candidates(state):
            kernel.make_move(state, m)
            moves.append(m)
            walk(moves)
            moves.pop()
            kernel.unmake_move(state, m)

    walk([])
    return out
