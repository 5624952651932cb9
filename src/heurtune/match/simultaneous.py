"""Simultaneous intervals for several engines compared with one baseline.

When K candidates each play the same openings as a baseline and the best of
them is picked, its ordinary 95% interval is too narrow: the pick favours
whichever candidate was lucky. The max-t (Dunnett) method widens every
interval to one critical value ``c`` chosen so that all K intervals hold at
once with the stated probability: ``P(max_k |T_k| <= c) = confidence`` where
``T_k`` are the K paired differences' t statistics, correlated because they
share the baseline's games and the openings. The interval of the one picked
is then honest whichever was picked; its point estimate is not (it is still
the luckiest of K), so callers report the interval's bounds, not a score.

The critical value is computed by Monte Carlo from a multivariate t with the
differences' sample correlation and ``n - 1`` degrees of freedom, with a fixed
seed, so the same games always give the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heurtune.match.stats import difference_variance

MAX_T_DRAWS = 200_000  # Monte Carlo draws: the critical value to about +-0.005
MAX_T_SEED = 20260  # fixed: the same games give the same interval


@dataclass(frozen=True)
class Simultaneous:
    """K paired differences from one baseline with max-t intervals.

    ``means[k]`` is candidate k's mean per-opening score difference from the
    baseline, ``lows[k]``/``highs[k]`` its simultaneous interval, ``critical``
    the max-t critical value (the plain t quantile when K is 1) and ``pairs``
    the number of openings the differences are over."""

    means: tuple[float, ...]
    lows: tuple[float, ...]
    highs: tuple[float, ...]
    critical: float
    pairs: int
    confidence: float

    def interval(self, k: int) -> tuple[float, float]:
        return self.lows[k], self.highs[k]


def max_t_critical(corr: np.ndarray, df: int, confidence: float = 0.95,
                   draws: int = MAX_T_DRAWS, seed: int = MAX_T_SEED) -> float:
    """The two-sided max-t critical value: ``P(max_k |T_k| <= c) = confidence``
    for ``T`` multivariate t with correlation matrix ``corr`` and ``df``
    degrees of freedom (Monte Carlo, ``draws`` draws from ``seed``)."""
    corr = np.asarray(corr, dtype=float)
    k = corr.shape[0]
    if k == 0:
        raise ValueError("max_t_critical needs at least one comparison")
    # a correlation matrix estimated from few openings may be singular: use its
    # nearest positive semi-definite square root (eigenvalues clipped at 0)
    vals, vecs = np.linalg.eigh((corr + corr.T) / 2.0)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((draws, k)) @ root.T
    scale = np.sqrt(rng.chisquare(max(df, 1), draws) / max(df, 1))
    stat = np.max(np.abs(z), axis=1) / scale
    return float(np.quantile(stat, confidence))


def simultaneous_differences(diffs: Sequence[Sequence[float]] | np.ndarray,
                             confidence: float = 0.95, draws: int = MAX_T_DRAWS) -> Simultaneous:
    """Max-t intervals for K candidates' per-opening score differences from a
    baseline (``diffs[k][i]``: candidate k's pair score minus the baseline's on
    opening i; every candidate over the same openings); ``draws``: the Monte
    Carlo's (see :func:`max_t_critical`).

    Each difference's variance is :func:`heurtune.match.stats.difference_variance`,
    the one :func:`heurtune.match.stats.paired_difference` uses (floored at a
    quarter pair of spread), so equal games so far are not certainty."""
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2 or d.shape[0] == 0 or d.shape[1] == 0:
        raise ValueError("simultaneous_differences needs K >= 1 candidates over >= 1 openings")
    k, n = d.shape
    means = d.mean(axis=1)
    se = np.sqrt(np.array([difference_variance(row) for row in d.tolist()]) / n)
    if k == 1:
        from scipy.stats import t

        critical = float(t.ppf(0.5 + confidence / 2.0, max(n - 1, 1)))
    else:
        centred = d - means[:, None]
        cov = centred @ centred.T / max(n - 1, 1)
        sd = np.sqrt(np.maximum(np.diag(cov), 1e-300))
        corr = cov / np.outer(sd, sd)
        np.fill_diagonal(corr, 1.0)
        corr = np.clip(corr, -1.0, 1.0)
        critical = max_t_critical(corr, n - 1, confidence, draws)
    half = critical * se
    return Simultaneous(
        means=tuple(float(m) for m in means),
        lows=tuple(float(max(-1.0, m - h)) for m, h in zip(means, half, strict=True)),
        highs=tuple(float(min(1.0, m + h)) for m, h in zip(means, half, strict=True)),
        critical=critical, pairs=n, confidence=confidence,
    )


__all__ = ["Simultaneous", "max_t_critical", "simultaneous_differences"]
