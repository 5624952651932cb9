"""Table settings: every combination finds the same values; engine files resolve and validate them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from heurtune.engine.bench import bench_positions
from heurtune.engine.config import LEGACY_SEARCH, EngineConfig, SearchSettings, search_defaults
from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.search import LEAF_ORDERS, Searcher
from heurtune.errors import HeurtuneError
from heurtune.games import get_game

SETTINGS = [
    {"table": table, "tt_min_depth": d, "leaf_order": order}
    for table, d, order in itertools.product((True, False), (0, 2, 3), LEAF_ORDERS)
]


@pytest.mark.parametrize("game,heuristic,depth", [
    ("isolation", "improved", 6),
    pytest.param("isolation", "custom", 5, marks=pytest.mark.slow),  # a search to compile
])
def test_every_setting_finds_the_minimax_value(game: str, heuristic: str, depth: int) -> None:
    # Isolation has no repetition, so a table cannot change a fixed-depth value
    kernel = get_game(game)
    h = get_heuristic(game, heuristic)
    params = h.space.to_array({})
    for bits in (10, 16):
        s = Searcher(kernel, h, bits)
        for state in bench_positions(kernel, 6, 5, 16):
            s.clear()
            exact = s.search(state, params, algorithm="minimax", depth=depth).value
            nodes = {}
            for kw in SETTINGS:
                s.clear()
                r = s.search(state, params, depth=depth, **kw)
                assert r.value == pytest.approx(exact, abs=1e-12), kw
                assert r.depth == depth or abs(r.value) > 1e8
                nodes[tuple(kw.values())] = r.nodes
            # the settings do change the tree: ordering leaf parents saves nodes
            assert nodes[(False, 0, "full")] <= nodes[(False, 0, "none")]


def test_settings_apply_to_node_budgets_and_keep_the_state() -> None:
    kernel = get_game("morris")
    h = get_heuristic("morris", "seed")
    params = h.space.to_array({})
    s = Searcher(kernel, h)
    for state in bench_positions(kernel, 4, 9, 40):
        before = state[:8].copy()
        for kw in SETTINGS:
            s.clear()
            r = s.search(state, params, depth=64, nodes=1500, **kw)
            assert r.move in kernel.legal_moves(state)
            assert 1500 < r.nodes <= 1500 + kernel.max_moves + 1  # stops within one node's children
            assert np.array_equal(state[:8], before)


def test_engines_take_their_games_defaults_unless_set() -> None:
    iso = EngineConfig("isolation", "improved")
    assert {k: getattr(iso.search, k) for k in search_defaults("isolation")} == search_defaults("isolation")
    assert search_defaults("isolation") != LEGACY_SEARCH  # measured: a smaller, shallower table
    assert search_defaults("morris") == LEGACY_SEARCH  # Morris keeps the old tree
    own = EngineConfig("isolation", "improved", search=SearchSettings.from_dict(
        {"table": False, "leaf_order": "none", "tt_bits": 14}))
    assert (own.search.table, own.search.leaf_order, own.search.tt_bits) == (False, "none", 14)
    assert own.search.tt_min_depth == search_defaults("isolation")["tt_min_depth"]
    again = EngineConfig.from_dict(own.to_dict())  # written out in full, read back the same
    assert again.search == own.search


@pytest.mark.parametrize("bad", [
    {"table": "yes"}, {"tt_min_depth": -1}, {"tt_min_depth": 1.5}, {"leaf_order": True},
    {"leaf_order": "sorted"}, {"tt_bits": 9}, {"tt_bits": 29}, {"root_ties": "last"},
    {"root_ties": True},
])
def test_bad_settings_are_one_clear_error(bad: dict) -> None:
    with pytest.raises(HeurtuneError, match="search\\."):
        SearchSettings.from_dict(bad)
