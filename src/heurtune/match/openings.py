"""Distinct random openings drawn from a seeded RNG."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, GameKernel

SATURATED = 20_000  # draws in a row without a new opening: the game has no more


def _reach(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]) -> Any:
    state = kernel.new_state(rules)
    for m in opening:
        kernel.make_move(state, m)
    return state


def opening_hash(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]) -> int:
    """The hash of the position an opening reaches."""
    return int(kernel.position_hash(_reach(kernel, rules, opening)))


def opening_images(
    kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]
) -> set[int]:
    """The hashes of the position an opening reaches and of its symmetric images."""
    return kernel.image_hashes(_reach(kernel, rules, opening))


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
        state = kernel.new_state(rules)
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
        out.append(tuple(moves))
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
