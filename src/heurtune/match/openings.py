"""Distinct random openings drawn from a seeded RNG."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, GameKernel


SATURATED = 20_000  # draws in a row without a new opening: the game has no more


def _reach(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]):  # type: ignore[no-untyped-def]
    state = kernel.new_state(rules)
    for m in opening:
        kernel.make_move(state, m)
    return state


def opening_hash(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]) -> int:
    """The hash of the position an opening reaches."""
    return int(kernel.position_hash(_reach(kernel, rules, opening)))


def opening_images(kernel: GameKernel, rules: Mapping[str, Any], opening: Sequence[int]) -> set[int]:
    """The hashes of the position an opening reaches and of its symmetric images."""
    return kernel.image_hashes(_reach(kernel, rules, opening))


def random_openings(
    kernel: GameKernel,
    rules: Mapping[str, Any],
    count: int,
    plies: int,
    seed: int,
    exclude: Iterable[Sequence[int]] = (),
) -> list[tuple[int, ...]]:
    """``count`` move sequences of ``plies`` random moves, pairwise distinct.

    Moves are drawn from the game's opening candidates (every legal move unless
    the kernel's ``opening_moves`` hook narrows them) and the opening must be
    acceptable (the game goes on, and the ``opening_ok`` hook agrees). Two
    sequences reaching the same position count as the same opening, and none
    reaches the position of an ``exclude`` opening or one of its images under
    the board's symmetries, where the game declares them (for example a tuning
    study's, so that a confirmation match plays fresh positions, mirror images
    included). The draw depends only on the arguments.
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
        seen.add(h)
        out.append(tuple(moves))
        since_new = 0
    return out
