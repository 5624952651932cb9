"""The simulated oracle's cases: parameter spaces with a known Elo landscape.

Each case is a "heuristic" of the oracle game whose parameters ``x1 .. xd`` lie
in [0, 200]; the Elo of a parameter set is a sum of one concave term per
parameter, each with its optimum inside the bounds (heurtune.match.oracle
plays the games from it). The defaults (the baseline, and the preset
``oracle:<case>``, the fixed opponent) are where the search starts: as in
fishtest's SPSA simulator, on the line from the optimum toward the farthest
corner, ``start_elo`` below the optimum.

``fishtest``
    fishtest's simulator setup: 4 parameters, each worth 2 Elo between its
    optimum (100) and half a range away, draw ratio 0.61, the baseline 2 Elo
    below the optimum (every parameter at 150).
``two`` / ``twelve``
    the same with 2 and 12 parameters.
``inert``
    4 parameters of which 2 do nothing.
``offcentre``
    ``fishtest`` with the optima at 30, 45, 155 and 170 instead of the centre
    of every range, which is then 3.2 Elo below the optimum (answers that
    average sampled points drift to the centre, which the centred cases reward
    by accident: there the centre is the optimum).
``skewed``
    4 parameters, optimum off centre (60), each term four times as steep above
    its optimum as below: a landscape no quadratic fits exactly.
``broad``
    a broad search, not a fine-tuning: 4 parameters, each a well 60 Elo deep and
    about 40 wide (a Gaussian, flat far from its optimum), the optima off centre,
    the baseline 150 Elo below the optimum.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, ParamSpace

LOW, HIGH = 0.0, 200.0
HALF = (HIGH - LOW) / 2.0


@dataclass(frozen=True)
class OracleCase:
    """A known landscape: per-parameter Elo at half a range from the optimum,
    the optima, the steepness above the optimum (1: symmetric), the draw ratio
    and how far below the optimum the baseline starts."""

    name: str
    elos: tuple[float, ...]
    optima: tuple[float, ...]
    steep_above: float = 1.0
    width: float = 0.0  # > 0: a Gaussian well of this width (half ranges), ``elos`` deep
    draw_ratio: float = 0.61
    start_elo: float = 2.0
    description: str = ""

    @property
    def dim(self) -> int:
        return len(self.elos)

    def terms(self, x: np.ndarray) -> np.ndarray:
        dx = (np.asarray(x, dtype=float) - np.asarray(self.optima)) / HALF
        # (typed locals: numpy's annotations make these products Any)
        if self.width > 0:
            wells: np.ndarray = -np.asarray(self.elos) * (
                1.0 - np.exp(-0.5 * (dx / self.width) ** 2))
            return wells
        shape = np.where(dx > 0, self.steep_above, 1.0)
        bowls: np.ndarray = -np.asarray(self.elos) * shape * dx * dx
        return bowls

    def elo(self, x: np.ndarray) -> float:
        """The Elo of parameter values ``x`` (0 at the optimum)."""
        return float(np.sum(self.terms(x)))

    @property
    def start(self) -> np.ndarray:
        """The baseline: on the segment from the optimum to the farthest corner,
        ``start_elo`` below the optimum (fishtest's lfd_start)."""
        opt = np.asarray(self.optima)
        corner = np.where(HIGH - opt >= opt - LOW, HIGH, LOW)
        loss = -self.elo(corner)
        lo, hi = 0.0, 1.0  # the loss grows monotonically along the segment
        for _ in range(60):
            mid = (lo + hi) / 2.0
            if -self.elo(opt + mid * (corner - opt)) < self.start_elo:
                lo = mid
            else:
                hi = mid
        if loss < self.start_elo:  # the corner itself is closer than asked
            lo = 1.0
        start: np.ndarray = opt + lo * (corner - opt)
        return start


def _quadratic(name: str, elos: tuple[float, ...], description: str) -> OracleCase:
    return OracleCase(name, elos, (100.0,) * len(elos), description=description)


CASES = {c.name: c for c in (
    _quadratic("fishtest", (2.0,) * 4, "fishtest's SPSA simulator: 4 parameters, 2 Elo each"),
    _quadratic("two", (2.0,) * 2, "2 parameters, 2 Elo each"),
    _quadratic("twelve", (2.0,) * 12, "12 parameters, 2 Elo each"),
    _quadratic("inert", (2.0, 2.0, 0.0, 0.0), "4 parameters, 2 of them inert"),
    OracleCase("offcentre", (2.0,) * 4, (30.0, 45.0, 155.0, 170.0),
               description="fishtest's setup with the optima off the centre"),
    OracleCase("skewed", (2.0,) * 4, (60.0,) * 4, steep_above=4.0,
               description="4 parameters, optimum at 60, four times steeper above it"),
    OracleCase("broad", (60.0,) * 4, (40.0, 70.0, 130.0, 160.0), width=0.4, start_elo=150.0,
               description="a broad search: 4 wells 60 Elo deep, the baseline 150 Elo below"),
)}


def _space(case: OracleCase) -> ParamSpace:
    start = case.start
    return ParamSpace(case.name, tuple(
        FloatParam(f"x{i + 1}", LOW, HIGH, float(round(start[i], 6)),
                   help=f"optimum {case.optima[i]:g}, {case.elos[i]:g} Elo half a range away")
        for i in range(case.dim)))


def _never(state: np.ndarray, params: np.ndarray, player: int) -> float:  # pragma: no cover
    raise RuntimeError("the oracle's games are decided by heurtune.match.oracle, not searched")


_MODULE = sys.modules[__name__]
HEURISTICS = tuple(Heuristic("oracle", c.name, c.description, _space(c), _never, _MODULE)
                   for c in CASES.values())
PRESETS = {c.name: {"heuristic": c.name,
                    "description": f"the {c.name} case's baseline, {c.start_elo:g} Elo below "
                                   "the optimum"}
           for c in CASES.values()}


def loss(case: OracleCase, values: dict[str, float]) -> float:
    """Elo below the optimum of a parameter set (named x1 .. xd)."""
    return -case.elo(np.array([float(values[f"x{i + 1}"]) for i in range(case.dim)]))


assert all(math.isclose(loss(c, {f"x{i + 1}": v for i, v in enumerate(c.start)}), c.start_elo,
                        rel_tol=1e-6) for c in CASES.values())
