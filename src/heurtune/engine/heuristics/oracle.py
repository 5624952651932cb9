"""The simulated oracle's cases: parameter spaces with a known Elo landscape.

A case is any Elo function of parameters ``x1 .. xd`` on a box, with a
baseline. :func:`define_case` is the one place that defines one: it validates
the case (finite Elo, a baseline inside the box, the stated optimum inside the
box and no worse than any point of it, or else the in-box best computed; the
baseline's loss as stated) and makes it a "heuristic" of the oracle game
(``oracle:<name>``: its defaults, the baseline, are where a study starts and
the preset is the fixed opponent). heurtune.match.oracle plays the games from
it. A user adds cases from a file of their own (``benchmarks/oracle.py
--cases FILE.py``; docs/results/optimisers.md shows one)::

    from heurtune.engine.heuristics.oracle import define_case

    define_case("ridge", lambda x: -0.002 * (x[0] - x[1]) ** 2 - 0.0002 * (x[0] - 120) ** 2,
                low=(0, 0), high=(200, 200), start_elo=2.0,
                description="a ridge along x1 = x2")

The Elo is 0 at the best point of the box by convention only: a case reports
losses (:func:`loss`) below its in-box best, whatever the function's own level.
Where no baseline is given, it is placed as in fishtest's SPSA simulator: on
the segment from the best point toward the farthest corner, ``start_elo`` below.

The built-in cases (every parameter in [0, 200]; "2 Elo each": a quadratic term
worth 2 Elo half a range from its optimum):

``fishtest``
    fishtest's simulator setup: 4 parameters, 2 Elo each, optimum at the centre
    (100), draw ratio 0.61, the baseline 2 Elo below the optimum.
``two`` / ``twelve``
    the same with 2 and 12 parameters.
``inert``
    4 parameters of which 2 do nothing.
``offcentre``
    ``fishtest`` with the optima at 30, 45, 155 and 170 (answers that average
    sampled points drift to the centre, which the centred cases reward by
    accident: there the centre is the optimum).
``skewed``
    4 parameters, optimum at 60, each term four times as steep above it as below:
    a landscape no quadratic fits exactly.
``broad``
    a broad search: 4 Gaussian wells 60 Elo deep and about 40 wide, the optima
    off centre, the baseline 150 Elo below the optimum.
``far``
    fine-tuning from far away: 4 parameters, 2 Elo each, optima at 40, 40, 160,
    160, the baseline 10 Elo below (five times the prior's guess of the distance).
``edge``
    the optimum at or beyond the box's edge: 4 parameters, 2 Elo each, optima at
    200, 215, 0 and -15 (the in-box best is the corner 200, 200, 0, 0).
``rotated``
    not separable: a quadratic bowl whose axes are turned away from the
    parameters' (Hessian eigenvalues worth 4, 2, 1 and 0.5 Elo half a range out,
    a fixed rotation), optimum at 80, 120, 90 and 110, the baseline 2 Elo below.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize

from heurtune.engine.heuristic import Heuristic
from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.errors import HeurtuneError

LOW, HIGH = 0.0, 200.0  # the built-in cases' box, every parameter
HALF = (HIGH - LOW) / 2.0
TOLERANCE = 1e-6  # Elo: a stated optimum or baseline loss may be off by this much
_STARTS = 16  # random starts of the in-box search (besides the corners' and the centre)

EloFunction = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class OracleCase:
    """A validated case (make one with :func:`define_case`): its Elo function on
    the box [``low``, ``high``], the in-box ``best`` point and its Elo, the
    ``baseline`` and how far below the best it is (``start_elo``), the draw ratio
    of its games."""

    name: str
    function: EloFunction
    low: tuple[float, ...]
    high: tuple[float, ...]
    best: tuple[float, ...]
    best_elo: float
    baseline: tuple[float, ...]
    start_elo: float
    draw_ratio: float = 0.61
    description: str = ""

    @property
    def dim(self) -> int:
        return len(self.low)

    def elo(self, x: np.ndarray | Sequence[float]) -> float:
        """The Elo of parameter values ``x``, relative to the in-box best (0 there)."""
        return float(self.function(np.asarray(x, dtype=float))) - self.best_elo

    @property
    def start(self) -> np.ndarray:
        """The baseline as an array."""
        return np.asarray(self.baseline, dtype=float)


def _elo_of(function: EloFunction, name: str) -> Callable[[np.ndarray], float]:
    def f(x: np.ndarray) -> float:
        value = float(function(x))
        if not math.isfinite(value):
            raise HeurtuneError(f"oracle case {name!r}: its Elo at {x.tolist()} is {value}")
        return value
    return f


def in_box_best(function: EloFunction, low: np.ndarray, high: np.ndarray,
                seed: int = 0) -> np.ndarray:
    """The best point of the box (a multi-start bounded search from the centre,
    every corner up to 10 dimensions, and random points)."""
    dim = len(low)
    rng = np.random.default_rng(seed)
    starts = [(low + high) / 2.0, *rng.uniform(low, high, size=(_STARTS, dim))]
    if dim <= 10:
        corners = np.array(np.meshgrid(*zip(low, high, strict=True))).reshape(dim, -1).T
        starts.extend(corners)
    scale = np.where(high > low, high - low, 1.0)

    def neg(u: np.ndarray) -> float:  # searched in unit coordinates: well conditioned
        return -float(function(low + u * scale))

    best_u, best_value = None, math.inf
    for s in starts:
        r = minimize(neg, (np.asarray(s) - low) / scale, method="L-BFGS-B",
                     bounds=[(0.0, 1.0)] * dim)
        if r.fun < best_value:
            best_u, best_value = np.clip(r.x, 0.0, 1.0), float(r.fun)
    assert best_u is not None
    best: np.ndarray = low + best_u * scale
    return best


def _baseline_at(f: Callable[[np.ndarray], float], best: np.ndarray, low: np.ndarray,
                 high: np.ndarray, start_elo: float, name: str) -> np.ndarray:
    """fishtest's placement: on the segment from ``best`` to the farthest corner,
    ``start_elo`` below it (found by bisection; the loss must grow along it)."""
    corner = np.where(high - best >= best - low, high, low)
    top = f(best)

    def loss_at(t: float) -> float:
        return top - f(best + t * (corner - best))

    if loss_at(1.0) < start_elo - TOLERANCE:
        raise HeurtuneError(f"oracle case {name!r}: the farthest corner is only "
                            f"{loss_at(1.0):.4g} Elo below the best point, not {start_elo:g} "
                            "(give a baseline, or a smaller start_elo)")
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2.0
        if loss_at(mid) < start_elo:
            lo = mid
        else:
            hi = mid
    # rounded to 6 decimals, as a study file would write it
    point: np.ndarray = np.round(best + hi * (corner - best), 6)
    return point


def make_case(name: str, elo: EloFunction, low: Sequence[float], high: Sequence[float], *,
              optimum: Sequence[float] | None = None, baseline: Sequence[float] | None = None,
              start_elo: float | None = None, draw_ratio: float = 0.61,
              description: str = "") -> OracleCase:
    """A validated :class:`OracleCase` (see :func:`define_case`), not registered."""
    if not name.isidentifier():
        raise HeurtuneError(f"oracle case name {name!r}: letters, digits and _ only")
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if lo.ndim != 1 or lo.shape != hi.shape or lo.size == 0:
        raise HeurtuneError(f"oracle case {name!r}: low and high need one bound per parameter")
    if not np.all(lo < hi) or not np.all(np.isfinite(lo)) or not np.all(np.isfinite(hi)):
        raise HeurtuneError(f"oracle case {name!r}: every low must be finite and below its high")
    if not 0.0 <= draw_ratio < 1.0:
        raise HeurtuneError(f"oracle case {name!r}: draw_ratio {draw_ratio} is not in [0, 1)")
    f = _elo_of(elo, name)
    searched = in_box_best(f, lo, hi)
    if optimum is not None:
        best = np.asarray(optimum, dtype=float)
        if best.shape != lo.shape:
            raise HeurtuneError(f"oracle case {name!r}: the optimum needs {lo.size} values")
        if np.any(best < lo) or np.any(best > hi):
            raise HeurtuneError(f"oracle case {name!r}: the stated optimum {best.tolist()} is "
                                "outside the box (leave it out: the in-box best is computed)")
        if f(searched) > f(best) + TOLERANCE:
            raise HeurtuneError(f"oracle case {name!r}: {searched.round(4).tolist()} is "
                                f"{f(searched) - f(best):.4g} Elo better than the stated "
                                "optimum")
    else:
        best = searched
    if baseline is not None:
        start = np.asarray(baseline, dtype=float)
        if start.shape != lo.shape or np.any(start < lo) or np.any(start > hi):
            raise HeurtuneError(f"oracle case {name!r}: the baseline must be a point of the box")
        below = f(best) - f(start)
        if start_elo is not None and abs(below - start_elo) > max(TOLERANCE, 1e-6 * start_elo):
            raise HeurtuneError(f"oracle case {name!r}: the baseline is {below:.6g} Elo below "
                                f"the best point, not {start_elo:g} as stated")
    else:
        start = _baseline_at(f, best, lo, hi, 2.0 if start_elo is None else start_elo, name)
        below = f(best) - f(start)
    return OracleCase(name, elo, tuple(lo.tolist()), tuple(hi.tolist()), tuple(best.tolist()),
                      f(best), tuple(start.tolist()), float(below), draw_ratio, description)


CASES: dict[str, OracleCase] = {}
HEURISTICS: tuple[Heuristic, ...] = ()
PRESETS: dict[str, dict[str, Any]] = {}


def _never(state: np.ndarray, params: np.ndarray, player: int) -> float:  # pragma: no cover
    raise RuntimeError("the oracle's games are decided by heurtune.match.oracle, not searched")


def _space(case: OracleCase) -> ParamSpace:
    return ParamSpace(case.name, tuple(
        FloatParam(f"x{i + 1}", case.low[i], case.high[i], float(case.baseline[i]),
                   help=f"best at {case.best[i]:.6g}")
        for i in range(case.dim)))


def define_case(name: str, elo: EloFunction, low: Sequence[float], high: Sequence[float], *,
                optimum: Sequence[float] | None = None, baseline: Sequence[float] | None = None,
                start_elo: float | None = None, draw_ratio: float = 0.61,
                description: str = "", replace: bool = False) -> OracleCase:
    """Define (validate and register) an oracle case; returns it.

    ``elo(x)``: the Elo of parameter values ``x`` (a numpy array, one value per
    parameter; any function, separable or not). ``low`` / ``high``: the box.
    ``optimum``: where the best point of the box is, if known (checked: inside the
    box, and no point found better); left out, it is computed. ``baseline``:
    where studies start (checked: inside the box; its loss below the best is
    ``start_elo`` where both are given); left out, it is placed ``start_elo``
    (default 2) below the best, toward the farthest corner. Every fault is a
    :class:`~heurtune.errors.HeurtuneError` naming the case. A name already
    defined is refused unless ``replace``."""
    global HEURISTICS, PRESETS
    if name in CASES and not replace:
        raise HeurtuneError(f"oracle case {name!r} is already defined")
    case = make_case(name, elo, low, high, optimum=optimum, baseline=baseline,
                     start_elo=start_elo, draw_ratio=draw_ratio, description=description)
    CASES[name] = case
    HEURISTICS = tuple(Heuristic("oracle", c.name, c.description or c.name, _space(c), _never,
                                 _MODULE) for c in CASES.values())
    PRESETS = {c.name: {"heuristic": c.name,
                        "description": f"the {c.name} case's baseline, {c.start_elo:.4g} Elo "
                                       "below its best"}
               for c in CASES.values()}
    from heurtune.engine import heuristic as _heuristic

    _heuristic._TABLES.pop("oracle", None)  # a registered oracle game sees the new case
    return case


def loss(case: OracleCase, values: Mapping[str, float]) -> float:
    """Elo below the case's in-box best of a parameter set (named x1 .. xd)."""
    return -case.elo(np.array([float(values[f"x{i + 1}"]) for i in range(case.dim)]))


