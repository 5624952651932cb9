"""The seed's Halma experiment re-run: its four heuristics in a round robin.

Every heuristic (the seed's constants, alpha-beta at the seed's depth 2) plays every
other on the same paired openings, with the real rules (chain jumps) or the seed's
generator (``--single-jumps``: single jumps only). Prints the tournament table
(scores with intervals, paired differences, Bradley-Terry ratings), then per cell
the average game length, how many games ended at the ply limit, the first
player's score, and the time per game. Usage:

    python docs/results/halma_crosstable.py [--pairs 200] [--seed 5] [--jobs 2] [--single-jumps]
                                            [--intent]

``--intent`` plays wall_corner as the seed meant it (``halma:wall_corner_intent``:
edge bonuses only under own pieces) against the four instead, on the same openings
(every cell of a tournament plays the seed's openings), as one more row of the table.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from heurtune.engine.config import preset
from heurtune.match.tournament import run_tournament

NAMES = ("distance", "wall_corner", "dispersion", "manhattan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--single-jumps", action="store_true",
                    help="the seed's generator: no chained jumps")
    ap.add_argument("--intent", action="store_true",
                    help="wall_corner as intended against the four, instead of the round robin")
    args = ap.parse_args()
    rules = {"chain_jumps": 0} if args.single_jumps else {}

    def engine(name: str):  # type: ignore[no-untyped-def]
        config = preset(f"halma:{name}")
        return replace(config, rules={**config.rules, **rules})

    engines = [engine(n) for n in NAMES]
    agents = [engine("wall_corner_intent")] if args.intent else engines
    start = time.time()
    result = run_tournament(agents, engines, args.pairs, args.seed, args.jobs)
    seconds = time.time() - start
    print(f"halma, {'single jumps (the seed generator)' if args.single_jumps else 'chain jumps'}"
          f", {args.pairs} pairs per cell, seed {args.seed}, {seconds:.0f} s")
    print(result.to_table())
    print()
    print("cell (agent vs opponent): mean plies, games at the ply limit, first player's score")
    games = 0
    for (a, o), pairs in sorted(result.cells.items()):
        plies = [p for pair in pairs for p in pair.plies]
        games += len(plies)
        limit = sum(1 for p in plies if p >= 1000)
        first = [s for p in pairs for s in (p.a_scores[0], 1.0 - p.a_scores[1])]
        print(f"  {agents[a].label:>24} vs {NAMES[o]:<11} {sum(plies) / len(plies):6.1f}  {limit:4d}  "
              f"{sum(first) / len(first):.3f}")
    print(f"{games} games, {seconds / games:.3f} s per game on {args.jobs} worker processes")


if __name__ == "__main__":
    main()
