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


def paired_difference(a: Sequence[PairResult], b: Sequence[PairResult],
                      confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of the per-opening score difference between two engines
    that played the same openings against the same opponent: the openings' own
    difficulty cancels, so this interval is much narrower than two separate ones."""
    by_index = {p.index: p.score for p in b}
    diffs = [p.score - by_index[p.index] for p in a if p.index in by_index]
    n = len(diffs)
    if n == 0:
        return 0.0, -1.0, 1.0
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.25
    # a floor: all differences equal so far is not certainty (a quarter pair of spread)
    half = t_value(n, confidence) * math.sqrt(max(var, 1.0 / (16 * n)) / n)
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


def _mle_with_mean(probs: Sequence[float], target: float) -> list[float]:
    """The distribution over :data:`PAIR_VALUES` closest (maximum likelihood) to
    ``probs`` whose mean is ``target``: ``p_i / (1 + x (v_i - target))`` with x
    the root of ``sum p_i (v_i - target) / (1 + x (v_i - target)) = 0``."""
    from scipy.optimize import brentq

    a = [v - target for v in PAIR_VALUES]
    lo, hi = -1.0 / max(a), -1.0 / min(a)  # where every 1 + x a_i stays positive
    span = hi - lo

    def f(x: float) -> float:
        return sum(p * ai / (1.0 + x * ai) for p, ai in zip(probs, a, strict=False))

    x = brentq(f, lo + 1e-12 * span, hi - 1e-12 * span, xtol=1e-15, maxiter=500)
    return [p / (1.0 + x * ai) for p, ai in zip(probs, a, strict=False)]


MAX_SPRT_ELO = 2000.0  # beyond it an expected score is 1 (or 0) within rounding


@dataclass(frozen=True)
class Sprt:
    """A pentanomial generalised SPRT (fishtest's): H0 says the first engine is
    ``elo0`` stronger, H1 ``elo1``. The log-likelihood ratio of the pair outcomes
    under the two maximum-likelihood distributions whose expected scores are
    those Elo differences is compared with the bounds ln(beta / (1 - alpha))
    and ln((1 - beta) / alpha).

    ``model = "logistic"``: the bounds are logistic Elo. ``"normalized"``: they
    are normalised Elo, turned into expected scores with the spread observed so
    far (0.5 + nElo / (800 / ln 10) * sigma, sigma the per-game deviation
    implied by the pairs); an approximation of fishtest's normalised SPRT, which
    maximises the likelihood under a t-value constraint instead."""

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

    def llr(self, counts: Sequence[float]) -> float:
        """The log-likelihood ratio after pairs with these five outcome counts."""
        if sum(counts) == 0:
            return 0.0
        regular = [max(float(c), 1e-3) for c in counts]  # fishtest's regularisation
        n = sum(regular)
        probs = [c / n for c in regular]
        s0, s1 = self.scores(probs)
        p0 = _mle_with_mean(probs, s0)
        p1 = _mle_with_mean(probs, s1)
        return n * sum(p * math.log(b / a) for p, a, b in zip(probs, p0, p1, strict=False))

    def scores(self, probs: Sequence[float]) -> tuple[float, float]:
        """The expected pair scores of H0 and H1 (given the outcome frequencies, for
        the normalised model)."""
        if self.model == "logistic":
            return logistic_score(self.elo0), logistic_score(self.elo1)
        mean = sum(p * v for p, v in zip(probs, PAIR_VALUES, strict=False))
        sigma = math.sqrt(2.0 * sum(p * (v - mean) ** 2
                                    for p, v in zip(probs, PAIR_VALUES, strict=False)))

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
    narrower). A participant with a perfect record keeps the Hessian's interval:
    its residuals say nothing about its spread.
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
    inv_h = np.linalg.inv(np.diag(w.sum(axis=1)) - w + inv_var * np.eye(n))
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    cov = centre @ inv_h @ centre
    if groups is not None:
        scores: dict[int, np.ndarray] = {}
        for (i, j, pts, g), label in zip(results, groups, strict=False):
            u = scores.setdefault(label, np.zeros(n))
            residual = pts - g * p[i, j]
            u[i] += residual
            u[j] -= residual
        meat = sum((np.outer(u, u) for u in scores.values()), np.zeros((n, n)))
        sandwich = centre @ inv_h @ meat @ inv_h @ centre
        won = points.sum(axis=1)
        played = games.sum(axis=1)
        perfect = (won <= 0.0) | (won >= played)
        for k in range(n):
            if not perfect[k]:
                cov[k, k] = sandwich[k, k]
    r = r - r.mean()
    z = z_value(confidence)
    out = []
    for k, name in enumerate(names):
        half = z * math.sqrt(max(cov[k, k], 0.0)) * ELO_PER_LOGIT
        elo_k = float(r[k] * ELO_PER_LOGIT)
        out.append(Rating(name, int(games[k].sum()), elo_k, (elo_k - half, elo_k + half)))
    return out
