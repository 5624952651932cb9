"""Confirmation's figures after selection, simulated: what each method reports
when K candidates are all exactly as strong as the baseline.

Each run plays K candidates and the baseline against one opponent on the same
``--pairs`` openings (an opening shifts every engine's winning chance alike;
30% draws), picks the highest score (the baseline on a tie), then:

* ``selection``: the winner's figures on those same games (what confirm
  exported before two-stage confirmation);
* ``two-stage``: the winner and the baseline on ``--pairs`` further openings,
  and the figures there (what confirm exports now);
* ``max-t``: no further games, the winner's paired difference from the
  baseline with a max-t interval over the K comparisons.

Reported per K: the mean exported Elo (truth 0), how often the exported 95%
score interval covers 0.5, and how often "better than the baseline" is
claimed (the paired interval's lower end above 0; nominal 2.5%).

    python benchmarks/confirm_sim.py --runs 2000 --pairs 200 --seed 1
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy.stats import t

from heurtune.match.simultaneous import simultaneous_differences

DRAW = 0.3


def pair_scores(rng: np.random.Generator, engines: int, pairs: int) -> np.ndarray:
    """(engines, pairs) pair scores of equally strong engines on shared openings."""
    shift = rng.uniform(-0.2, 0.2, size=pairs)
    win = (1.0 - DRAW) * (0.5 + shift)
    u = rng.random((engines, pairs, 2))
    games = np.where(u < win[None, :, None], 1.0,
                     np.where(u < win[None, :, None] + DRAW, 0.5, 0.0))
    return np.asarray(games.mean(axis=2))


def interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% t interval of per-pair values (with confirm's variance floor)."""
    n = len(x)
    sd = max(float(x.std(ddof=1)), 0.25 / math.sqrt(n))
    half = float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    m = float(x.mean())
    return m, m - half, m + half


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def simulate(k: int, pairs: int, runs: int, seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    out = {m: {"elo": 0.0, "covers": 0.0, "claims": 0.0, "reported": 0.0}
           for m in ("selection", "two-stage", "max-t")}
    for _ in range(runs):
        s = pair_scores(rng, k + 1, pairs)
        means = s.mean(axis=1)
        w = int(np.argmax(means[:k]))
        if means[w] <= means[k]:
            continue  # the baseline wins: nothing is exported, nothing claimed
        m, lo, hi = interval(s[w])
        sel = out["selection"]
        sel["reported"] += 1
        sel["elo"] += elo(m)
        sel["covers"] += lo <= 0.5 <= hi
        sel["claims"] += interval(s[w] - s[k])[1] > 0
        fresh = pair_scores(rng, 2, pairs)  # the winner and the baseline, further openings
        m, lo, hi = interval(fresh[0])
        two = out["two-stage"]
        two["reported"] += 1
        two["elo"] += elo(m)
        two["covers"] += lo <= 0.5 <= hi
        two["claims"] += interval(fresh[0] - fresh[1])[1] > 0
        mt = out["max-t"]
        mt["reported"] += 1
        mt["claims"] += simultaneous_differences(s[:k] - s[k], draws=20_000).lows[w] > 0
    for figures in out.values():
        n = max(figures["reported"], 1.0)
        figures["elo"] /= n
        figures["covers"] /= n
        figures["claims"] /= runs  # per confirmation run (the baseline's wins claim nothing)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--ks", default="1,3,5")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"{args.runs} runs, {args.pairs} pairs per stage, equal strength (truth: Elo 0)")
    print(f"{'K':>2}  {'method':<10} {'mean Elo':>9} {'CI covers':>10} {'claims':>7}")
    for k in (int(x) for x in args.ks.split(",")):
        for method, f in simulate(k, args.pairs, args.runs, args.seed + k).items():
            elo_text = "       -" if method == "max-t" else f"{f['elo']:+8.1f} "
            covers = "        -" if method == "max-t" else f"{f['covers']:9.3f} "
            print(f"{k:>2}  {method:<10} {elo_text} {covers} {f['claims']:7.3f}")


if __name__ == "__main__":
    main()
