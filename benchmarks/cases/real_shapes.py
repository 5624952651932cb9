"""Oracle cases shaped after a real box the oracle's bowls did not foresee: Isolation
``weighted`` in eight parameters (``isolation-eight`` of benchmarks/real_optimisers.py),
where every ``duels`` answer confirmed below the baseline. Load them with ``--cases``:

    python benchmarks/oracle.py --cases benchmarks/cases/real_shapes.py --case spike \
        --optimisers duels,spsa,multivariate-tpe --seeds 20 --budget 32000

Measured on that box (one weight moved from the defaults, the rest at them, 1,000
games against the defaults, docs/results/optimisers.md, "A real box with cusps"):
``distance`` (the squared distance between the knights, range -1 to 1) is a spike at
its default 0, about 0.1 wide: +3.5 Elo at -0.05, -29 at -0.1, -62 at -0.2, -100 at
-0.35, -140 at -1; -8 at +0.05, -76 at +0.1, -185 at +0.3, -231 at +0.65.
``centrality`` (range -2 to 2) drops as sharply off its default 0 on one side (-162 at
-0.5, -244 at -2) and recovers slowly on the other (-35 at +0.5, -22 at +1, -15 at +2).
Duels a radius (half the range) wide see the smooth flanks, not the spike between them.

``spike``
    4 parameters on [0, 200], the baseline at 100 in each. Two bowls, 30 Elo per half
    range squared, optima at 160 and 40 (21.6 Elo to gain); two spikes at the
    baseline's value, their flanks in half ranges ``u`` from it: a ``centrality``-like
    one, ``60 (exp(-|u| / 0.1) - 1) + 20 - 20 (u - 1)^2`` (-40 Elo at the upper bound,
    -120 at the lower one), and a ``distance``-like one, ``D (exp(-|u| / 0.2) - 1)``
    with ``D`` 150 below and 230 above. The in-box best is the bowls' optima with the
    spikes at the baseline's value.
"""

from __future__ import annotations

import numpy as np

from heurtune.engine.heuristics.oracle import CASES, define_case

HALF = 100.0  # half the range [0, 200]


def spike(x: np.ndarray) -> float:
    """The ``spike`` case's Elo (0 at its best)."""
    u = (np.asarray(x, dtype=float) - 100.0) / HALF
    bowls = -30.0 * ((u[0] - 0.6) ** 2 + (u[1] + 0.6) ** 2)
    centrality = 60.0 * (np.exp(-abs(u[2]) / 0.1) - 1.0) + 20.0 - 20.0 * (u[2] - 1.0) ** 2
    depth = 150.0 if u[3] < 0 else 230.0
    distance = depth * (np.exp(-abs(u[3]) / 0.2) - 1.0)
    return float(bowls + centrality + distance)


if "spike" not in CASES:
    define_case("spike", spike, (0.0,) * 4, (200.0,) * 4, optimum=(160.0, 40.0, 100.0, 100.0),
                baseline=(100.0,) * 4, start_elo=21.6,
                description="two bowls and two spikes at the baseline's value (shaped after "
                            "isolation-eight's distance and centrality)")