# -- the built-in cases ----------------------------------------------------------
def bowls(elos: Sequence[float], optima: Sequence[float],
          steep_above: float = 1.0) -> EloFunction:
    """A separable landscape: per parameter ``-elo * (dx)^2``, ``dx`` in half
    ranges of [0, 200] from its optimum (``steep_above`` times as steep above it)."""
    e, o = np.asarray(elos, dtype=float), np.asarray(optima, dtype=float)

    def f(x: np.ndarray) -> float:
        dx = (x - o) / HALF
        return float(-np.sum(e * np.where(dx > 0, steep_above, 1.0) * dx * dx))
    return f


def wells(depths: Sequence[float], optima: Sequence[float], width: float) -> EloFunction:
    """A separable landscape of Gaussian wells ``depth`` deep, ``width`` half ranges wide."""
    e, o = np.asarray(depths, dtype=float), np.asarray(optima, dtype=float)

    def f(x: np.ndarray) -> float:
        dx = (x - o) / HALF
        return float(-np.sum(e * (1.0 - np.exp(-0.5 * (dx / width) ** 2))))
    return f


def rotated_bowl(eigen_elos: Sequence[float], optimum: Sequence[float], seed: int) -> EloFunction:
    """A quadratic bowl with the Hessian's eigenvalues worth ``eigen_elos`` (Elo half a
    range out along each axis) and its axes turned by a random rotation (``seed``)."""
    d = len(eigen_elos)
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, d)))
    rotation = q * np.sign(np.diag(r))
    H = rotation @ np.diag(np.asarray(eigen_elos, dtype=float)) @ rotation.T
    o = np.asarray(optimum, dtype=float)

    def f(x: np.ndarray) -> float:
        dx = (x - o) / HALF
        return float(-dx @ H @ dx)
    return f


