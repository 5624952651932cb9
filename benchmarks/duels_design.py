"""How much a design of duels can know about the best point's gain: the posterior sd
of the gain over the baseline at an oracle case's in-box best, under the duels
model's prior, for N duels of 16 pairs (61% draws) played around the *true* best.

    python benchmarks/duels_design.py --case fishtest,edge [--duels 250,500,2000]

No games are played: a design's information is its duels' feature differences, and
the posterior covariance does not depend on the scores (the prior at its guessed
scales, one duel's Elo variance fixed). Rows, per case and N:

``current``
    the sampler's own duel points (``duel_points``) centred on the true best, the
    sd at the best and at half the way there, and the sd of the gain's slope at the
    best (the mean over the parameters): in the interior the duels straddle the best
    and measure that slope directly, its sd falling as 1 / sqrt(duels); at the box's
    edge it is extrapolated through the curvature, and falls far slower;
``path Q``
    a share Q of the duels along the line from the baseline through the best
    (signs aligned with it, no curvature duels): benchmarks/duels_variants.py's
    ``path-*`` variants, the realisable version of the next row;
``c-optimal``
    the smallest sd any mixture of duels between points of a grid of the box (5
    levels per parameter, plus the baseline's and the best's) reaches, by
    Frank-Wolfe on the Bayesian c-optimality criterion, with its largest duels.
    It knows where the best is, so it bounds what a sampler that must find it can
    do with those duels.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/duels_variants.py: the sampler's defaults, the case's box in its coordinates,
# path duels
from duels_variants import CURVATURE_SHARE, RADIUS, path_points, relative_box  # noqa: E402
from oracle import check_cases  # noqa: E402  (benchmarks/oracle.py)

from heurtune.engine.heuristics.oracle import CASES, OracleCase  # noqa: E402
from heurtune.errors import HeurtuneError  # noqa: E402
from heurtune.tuning.samplers.duels import duel_points  # noqa: E402
from heurtune.tuning.samplers.quadratic import (  # noqa: E402
    ELO_PER_SCORE,
    QuadraticModel,
    features,
    slope_features,
)

# one duel of 16 pairs (32 games) at an even score and 61% draws: its Elo variance
DUEL_VARIANCE = (1.0 - 0.61) * 0.25 / 32 * ELO_PER_SCORE ** 2


def prior_precision(dim: int) -> np.ndarray:
    return np.diag(QuadraticModel(dim)._prior(1.0, 1.0)[1])


def design_information(case: OracleCase, duels: int, path_share: float = 0.0,
                       seed: int = 0) -> np.ndarray:
    """The information of ``duels`` of the sampler's design around the true best."""
    low, high, best = relative_box(case)
    rng = np.random.default_rng(seed)
    info = np.zeros((len(features(best)),) * 2)
    for _ in range(duels):
        sign = rng.choice((-1.0, 1.0), size=case.dim)
        edge_only = rng.random(case.dim) < CURVATURE_SHARE
        plus_side = rng.random(case.dim) < 0.5
        if rng.random() < path_share:
            a, b = path_points(best, RADIUS, low, high)
        else:
            a, b = duel_points(best, RADIUS, sign, edge_only, plus_side, low, high)
        x = features(a) - features(b)
        info += np.outer(x, x) / DUEL_VARIANCE
    return info


def sd_at(precision: np.ndarray, point: np.ndarray) -> float:
    f = features(point)
    return math.sqrt(float(f @ np.linalg.solve(precision, f)))


def slope_sd_at(precision: np.ndarray, point: np.ndarray) -> float:
    """The posterior sd of the gain's slope at ``point``, the mean over the
    coordinates: what places the model's maximum (at an optimum on the box's edge,
    whether it reaches the edge). One solve for all the coordinates."""
    slopes = np.array([slope_features(point, i) for i in range(point.shape[0])])
    variances = np.einsum("ij,ji->i", slopes, np.linalg.solve(precision, slopes.T))
    return float(np.mean(np.sqrt(variances)))


def c_optimal(case: OracleCase, duels: int, steps: int = 3000
              ) -> tuple[float, list[tuple[float, list[float], list[float]]]]:
    """The smallest sd at the best over mixtures of grid duels (Frank-Wolfe from the
    sampler's design), and the duels with the largest shares."""
    low, high, best = relative_box(case)
    levels = [sorted({*np.linspace(low[i], high[i], 5).round(9), 0.0, round(best[i], 9)})
              for i in range(case.dim)]
    points = np.array(list(itertools.product(*levels)))
    feats = np.array([features(p) for p in points])
    target = features(best)
    prior = prior_precision(case.dim)
    info = design_information(case, duels)
    shares: dict[tuple[int, int], float] = {}
    gammas = np.geomspace(1e-4, 1.0, 60)
    for _ in range(steps):
        v = np.linalg.solve(prior + info, target)
        s = feats @ v
        i, j = int(np.argmax(s)), int(np.argmin(s))  # the duel most informative about it
        x = feats[i] - feats[j]
        atom = duels * np.outer(x, x) / DUEL_VARIANCE
        best_gamma, best_value = 0.0, float(target @ v)
        for g in gammas:
            value = float(target @ np.linalg.solve(prior + (1 - g) * info + g * atom, target))
            if value < best_value:
                best_gamma, best_value = g, value
        if best_gamma == 0.0:
            break
        shares = {k: w * (1 - best_gamma) for k, w in shares.items()}
        shares[i, j] = shares.get((i, j), 0.0) + best_gamma
        info = (1 - best_gamma) * info + best_gamma * atom
    top = sorted(((w, points[k[0]].round(2).tolist(), points[k[1]].round(2).tolist())
                  for k, w in shares.items()), reverse=True)[:3]
    return sd_at(prior + info, best), top


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default="fishtest,edge", help="comma-separated oracle cases")
    ap.add_argument("--duels", default="250,500,2000", help="comma-separated duel counts")
    ap.add_argument("--path", default="0.25,0.5", help="comma-separated path shares")
    ap.add_argument("--no-optimal", action="store_true", help="skip the c-optimal design")
    args = ap.parse_args()
    try:
        counts = [int(n) for n in args.duels.split(",")]
        paths = [float(q) for q in args.path.split(",") if q]
    except ValueError:
        ap.error("--duels takes whole numbers and --path shares, comma-separated")
    if any(n < 1 for n in counts) or any(not 0.0 <= q <= 1.0 for q in paths):
        ap.error("--duels must be positive and --path shares between 0 and 1")
    try:
        check_cases(args.case.split(","))
    except HeurtuneError as e:
        ap.error(str(e))
    for name in args.case.split(","):
        case = CASES[name]
        best = relative_box(case)[2]
        prior = prior_precision(case.dim)
        for n in counts:
            rows = [("current", 0.0)] + [(f"path {q:g}", q) for q in paths]
            for label, q in rows:
                precision = prior + design_information(case, n, q)
                print(f"{name:<10} {n:>5} duels  {label:<10} sd at the best "
                      f"{sd_at(precision, best):.3f}, half way {sd_at(precision, best / 2):.3f}, "
                      f"slope at the best {slope_sd_at(precision, best):.3f}")
            if not args.no_optimal:
                sd, top = c_optimal(case, n)
                print(f"{name:<10} {n:>5} duels  c-optimal  sd at the best {sd:.3f}; largest: "
                      + "; ".join(f"{w:.2f} {a} vs {b}" for w, a, b in top), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
