"""False-prune rates of the pruners, by simulation.

A trial's pair scores are drawn from a pentanomial distribution (by default one
like Isolation's: most pairs even, no draws); the best completed trial's from
the same distribution (a trial exactly as strong as the best), optionally as
the luckiest of N equal trials (the winner's curse). A "false prune" is a trial
as strong as the best that gets pruned; the "true prune" rate is measured for
a trial weaker by DELTA. Both pruners see the same simulated pairs:

* ``checkpoint``: heurtune's (heurtune.tuning.pruners.should_prune), at the
  study file's defaults (looks after 1/4, 1/2 and 3/4 of the pairs, alpha 0.05);
* ``wilcoxon``: Optuna's WilcoxonPruner at p_threshold 0.1 with 4 startup steps,
  the previous default, driven through a real in-memory Optuna study that
  holds the best trial and reports the running trial pair by pair.

Usage::

    python benchmarks/pruning_sim.py --runs 1000 --wilcoxon-runs 100 --pairs 200 --seed 1
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import optuna

from heurtune.match.stats import PAIR_VALUES
from heurtune.tuning.pruners import should_prune

ISOLATION_LIKE = (0.10, 0.0, 0.70, 0.0, 0.20)  # LL, LD, DD/WL, WD, WW: mean 0.55
MORRIS_LIKE = (0.05, 0.15, 0.40, 0.25, 0.15)  # mean 0.5875


def shifted(probs: tuple[float, ...], delta: float) -> np.ndarray:
    """``probs`` with ``delta`` of the score moved from WW to LL (a weaker trial)."""
    p = np.array(probs, dtype=float)
    move = min(delta, p[4])  # each unit of probability moved from WW to LL costs 1 point
    p[4] -= move
    p[0] += move
    return p


def best_of(rng: np.random.Generator, probs: np.ndarray, pairs: int, n: int) -> np.ndarray:
    """The pair scores of the luckiest of ``n`` equal trials (highest mean)."""
    draws = rng.choice(PAIR_VALUES, size=(n, pairs), p=probs)
    return draws[int(np.argmax(draws.mean(axis=1)))]


def checkpoint_pruned(trial: np.ndarray, best: np.ndarray, order: np.ndarray) -> tuple[bool, int]:
    pairs = len(trial)
    best_scores = dict(enumerate(best.tolist()))
    played: dict[int, float] = {}
    for k, i in enumerate(order, start=1):
        played[int(i)] = float(trial[i])
        if k < pairs and should_prune(played, best_scores, pairs):
            return True, k
    return False, pairs


def wilcoxon_pruned(trial: np.ndarray, best: np.ndarray) -> tuple[bool, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = optuna.create_study(direction="maximize",
                                    pruner=optuna.pruners.WilcoxonPruner(p_threshold=0.1,
                                                                         n_startup_steps=4))
        study.add_trial(optuna.trial.create_trial(
            value=float(best.mean()), intermediate_values=dict(enumerate(best.tolist()))))
        t = study.ask()
        for k, score in enumerate(trial.tolist()):
            t.report(score, step=k)
            if k + 1 < len(trial) and t.should_prune():
                return True, k + 1
    return False, len(trial)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--wilcoxon-runs", type=int, default=100,
                    help="runs (of the first) that Optuna's pruner also sees: it is slow")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--delta", type=float, default=0.05, help="score gap of the weaker trial")
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    rng = np.random.default_rng(args.seed)
    print(f"runs {args.runs} (wilcoxon: the first {args.wilcoxon_runs}), pairs {args.pairs}, "
          f"seed {args.seed}, weaker by {args.delta}")
    print("| distribution | best trial | trial | checkpoint: pruned | mean pairs played "
          "| wilcoxon: pruned | mean pairs played |")
    print("|---|---|---|---|---|---|---|")
    start = time.time()
    for name, base in (("Isolation-like", ISOLATION_LIKE), ("Morris-like", MORRIS_LIKE)):
        for n_best in (1, 15):
            for label, delta in (("as strong", 0.0), (f"weaker by {args.delta}", args.delta)):
                probs = shifted(base, delta)
                counts = {"checkpoint": [0, 0], "wilcoxon": [0, 0]}
                runs = {"checkpoint": args.runs, "wilcoxon": min(args.runs, args.wilcoxon_runs)}
                for r in range(args.runs):
                    best = best_of(rng, np.array(base), args.pairs, n_best)
                    trial = rng.choice(PAIR_VALUES, size=args.pairs, p=probs)
                    order = rng.permutation(args.pairs)
                    pruned, played = checkpoint_pruned(trial, best, order)
                    counts["checkpoint"][0] += pruned
                    counts["checkpoint"][1] += played
                    if r < runs["wilcoxon"]:
                        pruned, played = wilcoxon_pruned(trial, best)
                        counts["wilcoxon"][0] += pruned
                        counts["wilcoxon"][1] += played
                best_label = "fixed" if n_best == 1 else f"luckiest of {n_best}"
                cells = []
                for key in ("checkpoint", "wilcoxon"):
                    n = runs[key]
                    rate = counts[key][0] / n
                    half = 1.96 * (max(rate * (1 - rate), 1.0 / n) / n) ** 0.5
                    cells += [f"{rate:.3f} ± {half:.3f}", f"{counts[key][1] / n:.0f}"]
                print(f"| {name} | {best_label} | {label} | " + " | ".join(cells) + " |",
                      flush=True)
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
