"""The Morris kernel against perft counts and the plain-Python reference."""

from __future__ import annotations

import random

import numpy as np
import pytest

from heurtune.games import DRAW, LOSS, ONGOING, get_game
from heurtune.games import morris as km
from heurtune.games.perft import perft
from tests.games import reference_morris as ref

K = get_game("morris")


@pytest.mark.parametrize("depth,count", [(0, 1), (1, 24), (2, 552), (3, 12_144), (4, 255_024)])
def test_perft_start(depth: int, count: int) -> None:
    assert perft(K, depth) == count


def _ref_perft(pos: ref.Position, depth: int) -> int:
    if depth == 0:
        return 1
    if ref.result(pos) is not None:
        return 0
    return sum(_ref_perft(ref.play(pos, m), depth - 1) for m in ref.legal_moves(pos))


def _kernel_state(moves: list[str], rules: dict | None = None) -> np.ndarray:
    state = K.new_state(rules)
    for m in moves:
        K.make_move(state, K.parse_move(state, m))
    return state


@pytest.mark.slow
def test_perft_agrees_with_reference_midgame() -> None:
    # a position with mills, removals and sliding: perft 3 from it, both ways
    rng = random.Random(5)
    pos = ref.Position()
    moves: list[str] = []
    while len(moves) < 24:
        m = rng.choice(ref.legal_moves(pos))
        pos = ref.play(pos, m)
        moves.append(m)
    state = _kernel_state(moves)
    assert perft(K, 3, state) == _ref_perft(pos, 3)


def _rules_variant(i: int) -> dict:
    variants = [
        {},
        {"double_removal": 1},
        {"flying": 0},
        {"max_plies": 60, "no_removal_limit": 8, "repetition_limit": 2},
        {"double_removal": 1, "flying": 0, "no_removal_limit": 12, "repetition_limit": 3},
    ]
    return variants[i % len(variants)]


def _ref_rules(rules: dict) -> ref.Rules:
    r = ref.Rules()
    for k, v in rules.items():
        setattr(r, k, type(getattr(r, k))(v))
    return r


def _play_random_game(seed: int, rules: dict) -> dict[str, int]:
    """One random game, checking kernel == reference at every ply."""
    rng = random.Random(seed)
    pos = ref.Position(_ref_rules(rules))
    state = K.new_state(rules)
    seen = {"plies": 0, "removals": 0, "flying": 0, "all_in_mills": 0, "double": 0}
    while True:
        expected = ref.result(pos)
        got = K.outcome(state)
        if expected is None:
            assert got == ONGOING, (seed, pos.plies)
        elif expected == "draw":
            assert got == DRAW, (seed, pos.plies)
        else:
            assert got == LOSS and expected != pos.to_move, (seed, pos.plies)
        if expected is not None:
            return seen
        kernel_moves = sorted(K.move_to_str(m) for m in K.legal_moves(state))
        ref_moves = sorted(ref.legal_moves(pos))
        assert kernel_moves == ref_moves, (seed, pos.plies)
        move = rng.choice(ref_moves)
        seen["plies"] += 1
        seen["removals"] += "x" in move
        seen["double"] += move.count("x") == 2
        if "-" in move and sum(1 for p in ref.POINTS if pos.board[p] == pos.to_move) == 3:
            seen["flying"] += 1
        opp = ref.other(pos.to_move)
        if "x" in move and all(ref.in_mill(pos.board, p) for p in ref.POINTS if pos.board[p] == opp):
            seen["all_in_mills"] += 1
        before = state.copy()
        km_move = K.parse_move(state, move)
        K.make_move(state, km_move)
        K.unmake_move(state, km_move)
        assert np.array_equal(state[: km.HIST + 2 * int(state[km.PLY])], before[: km.HIST + 2 * int(state[km.PLY])])
        K.make_move(state, km_move)
        assert K.position_hash(state) == _hash_from_scratch(state)
        pos = ref.play(pos, move)


def _hash_from_scratch(state: np.ndarray) -> int:
    h = np.int64(0)
    for side in (0, 1):
        for p in range(24):
            if state[km.BB + side] >> p & 1:
                h ^= km.Z_POINT[side, p]
        h ^= km.Z_STASH[side, state[km.STASH + side]]
    if state[km.STM] == 1:
        h ^= km.Z_STM
    return int(h)


@pytest.mark.slow
def test_kernel_agrees_with_reference_on_random_games() -> None:
    totals: dict[str, int] = {}
    games = 2000
    for seed in range(games):
        for k, v in _play_random_game(seed, _rules_variant(seed)).items():
            totals[k] = totals.get(k, 0) + v
    # the random games must actually reach the interesting rules
    assert totals["plies"] > 100_000
    assert totals["removals"] > 10_000
    assert totals["flying"] > 1000
    assert totals["all_in_mills"] > 10
    assert totals["double"] > 10


def test_mill_closing_placement_counts_one_move_per_removable_stone() -> None:
    state = _kernel_state(["a1", "b2", "d1", "f2"])  # white threatens g1
    moves = {K.move_to_str(m) for m in K.legal_moves(state)}
    assert {"g1xb2", "g1xf2"} <= moves and "g1" not in moves


def _g1_moves(moves: list[str]) -> set[str]:
    state = _kernel_state(moves)
    return {t for t in (K.move_to_str(m) for m in K.legal_moves(state)) if t.startswith("g1")}


def test_stones_in_mills_are_protected() -> None:
    # black has the mill b2-d2-f2 and a loose stone on a7: white's g1 closes
    # a1-d1-g1 and may only take a7
    moves = ["a1", "b2", "d1", "d2", "c3", "f2xc3", "e3", "a7"]
    assert _g1_moves(moves) == {"g1xa7"}


def test_all_stones_in_mills_are_removable() -> None:
    moves = ["a1", "b2", "d1", "d2", "c3", "f2xc3"]
    assert _g1_moves(moves) == {"g1xb2", "g1xd2", "g1xf2"}


def test_double_mill_removes_two_only_with_the_option() -> None:
    # white's d7 closes a7-d7-g7 and d5-d6-d7 at once
    moves = ["a7", "b2", "g7", "b4", "d5", "f2", "d6", "f4"]
    single = {K.move_to_str(m) for m in K.legal_moves(_kernel_state(moves))}
    double = {K.move_to_str(m) for m in K.legal_moves(_kernel_state(moves, {"double_removal": 1}))}
    assert "d7xb2" in single and not any(t.startswith("d7") and t.count("x") == 2 for t in single)
    assert "d7xb2xb4" in double and "d7xb2" not in double


def test_move_notation_round_trip() -> None:
    state = _kernel_state(["a1", "b2", "d1", "f2"])
    for m in K.legal_moves(state):
        assert K.parse_move(state, K.move_to_str(m)) == m
