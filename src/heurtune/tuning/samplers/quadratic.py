"""A Bayesian quadratic model of a parameter space's Elo landscape.

Used by the ``duels`` sampler (its design and its answer) and by the ``model``
answer of every study. Parameters live in unit coordinates (each searched
parameter mapped linearly, or logarithmically for log-scale ones, onto
[-1, 1]) relative to the baseline ``u0``: ``d = u - u0``. The model is

    f(d) = g . d + sum_i h_i d_i^2 + sum_{i<j} c_ij d_i d_j      (Elo, f(0) = 0)

and every observation is a difference of it: a duel between ``a`` and ``b``
measures ``f(a) - f(b)``; a match of ``a`` against a fixed opponent measures
``f(a) + k`` with an unknown offset ``k`` per opponent (the baseline's Elo
against it), which the model fits too. A trial's mean score becomes an Elo
difference through the logistic curve, weighted by its variance (the delta
method, with the per-game variance estimated from the pair scores).

The prior says what fine-tuning usually looks like and is fishtest's own
guess (its SPSA "Autoselect" asks for it): each parameter is worth
``elo_per_range`` Elo between its optimum and half a range away (curvature
``h_i`` around ``-elo_per_range``), and the baseline is about ``start_elo``
below the optimum (the gradient at the baseline is scaled to that). Two
scales of it are then chosen by the data (empirical Bayes: the pair with the
largest evidence on a grid of 1, 2, 4, ... 256 each, where it beats the best
single scale shared by both by a Bayes factor of 20): one for the curvature
(and the interactions), one for the distance from the baseline to the
optimum (the gradient). So a landscape of hundreds of Elo is not held back by
a prior made for a few, and a baseline far below a gently curved optimum is
not either: with one shared scale, data that need a larger gradient had to
take a larger curvature with it, rejected it, and kept the gradient short of
the truth (tests/tuning/samplers/test_duels_prior.py). With the margin that
takes strong evidence: on the simulated oracle's ten cases, up to 64,000 games,
the separate scales were never chosen, and every answer was the one a single
shared scale gives (docs/results/optimisers.md, "Seed by seed"); a smaller
margin makes them engage, and there it helped a far baseline and cost an
optimum at the box's edge about as much.

Answers are conservative: the recommended point maximises the model's lower
confidence bound on its gain over the baseline, ``mean - z * sd``; where no
point's bound is positive, the baseline itself is the answer.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from heurtune.engine.params import CategoricalParam, FloatParam, IntParam, ParamSpace, Value
from heurtune.errors import HeurtuneError

ELO_PER_SCORE = 1600.0 / math.log(10.0)  # dElo / dscore at an even score (694.9)
SCALES = tuple(2.0 ** k for k in range(9))  # empirical Bayes: prior scales 1 .. 256 (each)
# log evidence by which the separate scales must beat one shared scale to be chosen (a
# Bayes factor of e^3 = 20). Chosen freely, the 81 pairs fit noise that the 9 shared
# ones do not: on the oracle, 20 seeds each, the answer was worse than the baseline in
# up to 25-30% of the seeds (with the margin 10-15%), and the ``edge`` case was still
# 1.24 Elo short at 64,000 games (with it 0.69; docs/results/optimisers.md)
SEPARATE_MARGIN = 3.0
MIN_VARIANCE_FACTOR = 0.05  # per-game variance at least 5% of a coin toss's
PRIOR_PAIRS = 20.0  # pseudo-pairs behind the prior variance factor
ASCENT_SWEEPS = 200  # coordinate-ascent sweeps at most (the box-constrained maximum)
# the best may lie beyond a bound where the slope through it is above zero by this many
# sd (one-sided 97.7%): on the simulated oracle's fishtest, far, edge and rotated cases
# (12 seeds, 8,000 to 32,000 games) z = 1 fired once where the best lies inside, z = 2
# never (docs/results/optimisers.md, "Beyond the box")
BEYOND_Z = 2.0


class UnitBox:
    """The searched numeric parameters of a space as coordinates in [-1, 1]."""

    def __init__(self, space: ParamSpace, what: str = "this sampler") -> None:
        self.params: list[FloatParam | IntParam] = []
        for p in space.searched:
            if isinstance(p, CategoricalParam):
                raise HeurtuneError(f"{what} searches numeric parameters only; {p.name!r} is "
                                    "categorical (fix it in [params] or use another sampler)")
            self.params.append(p)
        self.names = [p.name for p in self.params]

    @property
    def dim(self) -> int:
        return len(self.params)

    def _scale(self, p: FloatParam | IntParam, v: float) -> float:
        return math.log(v) if p.log else float(v)

    def to_unit(self, values: dict[str, Value]) -> np.ndarray:
        out = np.empty(self.dim)
        for i, p in enumerate(self.params):
            lo, hi = self._scale(p, p.low), self._scale(p, p.high)
            scaled = self._scale(p, float(values[p.name]))
            out[i] = 0.0 if hi == lo else 2.0 * (scaled - lo) / (hi - lo) - 1.0
        return out

    def from_unit(self, u: Sequence[float] | np.ndarray) -> dict[str, Value]:
        """Parameter values at ``u`` (clipped to the box; integers rounded, steps snapped)."""
        out: dict[str, Value] = {}
        for i, p in enumerate(self.params):
            x = min(1.0, max(-1.0, float(u[i])))
            lo, hi = self._scale(p, p.low), self._scale(p, p.high)
            v = lo + (x + 1.0) / 2.0 * (hi - lo)
            v = math.exp(v) if p.log else v
            if isinstance(p, IntParam):
                step = p.step or 1
                v = p.low + round((v - p.low) / step) * step
                out[p.name] = int(min(max(v, p.low), p.high))
            else:
                if p.step:
                    v = p.low + round((v - p.low) / p.step) * p.step
                out[p.name] = p.validate(min(max(v, p.low), p.high))
        return out


def n_features(dim: int) -> int:
    return 2 * dim + dim * (dim - 1) // 2


@functools.cache
def interaction_pairs(dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The index pairs (i < j) of the interaction terms, in the features' order
    (``np.triu_indices(dim, 1)``, read-only). Cached: the models ask at every
    point, and building them took a fifth of a ``duels`` study's own time."""
    i, j = np.triu_indices(dim, 1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def features(d: np.ndarray) -> np.ndarray:
    """[d, d^2, d_i d_j (i < j)] of one point."""
    i, j = interaction_pairs(d.shape[0])
    return np.concatenate([d, d * d, d[i] * d[j]])


def slope_features(point: np.ndarray, i: int) -> np.ndarray:
    """The derivative of :func:`features` along coordinate ``i`` at ``point``: the
    model's slope there is this times its coefficients."""
    d = point.shape[0]
    s = np.zeros(n_features(d))
    s[i], s[d + i] = 1.0, 2.0 * point[i]
    for k, (a, b) in enumerate(zip(*interaction_pairs(d), strict=True)):
        if i in (a, b):  # d(c_ab x_a x_b) / dx_i
            s[2 * d + k] = point[b if a == i else a]
    return s


def score_to_elo(score: float, games: int) -> tuple[float, float]:
    """(Elo, dElo/dscore) of a mean score over ``games`` games, pulled half a game
    toward even so that 0 and 1 stay finite."""
    s = (score * games + 0.5) / (games + 1.0)
    return 400.0 * math.log10(s / (1.0 - s)), 400.0 / (math.log(10.0) * s * (1.0 - s))


@dataclass
class Observation:
    """One trial: ``plus`` against ``minus`` (unit coordinates relative to the
    baseline), or ``plus`` against opponent number ``opponent`` (``minus`` None)."""

    plus: np.ndarray
    minus: np.ndarray | None
    score: float  # the plus side's mean score
    games: int
    pair_scores: Sequence[float] = ()
    opponent: int = 0


@dataclass
class QuadraticModel:
    """The posterior of the quadratic model given observations (see the module)."""

    dim: int
    elo_per_range: float = 2.0
    start_elo: float = 2.0
    curvature_sd: float = 0.5  # prior sd of h_i, as a fraction of elo_per_range
    interaction_sd: float = 0.5  # prior sd of c_ij, likewise
    offsets: int = 0  # opponents of match observations (one offset each)
    separate_margin: float = SEPARATE_MARGIN  # see the constant
    # sufficient statistics, weighted by the coin-toss variance of each trial
    # (the estimated variance factor divides them all at fit time)
    _A: np.ndarray | None = field(default=None, repr=False)
    _b: np.ndarray | None = field(default=None, repr=False)
    _yy: float = 0.0
    _count: int = 0
    _var_num: float = 0.0
    _var_den: float = 0.0
    mean: np.ndarray | None = None
    cov: np.ndarray | None = None
    scale: float = 1.0  # the chosen prior scale of the curvature
    start_scale: float = 1.0  # and of the baseline's distance below the optimum
    # per coordinate, the gradient's prior variance times this (None: ones); see the
    # ``duels`` sampler's ``edge_prior``
    widen: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every observation (the prior and the last fit stay): a subclass whose
        features change refits its stored observations from here."""
        self._A = np.zeros((self.size, self.size))
        self._b = np.zeros(self.size)
        self._yy, self._count, self._var_num, self._var_den = 0.0, 0, 0.0, 0.0

    @property
    def size(self) -> int:
        return self.feature_count + self.offsets

    # -- the landscape's features: a subclass may add terms after these ---------
    @property
    def feature_count(self) -> int:
        """Coefficients of the landscape (the opponents' offsets follow them)."""
        return n_features(self.dim)

    def features(self, d: np.ndarray) -> np.ndarray:
        """The landscape's features of one point (:func:`features`)."""
        return features(d)

    def slope_features(self, point: np.ndarray, i: int) -> np.ndarray:
        """Their derivative along coordinate ``i`` at ``point`` (:func:`slope_features`)."""
        return slope_features(point, i)

    def add(self, obs: Observation) -> None:
        """Record one trial (refit with :meth:`fit`)."""
        if obs.games < 1:
            return
        x = self.features(obs.plus)
        if obs.minus is not None:
            x = x - self.features(obs.minus)
        row = np.zeros(self.size)
        row[:x.shape[0]] = x
        if obs.minus is None:
            if not 0 <= obs.opponent < self.offsets:
                raise ValueError("a match observation needs an opponent offset")
            row[self.feature_count + obs.opponent] = 1.0
        elo, slope = score_to_elo(obs.score, obs.games)
        s = (obs.score * obs.games + 0.5) / (obs.games + 1.0)
        w = 1.0 / (s * (1.0 - s) / obs.games * slope * slope)  # a coin toss's variance
        assert self._A is not None and self._b is not None
        self._A += w * np.outer(row, row)
        self._b += w * elo * row
        self._yy += w * elo * elo
        self._count += 1
        pairs = list(obs.pair_scores)
        if len(pairs) > 1:  # pair scores against the coin-toss variance of a pair (two games)
            m = sum(pairs) / len(pairs)
            self._var_num += sum((p - m) ** 2 for p in pairs)
            self._var_den += (len(pairs) - 1) * max(m * (1.0 - m), 0.05) / 2.0

    @property
    def observations(self) -> int:
        return self._count

    @property
    def variance_factor(self) -> float:
        """Per-game score variance as a fraction of a coin toss's (1 - draw ratio
        for even games), estimated from the pair scores with a prior of 0.5."""
        num = self._var_num + 0.5 * PRIOR_PAIRS
        den = self._var_den + PRIOR_PAIRS
        return max(MIN_VARIANCE_FACTOR, num / den)

    def _prior(self, scale: float, start_scale: float | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Prior mean and precision (diagonal): the curvature guess times ``scale``,
        the baseline's distance below the optimum times ``start_scale`` (default:
        ``scale``, one scale for both), the gradient's variance times :attr:`widen`
        per coordinate where it is set."""
        d, elo = self.dim, self.elo_per_range * scale
        start = self.start_elo * (scale if start_scale is None else start_scale)
        mean = np.zeros(self.size)
        var = np.ones(self.size)
        # optimum offset per coordinate with E[loss at the baseline] = start: a term
        # -elo (x - x*)^2 has gradient 2 elo x* at 0, and loses elo x*^2 there
        offset_var = start / (d * elo) if d else 1.0
        var[:d] = (2.0 * elo) ** 2 * offset_var
        if self.widen is not None:
            var[:d] *= self.widen
        mean[d:2 * d] = -elo
        var[d:2 * d] = (self.curvature_sd * elo) ** 2
        var[2 * d:n_features(d)] = (self.interaction_sd * elo) ** 2
        var[self.feature_count:] = 1000.0 ** 2  # offsets: the baseline's Elo vs each opponent
        return mean, 1.0 / var

    def posterior(self, scale: float, start_scale: float | None = None
                  ) -> tuple[float, np.ndarray, np.ndarray] | None:
        """Under the prior at these scales (see :meth:`_prior`): the log evidence
        of the observations, the posterior mean and the Cholesky factor of the
        posterior precision; None where that precision is not positive definite."""
        assert self._A is not None and self._b is not None
        vf = self.variance_factor
        A, b, yy = self._A / vf, self._b / vf, self._yy / vf
        m0, p0 = self._prior(scale, start_scale)
        P = A + np.diag(p0)
        try:
            L = np.linalg.cholesky(P)
        except np.linalg.LinAlgError:
            return None
        rhs = p0 * m0 + b
        mn = np.linalg.solve(P, rhs)
        evidence = (-0.5 * (yy + float(m0 @ (p0 * m0)) - float(mn @ rhs))
                    + 0.5 * float(np.sum(np.log(p0))) - float(np.sum(np.log(np.diag(L)))))
        return evidence, mn, L

    def fit(self) -> None:
        """The posterior under the pair of prior scales (curvature, start distance)
        with the largest evidence, or the best shared scale unless the pair beats it
        by ``separate_margin`` (:data:`SEPARATE_MARGIN`)."""
        if self._count == 0:
            self.mean, prec = self._prior(1.0)
            self.cov = np.diag(1.0 / prec)
            self.scale = self.start_scale = 1.0
            return
        best = shared = None
        for scale in SCALES:
            for start_scale in SCALES:
                found = self.posterior(scale, start_scale)
                if found is None:
                    continue
                fit = (found[0], scale, start_scale, found[1], found[2])
                if best is None or fit[0] > best[0]:
                    best = fit
                if start_scale == scale and (shared is None or fit[0] > shared[0]):
                    shared = fit
        assert best is not None and shared is not None
        if best[0] < shared[0] + self.separate_margin:  # one scale for both explains the data
            best = shared
        _, self.scale, self.start_scale, self.mean, L = best
        inv = np.linalg.inv(L)
        self.cov = inv.T @ inv

    # -- the fitted landscape ------------------------------------------------
    def _quadratic(self) -> tuple[np.ndarray, np.ndarray]:
        """Gradient at the baseline and Hessian of the posterior mean."""
        assert self.mean is not None
        d = self.dim
        g = self.mean[:d]
        H = np.diag(2.0 * self.mean[d:2 * d])
        iu = interaction_pairs(d)
        H[iu] = self.mean[2 * d:n_features(d)]
        H[(iu[1], iu[0])] = self.mean[2 * d:n_features(d)]
        return g, H

    def gain(self, d: np.ndarray) -> tuple[float, float]:
        """Posterior mean and sd of f(d) - f(0): the gain over the baseline, in Elo."""
        return self.difference(d, np.zeros(self.dim))

    def difference(self, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
        """Posterior mean and sd of f(a) - f(b): the gain of ``a`` over ``b``, in Elo."""
        assert self.mean is not None and self.cov is not None
        x = np.zeros(self.size)
        x[:self.feature_count] = self.features(a) - self.features(b)
        return float(x @ self.mean), math.sqrt(max(float(x @ self.cov @ x), 0.0))

    def slope(self, point: np.ndarray, i: int) -> tuple[float, float]:
        """Posterior mean and sd of the gain's slope along coordinate ``i`` at
        ``point``, in Elo per unit coordinate (half a range)."""
        assert self.mean is not None and self.cov is not None
        s = np.zeros(self.size)
        s[:self.feature_count] = self.slope_features(point, i)
        return float(s @ self.mean), math.sqrt(max(float(s @ self.cov @ s), 0.0))

    def on_bounds(self, low: np.ndarray, high: np.ndarray, start: np.ndarray | None = None
                  ) -> list[tuple[int, int, float, float]]:
        """The bounds the posterior mean's maximum in the box (:meth:`argmax_mean`)
        lies on: (coordinate, +1 for the upper bound or -1 for the lower one, and the
        mean and sd of the gain's slope outward through it)."""
        point = self.argmax_mean(low, high, np.zeros(self.dim) if start is None else start)
        out = []
        for i in range(self.dim):
            for bound, outward in ((high[i], 1), (low[i], -1)):
                if abs(point[i] - bound) <= 1e-9:
                    mean, sd = self.slope(point, i)
                    out.append((i, outward, outward * mean, sd))
        return out

    def beyond(self, low: np.ndarray, high: np.ndarray, z: float = BEYOND_Z,
               start: np.ndarray | None = None) -> dict[int, int]:
        """Where the best may lie beyond the box: the bounds the posterior mean's
        maximum lies on (:meth:`on_bounds`) while the gain still rises through them,
        the slope's lower bound ``mean - z sd`` outward above zero; coordinate to +1
        (the upper bound) or -1 (the lower one)."""
        return {i: outward for i, outward, mean, sd in self.on_bounds(low, high, start)
                if mean - z * sd > 0.0}

    def curved(self) -> np.ndarray:
        """Per coordinate, whether the posterior mean's curvature along it is at least
        as strong as the prior's guess at the chosen scale (``h_i <= -elo_per_range *
        scale``): where it is flatter, the data have pulled the curvature below what
        the prior expects, and a maximum that lies on the box's edge may be there
        because of it (see the ``duels`` sampler's ``edge_answer``)."""
        assert self.mean is not None
        d = self.dim
        return np.asarray(self.mean[d:2 * d] <= -self.elo_per_range * self.scale)

    def surely_curved(self, z: float) -> np.ndarray:
        """Per coordinate, whether the posterior's curvature along it is at least as
        strong as the prior's guess (:meth:`curved`) by ``z`` posterior sd."""
        assert self.mean is not None and self.cov is not None
        d = self.dim
        sd = np.sqrt(np.maximum(np.diag(self.cov)[d:2 * d], 0.0))
        return np.asarray(self.mean[d:2 * d] + z * sd <= -self.elo_per_range * self.scale)

    def slope_toward(self, side: np.ndarray) -> np.ndarray:
        """Per coordinate, the posterior's slope at the baseline toward ``side`` (+1: up,
        -1: down) in posterior sd."""
        assert self.mean is not None and self.cov is not None
        d = self.dim
        sd = np.sqrt(np.maximum(np.diag(self.cov)[:d], 1e-300))
        return np.asarray(side * self.mean[:d] / sd)

    def argmax_mean(self, low: np.ndarray, high: np.ndarray, start: np.ndarray) -> np.ndarray:
        """Where the posterior mean is highest inside the box [low, high] (a local
        maximum by coordinate ascent from ``start`` where the fitted landscape is
        not concave)."""
        g, H = self._quadratic()
        x: np.ndarray = np.clip(np.asarray(start, dtype=float), low, high)
        if np.all(np.linalg.eigvalsh(H) < 0):
            inside = np.linalg.solve(-H, g)
            if np.all(inside >= low) and np.all(inside <= high):
                return inside
        for _ in range(ASCENT_SWEEPS):
            moved = 0.0
            for i in range(self.dim):
                # the mean along coordinate i: g_i + (H x)_i - H_ii x_i is its slope at 0
                slope = g[i] + H[i] @ x - H[i, i] * x[i]
                if H[i, i] < 0:
                    best = min(max(-slope / H[i, i], low[i]), high[i])
                else:  # convex or flat along i: the better end
                    gain_low = slope * low[i] + 0.5 * H[i, i] * low[i] ** 2
                    gain_high = slope * high[i] + 0.5 * H[i, i] * high[i] ** 2
                    best = high[i] if gain_high > gain_low else low[i]
                moved = max(moved, abs(best - x[i]))
                x[i] = best
            if moved < 1e-9:
                break
        return x

    def recommend(self, low: np.ndarray, high: np.ndarray, z: float,
                  start: np.ndarray | None = None) -> tuple[np.ndarray, float, float]:
        """The point of the box with the highest lower bound ``mean - z sd`` on its
        gain over the baseline, with that gain's mean and sd; the baseline (zero
        gain) where no bound is positive."""
        assert self.mean is not None and self.cov is not None
        fcount = self.feature_count
        m = self.mean[:fcount]
        C = self.cov[:fcount, :fcount]

        def neg(x: np.ndarray) -> float:
            f = self.features(x)
            return -(float(f @ m) - z * math.sqrt(max(float(f @ C @ f), 1e-18)))

        from scipy.optimize import minimize  # here: scipy's import would slow every CLI start

        best, best_value = np.zeros(self.dim), 0.0  # the baseline itself: exactly zero
        starts = [np.zeros(self.dim), self.argmax_mean(low, high, start if start is not None
                                                          else np.zeros(self.dim))]
        for s in starts:
            r = minimize(neg, np.clip(s, low, high), method="L-BFGS-B",
                         bounds=list(zip(low, high, strict=True)))
            if -r.fun > best_value:
                best, best_value = np.asarray(r.x), -float(r.fun)
        mean, sd = self.gain(best)
        return best, mean, sd


def beyond_bounds(model: QuadraticModel, box: UnitBox, low: np.ndarray, high: np.ndarray,
                  start: np.ndarray | None = None) -> dict[str, str]:
    """:meth:`QuadraticModel.beyond` by parameter name: ``"upper"`` or ``"lower"``,
    the bound beyond which the best may lie (widen the range there)."""
    return {box.names[i]: "upper" if side > 0 else "lower"
            for i, side in model.beyond(low, high, start=start).items()}
