"""One conformance suite for every registered game (OpenSpiel's games_sim_test, our way).

Each game is played out in seeded random games (and, where a game's random games
rarely finish, games biased towards its opening area) and checked at every ply:

* make_move then unmake_move restores the position exactly (the live part of the
  state, ``live_length``; beyond it is undo scratch);
* the incremental Zobrist hash equals ``hash_from_scratch``;
* no position has more legal moves than the kernel's ``max_moves``, and every move
  generated is legal once (no duplicates);
* every game ends within ``max_game_plies`` under its rules;
* a search leaves the position unchanged, for every heuristic of the game, with
  and without the game's candidate moves;
* the search hooks keep their contracts: candidate moves are a non-empty subset of
  the legal moves while the game goes on, ordering keys lie in [0, 2^24);
* the ``symmetry_hashes`` hook, where declared, includes the position's own hash.

The compiled searches' reload from numba's cache is checked for every game and
heuristic by tests/test_cache_reload.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine.conformance import check_game
from heurtune.engine.heuristic import heuristics
from heurtune.engine.search import Searcher
from heurtune.games import ONGOING, PythonKernel, get_game
from tests.helpers import builtin_games

# heurtune's own games (plugins installed beside it have their own tests: the
# examples' in tests/plugins, a user's in their package, with check_game); the
# kernel checks below are for its numba kernels (chess is plain Python on
# python-chess: the public check, and tests/games/test_chess.py)
GAMES = builtin_games()
KERNELS = [g for g in GAMES if not isinstance(get_game(g), PythonKernel)]
RULES = {"morris": [{}, {"flying": 0, "double_removal": 1, "max_plies": 60}],
         "isolation": [{}],
         "gomoku": [{}, {"size": 7, "exact_five": 1}],
         # random Halma games only end at the ply limit (tests/test_halma.py plays
         # greedy games to real wins); short limits keep the suite fast
         "halma": [{"max_plies": 120}, {"chain_jumps": 0, "camp_rule": 1, "max_plies": 60,
                                        "adjudicate": 0}],
         "chess": [{}, {"chess960": 1}]}


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_public_check_passes(name: str) -> None:
    report = check_game(name, RULES[name][:1], games=3)
    assert report.games == 3 and report.searches > 0


def test_every_game_declares_what_the_suite_checks() -> None:
    assert set(RULES) == set(GAMES), "add the new game's rule variants to RULES"
    for name in KERNELS:
        k = get_game(name)
        assert k.max_game_plies is not None and k.hash_from_scratch is not None
        assert k.live_length is not None and k.max_moves > 0


def _random_game(kernel, rules, rng, near_opening: bool):
    """Yield (state, legal moves) at every ply of one random game."""
    state = kernel.new_state(rules)
    while kernel.outcome(state) == ONGOING:
        legal = kernel.legal_moves(state)
        yield state, legal
        pool = legal
        if near_opening:
            narrow = [m for m in kernel.opening_candidates(state) if m in set(legal)]
            pool = narrow or legal
        kernel.make_move(state, pool[int(rng.integers(len(pool)))])
    yield state, kernel.legal_moves(state)


@pytest.mark.parametrize("name", [g if g in ("isolation", "morris") else  # the quick run's
                                  pytest.param(g, marks=pytest.mark.slow) for g in KERNELS])
def test_make_unmake_hash_bounds_and_length(name: str) -> None:
    kernel = get_game(name)
    rng = np.random.default_rng(20261122)
    finished = 0
    for rules in RULES[name]:
        resolved = kernel.resolve_rules(rules)
        longest = kernel.max_game_plies(resolved)
        for g in range(40):
            plies = 0
            for state, legal in _random_game(kernel, rules, rng, near_opening=g % 2 == 1):
                plies = int(kernel.ply(state))
                assert plies <= longest
                assert int(kernel.position_hash(state)) == kernel.hash_from_scratch(state)
                assert len(legal) <= kernel.max_moves
                assert len(set(legal)) == len(legal)
                if kernel.outcome(state) != ONGOING:
                    break
                candidates = kernel.legal_moves(state) if kernel.gen_candidates is None else \
                    _candidates(kernel, state)
                assert candidates and set(candidates) <= set(legal)
                assert all(0 <= kernel.move_key(state, m) < 1 << 24 for m in legal[::7])
                if kernel.symmetry_hashes is not None and plies % 7 == 0:
                    assert int(kernel.position_hash(state)) in kernel.image_hashes(state)
                live = kernel.live_length(state)
                before = state[:live].copy()
                for m in legal[:: max(1, len(legal) // 12)]:  # a spread of the moves
                    kernel.make_move(state, m)
                    assert int(kernel.position_hash(state)) == kernel.hash_from_scratch(state)
                    kernel.unmake_move(state, m)
                    assert np.array_equal(state[:live], before), (name, plies, m)
            finished += kernel.outcome(state) != ONGOING
    assert finished == 40 * len(RULES[name])  # every game reached its end


def _candidates(kernel, state):
    buf = np.empty((1, kernel.max_moves), dtype=np.int64)
    n = kernel.gen_candidates(state, buf, 0)
    return [int(m) for m in buf[0, :n]]


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNELS)
def test_search_leaves_the_position_unchanged(name: str) -> None:
    kernel = get_game(name)
    rng = np.random.default_rng(7)
    for hname, h in heuristics(name).items():
        searcher = Searcher(kernel, h)
        params = h.to_array({})
        for state, legal in _random_game(kernel, {}, rng, near_opening=True):
            if kernel.outcome(state) != ONGOING or kernel.ply(state) > 12:
                break
            live = kernel.live_length(state)
            before = state[:live].copy()
            for candidates in (False, True):
                r = searcher.search(state, params, depth=3, nodes=3000, candidates=candidates)
                assert np.array_equal(state[:live], before), (name, hname)
                assert r.move in legal
