"""What tells an optimum on the box's edge from a model maximum that overshoots to it?
The diagnosis behind the ``duels`` answer's ``edge_answer = "curved"`` rule.

    python benchmarks/edge_moves.py CASES SEEDS [BUDGET]     # e.g. edge,far,offcentre 12

It plays the duels stand-in (benchmarks/duels_variants.py) with the answer as it
was before the rule (``edge-off``: the point of highest lower bound) and, at every
answer, records each coordinate that moving toward an edge (``edge_answer =
"always"``) would move: the true gain of moving that coordinate alone, the outward
slope at the model's maximum (mean / sd), the model's mean / sd for the move, and the
fitted curvature against the prior's. Per case it prints the moves' mean true gain
when every move is made and when only those a test passes are, per move recorded
(so a test that keeps the gain and drops the losses shows as the "all" figure where
it gains and near zero where it loses):

* ``slope > 0``: the outward slope at the maximum above zero (its mean);
* ``move > 0.3 sd``: the model's mean gain of the move 0.3 sd above zero;
* ``curved``: the fitted curvature at least the prior's (the rule);
* ``guarded``: ``curved`` and, as the rule's guard (``edge_move_sd``, its default),
  the model's mean gain of the move itself that many sd above zero (here of each
  coordinate's move alone; the sampler tests the move of all of them together).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import duels_variants as dv  # noqa: E402
from oracle import check_cases  # noqa: E402  (benchmarks/oracle.py)

from heurtune.engine.heuristics.oracle import CASES, OracleCase  # noqa: E402
from heurtune.errors import HeurtuneError  # noqa: E402
from heurtune.tuning.samplers.quadratic import QuadraticModel  # noqa: E402
from heurtune.tuning.samplers.registry import SAMPLERS  # noqa: E402

GUARD = float(SAMPLERS["duels"].options["edge_move_sd"].default)  # the guard, its default


def moves(case: OracleCase, seeds: int, budget: int) -> list[dict[str, float]]:
    """Every coordinate move the ``always`` rule would make, over the seeds' answers."""
    found: list[dict[str, float]] = []
    elo = dv.relative_elo(case)

    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        point = dv.lcb_answer(model, low, high, centre)
        always = dv.edge_gated_answer(model, low, high, centre)
        near_high, near_low = dv.near_edges(centre, dv.RADIUS, low, high)
        d = model.dim
        assert model.mean is not None
        curved = model.curved()
        for i in np.flatnonzero(near_high | near_low):
            if abs(always[i] - point[i]) < 1e-9:
                continue
            moved = point.copy()
            moved[i] = always[i]
            move, move_sd = model.difference(moved, point)
            slope, slope_sd = model.slope(centre, i)
            outward = 1.0 if near_high[i] else -1.0
            found.append({
                "gain": elo(moved) - elo(point),
                "slope_t": outward * slope / slope_sd,
                "move_t": move / max(move_sd, 1e-12),
                "curved": float(curved[i]),
                "h": float(model.mean[d + i]),
                "prior_h": -model.elo_per_range * model.scale})
        return point

    variant = dv.Variant(answer=answer)
    for seed in range(seeds):
        dv.run(case, variant, seed, budget, aligned=True)
    return found


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    names = sys.argv[1].split(",")
    try:
        seeds = int(sys.argv[2])
        budget = int(sys.argv[3]) if len(sys.argv) == 4 else 32000
    except ValueError:
        seeds = budget = 0
    if seeds < 1 or budget < 1000:
        print("edge_moves.py: SEEDS must be a whole number of at least 1 and BUDGET one of "
              "at least 1000", file=sys.stderr)
        return 2
    try:
        check_cases(names)
    except HeurtuneError as e:
        print(e, file=sys.stderr)
        return 2
    print(f"{'case':<10} {'moves':>6} {'all':>7} {'slope > 0':>10} {'move > 0.3 sd':>14} "
          f"{'curved':>7} {'guarded':>8}   curvature steeper than the prior's")
    for name in names:
        found = moves(CASES[name], seeds, budget)
        if not found:
            print(f"{name:<10} {0:>6}")
            continue
        gain = np.array([m["gain"] for m in found])

        def kept(mask: np.ndarray, gain: np.ndarray = gain) -> str:
            return f"{gain[mask].sum() / len(gain):+.3f}"
        curved = np.array([m["curved"] for m in found]) > 0.5
        move_t = np.array([m["move_t"] for m in found])
        print(f"{name:<10} {len(found):>6} {gain.mean():>+7.3f} "
              f"{kept(np.array([m['slope_t'] for m in found]) > 0):>10} "
              f"{kept(move_t > 0.3):>14} {kept(curved):>7} {kept(curved & (move_t > GUARD)):>8}"
              f"   {curved.mean():.1%} (fitted mean "
              f"{np.mean([m['h'] for m in found]):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
