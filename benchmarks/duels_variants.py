"""Try a change to ``duels`` on the simulated oracle in a minute: a stand-in for
``benchmarks/oracle.py --optimisers duels`` without Optuna.

    python benchmarks/duels_variants.py --case edge,fishtest [--variants current,gated]
                                        [--seeds 20] [--budget 64000] [--json]

It plays the duels sampler's own loop (heurtune.tuning.samplers.duels: the same
QuadraticModel, refit schedule, ``duel_points``, held-out duels every 10th trial
and per-trial random streams) against the oracle's game draws
(heurtune.match.oracle.game_scores), 16 pairs per trial, and reads the answer
at the benchmark's checkpoints; no study, no storage, so a case of 20 seeds
takes about 50 s on one core instead of 4 to 6 minutes. Its random streams are
not the benchmark's, so its figures differ from it by seed noise (20 seeds: up
to a few thousand games either way; docs/results/optimisers.md compares them).
It is for deciding what is worth a real benchmark run, not the record.

Per case and variant: games until the median answer over the seeds is within 1
Elo and 0.5 Elo of the in-box best (log-interpolated between checkpoints, as
oracle.py does), the same for the model's own maximum (``centre``: where the
duels are centred), and the largest share of seeds whose answer is worse than
the baseline at any checkpoint.

Variants (each changes one thing):

``current``
    heurtune's ``duels`` as it is.
``shifted``
    duels centred a radius inside the box's edge: a coordinate whose centre lies
    within ``EDGE_ROOM`` radii of an edge is duelled around the point a radius
    inside it (points edge, edge - r, edge - 2r instead of edge, edge - r).
``gated``
    the answer is the point of highest mean gain on the segment from the baseline
    to the model's maximum whose lower bound (mean - z sd) is positive, instead
    of the point of highest lower bound.
``edge-slope``
    the current answer, then every coordinate moved to a box edge where the
    model's mean gain still rises toward it there.
``baseline-curvature``
    the curvature duels around the baseline instead of the model's maximum:
    points chosen without the model, so what they say of the curvature cannot
    follow its errors.
``flat-prior``
    the prior's curvature guess halved (``elo_per_range = 1``, the sampler
    option: 1 Elo half a range out where the oracle's cases have 2).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/oracle.py: its checkpoints, its crossing points and the duels configuration
from oracle import CONFIGS, checkpoints, games_to  # noqa: E402

from heurtune.engine.heuristics.oracle import CASES, OracleCase  # noqa: E402
from heurtune.match.oracle import game_scores  # noqa: E402
from heurtune.match.play import mix_seed  # noqa: E402
from heurtune.tuning.samplers import duels  # noqa: E402
from heurtune.tuning.samplers.quadratic import Observation, QuadraticModel  # noqa: E402

DUELS = next(c for c in CONFIGS if c.name == "duels")  # the benchmark's duels: its pairs, budget
PAIRS = DUELS.pairs
HOLDOUT_EVERY = 10
RADIUS, CURVATURE_SHARE, Z = 1.0, 0.2, 1.0  # the sampler's defaults

Points = Callable[..., tuple[np.ndarray, np.ndarray]]
Answer = Callable[[QuadraticModel, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


# -- the variants --------------------------------------------------------------
def shifted_points(centre: np.ndarray, radius: float, sign: np.ndarray, edge_only: np.ndarray,
                   plus_side: np.ndarray, low: np.ndarray, high: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points`` around a centre moved a radius inside any edge it is near."""
    near_high = high - centre < duels.EDGE_ROOM * radius
    near_low = centre - low < duels.EDGE_ROOM * radius
    c = np.where(near_high, np.maximum(high - radius, low), centre)
    c = np.where(near_low, np.minimum(low + radius, high), c)
    return duels.duel_points(c, radius, sign, edge_only, plus_side, low, high)


def baseline_curvature_points(centre: np.ndarray, radius: float, sign: np.ndarray,
                              edge_only: np.ndarray, plus_side: np.ndarray, low: np.ndarray,
                              high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points``, but the curvature coordinates duelled around the baseline
    (0): points that do not depend on the model."""
    a, b = duels.duel_points(centre, radius, sign, edge_only, plus_side, low, high)
    a0, b0 = duels.duel_points(np.zeros_like(centre), radius, sign, edge_only, plus_side,
                               low, high)
    return np.where(edge_only, a0, a), np.where(edge_only, b0, b)


def current_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                   centre: np.ndarray) -> np.ndarray:
    return model.recommend(low, high, Z, centre)[0]


def gated_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                 centre: np.ndarray) -> np.ndarray:
    """The highest mean gain on the segment baseline .. centre whose lower bound is positive."""
    best, best_mean = np.zeros(model.dim), 0.0
    for t in np.linspace(0.0, 1.0, 101)[1:]:
        mean, sd = model.gain(t * centre)
        if mean - Z * sd > 0.0 and mean > best_mean:
            best, best_mean = t * centre, mean
    return best


def mean_slope(model: QuadraticModel, point: np.ndarray, i: int) -> float:
    """The posterior mean's slope along coordinate ``i`` at ``point``."""
    assert model.mean is not None
    g, hessian = model._quadratic()
    return float(g[i] + hessian[i] @ point)


def edge_slope_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                      centre: np.ndarray) -> np.ndarray:
    """The current answer, each coordinate then moved to an edge where the mean still rises."""
    point: np.ndarray = current_answer(model, low, high, centre).copy()
    if not point.any():
        return point
    for _ in range(model.dim):
        moved = False
        for i in range(model.dim):
            for edge, outward in ((high[i], 1.0), (low[i], -1.0)):
                trial: np.ndarray = point.copy()
                trial[i] = edge
                if point[i] != edge and outward * mean_slope(model, trial, i) > 0.0:
                    point, moved = trial, True
        if not moved:
            break
    return point


