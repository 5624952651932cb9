"""Oracle cases in more than four parameters, for the ``duels`` step's bar
(``step_sd``, scaled by sqrt(d / 4) in d parameters): landscapes defined before any of
them was run (the bar was chosen on the four-parameter cases and ``two``; ``twelve``
is the only built-in case with more). Load them with ``--cases``:

    python benchmarks/oracle.py --cases benchmarks/cases/dims.py --case eight_rotated \
        --optimisers duels --seeds 24

Each is on [0, 200] per parameter, the baseline 2 Elo below the in-box best
(toward the farthest corner) unless said (research/optimisers-log.md, "The step's
bar in more parameters").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from heurtune.engine.heuristics.oracle import CASES, bowls, define_case, rotated_bowl


def case(name: str, elo: Callable[[np.ndarray], float], dim: int,
         optimum: Sequence[float] | None = None, **kw: object) -> None:
    """Define a case on the box [0, 200]^dim (once: a second load keeps the first)."""
    if name not in CASES:
        define_case(name, elo, (0.0,) * dim, (200.0,) * dim,  # type: ignore[arg-type]
                    optimum=optimum, **kw)


def spread(dim: int, seed: int) -> tuple[float, ...]:
    """Optima drawn evenly in [30, 170] per parameter (fixed by ``seed``)."""
    return tuple(float(v) for v in np.random.default_rng(seed).uniform(30.0, 170.0, dim).round())


SIX = spread(6, 61)
TWELVE = spread(12, 121)
case("six", bowls((2.0,) * 6, SIX), 6, optimum=SIX,
     description="6 parameters, 2 Elo each, optima off the centre")
case("eight", bowls((2.0,) * 8, (100.0,) * 8), 8, optimum=(100.0,) * 8,
     description="8 parameters, 2 Elo each, centred")
case("eight_rotated", rotated_bowl((4.0, 2.0, 1.0, 0.5) * 2, spread(8, 81), seed=8), 8,
     optimum=spread(8, 81), description="a turned bowl in 8 parameters, optimum off the centre")
case("eight_skewed", bowls((2.0,) * 8, (60.0,) * 8, steep_above=4.0), 8, optimum=(60.0,) * 8,
     description="skewed in 8 parameters: optimum at 60, four times steeper above it")
case("eight_inert", bowls((2.0,) * 4 + (0.0,) * 4, (100.0,) * 8), 8, optimum=(100.0,) * 8,
     description="8 parameters of which 4 do nothing")
case("twelve_offcentre", bowls((2.0,) * 12, TWELVE), 12, optimum=TWELVE,
     description="12 parameters, 2 Elo each, optima off the centre")
case("twelve_edge", bowls((2.0,) * 12, (200.0, 215.0, 0.0, -15.0) + (100.0,) * 8), 12,
     description="12 parameters, four with the best on or beyond the box's edge")
case("eight_edge", bowls((2.0,) * 8, (200.0, 215.0, 0.0, -15.0) + (100.0,) * 4), 8,
     description="8 parameters, four with the best on or beyond the box's edge (added "
                 "2026-11-27 for tune's advice by the number of parameters)")
case("six_centred", bowls((2.0,) * 6, (100.0,) * 6), 6, optimum=(100.0,) * 6,
     description="6 parameters, 2 Elo each, centred: fishtest's case in six (added "
                 "2026-11-27 for the threshold of edge_prior's default)")
case("six_rotated", rotated_bowl((4.0, 2.0, 1.0, 0.5, 2.0, 1.0), spread(6, 62), seed=6), 6,
     optimum=spread(6, 62), description="a turned bowl in 6 parameters, optimum off the "
                                        "centre (added 2026-11-27, likewise)")
case("six_edge", bowls((2.0,) * 6, (200.0, 215.0, 0.0, -15.0, 100.0, 100.0)), 6,
     description="6 parameters, four with the best on or beyond the box's edge (added "
                 "2026-11-27 for the threshold of edge_prior's default)")
case("sixteen", bowls((1.0,) * 16, (100.0,) * 16), 16, optimum=(100.0,) * 16,
     description="16 parameters, 1 Elo each, centred")
