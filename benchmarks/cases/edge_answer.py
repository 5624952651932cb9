"""Oracle cases for the duels answer at the box's edge (``edge_answer``): landscapes
the rule was not designed on, defined before any of them was run (the rule was chosen
on ``edge``, ``far``, ``fishtest`` and ``offcentre``). Load them with ``--cases``:

    python benchmarks/oracle.py --cases benchmarks/cases/edge_answer.py \
        --case near_edge --optimisers duels,spsa --seeds 24

Each is 4 parameters on [0, 200], 2 Elo per half range squared unless said, the
baseline 2 Elo below the in-box best unless said (research/optimisers-log.md, "An
answer that moves to the edge").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from heurtune.engine.heuristics.oracle import CASES, bowls, define_case, rotated_bowl


def case(name: str, elo: Callable[[np.ndarray], float], **kw: object) -> None:
    """Define a case on the box [0, 200]^4 (once: a second load keeps the first)."""
    if name not in CASES:
        define_case(name, elo, (0.0,) * 4, (200.0,) * 4, **kw)  # type: ignore[arg-type]


case("edge_flat", bowls((1.0,) * 4, (200.0, 215.0, 0.0, -15.0)),
     description="edge's geometry, 1 Elo per half range squared (flatter than the prior)")
case("edge_steep", bowls((4.0,) * 4, (200.0, 215.0, 0.0, -15.0)),
     description="edge's geometry, 4 Elo per half range squared (steeper than the prior)")
case("edge_distant", bowls((2.0,) * 4, (200.0, 215.0, 0.0, -15.0)), start_elo=8.0,
     description="edge's optimum, the baseline 8 Elo below (the edge a radius from it)")
case("near_edge", bowls((2.0,) * 4, (180.0, 180.0, 20.0, 20.0)),
     optimum=(180.0, 180.0, 20.0, 20.0),
     description="optimum inside, a fifth of a half range from the bound")
case("half_edge", bowls((2.0,) * 4, (200.0, 0.0, 70.0, 130.0)),
     description="two parameters at the edge, two inside")
case("edge_rotated", rotated_bowl((4.0, 2.0, 1.0, 0.5), (230.0, 210.0, -20.0, -10.0), seed=3),
     description="a turned bowl whose best lies beyond a corner")
case("far_steep", bowls((4.0,) * 4, (40.0, 40.0, 160.0, 160.0)),
     optimum=(40.0, 40.0, 160.0, 160.0), start_elo=10.0,
     description="far's geometry, 4 Elo per half range squared")
case("edge_mixed", bowls((0.5, 1.0, 2.0, 4.0), (200.0, 200.0, 0.0, 0.0)),
     description="unequal sensitivities at the edge")
case("outside", bowls((2.0,) * 4, (300.0, 100.0, -100.0, 100.0)),
     description="best beyond the box")
