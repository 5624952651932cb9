"""Oracle cases shaped after a real box the oracle's bowls did not foresee: Isolation
``weighted`` in eight parameters (``isolation-eight`` of benchmarks/real_optimisers.py),
where every ``duels`` answer confirmed below the baseline. Load them with ``--cases``:

    python benchmarks/oracle.py --cases benchmarks/cases/real_shapes.py --case spike \
        --optimisers duels,spsa,multivariate-tpe --seeds 20 --budget 32000

Measured on that box (one weight moved from the defaults, the rest at them, 1,000
games against the defaults, research/optimisers-log.md, "A real box with cusps"):
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

``cliff``
    4 parameters on [0, 200], the baseline at 100 in each, 6.1 Elo below the best. Each
    is ``morris-fine``'s ``move_blocked`` as measured (a half range is 2.125 of its
    units): a top 0.5 of them (23.5 here) above the baseline, 1.5 Elo higher; on the
    top's far side ``-5.6 t^2`` (``t`` in those units from the top: -20.9 at the
    gentle bound), on the baseline's side that and a cliff ``0.074 (exp(-t / 0.35) - 1
    + t / 0.35)`` (-72 at the cliff's bound); the second and fourth mirrored. Draws 33%,
    as in that box's tuning.
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


# -- ``cliff``: shaped after morris-fine (2026-11-28) -------------------------------
# Measured there (`move_blocked`, range 0 to 4.25, the tuned baseline 1.75; 5,000 games
# per point against the baseline, research/optimisers-log.md, "Fine-tuning a real tuned
# point: Morris"): -71 at 0, -11.3 at 1, -4.8 at 1.25, -1.6 at 1.5, +2.5 at 2, +1.2 at
# 2.25, +1.8 at 2.5, -1.4 at 2.75, -2.2 at 3, -6.3 at 3.5, -20.4 at 4.25: a flat top a
# few Elo above the baseline, a gentle bowl on one side and a cliff on the other.
CLIFF_T = 2.125  # move_blocked per half range
CLIFF_C = 5.6  # Elo per move_blocked squared on the gentle side (-22.4 at 2 from the top)
CLIFF_K, CLIFF_S = 0.074, 0.35  # the cliff: K (exp(-t / S) - 1 + t / S), t below the top
CLIFF_TOP = 0.5 / CLIFF_T  # the top, in half ranges above the baseline (2.25 against 1.75)


def cliff_one(v: float) -> float:
    """One ``cliff`` parameter's Elo, ``v`` in half ranges from the baseline (the cliff
    below), 0 at its top."""
    t = (v - CLIFF_TOP) * CLIFF_T
    out = -CLIFF_C * t * t
    if t < 0:
        out -= CLIFF_K * (np.exp(-t / CLIFF_S) - 1.0 + t / CLIFF_S)
    return float(out)


def cliff(x: np.ndarray) -> float:
    """The ``cliff`` case's Elo (0 at its best): four parameters shaped as
    ``move_blocked``, the second and fourth mirrored (their cliff above)."""
    u = (np.asarray(x, dtype=float) - 100.0) / HALF
    return sum(cliff_one(float(u[i]) if i % 2 == 0 else -float(u[i])) for i in range(4))


if "cliff" not in CASES:
    _top = CLIFF_TOP * HALF
    define_case("cliff", cliff, (0.0,) * 4, (200.0,) * 4,
                optimum=(100.0 + _top, 100.0 - _top, 100.0 + _top, 100.0 - _top),
                baseline=(100.0,) * 4, start_elo=-4.0 * cliff_one(0.0), draw_ratio=0.33,
                description="a flat top beside a cliff in every parameter, the baseline on "
                            "the top's cliff side (shaped after morris-fine's move_blocked)")
