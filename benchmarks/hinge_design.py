"""Can duels see a landscape steeper on one side of its optimum? The hinge term's information.

    python benchmarks/hinge_design.py [--seeds 24] [--duels 500]

``skewed``'s shape (4 parameters, 2 Elo half a range out below the optimum, 8 above)
about an optimum at the duels' centre, fitted by the stand-in's
:class:`HingeModel` (benchmarks/duels_variants.py: the sampler's quadratic plus a
term ``a_i u_i |u_i|`` per parameter, the knot at the centre) to duels placed three
ways:

``three levels``
    the sampler's own duels (``duels.duel_points``): each coordinate at the centre or
    one radius either side of it.
``half radius too``
    the same, with half of the curvature arms (a duel between the centre and one
    side) at half the radius: five levels.
``random``
    both points uniform in the box (noiseless only: a design no study plays).

Two measurements per design. Noiseless (``--duels`` duels of 1,000,000 games, scored
exactly as the truth says): the hinge terms' posterior sd over their prior sd (1: the
duels say nothing about them) and the largest |posterior mean / sd|. Noisy (duels of
16 game pairs at 61% draws, ``--seeds`` seeds): the median of the largest |z| of the
four terms, and the share of seeds at 2 sd or more. ``--duels 500`` is 16,000 games.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import duels_variants as dv  # noqa: E402

from heurtune.tuning.samplers import duels  # noqa: E402
from heurtune.tuning.samplers.quadratic import Observation  # noqa: E402

DIM, PAIRS, DRAWS = 4, 16, 0.61
DESIGNS = ("three levels", "half radius too", "random")


def truth(d: np.ndarray) -> float:
    """``skewed``'s terms about an optimum at 0: -2 u^2 below, -8 u^2 above (Elo)."""
    return float(-np.sum(2.0 * d * d * np.where(d > 0, 4.0, 1.0)))


def points(design: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One duel's two points about the centre 0 (radius 1: half the range)."""
    if design == "random":
        return rng.uniform(-1, 1, DIM), rng.uniform(-1, 1, DIM)
    sign = rng.choice((-1.0, 1.0), size=DIM)
    edge = rng.random(DIM) < dv.CURVATURE_SHARE
    plus = rng.random(DIM) < 0.5
    box = np.full(DIM, 3.0)  # wide enough that no point is clipped or turned
    a, b = duels.duel_points(np.zeros(DIM), dv.RADIUS, sign, edge, plus, -box, box)
    if design == "half radius too":
        half = edge & (rng.random(DIM) < 0.5)
        a, b = np.where(half & plus, a / 2, a), np.where(half & ~plus, b / 2, b)
    return a, b


def hinge_fit(design: str, seed: int, duels_played: int, noiseless: bool
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fitted model's hinge terms: posterior means, sds and prior sds."""
    rng = np.random.default_rng(seed)
    model = dv.HingeModel(DIM)
    for _ in range(duels_played):
        a, b = points(design, rng)
        elo = truth(a) - truth(b)
        if noiseless:
            model.add(Observation(a, b, 1.0 / (1.0 + 10.0 ** (-elo / 400.0)), 1_000_000))
        else:
            pairs = dv.game_scores(rng, np.full((PAIRS, 2), elo), DRAWS).mean(axis=1)
            model.add(Observation(a, b, float(pairs.mean()), 2 * PAIRS, pairs.tolist()))
    model.fit()
    assert model.mean is not None and model.cov is not None
    terms = slice(model.feature_count - DIM, model.feature_count)
    _, precision = model._prior(model.scale, model.start_scale)
    return (model.mean[terms], np.sqrt(np.diag(model.cov)[terms]),
            1.0 / np.sqrt(precision[terms]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=24)
    ap.add_argument("--duels", type=int, default=500, help="duels per fit (32 games each)")
    args = ap.parse_args()
    if args.seeds < 1 or args.duels < 10:
        ap.error("--seeds must be at least 1 and --duels at least 10")
    for design in DESIGNS:
        mean, sd, prior = hinge_fit(design, 0, args.duels, noiseless=True)
        print(f"{design:<16} noiseless: posterior sd / prior sd "
              f"{float(np.median(sd / prior)):.3f}, largest |z| {float(np.max(np.abs(mean) / sd)):.2f}",
              flush=True)
    for design in DESIGNS[:2]:
        zs = np.array([float(np.max(np.abs(m) / s)) for m, s, _ in
                       (hinge_fit(design, seed, args.duels, noiseless=False)
                        for seed in range(args.seeds))])
        print(f"{design:<16} {args.duels * 2 * PAIRS:,} games, {args.seeds} seeds: median "
              f"largest |z| {float(np.median(zs)):.2f}, at 2 sd or more "
              f"{int(np.sum(zs >= 2.0))} of {args.seeds}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
