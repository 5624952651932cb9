"""Board symmetries: the ``symmetry_hashes`` hook and symmetry-aware opening exclusion."""

from __future__ import annotations

import numpy as np

from heurtune.games import get_game
from heurtune.match.openings import opening_images, random_openings

GOMOKU = get_game("gomoku")


def _transforms(n: int):  # type: ignore[no-untyped-def]
    last = n - 1
    return [lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (last - r, c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r)]


def test_gomoku_images_are_the_hashes_of_the_transformed_positions() -> None:
    rng = np.random.default_rng(3)
    for size in (7, 15):
        for _ in range(5):
            state = GOMOKU.new_state({"size": size})
            moves = []
            for _ in range(int(rng.integers(1, 9))):
                legal = GOMOKU.legal_moves(state)
                m = legal[int(rng.integers(len(legal)))]
                GOMOKU.make_move(state, m)
                moves.append(m)
            images = set()
            for f in _transforms(size):  # replay the transformed moves on a fresh board
                other = GOMOKU.new_state({"size": size})
                for m in moves:
                    r, c = f(m >> 5, m & 31)
                    GOMOKU.make_move(other, r * 32 + c)
                images.add(int(other[2]))
            assert set(GOMOKU.symmetry_hashes(state)) == images
            assert GOMOKU.symmetry_hashes(state)[0] == int(state[2])


def test_excluding_an_opening_excludes_its_mirror_images() -> None:
    rules = GOMOKU.resolve_rules({})
    tuning = random_openings(GOMOKU, rules, 300, 3, seed=1)
    excluded: set[int] = set()
    for op in tuning:
        excluded |= opening_images(GOMOKU, rules, op)
    fresh = random_openings(GOMOKU, rules, 300, 3, seed=2, exclude=tuning)
    assert not any(opening_images(GOMOKU, rules, op) & excluded for op in fresh)
    # without the images, an exact-position exclusion would have let mirrors through
    exact = {min(opening_images(GOMOKU, rules, op)) for op in tuning}
    again = random_openings(GOMOKU, rules, 300, 3, seed=2)
    assert sum(min(opening_images(GOMOKU, rules, op)) in exact for op in again) > 30


def test_games_without_declared_symmetries_exclude_the_position_itself() -> None:
    morris = get_game("morris")
    state = morris.new_state()
    assert morris.image_hashes(state) == {int(morris.position_hash(state))}
