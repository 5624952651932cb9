"""Do the seed's kappas matter? Score of the seed agent over a kappa0 x kappa1 grid.

Every cell is the seed's HeuristicScore agent (depth 1, every empty point, cap 2,
defence 1) with other kappas, against ``gomoku:seed`` (kappa0 1.6, kappa1 5) on the
same paired openings. The tactical threshold is the seed's own definition, the
score of two crossing open threes, recomputed under each cell's kappas
(``--fixed-threshold`` keeps the seed's number 3.3185 instead). Usage:

    python docs/results/gomoku_landscape.py [--pairs 100] [--seed 31] [--jobs 2] [--csv FILE]
"""

from __future__ import annotations

import argparse
import csv

from heurtune.engine.config import preset
from heurtune.engine.heuristics.gomoku import crossing_threes_score
from heurtune.match.runner import MatchRunner, MatchSpec

KAPPA0 = (1.0, 1.3, 1.6, 2.0, 2.5, 3.2, 4.0)
KAPPA1 = (1.0, 2.0, 5.0, 10.0, 20.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fixed-threshold", action="store_true")
    ap.add_argument("--csv", default=None)
    args = ap.parse_args()
    seed = preset("gomoku:seed")
    cells = {}
    with MatchRunner(args.jobs) as runner:
        for k0 in KAPPA0:
            for k1 in KAPPA1:
                params = {"kappa0": k0, "kappa1": k1}
                if not args.fixed_threshold:
                    params["threshold"] = min(6.0, crossing_threes_score(k0, k1, 2))
                agent = seed.with_params(params, name=f"k0={k0} k1={k1}")
                stats = runner.run(MatchSpec(agent, seed, pairs=args.pairs, seed=args.seed)).stats
                lo, hi = stats.score_ci
                cells[k0, k1] = (stats.score, lo, hi, params.get("threshold", 0.0))
                print(f"kappa0 {k0} kappa1 {k1}: {stats.score:.3f} [{lo:.3f}, {hi:.3f}]",
                      flush=True)
    print()
    print("| kappa0 \\\\ kappa1 | " + " | ".join(f"{k1:g}" for k1 in KAPPA1) + " |")
    print("|---:|" + "---|" * len(KAPPA1))
    for k0 in KAPPA0:
        print(f"| {k0:g} | " + " | ".join(
            f"{cells[k0, k1][0]:.3f} [{cells[k0, k1][1]:.2f}, {cells[k0, k1][2]:.2f}]"
            for k1 in KAPPA1) + " |")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["kappa0", "kappa1", "threshold", "score", "low", "high"])
            for (k0, k1), (score, lo, hi, th) in sorted(cells.items()):
                w.writerow([k0, k1, f"{th:.6f}", f"{score:.4f}", f"{lo:.4f}", f"{hi:.4f}"])


if __name__ == "__main__":
    main()