def _builtin(name: str, elo: EloFunction, dim: int, description: str, **kw: Any) -> None:
    define_case(name, elo, (LOW,) * dim, (HIGH,) * dim, description=description, **kw)


_MODULE = sys.modules[__name__]
_CENTRE4 = (100.0,) * 4
_builtin("fishtest", bowls((2.0,) * 4, _CENTRE4), 4,
         "fishtest's SPSA simulator: 4 parameters, 2 Elo each", optimum=_CENTRE4)
_builtin("two", bowls((2.0,) * 2, (100.0,) * 2), 2, "2 parameters, 2 Elo each",
         optimum=(100.0,) * 2)
_builtin("twelve", bowls((2.0,) * 12, (100.0,) * 12), 12, "12 parameters, 2 Elo each",
         optimum=(100.0,) * 12)
_builtin("inert", bowls((2.0, 2.0, 0.0, 0.0), _CENTRE4), 4, "4 parameters, 2 of them inert",
         optimum=_CENTRE4)
_builtin("offcentre", bowls((2.0,) * 4, (30.0, 45.0, 155.0, 170.0)), 4,
         "fishtest's setup with the optima off the centre", optimum=(30.0, 45.0, 155.0, 170.0))
_builtin("skewed", bowls((2.0,) * 4, (60.0,) * 4, steep_above=4.0), 4,
         "4 parameters, optimum at 60, four times steeper above it", optimum=(60.0,) * 4)
_builtin("broad", wells((60.0,) * 4, (40.0, 70.0, 130.0, 160.0), 0.4), 4,
         "a broad search: 4 wells 60 Elo deep, the baseline 150 Elo below",
         optimum=(40.0, 70.0, 130.0, 160.0), start_elo=150.0)
_builtin("far", bowls((2.0,) * 4, (40.0, 40.0, 160.0, 160.0)), 4,
         "fine-tuning from far: 4 parameters, 2 Elo each, the baseline 10 Elo below",
         optimum=(40.0, 40.0, 160.0, 160.0), start_elo=10.0)
_builtin("edge", bowls((2.0,) * 4, (200.0, 215.0, 0.0, -15.0)), 4,
         "the optimum at or beyond the box's edge: 4 parameters, 2 Elo each")
_builtin("rotated", rotated_bowl((4.0, 2.0, 1.0, 0.5), (80.0, 120.0, 90.0, 110.0), seed=7), 4,
         "not separable: a turned quadratic bowl, 4 parameters",
         optimum=(80.0, 120.0, 90.0, 110.0))
