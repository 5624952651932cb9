"""``skewed`` turned round: the same lopsided bowl with the baseline on its gentle side.
Load it with ``--cases``:

    python benchmarks/oracle.py --cases benchmarks/cases/orientation.py \
        --case skewed_flat --optimisers duels,spsa --seeds 24

The built-in ``skewed`` (4 parameters on [0, 200], optimum at 60, four times steeper
above it) puts its baseline as fishtest's simulator does, toward the farthest corner
(200), which lies on the steep side: at 85 in each, 2 Elo below. A quadratic fitted
across the kink puts its maximum on the gentle side of the optimum, so in
``skewed`` an answer held back toward the baseline lands nearer the optimum by where
the baseline happens to lie. This case asks what the same caution does where the
baseline lies on the other side.

``skewed_flat``
    4 parameters on [0, 200], optimum at 60, four times steeper *below* it (2 Elo per
    half range squared above, 8 below), the baseline toward the farthest corner (200),
    now on the gentle side: 2 Elo below (at 110 in each).
"""

from __future__ import annotations

import numpy as np

from heurtune.engine.heuristics.oracle import CASES, define_case

OPTIMUM = 60.0
SKEWED = CASES["skewed"].function  # 2 Elo per half range squared below 60, 4 times that above


def skewed_flat(x: np.ndarray) -> float:
    """The ``skewed_flat`` case's Elo (0 at its best): ``skewed``'s, mirrored about the
    optimum."""
    return SKEWED(2.0 * OPTIMUM - np.asarray(x, dtype=float))


if "skewed_flat" not in CASES:
    define_case("skewed_flat", skewed_flat, (0.0,) * 4, (200.0,) * 4, optimum=(OPTIMUM,) * 4,
                description="skewed with the baseline on the gentle side: 4 parameters, "
                            "optimum at 60, four times steeper below it")
