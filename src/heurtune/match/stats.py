"""Match statistics: score, its confidence interval, Elo, nElo, LOS and the SPRT.

A match is played in *pairs* (one opening, colours swapped), so the unit of
independent evidence is the pair, not the game: the two games of a pair share
an opening and are correlated. A pair ends in one of five outcomes (LL, LD,
DD or WL, WD, WW: the "pentanomial" model of fishtest and OpenBench), and every
figure here is computed over pairs: the interval is a t interval over pair
scores whose variance comes from the five outcome counts plus a small
pseudo-count each, so it never collapses to zero width while all pairs so far
scored the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from heurtune.match.play import PairResult


def z_value(confidence: float = 0.95) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)  # LL, LD, DD or WL, WD, WW (first engine's view)
PSEUDO_COUNT = 0.5  # added to each of the five pair outcomes (a Jeffreys prior)


def pair_outcome(score: float) -> int:
    """Which of the five pair outcomes a pair score is: 0 (LL) to 4 (WW)."""
    return min(4, max(0, int(round(4.0 * score))))


def pentanomial(pair_scores: Sequence[float]) -> tuple[int, int, int, int, int]:
    """How many pairs scored 0, 1/4, 1/2, 3/4 and 1 (LL, LD, DD or WL, WD, WW)."""
    counts = [0, 0, 0, 0, 0]
    for x in pair_scores:
        counts[pair_outcome(x)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def pair_variance(pair_scores: Sequence[float]) -> float:
    """Variance of one pair's score, from the five pair outcomes with
    :data:`PSEUDO_COUNT` added to each: never zero, so an interval does not
    collapse while every pair so far scored the same (a 10-0 sweep, all even),
    and close to the plain sample variance once there are many pairs."""
    counts = [c + PSEUDO_COUNT for c in pentanomial(pair_scores)]
    total = sum(counts)
    mean = sum(c * v for c, v in zip(counts, PAIR_VALUES, strict=True)) / total
    return sum(c * (v - mean) ** 2 for c, v in zip(counts, PAIR_VALUES, strict=True)) / total


def t_value(pairs: int, confidence: float = 0.95) -> float:
    """Student's t quantile for ``pairs`` pairs (``pairs - 1`` degrees of freedom)."""
    from scipy.stats import t

    return float(t.ppf(0.5 + confidence / 2.0, max(pairs - 1, 1)))


