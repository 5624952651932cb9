"""Match statistics: score, its confidence interval, Elo and LOS.

A match is played in *pairs* (one opening, colours swapped), so the unit of
independent evidence is the pair, not the game: the two games of a pair share
an opening and are correlated. The interval is therefore a normal
approximation over pair scores (the "pentanomial" model that engine testers
use); it falls back to a Wilson interval over games when the pair scores have
no spread yet (for example all pairs drawn), where the normal model would
claim a zero-width interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence


def z_value(confidence: float = 0.95) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson(score: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion observed over ``n`` trials."""
    if n <= 0:
        return 0.0, 1.0
    z = z_value(confidence)
    denom = 1.0 + z * z / n
    centre = (score + z * z / (2 * n)) / denom
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def score_interval(
    pair_scores: Sequence[float], confidence: float = 0.95
) -> tuple[float, float, float]:
    """(score, low, high) from per-pair scores in [0, 1]."""
    n = len(pair_scores)
    if n == 0:
        return 0.5, 0.0, 1.0
    mean = sum(pair_scores) / n
    var = sum((x - mean) ** 2 for x in pair_scores) / (n - 1) if n > 1 else 0.0
    if var <= 0.0:
        lo, hi = wilson(mean, 2 * n, confidence)
        return mean, lo, hi
    half = z_value(confidence) * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def los(pair_scores: Sequence[float]) -> float:
    """Likelihood of superiority: the probability that the first engine is the
    stronger, under the same normal model of pair scores as the interval
    (``Phi((mean - 0.5) / standard error)``). With no spread yet it is 1, 0 or
    0.5 by the sign of the difference alone."""
    n = len(pair_scores)
    if n == 0:
        return 0.5
    mean = sum(pair_scores) / n
    var = sum((x - mean) ** 2 for x in pair_scores) / (n - 1) if n > 1 else 0.0
    if var <= 0.0:
        return 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return NormalDist().cdf((mean - 0.5) / math.sqrt(var / n))


def _elo_text(score_bound: float, value: float) -> str:
    """An Elo bound as printed: a score bound of 1 (or 0) has no finite Elo."""
    if score_bound >= 1.0 - 1e-12:  # (Wilson's bounds land within rounding of 0 and 1)
        return "+inf"
    if score_bound <= 1e-12:
        return "-inf"
    return f"{value:+.1f}"


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
        }

    def summary(self) -> str:
        lo, hi = self.score_ci
        elo_lo, elo_hi = self.elo_ci
        return (
            f"+{self.wins} ={self.draws} -{self.losses} ({self.games} games)  "
            f"score {self.score:.3f} [{lo:.3f}, {hi:.3f}]  "
            f"Elo {self.elo:+.1f} [{_elo_text(lo, elo_lo)}, {_elo_text(hi, elo_hi)}]  "
            f"LOS {self.los:.1%}"
        )

    def pairs_summary(self) -> str:
        won, even, lost = self.pair_outcomes
        return f"pairs: {won} won, {even} even, {lost} lost"


def stratified_interval(
    cells: Sequence[Sequence[float]], confidence: float = 0.95
) -> tuple[float, float, float]:
    """(score, low, high) of the mean of per-cell scores, each cell a list of pair scores.

    An agent's tournament score averages cells against different opponents;
    its variance is the sum of the cells' variances (stratified sampling), not
    the spread of all pairs pooled, which would count the opponents'
    differences as noise. A cell whose pairs all scored the same (a 10-0
    sweep) gets the variance its Wilson interval implies rather than none.
    """
    cells = [c for c in cells if len(c)]
    if not cells:
        return 0.5, 0.0, 1.0
    k = len(cells)
    z = z_value(confidence)
    means = [sum(c) / len(c) for c in cells]
    score = sum(means) / k
    var = 0.0
    for c, m in zip(cells, means):
        spread = sum((x - m) ** 2 for x in c) / (len(c) - 1) if len(c) > 1 else 0.0
        if spread > 0.0:
            var += spread / len(c)
        else:  # no spread yet (say 10-0): the variance its Wilson interval implies
            lo, hi = wilson(m, 2 * len(c), confidence)
            var += ((hi - lo) / (2 * z)) ** 2
    half = z * math.sqrt(var) / k
    return score, max(0.0, score - half), min(1.0, score + half)


ELO_PER_LOGIT = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    name: str
    games: int
    elo: float
    elo_ci: tuple[float, float]


def bradley_terry(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float, int]],
    confidence: float = 0.95,
    prior_elo: float = 1500.0,
) -> list[Rating]:
    """Elo ratings of all participants from a Bradley-Terry fit, with intervals.

    ``results`` holds ``(i, j, points_of_i, games)`` records (draws are half
    points). The ratings maximise the likelihood under a weak N(0, prior_elo)
    prior, which keeps a perfect record finite (its interval then shows how
    little the games say). Intervals come from the inverse Hessian; ratings are
    centred on their mean.
    """
    import numpy as np

    n = len(names)
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
    cov = np.linalg.inv(np.diag(w.sum(axis=1)) - w + inv_var * np.eye(n))
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    cov = centre @ cov @ centre
    r = r - r.mean()
    z = z_value(confidence)
    out = []
    for k, name in enumerate(names):
        half = z * math.sqrt(max(cov[k, k], 0.0)) * ELO_PER_LOGIT
        elo_k = float(r[k] * ELO_PER_LOGIT)
        out.append(Rating(name, int(games[k].sum()), elo_k, (elo_k - half, elo_k + half)))
    return out
