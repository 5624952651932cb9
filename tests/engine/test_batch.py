"""The batch evaluator replays each game once in numba and evaluates its sampled
positions: for every game (its tuned engines' heuristic) its values are the
heuristic's own on the replayed states, whatever the thread count."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine import EngineConfig
from heurtune.engine.batch import PositionEvaluator, _chunks
from heurtune.games import get_game
from heurtune.match.positions import sample_positions
from tests.match.test_positions import random_lines

SHIPPED = {"morris": "phased", "gomoku": "threats", "halma": "family", "isolation": "weighted"}


# the quick run: Isolation's (weighted is compiled for other quick tests too); the
# others' heuristics are compiled by no other quick test
@pytest.mark.parametrize("game", [g if g == "isolation" else pytest.param(g, marks=pytest.mark.slow)
                                  for g in sorted(SHIPPED)])
def test_batch_values_are_the_heuristics_own(game: str) -> None:
    s = sample_positions(game, {}, random_lines(game, 3, 5, opening=0), seed=1, per_game=25)
    kernel = get_game(game)
    h = EngineConfig(game=game, heuristic=SHIPPED[game]).heuristic_obj
    rng = np.random.default_rng(2)
    values = {p.name: p.default for p in h.space}
    for p in h.space.searched:  # not the defaults alone: every weight matters
        if hasattr(p, "low") and isinstance(p.default, float):
            values[p.name] = float(rng.uniform(p.low, p.high))
    params = h.to_array(values)
    plain = np.array([h.evaluate(st, params, kernel.side_to_move(st))
                      for st in (s.state(i) for i in range(s.size))])
    other = np.array([h.evaluate(st, params, 1 - kernel.side_to_move(st))
                      for st in (s.state(i) for i in range(s.size))])
    for threads in (1, 3):
        ev = PositionEvaluator(kernel, h, s.rules, s.arrays(), threads=threads)
        assert np.array_equal(ev(params), plain)
        ev.close()
    # the difference perspective: the side to move's value less the other side's
    ev = PositionEvaluator(kernel, h, s.rules, s.arrays(), threads=2, difference=True)
    assert np.allclose(ev(params), plain - other)
    ev.close()


def test_chunks_cut_between_games() -> None:
    pos_game = np.array([0, 0, 0, 1, 1, 2, 3, 3, 3, 3], dtype=np.int64)
    for count in range(1, 6):
        chunks = _chunks(pos_game, count)
        assert chunks[0][0] == 0 and chunks[-1][1] == len(pos_game)
        assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:], strict=False))
        assert all(pos_game[b[0]] != pos_game[b[0] - 1] for b in chunks[1:])