@dataclass(frozen=True)
class Variant:
    points: Points = duels.duel_points
    answer: Answer = current_answer
    elo_per_range: float = 2.0  # the prior's curvature guess (the sampler option's default)


VARIANTS = {"current": Variant(), "shifted": Variant(points=shifted_points),
            "gated": Variant(answer=gated_answer), "edge-slope": Variant(answer=edge_slope_answer),
            "flat-prior": Variant(elo_per_range=1.0),
            "baseline-curvature": Variant(points=baseline_curvature_points)}


# -- one run -------------------------------------------------------------------
def run(case: OracleCase, variant: Variant, seed: int, budget: int
        ) -> tuple[list[float], list[float], float]:
    """The loss of the answer and of the model's maximum at every checkpoint, and
    the model's final estimate of the best point's gain over the baseline."""
    low_x, high_x = np.asarray(case.low), np.asarray(case.high)

    def elo(d: np.ndarray) -> float:  # d: unit coordinates relative to the baseline
        return case.elo(low_x + (np.clip(u0 + d, -1.0, 1.0) + 1.0) / 2.0 * (high_x - low_x))

    u0 = 2.0 * (case.start - low_x) / (high_x - low_x) - 1.0
    low, high = -1.0 - u0, 1.0 - u0
    model = QuadraticModel(case.dim, elo_per_range=variant.elo_per_range)
    model.fit()
    centre, fitted_at = np.zeros(case.dim), 0
    pending: list[Observation] = []
    draws = np.random.default_rng(mix_seed(seed, 0xD1CE))
    marks = checkpoints(budget)
    answer_loss: list[float] = []
    centre_loss: list[float] = []
    games = number = 0

    def update(every: bool) -> None:
        nonlocal centre, fitted_at
        for obs in pending:
            model.add(obs)
        new = bool(pending)
        pending.clear()
        if new and (every or model.observations >= fitted_at * duels.REFIT_GROWTH):
            model.fit()
            fitted_at = model.observations
            centre = model.argmax_mean(low, high, centre)

    while True:
        number += 1
        while len(answer_loss) < len(marks) and games >= marks[len(answer_loss)]:
            update(True)
            answer_loss.append(-elo(variant.answer(model, low, high, centre)))
            centre_loss.append(-elo(centre))
        if len(answer_loss) == len(marks):
            best = 2.0 * (np.asarray(case.best) - low_x) / (high_x - low_x) - 1.0 - u0
            return answer_loss, centre_loss, model.gain(best)[0]
        if number % HOLDOUT_EVERY == 0:  # the answer against the baseline, never fitted
            update(True)
            if variant.answer(model, low, high, centre).any():
                games += 2 * PAIRS
                continue
        update(False)
        rng = np.random.default_rng(mix_seed(seed, number, 0x5D))
        sign = rng.choice((-1.0, 1.0), size=case.dim)
        edge_only = rng.random(case.dim) < CURVATURE_SHARE
        plus_side = rng.random(case.dim) < 0.5
        a, b = variant.points(centre, RADIUS, sign, edge_only, plus_side, low, high)
        pairs = game_scores(draws, np.full((PAIRS, 2), elo(a) - elo(b)),
                            case.draw_ratio).mean(axis=1)
        games += 2 * PAIRS
        pending.append(Observation(a, b, float(pairs.mean()), 2 * PAIRS, pairs.tolist()))


def summarise(case: OracleCase, variant: str, seeds: int, budget: int) -> dict[str, object]:
    runs = [run(case, VARIANTS[variant], seed, budget) for seed in range(seeds)]
    marks = checkpoints(budget)
    answers = np.array([r[0] for r in runs])
    centres = np.median(np.array([r[1] for r in runs]), axis=0)
    median = np.median(answers, axis=0)
    return {"case": case.name, "variant": variant, "seeds": seeds,
            "games_to_1_elo": games_to(marks, median, 1.0),
            "games_to_half_elo": games_to(marks, median, 0.5),
            "centre_games_to_1_elo": games_to(marks, centres, 1.0),
            "centre_games_to_half_elo": games_to(marks, centres, 0.5),
            # the truth there is start_elo: how well the model knows what the best point gains
            "model_gain_at_best": round(float(np.mean([r[2] for r in runs])), 3),
            "worse_than_baseline": round(float(
                (answers > case.start_elo + 1e-6).mean(axis=0).max()), 3),
            "checkpoints": marks, "median": [round(float(x), 3) for x in median]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="fishtest,edge", help="comma-separated oracle cases")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help=f"comma-separated, of {', '.join(VARIANTS)}")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=DUELS.budget)
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    args = ap.parse_args()
    cases, variants = args.case.split(","), args.variants.split(",")
    for name in cases:
        if name not in CASES:
            ap.error(f"unknown case {name!r} (known: {', '.join(CASES)})")
    for name in variants:
        if name not in VARIANTS:
            ap.error(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    if args.seeds < 1 or args.budget < 1000:
        ap.error("--seeds must be at least 1 and --budget at least 1000")
    for case in cases:
        for variant in variants:
            start = time.monotonic()
            r = summarise(CASES[case], variant, args.seeds, args.budget)
            if args.json:
                print(json.dumps(r), flush=True)
            else:
                print(f"{case:<10} {variant:<11} to 1 Elo {r['games_to_1_elo'] or '-':>7}  "
                      f"to 0.5 {r['games_to_half_elo'] or '-':>7}   model's maximum "
                      f"{r['centre_games_to_1_elo'] or '-':>7} / "
                      f"{r['centre_games_to_half_elo'] or '-':>7}   worse {r['worse_than_baseline']:.2f}"
                      f"   ({time.monotonic() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
