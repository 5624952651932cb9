"""What the ``duels`` step toward the model's maximum does on a real game: one study
of ``benchmarks/real_optimisers.py`` (the same setup, sampler and seed), with the
model printed along the segment from the answer to the model's maximum at every
budget's answer.

    python benchmarks/step_trace.py --game isolation --seed 0 --budgets 8000,32000

Per answer: the prior's scale, the model's gain over the baseline (mean and sd, Elo)
at the answer before the step and at the model's maximum, how far along the segment
the step went (0: no step, 1: all the way), and at a tenth, a half and all of the way
the step's own mean gain over the answer, its sd and their ratio (the step needs
``step_sd * sqrt(d / 4)``, the ``bar``). It answers why the step moved no real-game
answer (docs/results/optimisers.md, "A step toward the model's maximum").
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_optimisers as ro  # noqa: E402

import heurtune.tuning.samplers.duels as duels  # noqa: E402
from heurtune.tuning.samplers.quadratic import QuadraticModel  # noqa: E402

ALONG = (0.1, 0.5, 1.0)  # where on the segment the step's own gain is shown


def trace(model: QuadraticModel, point: np.ndarray, centre: np.ndarray,
          stepped: np.ndarray, z: float, step_sd: float) -> dict[str, Any]:
    """The model along the segment ``point`` .. ``centre`` and where the step went."""
    span = float(np.linalg.norm(centre - point))
    gain, gain_sd = model.gain(point)
    top, top_sd = model.gain(centre)
    out: dict[str, Any] = {
        "scale": model.scale, "start_scale": model.start_scale,
        "gain": gain, "gain_sd": gain_sd, "max_gain": top, "max_gain_sd": top_sd,
        "span": span, "bar": step_sd * math.sqrt(model.dim / 4.0), "z": z,
        "moved": float(np.linalg.norm(stepped - point)) / span if span > 0 else 0.0,
        "along": []}
    for t in ALONG:
        mean, sd = model.difference(point + t * (centre - point), point)
        out["along"].append({"t": t, "step": mean, "sd": sd,
                             "ratio": mean / sd if sd > 0 else 0.0})
    return out


def run(game: str, seed: int, budgets: Sequence[int]) -> list[dict[str, Any]]:
    """One study with the step traced; per budget, the default answer and the trace
    of the step that made it."""
    traces: list[dict[str, Any]] = []  # every step the study took since the last answer
    marks: list[dict[str, Any] | None] = []  # per budget's answer, the trace of its step
    original: Callable[..., np.ndarray] = duels.step_toward
    answers = ro.study_answers

    def traced(model: QuadraticModel, point: np.ndarray, centre: np.ndarray, z: float,
               step_sd: float) -> np.ndarray:
        stepped = original(model, point, centre, z, step_sd)
        traces.append(trace(model, point, centre, stepped, z, step_sd))
        return stepped

    def answering(*args: Any, **kw: Any) -> Any:
        traces.clear()  # only the answer's own step, not the held-out duels' before it
        found = answers(*args, **kw)
        marks.append(traces[-1] if traces else None)
        return found

    duels.step_toward = traced  # type: ignore[assignment]
    ro.study_answers = answering  # type: ignore[assignment]
    try:
        result = ro.run_one(game, "duels", seed, budgets)
    finally:
        duels.step_toward = original  # type: ignore[assignment]
        ro.study_answers = answers  # type: ignore[assignment]
    out = []
    for checkpoint, mark in zip(result["checkpoints"], marks, strict=True):
        default = next(a for a in checkpoint["answers"] if a["default"])
        out.append({"budget": checkpoint["budget"], "games": checkpoint["games"],
                    "params": default["params"], "trace": mark})
    return out


def line(row: dict[str, Any]) -> str:
    t = row["trace"]
    head = f"{row['budget']:>6} games  answer {row['params']}"
    if t is None:
        return head + "\n        (the baseline: no model yet)"
    along = "  ".join(f"t={a['t']:g}: {a['step']:+.2f} sd {a['sd']:.2f} ({a['ratio']:.2f})"
                      for a in t["along"])
    return (f"{head}\n        scale {t['scale']:g}/{t['start_scale']:g}  gain {t['gain']:+.2f} "
            f"sd {t['gain_sd']:.2f}  at the maximum {t['max_gain']:+.2f} sd {t['max_gain_sd']:.2f}"
            f"  segment {t['span']:.2f} units, stepped {t['moved']:.3f} of it (bar {t['bar']:.2f})"
            f"\n        the step's gain over the answer: {along}")


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--game", default="isolation", help=f"one of {sorted(ro.SETUPS)}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budgets", default="8000", help="comma-separated games spent")
    args = ap.parse_args()
    if args.game not in ro.SETUPS:
        print(f"step_trace: unknown game setup {args.game!r} (known: "
              f"{', '.join(sorted(ro.SETUPS))})", file=sys.stderr)
        return 2
    try:
        budgets = sorted(int(b) for b in args.budgets.split(","))
    except ValueError:
        budgets = []
    if not budgets or budgets[0] <= 0:
        print(f"step_trace: --budgets must be positive integers, not {args.budgets!r}",
              file=sys.stderr)
        return 2
    for row in run(args.game, args.seed, budgets):
        print(line(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
