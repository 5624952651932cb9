"""The seed's HeuristicScore, value for value, and the seed agent built on it."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine.config import preset
from heurtune.engine.heuristics.gomoku import (
    SEED_SPACE,
    cscore,
    free_range,
    line_score,
    total_score,
)
from heurtune.engine.player import Engine
from heurtune.games import get_game

K0, K1, CAP = 1.6, 5.0, 2
OWN = 1  # the seed's lines: 1 = own stone (fof=0), 2 = opponent, 0 = empty


def L(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def score(values: list[int]) -> float:
    return float(line_score(L(values), OWN, K1, CAP))


def test_f_range_and_cscore_as_printed() -> None:
    line = L([0, 1, 1, 0, 1, 0, 2, 2])
    lo, hi = free_range(line, OWN)
    assert line[lo:hi].tolist() == [0, 1, 1, 0, 1, 0]
    assert cscore(L([0, 1, 1, 0, 1, 0, 0, 2]), OWN, CAP) == (3, 2)


@pytest.mark.parametrize("line,expected", [
    ([0, 1, 1, 0, 1, 0, 0, 2], 3.4460950649911055),
    ([2, 1, 1, 0, 1, 0, 0, 2], 3.0),
    ([1, 1, 0, 1, 0, 0, 2, 0], 3.0),
    ([0, 0, 1, 1, 0, 0, 0, 2], 2.29739670999407),
    ([0, 1, 1, 0, 0, 2, 0, 2], 2.29739670999407),
])
def test_score_as_printed(line: list[int], expected: float) -> None:
    assert score(line) == expected  # to the last digit


def test_total_score_of_crossing_lines_as_printed() -> None:
    cross = score([1, 1, 0, 0, 0, 2, 0, 2])
    assert total_score(np.array([score([0, 0, 1, 0, 1, 0, 0, 2]), cross]), K0) == 3.3185059187118733
    # a single defensive stone at index 1 of the first line
    assert total_score(np.array([score([0, 2, 1, 0, 1, 0, 0, 2]), cross]), K0) == 3.084421650815882


def test_no_window_without_room_for_five_and_the_cap() -> None:
    assert score([2, 2, 1, 1, 1, 2, 0, 0]) == 0.0  # free range of 3: no five fits
    assert cscore(L([0, 0, 0, 1, 1, 0, 0, 0]), OWN, 5) == (2, 4)
    assert cscore(L([0, 0, 0, 1, 1, 0, 0, 0]), OWN, CAP) == (2, 2)
    assert score([0, 0, 0, 0, 0, 0, 0, 0]) == 0.0


def test_threshold_default_is_the_two_crossing_open_threes() -> None:
    cross = total_score(np.array([score([0, 0, 1, 0, 1, 0, 0, 2]), score([1, 1, 0, 0, 0, 2, 0, 2])]), K0)
    assert SEED_SPACE.defaults()["threshold"] == cross
    assert SEED_SPACE.defaults() == {"kappa0": 1.6, "kappa1": 5.0, "cap": 2, "defence": 1.0,
                                     "threshold": cross}


def _play(state, kernel, moves: list[str]) -> None:
    for m in moves:
        kernel.make_move(state, kernel.parse_move(state, m))


def test_seed_agent_wins_blocks_and_attacks() -> None:
    kernel = get_game("gomoku")
    engine = Engine(preset("gomoku:seed"))
    # black h8 i8 j8 k8, white h9 i9 j9: black to move completes five
    state = kernel.new_state()
    _play(state, kernel, ["h8", "h9", "i8", "i9", "j8", "j9", "k8"])
    # white to move must block black's four (g8 or l8 would be needed; one side is open)
    blocks = {kernel.parse_move(state, "g8"), kernel.parse_move(state, "l8")}
    assert engine.choose(state, seed=1).move in blocks
    _play(state, kernel, ["a1"])  # white wastes the move: black now wins
    win = engine.choose(state, seed=1)
    assert kernel.move_to_str(win.move) in ("g8", "l8") and win.value > 1e8
    # with nothing forced, the agent plays next to the stones, never far away
    state = kernel.new_state()
    _play(state, kernel, ["h8", "h9"])
    m = engine.choose(state, seed=3).move
    assert max(abs((m >> 5) - 7), abs((m & 31) - 7)) <= 4
