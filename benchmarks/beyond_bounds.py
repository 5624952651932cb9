"""How often answers say the best may lie beyond the box (QuadraticModel.beyond), on
the simulated oracle: the duels stand-in (benchmarks/duels_variants.py) to a budget,
then, per seed, whether the model's maximum lies on a bound, and whether its slope
through it is above zero by z = 0, 1, 2 sd (the sampler uses BEYOND_Z = 2).

    python benchmarks/beyond_bounds.py CASES SEEDS      # e.g. edge,far 12

Besides the built-in cases it defines two whose best lies outside the box:
``outside`` (2 Elo per half range squared, x1's and x3's best a half range beyond
the upper and lower bound) and ``steep`` (the same at 20 Elo).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import duels_variants as dv  # noqa: E402
from oracle import check_cases  # noqa: E402  (benchmarks/oracle.py)

from heurtune.engine.heuristics import oracle  # noqa: E402
from heurtune.errors import HeurtuneError  # noqa: E402
from heurtune.tuning.samplers.quadratic import QuadraticModel  # noqa: E402

BUDGETS = (8000, 16000, 32000)
for _name, _elo in (("outside", 2.0), ("steep", 20.0)):
    if _name not in oracle.CASES:
        oracle.define_case(_name, oracle.bowls((_elo,) * 4, (300.0, 100.0, -100.0, 100.0)),
                           (0.0,) * 4, (200.0,) * 4,
                           description=f"{_elo:g} Elo per half range squared, x1's and x3's "
                                       "best a half range outside the box")


def on_bounds(model: QuadraticModel, case: oracle.OracleCase) -> list[tuple[float, float]]:
    """(outward slope mean, sd) for every bound the model's maximum lies on."""
    low, high, _best = dv.relative_box(case)
    return [(mean, sd) for _i, _side, mean, sd in model.on_bounds(low, high)]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    names, seeds = sys.argv[1].split(","), int(sys.argv[2])
    try:
        check_cases(names)
    except HeurtuneError as e:
        print(e, file=sys.stderr)
        return 2
    found: list[list[tuple[float, float]]] = []
    for name in names:
        case = oracle.CASES[name]

        def record(model: QuadraticModel, best: object, gain: object,
                   case: oracle.OracleCase = case) -> dict[str, object]:
            found.append(on_bounds(model, case))  # the final posterior of each run
            return {}
        dv.posterior_path = record
        for budget in BUDGETS:
            found.clear()
            for seed in range(seeds):
                dv.run(case, dv.VARIANTS["current"], seed, budget)
            fires = [sum(any(m > z * s for m, s in f) for f in found) for z in (0, 1, 2)]
            print(f"{name:<9} {budget:>6} games, {seeds} seeds: the maximum on a bound in "
                  f"{sum(bool(f) for f in found)}; slope above zero by 0 / 1 / 2 sd in "
                  f"{fires[0]} / {fires[1]} / {fires[2]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
