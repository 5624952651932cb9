"""Write tests/data/search_golden.json: what the search found before its rewrite.

    python tests/make_search_golden.py

Generated once with the search of commit c88d970 (the recursion that took 13
arrays per call). ``tests/test_search_golden.py`` requires today's search, with
the settings that keep the tree (table on at every depth, ordered leaf parents),
to reproduce every move, value, depth and node count node for node.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from heurtune.engine.bench import bench_positions
from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.params import FloatParam
from heurtune.engine.search import Searcher
from heurtune.games import ONGOING, get_game

OUT = Path(__file__).parent / "data" / "search_golden.json"

# (game, heuristic, max_plies of the positions, alpha-beta depth, minimax depth)
CASES = [
    ("morris", "seed", 40, 6, 3),
    ("morris", "phased", 60, 5, 3),
    ("isolation", "improved", 16, 10, 4),
    ("isolation", "custom", 20, 9, 4),
    ("isolation", "weighted", 16, 7, 3),
]


def random_params(h, rng):
    """A seeded point of the space (floats only: the families tested here)."""
    values = {}
    for p in h.space.params:
        if isinstance(p, FloatParam):
            values[p.name] = float(rng.uniform(p.low, p.high))
    return h.space.to_array(values)


def run() -> dict:
    out: dict = {"searches": [], "games": []}
    for game, hname, max_plies, ab_depth, mm_depth in CASES:
        kernel = get_game(game)
        h = get_heuristic(game, hname)
        rng = np.random.default_rng(7)
        for _pi, params in enumerate([h.space.to_array({}), random_params(h, rng)]):
            s = Searcher(kernel, h)
            for seed in (2024, 99):
                for si, state in enumerate(bench_positions(kernel, 6, seed, max_plies)):
                    for algo, depth, nodes in (("alphabeta", ab_depth, 0), ("minimax", mm_depth, 0),
                                               ("alphabeta", 64, 3000)):
                        s.clear()
                        r = s.search(state, params, algorithm=algo, depth=depth, nodes=nodes,
                                     seed=seed + si)
                        out["searches"].append({
                            "game": game, "heuristic": hname, "params": params.tolist(),
                            "position_seed": seed, "max_plies": max_plies, "index": si,
                            "algorithm": algo, "depth": depth, "nodes_limit": nodes,
                            "move": r.move, "value": r.value, "reached": r.depth, "nodes": r.nodes,
                        })
            # a self-play game with the table kept between moves, as engines play
            s.clear()
            state = kernel.new_state()
            moves, nodes = [], []
            for ply in range(60):
                if kernel.outcome(state) != ONGOING:
                    break
                r = s.search(state, params, algorithm="alphabeta", depth=64, nodes=2000, seed=ply)
                moves.append(r.move)
                nodes.append(r.nodes)
                kernel.make_move(state, r.move)
            out["games"].append({"game": game, "heuristic": hname, "params": params.tolist(),
                                 "moves": moves, "nodes": nodes})
    return out


if __name__ == "__main__":
    OUT.parent.mkdir(exist_ok=True)
    data = run()
    OUT.write_text(json.dumps(data, indent=0))
    print(f"{len(data['searches'])} searches, {len(data['games'])} games -> {OUT}")
