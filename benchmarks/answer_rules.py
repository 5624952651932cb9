"""Answer rules of ``duels`` compared on the very same runs: every rule reads its answer
off the same model at the same checkpoints, so their differences are the rules' alone.

    python benchmarks/answer_rules.py --case fishtest,edge [--rules current,step-off,centre]
                                      [--seeds 40] [--first-seed 0] [--budget 64000] [--workers 2]
                                      [--cases MY_CASES.py] [--json]

It plays the duels stand-in (benchmarks/duels_variants.py, with ``--aligned``
streams) once per case and seed and, at every checkpoint, asks each rule for its
answer from the model as it is then. An answer decides almost nothing the model
sees: held-out duels are never fitted, so the model's path is the one ``current``
(heurtune's ``duels``) takes, whatever the rule. (The one exception: a held-out slot
whose answer is the baseline itself plays an ordinary duel instead, so a rule that
answers the baseline where ``current`` does not, or the other way round, would have
seen a duel more or less there; only early on, and the same for every rule here.)
So the rules pair exactly, seed for seed and checkpoint for checkpoint, and a few
hundredths of an Elo resolve where separate runs need many more seeds.

The rules are the stand-in's variants that differ from ``current`` in their answer
only (``step-off``, ``step-0.6``, ``edge-off``, ``gated``, ``z-half`` ...), and
``centre``: the model's own maximum, where the duels are centred (no lower bound: the
boldest answer the model gives, and a bound on what a rule moving toward it gains).

Per case and rule: games until the median answer is within 1 Elo and 0.5 Elo,
the mean loss at 4,000 games and every doubling, its paired difference from the
first rule with its standard error, and the seed-checkpoints whose answer is worse
than the baseline. ``--json``: one object per case and rule, with every seed's losses.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import sys
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import duels_variants as dv  # noqa: E402
from oracle import (  # noqa: E402
    WORSE,
    check_cases,
    checkpoints,
    games_to,
    load_cases,
    paired_losses,
)

from heurtune.engine.heuristics.oracle import CASES  # noqa: E402
from heurtune.errors import HeurtuneError  # noqa: E402
from heurtune.tuning.samplers.quadratic import QuadraticModel  # noqa: E402

CENTRE = "centre"


def centre_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                  centre: np.ndarray) -> np.ndarray:
    """The model's maximum itself."""
    return centre


def answer_rules() -> dict[str, dv.Answer]:
    """Every variant of the stand-in that differs from ``current`` in its answer
    only, and the model's maximum."""
    rules = {name: v.answer for name, v in dv.VARIANTS.items()
             if v == dv.Variant(answer=v.answer)}  # ``current`` among them
    rules[CENTRE] = centre_answer
    return rules


def one_run(task: tuple[str, int, int, tuple[str, ...], tuple[str, ...]]
            ) -> tuple[str, int, dict[str, list[float]]]:
    """One case and seed: every rule's loss at every checkpoint (Elo below the in-box
    best)."""
    name, seed, budget, rules, extra = task
    load_cases(list(extra))
    case = CASES[name]
    elo = dv.relative_elo(case)
    table = answer_rules()
    losses: dict[str, list[float]] = {r: [] for r in rules}

    def read(_games: int, model: QuadraticModel, low: np.ndarray, high: np.ndarray,
             centre: np.ndarray) -> None:
        for r in rules:
            losses[r].append(round(-elo(table[r](model, low, high, centre)), 4))
    dv.run(case, dv.VARIANTS["current"], seed, budget, aligned=True, on_checkpoint=read)
    return name, seed, losses


def summarise(case: str, rules: Sequence[str], budget: int,
              runs: Sequence[dict[str, list[float]]]) -> list[dict[str, object]]:
    """Per rule, the figures of the module's docstring (the first rule the base of
    the paired differences)."""
    marks = checkpoints(budget)
    start = CASES[case].start_elo
    base = np.array([r[rules[0]] for r in runs])
    out = []
    for rule in rules:
        losses = np.array([r[rule] for r in runs])
        median = np.median(losses, axis=0)
        out.append({"case": case, "rule": rule, "seeds": len(runs),
                    "games_to_1_elo": games_to(marks, median, 1.0),
                    "games_to_half_elo": games_to(marks, median, 0.5),
                    "mean": {str(g): round(float(losses[:, marks.index(g)].mean()), 3)
                             for g in (4000, 8000, 16000, 32000, 64000) if g in marks},
                    "minus": rules[0],
                    "paired": {k: v for k, v in paired_losses(marks, base, losses).items()
                               if int(k) >= 4000},
                    "worse_than_baseline": int((losses > start + WORSE).sum()),
                    "checkpoints": marks,
                    "losses": losses.tolist()})
    return out


def line(r: dict[str, object]) -> str:
    mean = " ".join(f"{v:.2f}" for v in r["mean"].values())  # type: ignore[attr-defined]
    paired = " ".join(f"{v[0]:+.2f}({v[1]:.2f})"
                      for v in r["paired"].values())  # type: ignore[attr-defined]
    return (f"{r['case']:<12} {r['rule']:<14} to 1 Elo {r['games_to_1_elo'] or '-':>6}  "
            f"to 0.5 {r['games_to_half_elo'] or '-':>6}  mean loss {mean}  minus "
            f"{r['minus']} {paired}  worse {r['worse_than_baseline']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="fishtest,edge", help="comma-separated oracle cases")
    ap.add_argument("--cases", action="append", default=[], metavar="FILE.py",
                    help="a file whose define_case calls add cases (repeatable)")
    ap.add_argument("--rules", default="current,step-off,centre",
                    help="comma-separated; the first is the base of the paired differences")
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first-seed", type=int, default=0,
                    help="run seeds N, N+1, ... (fresh seeds for a rule chosen on others)")
    ap.add_argument("--budget", type=int, default=64000)
    ap.add_argument("--workers", type=int, default=2, help="processes, one core each")
    ap.add_argument("--json", action="store_true", help="one JSON object per case and rule")
    args = ap.parse_args()
    cases, rules = args.case.split(","), args.rules.split(",")
    try:
        load_cases(args.cases)
        check_cases(cases)
    except HeurtuneError as e:
        ap.error(str(e))
    known = answer_rules()
    for rule in rules:
        if rule not in known:
            ap.error(f"unknown rule {rule!r} (known: {', '.join(known)})")
    if args.seeds < 1 or args.budget < 1000 or args.workers < 1 or args.first_seed < 0:
        ap.error("--seeds and --workers must be at least 1, --budget at least 1000 and "
                 "--first-seed at least 0")
    extra = tuple(str(Path(f).resolve()) for f in args.cases)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    tasks = [(c, s, args.budget, tuple(rules), extra) for c in cases for s in seeds]
    found: dict[str, dict[int, dict[str, list[float]]]] = {c: {} for c in cases}
    with Pool(args.workers) as pool:
        for name, seed, losses in pool.imap_unordered(one_run, tasks):
            found[name][seed] = losses
            if len(found[name]) == args.seeds:
                runs = [found[name][s] for s in seeds]
                for r in summarise(name, rules, args.budget, runs):
                    print(json.dumps(r) if args.json else line(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
