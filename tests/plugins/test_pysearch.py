"""The plain-Python search against the compiled one, on Isolation written both ways.

``pyisolation`` (examples/isolation-python) has heurtune's Isolation rules in
plain Python, with the same move numbers, the same move order and the same
``improved`` heuristic. The two searches follow the same rules (root shuffle
from the same seed, exact values to a fixed depth, the first best move in
root order or, with ``root_ties = "random"``, minimax's seeded draw among the
tied moves), so they must pick the same moves: a check of the tie-break
seeding and of the plain-Python alpha-beta and minimax.
"""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine import Engine, EngineConfig
from heurtune.engine.pysearch import XorShift
from heurtune.games import ONGOING, get_game


def _positions(count: int, seed: int) -> list[list[int]]:
    """Move lists of random Isolation positions (still going) at various plies."""
    kernel = get_game("isolation")
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = kernel.new_state()
        moves: list[int] = []
        for _ in range(int(rng.integers(2, 18))):
            legal = kernel.legal_moves(state)
            if kernel.outcome(state) != ONGOING or not legal:
                break
            m = legal[int(rng.integers(len(legal)))]
            kernel.make_move(state, m)
            moves.append(m)
        if kernel.outcome(state) == ONGOING:
            out.append(moves)
    return out


def _reach(game: str, moves: list[int]):  # type: ignore[no-untyped-def]
    kernel = get_game(game)
    state = kernel.new_state()
    for m in moves:
        kernel.make_move(state, m)
    return state


def test_xorshift_matches_the_compiled_generator() -> None:
    from numba import njit

    from heurtune.engine.search import _rand

    rand = njit(_rand)
    for seed in (0, 1, 7, 2**40 + 3, 2**62 - 1):
        rng = np.empty(1, dtype=np.int64)
        rng[0] = seed * 2 + 1
        for _ in range(4):
            rand(rng)
        mine = XorShift(seed)
        assert [int(rand(rng)) for _ in range(50)] == [mine.next() for _ in range(50)]


@pytest.mark.slow
@pytest.mark.parametrize("algorithm,depth,ties", [
    ("alphabeta", 4, "first"), ("alphabeta", 4, "random"), ("minimax", 3, "first"),
    ("random", 1, "first"),
])
def test_same_moves_as_the_compiled_search(algorithm: str, depth: int, ties: str) -> None:
    search = {"algorithm": algorithm, "depth": depth, "root_ties": ties}
    compiled = Engine(EngineConfig.from_dict(
        {"game": "isolation", "heuristic": "improved", "search": search}))
    plain = Engine(EngineConfig.from_dict(
        {"game": "pyisolation", "heuristic": "improved", "search": search}))
    agree = 0
    for k, moves in enumerate(_positions(40, 11)):
        for seed in (k, 1000 + k):
            compiled.new_game()
            plain.new_game()
            a = compiled.choose(_reach("isolation", moves), seed)
            b = plain.choose(_reach("pyisolation", moves), seed)
            assert (a.move, a.value, a.depth) == (b.move, b.value, b.depth), (moves, seed)
            agree += 1
    assert agree == 80


def test_budgets_and_state_untouched() -> None:
    cfg = EngineConfig.from_dict({"game": "pyisolation", "heuristic": "improved",
                                  "search": {"depth": 64, "nodes": 3000}})
    engine = Engine(cfg)
    state = _reach("pyisolation", [24, 10])
    before = (list(state.state), list(state.moves))
    found = engine.choose(state, 5)
    assert (list(state.state), list(state.moves)) == before
    assert found.depth >= 2 and found.nodes <= 3000 + 64  # stops within one node past it
    again = Engine(cfg).choose(_reach("pyisolation", [24, 10]), 5)
    assert (again.move, again.nodes, again.depth) == (found.move, found.nodes, found.depth)
    timed = Engine(EngineConfig.from_dict({"game": "pyisolation", "heuristic": "improved",
                                           "search": {"depth": 64, "time_ms": 30}}))
    t = timed.choose(_reach("pyisolation", [24, 10]), 5)
    assert t.seconds < 0.5 and t.depth >= 1
