"""Isolation: perft, the reference implementation, the seed's scores."""

from __future__ import annotations

import random

import numpy as np
import pytest

from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.heuristics.isolation import LONGEST_PATH_STEPS, WEIGHTED_SPACE
from heurtune.games import LOSS, ONGOING, get_game
from heurtune.games import isolation as ki
from heurtune.games.perft import perft
from tests.games import reference_isolation as ref

K = get_game("isolation")


@pytest.mark.parametrize("depth,count", [(1, 49), (2, 2352), (3, 11_280), (4, 52_672)])
def test_perft(depth: int, count: int) -> None:
    assert perft(K, depth) == count


def _walk(seed: int):
    """A random game, yielding (reference board, kernel state) at every ply."""
    rng = random.Random(seed)
    board = ref.Board()
    state = K.new_state()
    while True:
        yield board, state
        moves = board.legal_moves()
        if not moves:
            return
        move = rng.choice(moves)
        K.make_move(state, K.parse_move(state, ref.name(move)))
        board = board.forecast(move)


@pytest.mark.slow
def test_kernel_agrees_with_reference_on_random_games() -> None:
    plies = 0
    for seed in range(3000):
        for board, state in _walk(seed):
            plies += 1
            kernel_moves = sorted(K.move_to_str(m) for m in K.legal_moves(state))
            assert kernel_moves == sorted(ref.name(m) for m in board.legal_moves()), seed
            expected = ONGOING if board.winner() is None else LOSS
            assert K.outcome(state) == expected, seed
            assert K.side_to_move(state) == board.active
        # make/unmake round trip at the final position's parent is covered by perft
    assert plies > 50_000


def test_make_unmake_restores_everything() -> None:
    for _board, state in _walk(7):
        live = state[: ki.HIST].copy()
        for m in K.legal_moves(state):
            K.make_move(state, m)
            K.unmake_move(state, m)
            assert np.array_equal(state[: ki.HIST], live)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,formula",
    [("open", ref.open_score), ("center", ref.center_score), ("improved", ref.improved_score),
     ("custom", ref.custom), ("custom_2", ref.custom_2), ("custom_3", ref.custom_3)],
)
def test_seed_scores_reproduce_their_formulas(name: str, formula) -> None:
    h = get_heuristic("isolation", name)
    params = h.space.to_array({})
    checked = 0
    for seed in range(150):
        for board, state in _walk(seed):
            if None in board.locations:
                continue
            for player in (0, 1):
                assert h.evaluate(state, params, player) == pytest.approx(formula(board, player))
                checked += 1
    assert checked > 1000


def test_weighted_defaults_are_improved() -> None:
    w = get_heuristic("isolation", "weighted")
    imp = get_heuristic("isolation", "improved")
    pw, pi = w.space.to_array({}), imp.space.to_array({})
    for _board, state in _walk(3):
        for player in (0, 1):
            assert w.evaluate(state, pw, player) == imp.evaluate(state, pi, player)


@pytest.mark.slow
def test_custom_3_intent_prefers_positive_and_close() -> None:
    h = get_heuristic("isolation", "custom_3_intent")
    params = h.space.to_array({})
    seen_positive = False
    for seed in range(40):
        for board, state in _walk(seed):
            if None in board.locations:
                continue
            own = len(board.legal_moves(0))
            opp = len(board.legal_moves(1))
            v = h.evaluate(state, params, 0)
            if own > opp > 0:
                seen_positive = True
                ty, tx = board.locations[1]
                mean = sum(np.hypot(r - ty, c - tx) for r, c in board.legal_moves(0)) / own
                assert v == pytest.approx(100.0 - mean)
            else:
                assert v == own
    assert seen_positive


def _exact_paths(board: ref.Board) -> bool:
    """Whether the kernel's bounded longest-path DFS is exhaustive here."""
    mine, theirs = ref.distances(board, 0), ref.distances(board, 1)
    if set(mine) & set(theirs):
        return True  # not separated: no path search at all
    try:
        for p, region in ((0, mine), (1, theirs)):
            ref.longest_path(board.locations[p], set(region), LONGEST_PATH_STEPS)
    except ref.TooLong:
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("feature", [p.name for p in WEIGHTED_SPACE.params])
def test_weighted_features_match_the_reference(feature: str) -> None:
    """Each weight of the family, on its own, scores like the plain-Python formula."""
    w = get_heuristic("isolation", "weighted")
    base = {p.name: 0.0 for p in WEIGHTED_SPACE.params}
    param = next(p for p in WEIGHTED_SPACE.params if p.name == feature)
    # a non-zero value on the grid (resolution rounds an `improved`-like score)
    value = param.high if param.high != 0 else param.low
    values = dict(base, **{feature: value})
    if feature == "resolution":
        values.update(own_start=1.0, own_end=1.0, opp_start=1.0, opp_end=1.0, territory=1.0,
                      resolution=2.5)
    params = w.space.to_array(values)
    checked = separated = 0
    for seed in range(60):
        for board, state in _walk(seed):
            if None in board.locations or not _exact_paths(board):
                continue
            separated += ref.separated(board)
            for player in (0, 1):
                expected = ref.weighted(board, player, values)
                assert w.evaluate(state, params, player) == pytest.approx(expected), (seed, player)
                checked += 1
    assert checked > 1000 and separated > 20


def test_weighted_matches_the_reference_at_random_points() -> None:
    w = get_heuristic("isolation", "weighted")
    rng = random.Random(5)
    for point in range(20):
        values = {p.name: p.low + rng.randrange(int(round((p.high - p.low) / p.step)) + 1) * p.step
                  for p in WEIGHTED_SPACE.params}
        values["resolution"] = 0.0 if point % 2 else values["resolution"]
        params = w.space.to_array(values)
        for board, state in _walk(100 + point):
            if None in board.locations or not _exact_paths(board):
                continue
            for player in (0, 1):
                got = w.evaluate(state, params, player)
                assert got == pytest.approx(ref.weighted(board, player, values), abs=1e-9), point
