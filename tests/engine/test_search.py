"""Search: alpha-beta agrees with minimax, determinism, budgets, GIL release."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.search import C_NODES, WIN_SCORE, Searcher
from heurtune.games import ONGOING, get_game
from heurtune.games import morris as km

K = get_game("morris")
H = get_heuristic("morris", "seed")
P = H.space.to_array({})


def _random_positions(count: int, seed: int, max_plies: int = 80) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = K.new_state()
        for _ in range(int(rng.integers(0, max_plies))):
            if K.outcome(state) != ONGOING:
                break
            moves = K.legal_moves(state)
            K.make_move(state, moves[int(rng.integers(len(moves)))])
        if K.outcome(state) == ONGOING:
            out.append(state)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_alphabeta_value_equals_minimax(depth: int) -> None:
    s = Searcher(K, H)
    for state in _random_positions(25 if depth < 4 else 10, depth):
        s.clear()
        mm = s.search(state, P, algorithm="minimax", depth=depth)
        s.clear()
        ab = s.search(state, P, algorithm="alphabeta", depth=depth)
        assert ab.value == pytest.approx(mm.value, abs=1e-12)
        assert ab.nodes <= mm.nodes or depth == 1


def test_search_leaves_the_state_unchanged() -> None:
    s = Searcher(K, H)
    for state in _random_positions(10, 11):
        live = km.HIST + 2 * int(state[km.PLY])  # above that: the undo stack's scratch
        before = state[:live].copy()
        s.search(state, P, algorithm="alphabeta", depth=5)
        assert np.array_equal(state[:live], before)


def test_deterministic_for_a_seed_and_ties_follow_the_seed() -> None:
    s = Searcher(K, H)
    start = K.new_state()
    picks = set()
    for seed in range(12):
        s.clear()
        first = s.search(start, P, algorithm="minimax", depth=2, seed=seed).move
        s.clear()
        again = s.search(start, P, algorithm="minimax", depth=2, seed=seed).move
        assert first == again
        picks.add(first)
    assert len(picks) > 1  # the opening has many equal moves; the seed chooses among them


def test_finds_a_forced_win_and_prefers_the_fastest() -> None:
    # black is down to 3 stones; white closes a1-d1-g1 by sliding g4-g1, takes a
    # stone and wins on the spot (black is left with 2)
    s = Searcher(K, H)
    state = K.new_state({"flying": 1})
    state[km.STASH] = state[km.STASH + 1] = 0
    pt = {p: i for i, p in enumerate(km.POINTS)}
    state[km.BB] = sum(1 << pt[p] for p in ["a1", "d1", "g4", "c5"])
    state[km.BB + 1] = sum(1 << pt[p] for p in ["g7", "f6", "e5"])
    res = s.search(state, P, algorithm="alphabeta", depth=5)
    assert K.move_to_str(res.move).startswith("g4-g1x")
    assert res.value == WIN_SCORE - 1


def test_node_budget_is_respected() -> None:
    s = Searcher(K, H)
    state = _random_positions(1, 5, 30)[0]
    res = s.search(state, P, algorithm="alphabeta", depth=60, nodes=5000)
    assert res.depth >= 1
    assert res.nodes <= 5000 + 1 or res.depth == 1


def test_time_limit_stops_the_search() -> None:
    """The timer sets the stop flag once ``time_ms`` has passed, and the search then
    stops within the 1,024 nodes between two looks at the flag (budgets apply once
    the first iteration, one node per root move, is done): counted in nodes, which
    a loaded machine does not stretch as it does the wall clock."""
    s = Searcher(K, H)
    state = _random_positions(1, 6, 30)[0]
    s.search(state, P, algorithm="alphabeta", depth=1)  # compiled
    at_stop: list[int] = []
    stop = s._stop

    def stop_and_count() -> None:  # what the timer calls
        stop()
        at_stop.append(int(s.ctx[C_NODES]))  # read after the flag is set: never too few

    s._stop = stop_and_count
    res = s.search(state, P, algorithm="alphabeta", depth=100, time_ms=200)
    assert len(at_stop) == 1, "the timer did not stop the search"
    assert 1 <= res.depth < 98 and res.seconds >= 0.2  # stopped by the timer, not done
    assert res.nodes <= max(at_stop[0], res.legal_moves) + 1024, (res.nodes, at_stop)


def test_search_releases_the_gil() -> None:
    """While a search runs in another thread, this thread runs too: between its own
    steps it sees the search's node count move, 100 times, before the search has
    returned. A search holding the GIL would let it run only before the search
    starts and after it ends (at its time limit, a minute later)."""
    s = Searcher(K, H)
    state = K.new_state()
    s.search(state, P, algorithm="alphabeta", depth=1)  # compiled
    done = threading.Event()

    def run() -> None:
        s.search(state, P, algorithm="alphabeta", depth=100, time_ms=60_000)  # until stopped
        done.set()

    t = threading.Thread(target=run)
    t.start()
    moves, last = 0, int(s.ctx[C_NODES])
    while moves < 100 and not done.is_set():
        time.sleep(0.001)
        now = int(s.ctx[C_NODES])
        moves += now != last
        last = now
    searching = not done.is_set()
    s._stop()
    t.join()
    assert searching and moves == 100, moves


def test_search_rejects_arrays_it_cannot_view() -> None:
    s = Searcher(K, H)
    state = K.new_state()
    with pytest.raises(ValueError, match="state must be a contiguous 1-D int64"):
        s.search(state[::2], P)
    with pytest.raises(ValueError, match="params must be a contiguous 1-D float64"):
        s.search(state, P.astype(np.float32))