def score_interval(
    pair_scores: Sequence[float], confidence: float = 0.95
) -> tuple[float, float, float]:
    """(score, low, high) from per-pair scores in [0, 1]: the observed score, with
    a t interval over pairs whose variance comes from :func:`pair_variance`."""
    n = len(pair_scores)
    if n == 0:
        return 0.5, 0.0, 1.0
    mean = sum(pair_scores) / n
    half = t_value(n, confidence) * math.sqrt(pair_variance(pair_scores) / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def los(pair_scores: Sequence[float]) -> float:
    """Likelihood of superiority: the probability that the first engine is the
    stronger, under the normal model of pair scores behind the interval:
    ``Phi((score - 0.5) / standard error)``."""
    n = len(pair_scores)
    if n == 0:
        return 0.5
    mean = sum(pair_scores) / n
    return NormalDist().cdf((mean - 0.5) / math.sqrt(pair_variance(pair_scores) / n))


def score_differences(a: Sequence[PairResult], b: Sequence[PairResult]) -> list[float]:
    """``a``'s pair score minus ``b``'s on every opening both played (in ``a``'s
    order): two engines against the same opponent, paired by opening."""
    by_index = {p.index: p.score for p in b}
    return [p.score - by_index[p.index] for p in a if p.index in by_index]


def difference_variance(diffs: Sequence[float]) -> float:
    """The sample variance of paired differences, floored at ``1 / (16 n)``: all
    differences equal so far is not certainty (a quarter pair of spread); 0.25
    for a single one."""
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.25
    return max(var, 1.0 / (16.0 * n))


def paired_difference(a: Sequence[PairResult], b: Sequence[PairResult],
                      confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of the per-opening score difference between two engines
    that played the same openings against the same opponent: the openings' own
    difficulty cancels, so this interval is much narrower than two separate ones."""
    return difference_interval(score_differences(a, b), confidence)


def difference_interval(diffs: Sequence[float],
                        confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of paired score differences: a t interval on their
    floored variance (:func:`difference_variance`), kept within [-1, 1]; (0, -1,
    1) for none."""
    n = len(diffs)
    if n == 0:
        return 0.0, -1.0, 1.0
    mean = sum(diffs) / n
    half = t_value(n, confidence) * math.sqrt(difference_variance(diffs) / n)
    return mean, max(-1.0, mean - half), min(1.0, mean + half)


NELO_PER_T = 800.0 / math.log(10.0)  # normalised Elo per unit of t = (score - 0.5) / sigma


def nelo(pair_scores: Sequence[float]) -> float:
    """Normalised Elo (fishtest's): ``800 / ln 10 * (score - 0.5) / sigma``, with
    sigma the per-game standard deviation implied by the pairs, sqrt(2 * pair
    variance). It measures how easily a difference is detected rather than how
    often it wins, so it does not depend on the draw rate."""
    if not pair_scores:
        return 0.0
    mean = sum(pair_scores) / len(pair_scores)
    return NELO_PER_T * (mean - 0.5) / math.sqrt(2.0 * pair_variance(pair_scores))


def logistic_score(elo_diff: float) -> float:
    """The expected score of an Elo difference (logistic model)."""
    odds: float = 10.0 ** (-elo_diff / 400.0)  # typeshed: float ** float is Any
    return 1.0 / (1.0 + odds)


def _secular_root(probs: Sequence[float], a: Sequence[float], guess: float = 0.0) -> float:
    """The root x of ``sum p_i a_i / (1 + x a_i) = 0`` with every ``1 + x a_i > 0``
    (``min a < 0 < max a``, every ``p_i > 0``): the multiplier that makes
    ``p_i / (1 + x a_i)`` the most likely distribution with ``sum q_i a_i = 0``.

    Newton's method on the left-hand side times ``(1 + x max a) (1 + x min a)``,
    which has the same root but no poles (so no slow crawl when the root lies
    close to one), kept inside a shrinking bracket: a step that would leave it
    bisects instead. It starts from ``guess`` (the root of a neighbouring
    problem) when that lies inside, else from 0."""
    top, bottom = max(a), min(a)
    lo, hi = -1.0 / top, -1.0 / bottom
    x = guess if lo < guess < hi else 0.0
    for _ in range(200):
        f = slope = 0.0
        pole = 0.0
        for p, ai in zip(probs, a, strict=True):
            denominator = 1.0 + x * ai
            if denominator <= 0.0:  # rounding put x on a pole: step back inside
                pole = ai
                break
            u = p * ai / denominator
            f += u
            slope -= u * ai / denominator
        if pole:
            lo, hi = (x, hi) if pole > 0.0 else (lo, x)
            x = 0.5 * (lo + hi)
            continue
        w = (1.0 + x * top) * (1.0 + x * bottom)
        value = f * w
        if value == 0.0:
            return x
        lo, hi = (x, hi) if value > 0.0 else (lo, x)
        derivative = slope * w + f * (top * (1.0 + x * bottom) + bottom * (1.0 + x * top))
        step = x - value / derivative if derivative != 0.0 else 0.5 * (lo + hi)
        if not lo < step < hi:
            step = 0.5 * (lo + hi)
        scale = max(1.0, abs(x))
        if abs(step - x) <= 1e-13 * scale or hi - lo <= 1e-15 * scale:
            return step
        x = step
    return x


def _tilted(probs: Sequence[float], a: Sequence[float],
            guess: float = 0.0) -> tuple[list[float], float]:
    """``p_i / (1 + x a_i)`` with x from :func:`_secular_root`, renormalised (the
    sum is 1 but for rounding), and x."""
    x = _secular_root(probs, a, guess)
    q = [p / (1.0 + x * ai) for p, ai in zip(probs, a, strict=True)]
    total = sum(q)
    return [qi / total for qi in q], x


def _mle_with_mean(probs: Sequence[float], target: float) -> list[float]:
    """The distribution over :data:`PAIR_VALUES` closest (maximum likelihood) to
    ``probs`` whose mean is ``target``: ``p_i / (1 + x (v_i - target))`` with x
    the root of ``sum p_i (v_i - target) / (1 + x (v_i - target)) = 0``."""
    return _tilted(probs, [v - target for v in PAIR_VALUES])[0]


def _mean_var(probs: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of a distribution over :data:`PAIR_VALUES`."""
    mean = sum(p * v for p, v in zip(probs, PAIR_VALUES, strict=True))
    return mean, sum(p * (v - mean) ** 2 for p, v in zip(probs, PAIR_VALUES, strict=True))


def _sd_grid(density: int) -> list[float]:
    """Fractions of the largest possible standard deviation at which
    :func:`_mle_with_t_value` looks for roots: geometric towards 0 (a pair
    score's sd can be tiny when nearly every pair is even), even in the middle,
    geometric towards 1."""
    low = [1e-7 * (0.05 / 1e-7) ** (k / (6 * density)) for k in range(6 * density)]
    middle = [0.05 + 0.9 * k / (18 * density) for k in range(18 * density + 1)]
    high = [1.0 - 0.05 * (1e-7 / 0.05) ** (k / (4 * density)) for k in range(1, 4 * density + 1)]
    return low + middle + high


class _Undefined(Exception):
    """No distribution of the Lagrange form exists at this standard deviation."""


def _mle_with_t_value(probs: Sequence[float], t: float) -> list[float]:
    """The distribution over :data:`PAIR_VALUES` closest (maximum likelihood) to
    ``probs`` whose t-value ``(mean - 1/2) / sd`` is ``t``: what fishtest's
    ``MLE_t_value`` computes for its normalised SPRT.

    At the maximum, Lagrange's condition gives ``p_i = probs_i / (1 + x a_i)``
    with ``a_i = v_i - 1/2 - t sd / 2 - t (v_i - mean)^2 / (2 sd)``, mean and sd
    those of p itself. So for a candidate sd (and its mean ``1/2 + t sd``) the
    secular equation gives x and a distribution, whose own mean must come back
    as ``1/2 + t sd``: every root of that mismatch is a stationary point.
    fishtest iterates that map from one guess, which can stop at a stationary
    point that is not the maximum (with many even pairs the likelihood along the
    constraint often has two peaks, and the wrong one can move the LLR by tens)
    or not converge; here every root is found on a grid of sds, with a closer
    look wherever the mismatch comes near zero between grid points without
    crossing it, and the most likely is kept."""
    from scipy.optimize import brentq, minimize_scalar

    if abs(t) < 1e-12:
        return _mle_with_mean(probs, 0.5)
    top = 0.5 / math.sqrt(1.0 + t * t)  # the largest sd a distribution on [0, 1] with it has
    last = [0.0]  # the multiplier of the previous candidate: the next one starts there

    def candidate(sd: float) -> list[float]:
        mean = 0.5 + t * sd
        a = [v - 0.5 - 0.5 * t * sd - 0.5 * t * (v - mean) ** 2 / sd for v in PAIR_VALUES]
        if not min(a) < 0.0 < max(a):
            raise _Undefined
        p, last[0] = _tilted(probs, a, last[0])
        return p

    def mismatch(sd: float) -> float:
        p = candidate(sd)
        return sum(pi * v for pi, v in zip(p, PAIR_VALUES, strict=True)) - (0.5 + t * sd)

    def value(sd: float) -> float | None:
        try:
            return mismatch(sd)
        except _Undefined:
            return None

    def root(lo: float, hi: float) -> float | None:
        try:
            return float(brentq(mismatch, lo, hi, xtol=1e-16, rtol=1e-15, maxiter=200))
        except _Undefined:
            return None

    def roots(density: int) -> list[float]:
        sds = [top * u for u in _sd_grid(density)]
        values = [value(sd) for sd in sds]
        found = []
        for k in range(len(sds) - 1):
            here, there = values[k], values[k + 1]
            if here is not None and there is not None and here * there <= 0.0:
                found.append(root(sds[k], sds[k + 1]))
        for k in range(1, len(sds) - 1):  # two roots between grid points: a near miss
            before, here, after = values[k - 1], values[k], values[k + 1]
            if (before is None or here is None or after is None or before * here <= 0.0
                    or here * after <= 0.0 or not abs(here) < min(abs(before), abs(after))):
                continue
            sign = 1.0 if here > 0.0 else -1.0
            try:
                best = minimize_scalar(lambda sd, sign=sign: sign * mismatch(sd),
                                       bounds=(sds[k - 1], sds[k + 1]), method="bounded",
                                       options={"xatol": 1e-15})
            except _Undefined:
                continue
            if best.fun <= 0.0:
                found += [root(sds[k - 1], best.x), root(best.x, sds[k + 1])]
        return [r for r in found if r is not None]

    def loglik(p: Sequence[float]) -> float:
        return sum(q * math.log(pi) for q, pi in zip(probs, p, strict=True))

    for density in (1, 10):
        candidates = []
        for sd in roots(density):
            try:
                candidates.append(candidate(sd))
            except _Undefined:
                continue
        if candidates:
            return max(candidates, key=loglik)
    # never seen: the normal approximation (the mean that t-value has at the data's sd)
    mean, var = _mean_var(probs)
    return _mle_with_mean(probs, min(max(0.5 + t * math.sqrt(var), 1e-6), 1.0 - 1e-6))


def _regularised(counts: Sequence[float]) -> tuple[float, list[float]]:
    """Pairs and outcome frequencies, an outcome never seen counted 1/1000 of a
    pair (fishtest's regularisation: every likelihood stays finite)."""
    regular = [max(float(c), 1e-3) for c in counts]
    n = sum(regular)
    return n, [c / n for c in regular]


# -- the LLR as a Brownian motion -----------------------------------------------------
# Over many pairs the LLR moves like a Brownian motion whose drift and variance per
# pair are the mean and variance of its steps (_llr_steps); near the bounds, with s
# the true pair score and v the pair variance, about (s - (s0 + s1) / 2) (s1 - s0) / v
# and (s1 - s0)^2 / v (fishtest's approximation). Measured in units of that variance
# ("information"), the motion has unit variance and drift gamma = drift / variance,
# about (s - (s0 + s1) / 2) / (s1 - s0): -1/2 at H0, +1/2 at H1.

def _absorbed_below(a: float, b: float, gamma: float, x0: float) -> float:
    """The probability that a Brownian motion (drift gamma, unit variance) started
    ``x0`` above ``a`` leaves (a, b) through a: ``(e^(-2 gamma x0) - e^(-2 gamma
    w)) / (1 - e^(-2 gamma w))``, w = b - a, written so that no exponential
    overflows."""
    width = b - a
    if abs(gamma) * width < 1e-9:
        return (width - x0) / width
    if gamma > 0.0:
        return (math.expm1(-2.0 * gamma * x0) - math.expm1(-2.0 * gamma * width)) / \
            -math.expm1(-2.0 * gamma * width)
    return math.expm1(2.0 * gamma * (width - x0)) / math.expm1(2.0 * gamma * width)


def _outcome_cdf(a: float, b: float, gamma: float, tau: float, y: float,
                 start: float = 0.0) -> float:
    """A Brownian motion (drift gamma, unit variance) from ``start`` in (a, b),
    stopped on leaving it, observed at time ``tau`` at ``y``: the probability of
    an outcome no better than that in the stage-wise order (a stop at a, the
    sooner the worse; then the position at time tau; then a stop at b, the
    later the worse). That is P(stopped at a by tau) + P(running at tau, at or
    below y); for y = b, 1 - P(stopped at b by tau).

    The eigenfunction series of the motion killed at a and b, integrated in
    closed form, when it converges fast (not too short a time, not too strong a
    drift); otherwise the method of images with one reflection at each bound,
    which is then accurate."""
    from scipy.special import log_ndtr, ndtr

    width = b - a
    x0, level = start - a, min(max(y, a), b) - a
    if tau / width**2 >= 0.004 and abs(gamma) * width <= 20.0:
        total = _absorbed_below(a, b, gamma, x0)
        n = 1
        while n < 100_000:
            omega = n * math.pi / width
            size = math.exp(-0.5 * (omega**2 + gamma**2) * tau + gamma * (level - x0)) \
                / (gamma**2 + omega**2)
            total += (2.0 / width) * math.sin(omega * x0) * size \
                * (gamma * math.sin(omega * level) - omega * math.cos(omega * level))
            if (2.0 / width) * size * (abs(gamma) + omega) < 1e-14 and n > 2:
                break
            n += 1
        return min(max(total, 0.0), 1.0)
    root = math.sqrt(tau)
    lo, hi, at = a - start, b - start, y - start
    # below y at tau; plus paths that touched a and ended above y; minus paths that
    # touched b and ended below y (their mirror images: the reflection principle)
    total = float(ndtr((at - gamma * tau) / root))
    total += math.exp(2.0 * gamma * lo + float(log_ndtr((2.0 * lo - at + gamma * tau) / root)))
    total -= math.exp(2.0 * gamma * hi + float(log_ndtr((at - 2.0 * hi - gamma * tau) / root)))
    return min(max(total, 0.0), 1.0)


def _running(a: float, b: float, gamma: float, tau: float, start: float = 0.0) -> float:
    """The probability that the motion of :func:`_outcome_cdf` is still inside
    (a, b) at time tau."""
    return max(0.0, _outcome_cdf(a, b, gamma, tau, b, start)
               - _outcome_cdf(a, b, gamma, tau, a, start))


def _exit_quantile(a: float, b: float, gamma: float, q: float, start: float = 0.0) -> float:
    """The time (information) by which the motion has left (a, b) with probability q."""
    from scipy.optimize import brentq

    hi = (b - a) ** 2
    for _ in range(200):
        if _running(a, b, gamma, hi, start) <= 1.0 - q:
            break
        hi *= 2.0
    else:
        return math.inf
    return float(brentq(lambda tau: _running(a, b, gamma, tau, start) - (1.0 - q),
                        1e-9 * hi, hi, xtol=1e-9 * hi))


def _expected_exit(a: float, b: float, gamma: float, start: float = 0.0) -> float:
    """The expected time (information) until the motion leaves (a, b): Wald's
    identity, E[position at exit] = start + gamma E[time]."""
    if abs(gamma) * (b - a) < 1e-6:
        return (start - a) * (b - start)
    below = _absorbed_below(a, b, gamma, start - a)
    return (a * below + b * (1.0 - below) - start) / gamma


def _llr_steps(probs: Sequence[float], s0: float, s1: float) -> tuple[float, float]:
    """Mean and variance of one pair's step of the LLR once the pairs' frequencies
    have settled at ``probs``: the step of an outcome is the log-ratio of the two
    hypotheses' most likely distributions at it."""
    p0, p1 = _mle_with_mean(probs, s0), _mle_with_mean(probs, s1)
    steps = [math.log(b / a) for a, b in zip(p0, p1, strict=True)]
    drift = sum(q * x for q, x in zip(probs, steps, strict=True))
    return drift, sum(q * (x - drift) ** 2 for q, x in zip(probs, steps, strict=True))


MAX_SPRT_ELO = 2000.0  # beyond it an expected score is 1 (or 0) within rounding
SQRT2 = math.sqrt(2.0)
# pairs that scored further than this many bound widths from the bounds' middle:
# the corrected estimate gives way to the plain figures (see SprtEstimate)
FAR_FROM_BOUNDS = 3.0
# A test looked at after every pair stops later than the Brownian motion, which
# stops the moment it touches a bound: like a motion whose bounds lie further out
# by -zeta(1/2) / sqrt(2 pi) = 0.5826 of one step's deviation (Siegmund's
# correction for discrete monitoring)
DISCRETE_SHIFT = 0.5825971579390106
ESTIMATE_WINDOW = 1000.0  # the corrected estimate is sought within +-1000 logistic Elo


@dataclass(frozen=True)
class SprtEstimate:
    """The strength an SPRT's outcome points to, corrected for its stop: the
    score (and its logistic Elo and normalised Elo) at which an outcome no
    better than the observed one had probability 1/2, and the interval between
    those where it had probability (1 + confidence) / 2 and (1 - confidence) / 2.

    A sequential test stops when the evidence has run far enough one way, so
    the plain figures of its pairs overstate the difference they found (an H1
    accepted early is a lucky streak as often as not); this estimate is the
    median-unbiased one of the stage-wise order (fishtest's). ``corrected`` is
    False where the pairs scored far beyond the bounds (more than
    :data:`FAR_FROM_BOUNDS` bound widths from their middle, or so far that no
    strength within +-1000 Elo makes the outcome typical): such a test stops
    after about as many pairs whatever its luck, its plain figures are hardly
    biased, and the approximation behind the correction no longer holds, so the
    plain figures are given. ``clamped``: an end of the interval reached the
    +-1000 Elo edge of the search."""

    score: float
    score_ci: tuple[float, float]
    elo: float
    elo_ci: tuple[float, float]
    nelo: float
    nelo_ci: tuple[float, float]
    confidence: float
    corrected: bool = True
    clamped: bool = False


@dataclass(frozen=True)
class Sprt:
    """A pentanomial generalised SPRT (fishtest's): H0 says the first engine is
    ``elo0`` stronger, H1 ``elo1``. The log-likelihood ratio of the pair
    outcomes under the two maximum-likelihood pentanomial distributions of the
    hypotheses is compared with the bounds ln(beta / (1 - alpha)) and
    ln((1 - beta) / alpha).

    ``model = "logistic"``: the bounds are logistic Elo, and a hypothesis is
    the distributions whose expected pair score is that Elo's. ``"normalized"``:
    they are normalised Elo, and a hypothesis is the distributions whose
    t-value ``(mean - 1/2) / sd`` of the pair score is ``nElo * sqrt 2 / (800 /
    ln 10)`` (a pair is two games): fishtest's exact normalised SPRT, whose
    error rates do not depend on the draw rate or the share of even pairs."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        from heurtune.errors import HeurtuneError

        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise HeurtuneError(f"SPRT bounds must be finite, got {self.elo0:g}, {self.elo1:g}")
        if not self.elo0 < self.elo1:
            raise HeurtuneError(f"SPRT needs elo0 < elo1, got {self.elo0:g}, {self.elo1:g}")
        if max(abs(self.elo0), abs(self.elo1)) > MAX_SPRT_ELO:
            raise HeurtuneError(
                f"SPRT bounds must lie within +-{MAX_SPRT_ELO:g} Elo (a few Elo to a few "
                f"hundred is usual), got {self.elo0:g}, {self.elo1:g}")
        if not (0.0 < self.alpha < 0.5 and 0.0 < self.beta < 0.5):
            raise HeurtuneError("SPRT alpha and beta must be in (0, 0.5)")
        if self.model not in ("logistic", "normalized"):
            raise HeurtuneError(
                f"SPRT Elo model must be logistic or normalized, got {self.model!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    @property
    def t_values(self) -> tuple[float, float]:
        """The bounds as t-values of one pair's score (the normalised model's
        hypotheses): ``nElo / (800 / ln 10) * sqrt 2``."""
        return self.elo0 / NELO_PER_T * SQRT2, self.elo1 / NELO_PER_T * SQRT2

    def llr(self, counts: Sequence[float]) -> float:
        """The log-likelihood ratio after pairs with these five outcome counts."""
        if sum(counts) == 0:
            return 0.0
        n, probs = _regularised(counts)
        if self.model == "logistic":
            p0 = _mle_with_mean(probs, logistic_score(self.elo0))
            p1 = _mle_with_mean(probs, logistic_score(self.elo1))
        else:
            t0, t1 = self.t_values
            p0 = _mle_with_t_value(probs, t0)
            p1 = _mle_with_t_value(probs, t1)
        return n * sum(p * math.log(b / a) for p, a, b in zip(probs, p0, p1, strict=True))

    def scores(self, probs: Sequence[float]) -> tuple[float, float]:
        """The expected pair scores of H0 and H1: the bounds' logistic scores, or for
        the normalised model 0.5 + nElo / (800 / ln 10) * sigma, sigma the per-game
        deviation implied by the outcome frequencies ``probs``. What the Brownian
        approximation of the LLR (:meth:`estimate`, :meth:`pairs_to_verdict`)
        works with."""
        if self.model == "logistic":
            return logistic_score(self.elo0), logistic_score(self.elo1)
        sigma = math.sqrt(2.0 * _mean_var(probs)[1])

        def clamp(x: float) -> float:  # strictly inside the pair scores' range
            return min(max(x, 1e-4), 1.0 - 1e-4)

        return (clamp(0.5 + self.elo0 / NELO_PER_T * sigma),
                clamp(0.5 + self.elo1 / NELO_PER_T * sigma))

    def verdict(self, llr: float) -> str | None:
        """"H0" or "H1" once the LLR leaves its bounds, else None."""
        lower, upper = self.bounds
        if llr <= lower:
            return "H0"
        if llr >= upper:
            return "H1"
        return None

    def estimate(self, counts: Sequence[float], confidence: float = 0.95) -> SprtEstimate:
        """The strength that a test stopped (or capped) after pairs with these five
        outcome counts points to, corrected for the stop (see :class:`SprtEstimate`).

        fishtest's method: the LLR is taken as a Brownian motion stopped at a bound,
        at the time its last step would have crossed it (so an overshoot counts as
        an earlier stop), or still running at the cap. For each true score s the
        probability of an outcome no better than the observed one falls as s rises;
        the estimate is the s that gives it 1/2, the interval those that give
        (1 +- confidence) / 2. The motion's drift and variance at s are those of
        the LLR's actual steps when pairs come from the observed distribution
        tilted to mean s (fishtest's exact ``LLR_drift_variance``; its quick
        quadratic form overstates the drift away from the bounds, and pulls the
        estimate of a clear difference back towards them by tens of Elo)."""
        from scipy.optimize import brentq

        from heurtune.errors import HeurtuneError

        pairs = sum(counts)
        if pairs <= 0:
            raise HeurtuneError("an SPRT estimate needs at least one pair")
        _, probs = _regularised(counts)
        mean, var = _mean_var(probs)
        s0, s1 = self.scores(probs)
        smoothed = [c + PSEUDO_COUNT for c in counts]  # as MatchStats.nelo: never sigma 0
        sigma = math.sqrt(2.0 * _mean_var([c / sum(smoothed) for c in smoothed])[1])
        if abs(mean - 0.5 * (s0 + s1)) > FAR_FROM_BOUNDS * (s1 - s0):
            return self._plain_estimate(counts, confidence, sigma)
        lower, upper = self.bounds
        llr = self.llr(counts)
        time, level = float(pairs), llr
        if llr >= upper:
            time, level = pairs * upper / llr, upper
        elif llr <= lower:
            time, level = pairs * lower / llr, lower

        def motion(elo_diff: float) -> tuple[float, float]:
            """The Brownian motion's drift (per unit of information) and the
            information by the observed time, for a true Elo difference."""
            q = _mle_with_mean(probs, logistic_score(elo_diff))
            drift, step_var = _llr_steps(q, s0, s1)
            return drift / step_var, time * step_var

        def worse(elo_diff: float) -> float:
            return _outcome_cdf(lower, upper, *motion(elo_diff), level)

        centre = min(max(mean, 1e-9), 1.0 - 1e-9)
        naive = min(max(-400.0 * math.log10(1.0 / centre - 1.0), -ESTIMATE_WINDOW),
                    ESTIMATE_WINDOW)
        # one standard error of the plain Elo: the first step of the search
        step0 = max(0.25, math.sqrt(var / pairs) * ELO_PER_LOGIT / (centre * (1.0 - centre)))
        clamped = False

        def crossing(p: float) -> float:
            nonlocal clamped
            here = worse(naive) - p
            if here == 0.0:
                return naive
            up = here > 0.0  # too likely an outcome this bad: the truth lies higher
            previous, step = naive, step0
            while True:
                nxt = min(max(previous + (step if up else -step), -ESTIMATE_WINDOW),
                          ESTIMATE_WINDOW)
                there = worse(nxt) - p
                if (there <= 0.0) if up else (there >= 0.0):
                    lo, hi = sorted((previous, nxt))
                    return float(brentq(lambda e: worse(e) - p, lo, hi, xtol=1e-6))
                if abs(nxt) >= ESTIMATE_WINDOW:
                    clamped = True
                    return nxt
                previous, step = nxt, 2.0 * step

        middle = crossing(0.5)
        if clamped or motion(middle)[1] < 1.0:
            # no strength within +-1000 Elo makes the outcome typical, or at the one
            # that does the LLR's path is nearly certain (its spread by the stop is
            # under 1, a third of the way to a bound): the motion says nothing
            return self._plain_estimate(counts, confidence, sigma)
        tail = 0.5 * (1.0 - confidence)
        elos = middle, crossing(1.0 - tail), crossing(tail)
        scores = [logistic_score(e) for e in elos]
        nelos = [NELO_PER_T * (s - 0.5) / sigma for s in scores]
        return SprtEstimate(scores[0], (scores[1], scores[2]), elos[0], (elos[1], elos[2]),
                            nelos[0], (nelos[1], nelos[2]), confidence, True, clamped)

    def _plain_estimate(self, counts: Sequence[float], confidence: float,
                        sigma: float) -> SprtEstimate:
        """The plain figures of the pairs (as :class:`MatchStats` gives them), for a
        test far beyond its bounds."""
        pair_scores = [v for v, c in zip(PAIR_VALUES, counts, strict=True)
                       for _ in range(int(c))]
        mean, lo, hi = score_interval(pair_scores, confidence)
        games = 2 * len(pair_scores)
        scores = mean, lo, hi
        elos = [elo(x, games) for x in scores]
        nelos = [NELO_PER_T * (x - 0.5) / sigma for x in scores]
        return SprtEstimate(mean, (lo, hi), elos[0], (elos[1], elos[2]),
                            nelos[0], (nelos[1], nelos[2]), confidence, False, False)

    def pairs_to_verdict(self, counts: Sequence[float],
                         quantile: float = 0.95) -> tuple[float, float]:
        """How many more pairs a test that has played pairs with these outcome counts
        would likely need for a verdict: the expected number and the number within
        which it decides with probability ``quantile``, if the pairs to come score
        as those so far (the Brownian approximation of the LLR from where it is,
        its bounds moved out by :data:`DISCRETE_SHIFT` of a step's deviation since
        the test looks only after each pair). (0, 0) once it has a verdict."""
        lower, upper = self.bounds
        llr = self.llr(counts)
        if not lower < llr < upper:
            return 0.0, 0.0
        _, probs = _regularised(counts)
        s0, s1 = self.scores(probs)
        drift, step_var = _llr_steps(probs, s0, s1)
        if not step_var > 0.0:  # the hypotheses' scores coincide within rounding
            return math.inf, math.inf
        gamma = drift / step_var
        shift = DISCRETE_SHIFT * math.sqrt(step_var)
        lower, upper = lower - shift, upper + shift
        return (_expected_exit(lower, upper, gamma, llr) / step_var,
                _exit_quantile(lower, upper, gamma, quantile, llr) / step_var)


def sprt_pair_cap(sprt: Sprt, *, even_ratio: float = 0.5, pair_var: float | None = None,
                  conclude: float = 0.95) -> int:
    """A pair cap for ``sprt`` by which it reaches a verdict with probability
    ``conclude`` whatever the true difference: the ``conclude`` quantile of the
    Brownian approximation's stopping time, at its worst (a truth between the
    hypotheses). A fixed cap of 2000 pairs leaves most tests of a few Elo
    undecided.

    A normalised SPRT's length does not depend on the pairs' spread. A logistic
    one's grows with the variance of a pair's score: ``pair_var`` if known (for
    instance :func:`pair_variance` of earlier pairs between the same engines),
    else the largest that ``even_ratio`` (the share of pairs that end even)
    allows, every other pair won or lost outright: ``(1 - even_ratio) / 4``.
    (A test that looks after every pair stops later than the continuous motion:
    its bounds are moved out by :data:`DISCRETE_SHIFT` of a pair's LLR
    deviation.)"""
    from heurtune.errors import HeurtuneError

    if not 0.0 < conclude < 1.0:
        raise HeurtuneError(f"conclude must be in (0, 1), got {conclude:g}")
    if sprt.model == "normalized":
        t0, t1 = sprt.t_values
        per_pair = (t1 - t0) ** 2
    else:
        if pair_var is None:
            if not 0.0 <= even_ratio < 1.0:
                raise HeurtuneError(f"even_ratio must be in [0, 1), got {even_ratio:g}")
            pair_var = (1.0 - even_ratio) / 4.0
        if not 0.0 < pair_var <= 0.25:
            raise HeurtuneError(f"pair_var must be in (0, 0.25], got {pair_var:g}")
        gap = logistic_score(sprt.elo1) - logistic_score(sprt.elo0)
        per_pair = gap * gap / pair_var
    lower, upper = sprt.bounds
    shift = DISCRETE_SHIFT * math.sqrt(per_pair)
    worst = max(_exit_quantile(lower - shift, upper + shift, k / 20.0 - 0.5, conclude)
                for k in range(21))
    return max(1, math.ceil(worst / per_pair))


def elo_text(score_bound: float, value: float) -> str:
    """An Elo bound as printed: a score bound of 1 (or 0) has no finite Elo."""
    if score_bound >= 1.0 - 1e-12:  # (Wilson's bounds land within rounding of 0 and 1)
        return "+inf"
    if score_bound <= 1e-12:
        return "-inf"
    return f"{value + 0.0:+.1f}"  # (+ 0.0: no "-0.0")


def elo(score: float, games: int) -> float:
    """Elo difference for a score; clamped half a game from 0 and 1 to stay finite."""
    eps = 0.5 / max(games, 1)
    s = min(max(score, eps), 1.0 - eps)
    return -400.0 * math.log10(1.0 / s - 1.0)


@dataclass(frozen=True)
class MatchStats:
    """Wins, draws and losses of the first engine, with derived figures."""

    wins: int
    draws: int
    losses: int
    pair_scores: tuple[float, ...]
    confidence: float = 0.95
    # games lost by an engine fault, by kind (illegal, garbage, timeout, time,
    # crash): the first engine's, then its opponent's (which it won)
    faults: tuple[tuple[str, int], ...] = ()
    opponent_faults: tuple[tuple[str, int], ...] = ()

    @property
    def faulted(self) -> int:
        """Games the first engine lost by a fault of its own."""
        return sum(n for _kind, n in self.faults)

    def faults_text(self) -> str:
        """The games lost by engine faults, in words ("" when none were)."""
        parts = []
        for who, counts in (("the engine", self.faults), ("its opponent", self.opponent_faults)):
            total = sum(n for _k, n in counts)
            if total:
                kinds = ", ".join(f"{FAULT_WORDS.get(k, k)} {n}" for k, n in counts)
                parts.append(f"{who} lost {total} of {self.games} games by faults ({kinds})")
        return "; ".join(parts)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def score_ci(self) -> tuple[float, float]:
        _, lo, hi = score_interval(self.pair_scores, self.confidence)
        return lo, hi

    @property
    def elo(self) -> float:
        return elo(self.score, self.games)

    @property
    def elo_ci(self) -> tuple[float, float]:
        lo, hi = self.score_ci
        return elo(lo, self.games), elo(hi, self.games)

    @property
    def los(self) -> float:
        return los(self.pair_scores)

    @property
    def nelo(self) -> float:
        return nelo(self.pair_scores)

    @property
    def pentanomial(self) -> tuple[int, int, int, int, int]:
        return pentanomial(self.pair_scores)

    @property
    def pair_outcomes(self) -> tuple[int, int, int]:
        """(pairs won, pairs even, pairs lost) by the first engine.

        An even pair is usually a split: each engine won with the same colour. When
        most pairs split, the openings decide most games whoever plays them, and
        the score can move only through the rest, so the breakdown says how much
        room a score has.
        """
        won = sum(1 for s in self.pair_scores if s > 0.5)
        lost = sum(1 for s in self.pair_scores if s < 0.5)
        return won, len(self.pair_scores) - won - lost, lost

    def to_dict(self) -> dict[str, object]:
        won, even, lost = self.pair_outcomes
        return {
            "pairs_won": won,
            "pairs_even": even,
            "pairs_lost": lost,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "score": self.score,
            "score_ci": list(self.score_ci),
            "elo": self.elo,
            "elo_ci": list(self.elo_ci),
            "los": self.los,
            "nelo": self.nelo,
            "pentanomial": list(self.pentanomial),
            **({"faults": dict(self.faults)} if self.faults else {}),
            **({"opponent_faults": dict(self.opponent_faults)} if self.opponent_faults else {}),
        }

    def summary(self) -> str:
        lo, hi = self.score_ci
        elo_lo, elo_hi = self.elo_ci
        return (
            f"+{self.wins} ={self.draws} -{self.losses} ({self.games} games)  "
            f"score {self.score:.3f} [{lo:.3f}, {hi:.3f}]  "
            f"Elo {self.elo + 0.0:+.1f} [{elo_text(lo, elo_lo)}, {elo_text(hi, elo_hi)}]  "
            f"nElo {self.nelo + 0.0:+.1f}  LOS {self.los:.1%}"
        )

    def pairs_summary(self) -> str:
        won, even, lost = self.pair_outcomes
        ll, ld, dd, wd, ww = self.pentanomial
        return (f"pairs: {won} won, {even} even, {lost} lost  "
                f"(pentanomial LL {ll}, LD {ld}, DD/WL {dd}, WD {wd}, WW {ww})")


ELO_PER_LOGIT = 400.0 / math.log(10.0)
# the kinds of engine fault (heurtune.engine.process.EngineFault.kind), in words
FAULT_WORDS = {"illegal": "illegal move", "garbage": "garbage", "timeout": "timed out",
               "time": "lost on time", "crash": "crashed"}


def count_faults(kinds: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """Fault kinds counted, in :data:`FAULT_WORDS`' order (then any other)."""
    order = list(FAULT_WORDS)
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return tuple(sorted(counts.items(), key=lambda kv: (order.index(kv[0])
                                                          if kv[0] in order else len(order),
                                                          kv[0])))


@dataclass(frozen=True)
class Rating:
    name: str
    games: int
    elo: float
    elo_ci: tuple[float, float]


@dataclass(frozen=True)
class RatingDifference:
    """One participant's Bradley-Terry rating minus another's, with its interval."""

    first: str
    second: str
    elo: float
    elo_ci: tuple[float, float]


@dataclass(frozen=True)
class _BradleyTerryFit:
    """A Bradley-Terry fit: ratings (logits, centred), the model's covariance
    (inverse Hessian), the grouped one (the sandwich with its small-sample
    correction, None without groups or with fewer than two), who has a perfect
    record, games per participant and the number of groups."""

    ratings: np.ndarray
    model_cov: np.ndarray
    grouped_cov: np.ndarray | None
    perfect: np.ndarray
    games: np.ndarray
    groups: int

    def spread(self, weights: np.ndarray, confidence: float) -> float:
        """The interval half-width (in logits) of ``weights @ ratings``: from the
        grouped covariance with a t quantile over groups - 1 degrees of freedom,
        unless it involves a perfect record (or there are no groups), then from
        the model's covariance with a normal quantile."""
        import numpy as np

        involved = weights != 0.0
        if self.grouped_cov is not None and not bool(np.any(self.perfect & involved)):
            var = float(weights @ self.grouped_cov @ weights)
            return t_value(self.groups, confidence) * math.sqrt(max(var, 0.0))
        var = float(weights @ self.model_cov @ weights)
        return z_value(confidence) * math.sqrt(max(var, 0.0))


def _bradley_terry_fit(
    n: int,
    results: Sequence[tuple[int, int, float, int]],
    prior_elo: float,
    groups: Sequence[int] | None,
) -> _BradleyTerryFit:
    """Fit the ratings (Newton's method on the penalised likelihood) and their
    covariances; see :func:`bradley_terry`."""
    import numpy as np

    points = np.zeros((n, n))
    games = np.zeros((n, n))
    for i, j, pts, g in results:
        points[i, j] += pts
        points[j, i] += g - pts
        games[i, j] += g
        games[j, i] += g
    inv_var = (ELO_PER_LOGIT / prior_elo) ** 2
    r = np.zeros(n)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        grad = (points - games * p).sum(axis=1) - inv_var * r
        w = games * p * (1.0 - p)
        hess = w - np.diag(w.sum(axis=1)) - inv_var * np.eye(n)
        step = np.linalg.solve(hess, grad)
        r = r - step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
    w = games * p * (1.0 - p)
    inv_h = np.linalg.inv(np.diag(w.sum(axis=1)) - w + inv_var * np.eye(n))
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    won = points.sum(axis=1)
    played = games.sum(axis=1)
    perfect = (won <= 0.0) | (won >= played)
    grouped_cov = None
    count = 0
    if groups is not None:
        scores: dict[int, np.ndarray] = {}
        for (i, j, pts, g), label in zip(results, groups, strict=False):
            u = scores.setdefault(label, np.zeros(n))
            residual = pts - g * p[i, j]
            u[i] += residual
            u[j] -= residual
        count = len(scores)
        if count >= 2:
            meat = sum((np.outer(u, u) for u in scores.values()), np.zeros((n, n)))
            meat *= count / (count - 1)  # few groups: their spread understates the variance
            grouped_cov = centre @ inv_h @ meat @ inv_h @ centre
    return _BradleyTerryFit(r - r.mean(), centre @ inv_h @ centre, grouped_cov, perfect,
                            played, count)


def bradley_terry(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float, int]],
    confidence: float = 0.95,
    prior_elo: float = 1500.0,
    groups: Sequence[int] | None = None,
) -> list[Rating]:
    """Elo ratings of all participants from a Bradley-Terry fit, with intervals.

    ``results`` holds ``(i, j, points_of_i, games)`` records (draws are half
    points). The ratings maximise the likelihood under a weak N(0, prior_elo)
    prior, which keeps a perfect record finite (its interval then shows how
    little the games say). Ratings are centred on their mean. Intervals come from
    the inverse Hessian, which treats every game as independent; with ``groups``
    (one label per record: the opening, in a tournament) they come from the
    sandwich covariance ``H^-1 B H^-1``, B summing the score vectors of each
    group, which accounts for the games of an opening being correlated (a pair
    with colours swapped usually makes them anti-correlated, and the interval
    narrower). With G groups, B is scaled by G / (G - 1) and the interval takes
    the t quantile with G - 1 degrees of freedom: the usual small-sample
    correction of a clustered sandwich, without which a tournament of a dozen
    openings covers the truth only about 90% of the time instead of 95%. A
    participant with a perfect record keeps the Hessian's interval: its
    residuals say nothing about its spread; so does everyone with fewer than two
    groups.
    """
    import numpy as np

    n = len(names)
    fit = _bradley_terry_fit(n, results, prior_elo, groups)
    out = []
    for k, name in enumerate(names):
        half = fit.spread(np.eye(n)[k], confidence) * ELO_PER_LOGIT
        elo_k = float(fit.ratings[k] * ELO_PER_LOGIT)
        out.append(Rating(name, int(fit.games[k]), elo_k, (elo_k - half, elo_k + half)))
    return out


def bradley_terry_differences(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float, int]],
    confidence: float = 0.95,
    prior_elo: float = 1500.0,
    groups: Sequence[int] | None = None,
) -> list[RatingDifference]:
    """Every rating difference of the fit :func:`bradley_terry` makes (first
    minus second, for each pair of participants in ``names`` order), with an
    interval from the same covariance: it accounts for the two ratings being
    estimated from shared games, which two separate intervals cannot say."""
    import numpy as np

    n = len(names)
    fit = _bradley_terry_fit(n, results, prior_elo, groups)
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            weights = np.zeros(n)
            weights[i], weights[j] = 1.0, -1.0
            diff = float((fit.ratings[i] - fit.ratings[j]) * ELO_PER_LOGIT)
            half = fit.spread(weights, confidence) * ELO_PER_LOGIT
            out.append(RatingDifference(names[i], names[j], diff, (diff - half, diff + half)))
    return out
