"""The Morris heuristics against the seed's formula."""

from __future__ import annotations

import random

import numpy as np
import pytest

from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.search import Searcher
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from tests.games import reference_morris as ref

K = get_game("morris")


def _positions(count: int, seed: int) -> list[tuple[ref.Position, np.ndarray]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = ref.Position()
        state = K.new_state()
        for _ in range(rng.randrange(0, 60)):
            if ref.result(pos) is not None:
                break
            m = rng.choice(ref.legal_moves(pos))
            K.make_move(state, K.parse_move(state, m))
            pos = ref.play(pos, m)
        if ref.result(pos) is None:
            out.append((pos, state))
    return out


def test_seed_heuristic_matches_the_seed_formula() -> None:
    h = get_heuristic("morris", "seed")
    rng = random.Random(3)
    for pos, state in _positions(300, 1):
        weights = {k: rng.choice([0.0, 0.5, 1.0, 2.0, 4.0, 7.5]) for k in h.space.names}
        side = 0 if pos.to_move == "W" else 1
        got = h.evaluate(state, h.space.to_array(weights), side)
        assert h.evaluate(state, h.space.to_array(weights), 1 - side) == -got
        assert got == pytest.approx(ref.heuristic_seed(pos, **weights), abs=1e-12)
        assert -1.0 < got < 1.0


def test_seed_heuristic_known_values() -> None:
    # the start position is balanced; after one white stone: (1*1 + 8*1 - 9) ... from black's view
    h = get_heuristic("morris", "seed")
    p = h.space.to_array({})
    state = K.new_state()
    assert h.evaluate(state, p, 0) == 0.0
    K.make_move(state, K.parse_move(state, "a1"))
    # white: 1 stone + 8 stash = 9, black: 0 + 9 = 9 -> 0 for both
    assert h.evaluate(state, p, 1) == 0.0
    K.make_move(state, K.parse_move(state, "g7"))
    K.make_move(state, K.parse_move(state, "d1"))
    # white has a possible mill a1-d1-(g1): +2, maximum = 9 + 16 + 16 = 41 -> 2/42 for white;
    # black sees -2/42
    assert h.evaluate(state, p, 1) == pytest.approx(-2.0 / 42.0)
    assert h.evaluate(state, p, 0) == pytest.approx(2.0 / 42.0)


@pytest.mark.slow
def test_phased_defaults_play_exactly_like_seed() -> None:
    seed_h = get_heuristic("morris", "seed")
    phased = get_heuristic("morris", "phased")
    a = Searcher(K, seed_h)
    b = Searcher(K, phased)
    pa, pb = seed_h.space.to_array({}), phased.space.to_array({})
    for i, (_, state) in enumerate(_positions(40, 7)):
        a.clear(), b.clear()
        ra = a.search(state, pa, algorithm="alphabeta", depth=3, seed=i)
        rb = b.search(state, pb, algorithm="alphabeta", depth=3, seed=i)
        assert ra.move == rb.move and ra.nodes == rb.nodes


def test_unknown_heuristic_is_a_clear_error() -> None:
    with pytest.raises(HeurtuneError, match="unknown heuristic 'nope' for morris"):
        get_heuristic("morris", "nope")
    with pytest.raises(HeurtuneError, match="unknown game 'xiangqi'"):
        get_heuristic("xiangqi", "seed")
