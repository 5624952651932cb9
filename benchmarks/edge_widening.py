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
surer with the games while the false ones' does not; then, by the same bands, two
other signals a gate could use: the plain fit's slope through the edge at the bound
(its maximum moved onto the bound), in sd, and for how many checkpoints in a row the
coordinate has widened toward that edge (10%, median, 90%).
docs/results/optimisers.md, "A bar on the slope toward the edge", "Confirming on fresh
seeds" and "Two more signals" quote it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import duels_variants as stand_in  # noqa: E402

from heurtune.tuning.samplers.duels import nearer_bound  # noqa: E402
from heurtune.tuning.samplers.quadratic import QuadraticModel  # noqa: E402

Row = tuple[str, float, int, float, int]


def widened(case_name: str, seeds: int, budget: int, from_games: int,
            variant: str) -> list[Row]:
    """Per widened coordinate-checkpoint: its side (``toward`` / ``away``), the
    plain fit's slope toward its edge in sd at the baseline, the games spent, the
    plain fit's slope through that edge at its bound (the plain fit's maximum moved
    onto it) in sd, and for how many checkpoints in a row (this one included) the
    coordinate has been widened toward the same edge."""
    case = stand_in.CASES[case_name]
    _low, _high, best = stand_in.relative_box(case)
    rows: list[Row] = []
    streak: dict[tuple[int, float], int] = {}

    def look(games: int, model: QuadraticModel, low: np.ndarray, high: np.ndarray,
             centre: np.ndarray) -> None:
        if model.widen is None:
            streak.clear()
            return
        widen, model.widen = model.widen, None
        model.fit()  # the plain fit, which the bar asks
        up = nearer_bound(centre, low, high)
        z = model.slope_toward(up)
        top = model.argmax_mean(low, high, centre)
        now = {(int(i), float(up[i])) for i in np.flatnonzero(widen > 1.0)}
        for key in list(streak):
            if key not in now:
                del streak[key]
        for key in now:
            streak[key] = streak.get(key, 0) + 1
        for i, side in sorted(now):
            if games < from_games:
                continue
            edge = high[i] if side > 0 else low[i]
            at = top.copy()
            at[i] = edge
            mean, sd = model.slope(at, i)
            rows.append(("toward" if edge * best[i] > 0 else "away", float(z[i]), games,
                         side * mean / max(sd, 1e-300), streak[(i, side)]))
        model.widen = widen
        model.fit()

    for seed in range(seeds):
        streak.clear()
        stand_in.run(case, stand_in.VARIANTS[variant], seed, budget, aligned=True,
                     on_checkpoint=look)
    return rows


def bands(rows: list[Row], first: int, budget: int) -> Iterator[tuple[int, list[Row]]]:
    """The rows by bands of games, each twice the last from ``first`` while below
    ``budget``: (the band's first games, its rows from there up to, not including,
    twice as many)."""
    low = first
    while low < budget:
        yield low, [r for r in rows if low <= r[2] < 2 * low]
        low *= 2


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
    for low, band in bands(rows, a.from_games, a.budget):
        cells = []
        for side in ("toward", "away"):
            z = np.array([r[1] for r in band if r[0] == side])
            cells.append(f"{side} {len(z)}" + (f" median {np.median(z):.2f}" if len(z) else ""))
        print(f"  {low}-{2 * low} games: " + "; ".join(cells))
    print(f"  (each band from its first games up to, not including, twice as many: the "
          f"checkpoint at {a.budget} games is in the counts above only)")
    # two other signals, by the same bands: the plain fit's slope through the edge at
    # the bound (sd), and the checkpoints in a row the coordinate has widened
    print("  the plain fit's slope through the edge at the bound (median sd) and checkpoints "
          "in a row widened toward it (10%/median/90%):")
    for low, band in bands(rows, a.from_games, a.budget):
        cells = []
        for side in ("toward", "away"):
            own = [r for r in band if r[0] == side]
            if own:
                top = np.median([r[3] for r in own])
                run = np.quantile([r[4] for r in own], [0.1, 0.5, 0.9])
                cells.append(f"{side} slope at the bound {top:.2f}, in a row "
                             f"{run[0]:.0f}/{run[1]:.0f}/{run[2]:.0f}")
            else:
                cells.append(f"{side} none")
        print(f"    {low}-{2 * low} games: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
