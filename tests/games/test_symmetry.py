"""Board symmetries: the ``symmetry_hashes`` hook and symmetry-aware opening exclusion."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.games import get_game
from heurtune.match.openings import opening_images, random_openings

GOMOKU = get_game("gomoku")


def _transforms(n: int):
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


def _replayed_images(kernel, moves, perms, transform_move):
    """Hashes of the positions reached by replaying the transformed moves, each of
    which must be legal there (so each permutation really is a symmetry)."""
    images = set()
    for perm in perms:
        other = kernel.new_state()
        for m in moves:
            t = transform_move(m, perm)
            assert t in kernel.legal_moves(other)
            kernel.make_move(other, t)
        images.add(int(kernel.position_hash(other)))
    return images


def test_isolation_images_are_the_hashes_of_the_transformed_positions() -> None:
    from heurtune.games.isolation import SYMMETRIES

    k = get_game("isolation")
    rng = np.random.default_rng(4)
    assert len(set(SYMMETRIES)) == 8
    for _ in range(20):
        state, moves = k.new_state(), []
        for _ in range(int(rng.integers(1, 12))):
            legal = k.legal_moves(state)
            if not legal:
                break
            m = legal[int(rng.integers(len(legal)))]
            k.make_move(state, m)
            moves.append(m)
        expected = _replayed_images(k, moves, SYMMETRIES, lambda m, p: p[m])
        assert set(k.symmetry_hashes(state)) == expected
        assert k.symmetry_hashes(state)[0] == int(state[2])


def test_morris_images_are_the_hashes_of_the_transformed_positions() -> None:
    from heurtune.games.morris import NONE, SYMMETRIES

    k = get_game("morris")
    assert len(set(SYMMETRIES)) == 16  # the square's 8, with and without a ring swap

    def transform(m: int, p: tuple[int, ...]) -> int:
        parts = [(m >> s) & 31 for s in (0, 5, 10, 15)]
        frm, to, r1, r2 = (x if x == NONE else p[x] for x in parts)
        if r1 != NONE and r2 != NONE and r2 < r1:  # removals are listed in point order
            r1, r2 = r2, r1
        return frm | to << 5 | r1 << 10 | r2 << 15

    rng = np.random.default_rng(6)
    for _ in range(20):
        state, moves = k.new_state(), []
        for _ in range(int(rng.integers(1, 30))):
            if k.outcome(state) != 2:
                break
            legal = k.legal_moves(state)
            m = legal[int(rng.integers(len(legal)))]
            k.make_move(state, m)
            moves.append(m)
        expected = _replayed_images(k, moves, SYMMETRIES, transform)
        assert set(k.symmetry_hashes(state)) == expected


@pytest.mark.slow
def test_two_ply_isolation_has_315_classes_and_a_match_draws_each_once() -> None:
    from heurtune.match.openings import opening_classes

    k = get_game("isolation")
    rules = k.resolve_rules({})
    classes = opening_classes(k, rules, 2)
    assert len(classes) == 315
    keys = {min(opening_images(k, rules, op)) for op in classes}
    assert len(keys) == 315
    # random openings within one match are distinct up to symmetry too
    drawn = random_openings(k, rules, 200, 2, seed=9)
    assert len({min(opening_images(k, rules, op)) for op in drawn}) == 200
    # and a mirrored tuning opening is excluded from a confirmation
    tuning = random_openings(k, rules, 100, 2, seed=1)
    rest = opening_classes(k, rules, 2, exclude=tuning)
    assert len(rest) == 215
    used = {min(opening_images(k, rules, op)) for op in tuning}
    assert not used & {min(opening_images(k, rules, op)) for op in rest}


def test_a_mirrored_opening_is_excluded() -> None:
    from heurtune.games.isolation import SYMMETRIES

    k = get_game("isolation")
    rules = k.resolve_rules({})
    op = (10, 30)  # b2, c5
    mirror = tuple(SYMMETRIES[4][m] for m in op)  # reflected left to right
    assert mirror != op
    fresh = random_openings(k, rules, 314, 2, seed=3, exclude=[op])
    assert op not in fresh and mirror not in fresh
    assert min(opening_images(k, rules, mirror)) == min(opening_images(k, rules, op))
