"""The search, with the settings that keep its tree, reproduces the old search node for node.

``tests/data/search_golden.json`` holds the moves, values, depths and node counts
of the search before its rewrite (``tests/make_search_golden.py``, commit
c88d970): 360 searches over Morris and Isolation positions (alpha-beta to a
depth, memoised minimax, alpha-beta on a node budget; default and random
weights) and 10 self-play games with the table kept between moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from heurtune.engine.bench import bench_positions
from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.search import Searcher
from heurtune.games import get_game

GOLDEN = json.loads((Path(__file__).parent / "data" / "search_golden.json").read_text())
# the quick run plays the heuristics other quick tests compile as well; the rest
# (a search each to compile) wait for the whole run
QUICK = {("isolation", "weighted"), ("isolation", "improved"), ("morris", "seed")}
CASES = [case if case in QUICK else pytest.param(*case, marks=pytest.mark.slow)
         for case in sorted({(g["game"], g["heuristic"]) for g in GOLDEN["searches"]})]


@pytest.mark.parametrize("game,heuristic", CASES)
def test_searches_match_the_old_search_node_for_node(game: str, heuristic: str) -> None:
    kernel = get_game(game)
    searcher = Searcher(kernel, get_heuristic(game, heuristic))
    positions: dict[tuple[int, int], list[np.ndarray]] = {}
    rows = [g for g in GOLDEN["searches"] if (g["game"], g["heuristic"]) == (game, heuristic)]
    for g in rows:
        key = (g["position_seed"], g["max_plies"])
        if key not in positions:
            positions[key] = bench_positions(kernel, 6, *key)
        state = positions[key][g["index"]]
        before = state.copy()
        searcher.clear()
        r = searcher.search(state, np.array(g["params"]), algorithm=g["algorithm"],
                            depth=g["depth"], nodes=g["nodes_limit"],
                            seed=g["position_seed"] + g["index"])
        got = (r.move, r.value, r.depth, r.nodes)
        assert got == (g["move"], g["value"], g["reached"], g["nodes"]), g
        assert np.array_equal(state[:8], before[:8])


@pytest.mark.parametrize("game,heuristic", CASES)
def test_self_play_games_match_the_old_search(game: str, heuristic: str) -> None:
    kernel = get_game(game)
    searcher = Searcher(kernel, get_heuristic(game, heuristic))
    for g in (g for g in GOLDEN["games"] if (g["game"], g["heuristic"]) == (game, heuristic)):
        params = np.array(g["params"])
        searcher.clear()
        state = kernel.new_state()
        for ply, (move, nodes) in enumerate(zip(g["moves"], g["nodes"], strict=False)):
            r = searcher.search(state, params, algorithm="alphabeta", depth=64, nodes=2000, seed=ply)
            assert (r.move, r.nodes) == (move, nodes), (g["heuristic"], ply)
            kernel.make_move(state, r.move)
