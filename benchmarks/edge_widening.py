"""Where ``edge_prior`` widens, on the stand-in: a diagnosis for the ``duels`` sampler.

    python benchmarks/edge_widening.py --case fishtest [--seeds 60] [--budget 16000]
                                       [--from-games 3000] [--variant edge-prior-4]

Runs ``benchmarks/duels_variants.py``'s stand-in (``--aligned`` streams) and, at every
checkpoint from ``--from-games`` on where the variant's fit has widened its prior, looks
at each widened coordinate: whether its edge lies on the in-box best's side of the
baseline (``toward``) or on the other side (``away``: the fit's maximum went to an edge
the truth does not favour), and the plain fit's slope at the baseline toward that edge,
in posterior sd (the quantity ``edge_prior_slope_z`` bars). Prints one line of counts
and the slope's quantiles per side, then the slope's median per side in bands of games
(each band twice the last, from ``--from-games``): whether a true edge's slope grows
surer with the games while the false ones' does not. docs/results/optimisers.md, "A
bar on the slope toward the edge" and "Confirming on fresh seeds", quotes it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import duels_variants as stand_in  # noqa: E402

from heurtune.tuning.samplers.duels import nearer_bound  # noqa: E402
from heurtune.tuning.samplers.quadratic import QuadraticModel  # noqa: E402


def widened(case_name: str, seeds: int, budget: int, from_games: int,
            variant: str) -> list[tuple[str, float, int]]:
    """Per widened coordinate-checkpoint: its side (``toward`` / ``away``), the
    plain fit's slope toward its edge in sd, and the games spent."""
    case = stand_in.CASES[case_name]
    _low, _high, best = stand_in.relative_box(case)
    rows: list[tuple[str, float, int]] = []

    def look(games: int, model: QuadraticModel, low: np.ndarray, high: np.ndarray,
             centre: np.ndarray) -> None:
        if games < from_games or model.widen is None:
            return
        widen, model.widen = model.widen, None
        model.fit()  # the plain fit, which the bar asks
        up = nearer_bound(centre, low, high)
        z = model.slope_toward(up)
        for i in np.flatnonzero(widen > 1.0):
            edge = high[i] if up[i] > 0 else low[i]
            rows.append(("toward" if edge * best[i] > 0 else "away", float(z[i]), games))
        model.widen = widen
        model.fit()

    for seed in range(seeds):
        stand_in.run(case, stand_in.VARIANTS[variant], seed, budget, aligned=True,
                     on_checkpoint=look)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", default="fishtest", choices=sorted(stand_in.CASES))
    parser.add_argument("--seeds", type=int, default=60)
    parser.add_argument("--budget", type=int, default=16000)
    parser.add_argument("--from-games", type=int, default=3000)
    parser.add_argument("--variant", default="edge-prior-4", choices=sorted(stand_in.VARIANTS))
    a = parser.parse_args(argv)
    rows = widened(a.case, a.seeds, a.budget, a.from_games, a.variant)
    print(f"{a.case} {a.variant} {a.seeds} seeds, {a.from_games}-{a.budget} games: "
          f"{len(rows)} widened coordinate-checkpoints")
    for side in ("toward", "away"):
        z = np.array([r[1] for r in rows if r[0] == side])
        q = np.round(np.quantile(z, [0.0, 0.1, 0.5, 0.9, 1.0]), 2).tolist() if len(z) else []
        share = f", {np.mean(z >= 1.0):.2f} at 1 sd or more" if len(z) else ""
        print(f"  edge {side} the best: {len(z)}; plain fit's slope toward it (sd) "
              f"min, 10%, median, 90%, max {q}{share}")
    low = a.from_games
    while low < a.budget:
        cells = []
        for side in ("toward", "away"):
            z = np.array([r[1] for r in rows if r[0] == side and low <= r[2] < 2 * low])
            cells.append(f"{side} {len(z)}" + (f" median {np.median(z):.2f}" if len(z) else ""))
        print(f"  {low}-{2 * low} games: " + "; ".join(cells))
        low *= 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
