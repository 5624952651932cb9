"""Play points of a real box against its baseline: a weight's profile, an answer taken
apart weight by weight, two points against each other.

    python benchmarks/one_weight.py --setup isolation-eight --point distance=-0.35 \\
        --point distance=-0.1 --point own2=1,distance=-0.35 [--against distance=0.65] \\
        [--pairs 500] [--plies 3] [--seed 7]
    python benchmarks/one_weight.py --setup isolation-eight --answer own_start=4,own2=1,distance=-0.35 \\
        --plies 4 --seed 20261124

A setup of benchmarks/real_optimisers.py (its game, heuristic, search and pinned
weights); every ``--point`` (``name=value,...``: the weights it moves from the
defaults) plays ``--pairs`` symmetry-distinct opening pairs of ``--plies`` plies, drawn
from ``--seed``, against the baseline (the defaults) or against ``--against``. With
``--answer``: the answer itself, then each of its weights put back to its default
(the rest as the answer has them), then each weight alone at the answer's value
(the rest at the defaults). One line per point: its Elo over the opponent with the
95% interval (``heurtune.match.stats``). Deterministic: alpha-beta with first-found
ties, and the openings drawn from the seed.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_optimisers import SETUPS, Setup  # noqa: E402

from heurtune.match import MatchRunner, MatchSpec, stats_of  # noqa: E402
from heurtune.match.stats import elo  # noqa: E402


def parse_point(text: str, setup: Setup) -> dict[str, float]:
    """``name=value,...`` as weights of the setup's box (ValueError: what is wrong)."""
    point: dict[str, float] = {}
    for part in filter(None, text.split(",")):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in setup.box:
            raise ValueError(f"{part!r} is not NAME=VALUE with NAME one of "
                             f"{', '.join(setup.box)}")
        try:
            point[name] = float(value)
        except ValueError:
            raise ValueError(f"{part!r}: {value!r} is not a number") from None
    return point


def play(setup: Setup, a: dict[str, Any], b: dict[str, Any] | None, pairs: int, seed: int,
         plies: int) -> tuple[float, float, float]:
    """``a``'s Elo over ``b`` (None: the baseline) and its 95% interval."""
    spec = MatchSpec(setup.engine(a), setup.baseline() if b is None else setup.engine(b, "b"),
                     pairs, seed, plies, by_symmetry=True)
    with MatchRunner(1) as runner:
        played = list(runner.iter_pairs(spec, list(spec.openings())))
    st = stats_of(played)
    low, high = st.score_ci
    return st.elo, elo(low, st.games), elo(high, st.games)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setup", required=True, help=f"one of {', '.join(SETUPS)}")
    ap.add_argument("--point", action="append", default=[], help="NAME=VALUE,... (repeatable)")
    ap.add_argument("--answer", help="NAME=VALUE,...: the answer, taken apart weight by weight")
    ap.add_argument("--against", help="NAME=VALUE,...: the opponent (default: the baseline)")
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--plies", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if args.setup not in SETUPS:
        ap.error(f"unknown setup {args.setup!r} (known: {', '.join(SETUPS)})")
    if args.pairs < 1 or args.plies < 0:
        ap.error("--pairs must be at least 1 and --plies at least 0")
    setup = SETUPS[args.setup]
    defaults = {k: float(setup.baseline().params[k]) for k in setup.box}
    try:
        rows = [(p, parse_point(p, setup)) for p in args.point]
        answer = {**defaults, **parse_point(args.answer, setup)} if args.answer else None
        against = parse_point(args.against, setup) if args.against else None
    except ValueError as e:
        ap.error(str(e))
    if answer is not None:
        rows.append(("the answer", answer))
        rows += [(f"the answer, {k} at its default", {**answer, k: defaults[k]}) for k in answer]
        rows += [(f"the defaults, {k} = {answer[k]:g}", {**defaults, k: answer[k]})
                 for k in answer if answer[k] != defaults[k]]
    if not rows:
        ap.error("give --point or --answer")
    width = max(len(label) for label, _p in rows)
    for label, point in rows:
        e, low, high = play(setup, point, against, args.pairs, args.seed, args.plies)
        print(f"{label:<{width}}  {e:+7.1f} Elo [{low:+.0f}, {high:+.0f}]", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
