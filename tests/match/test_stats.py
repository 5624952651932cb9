"""Match statistics, each formula checked against an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from heurtune.match.stats import (
    PAIR_VALUES,
    MatchStats,
    Sprt,
    elo,
    logistic_score,
    los,
    nelo,
    pair_variance,
    pentanomial,
    score_interval,
)


def test_score_counts_draws_half() -> None:
    s = MatchStats(wins=6, draws=2, losses=2, pair_scores=(1, 0.75, 0.5, 0.5, 0.25))
    assert s.games == 10 and s.score == 0.7


def test_pentanomial_counts_the_five_pair_outcomes() -> None:
    assert pentanomial([0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0]) == (1, 1, 2, 1, 3)


def _smoothed_sample(pairs: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """The pairs as a weighted sample with half a pair added at each outcome."""
    values = np.array(list(pairs) + list(PAIR_VALUES))
    weights = np.array([1.0] * len(pairs) + [0.5] * 5)
    return values, weights


def test_interval_is_a_t_interval_over_pairs_with_smoothed_variance() -> None:
    pairs = [1.0, 0.5, 0.5, 0.0, 1.0, 0.75, 0.25, 0.5]
    values, weights = _smoothed_sample(pairs)
    var = float(np.cov(values, aweights=weights, bias=True))
    assert pair_variance(pairs) == pytest.approx(var, rel=1e-12)
    mean, lo, hi = score_interval(pairs)
    half = stats.t.ppf(0.975, len(pairs) - 1) * math.sqrt(var / len(pairs))
    assert mean == pytest.approx(0.5625)
    assert (lo, hi) == pytest.approx((mean - half, mean + half), rel=1e-12)


def test_an_interval_never_collapses_and_one_pair_changes_it_little() -> None:
    for same in ([0.5] * 10, [1.0] * 10, [0.0] * 10):
        _, lo, hi = score_interval(same)
        assert hi - lo > 0.05
    _, lo, hi = score_interval([1.0] * 10)
    _, lo2, hi2 = score_interval([1.0] * 10 + [0.75])
    assert 0.5 < (hi2 - lo2) / (hi - lo) < 2.0  # no Wilson switch shrinking it sevenfold
    assert score_interval([1.0] * 10)[2] == 1.0 and score_interval([0.0] * 10)[1] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("pairs", [8, 20, 200])
def test_simulated_coverage_is_at_least_nominal(pairs: int) -> None:
    """Pairs drawn from three pentanomial distributions: the 95% interval covers the
    true score at least about 95% of the time (more with few pairs: the pseudo-counts
    err on the safe side)."""
    rng = np.random.default_rng(pairs)
    for probs in ([0.05, 0.2, 0.5, 0.2, 0.05], [0.02, 0.08, 0.3, 0.35, 0.25],
                  [0.25, 0.05, 0.3, 0.05, 0.35]):
        truth = float(np.dot(probs, PAIR_VALUES))
        runs = 600
        hits = 0
        for _ in range(runs):
            sample = list(rng.choice(PAIR_VALUES, size=pairs, p=probs))
            _, lo, hi = score_interval(sample)
            hits += lo <= truth <= hi
        assert hits / runs >= 0.925, (probs, hits / runs)


def test_elo() -> None:
    assert elo(0.5, 100) == 0.0
    assert elo(0.75, 100) == pytest.approx(190.85, abs=0.01)
    assert elo(0.25, 100) == pytest.approx(-190.85, abs=0.01)
    assert math.isfinite(elo(1.0, 10)) and elo(1.0, 10) > 500
    assert logistic_score(elo(0.64, 100)) == pytest.approx(0.64)


def test_to_dict_keys() -> None:
    d = MatchStats(3, 1, 0, (1.0, 0.75)).to_dict()
    assert set(d) == {"wins", "draws", "losses", "games", "score", "score_ci", "elo", "elo_ci",
                      "los", "nelo", "pentanomial", "pairs_won", "pairs_even", "pairs_lost"}
    assert d["pentanomial"] == [0, 0, 0, 1, 1]


def test_pair_outcomes() -> None:
    stats_ = MatchStats(5, 1, 4, (1.0, 0.5, 0.5, 0.75, 0.25, 0.0, 0.5, 1.0))
    assert stats_.pair_outcomes == (3, 3, 2)
    assert stats_.pairs_summary().startswith("pairs: 3 won, 3 even, 2 lost")


def test_los_is_the_normal_tail_of_the_pair_mean() -> None:
    """Checked against an independent computation: erf and numpy's weighted variance."""
    pairs = [1.0, 0.5, 0.5, 0.0, 1.0, 0.75, 0.25, 0.5, 1.0, 0.75]
    n = len(pairs)
    mean = sum(pairs) / n
    values, weights = _smoothed_sample(pairs)
    se = math.sqrt(float(np.cov(values, aweights=weights, bias=True)) / n)
    expected = 0.5 * (1 + math.erf((mean - 0.5) / se / math.sqrt(2)))
    assert los(pairs) == pytest.approx(expected, rel=1e-12)
    assert los([1.0 - x for x in pairs]) == pytest.approx(1 - expected, rel=1e-12)
    assert los([0.5] * 6) == 0.5 and los([]) == 0.5 and 0.99 < los([1.0] * 10) < 1.0


def test_nelo_is_fishtests_normalised_elo() -> None:
    pairs = [1.0, 0.5, 0.75, 0.5, 0.25, 0.75, 1.0, 0.5]
    values, weights = _smoothed_sample(pairs)
    sigma_game = math.sqrt(2 * float(np.cov(values, aweights=weights, bias=True)))
    expected = (np.mean(pairs) - 0.5) / sigma_game * 800 / math.log(10)
    assert nelo(pairs) == pytest.approx(expected, rel=1e-12)
    assert nelo([0.5, 0.5]) == 0.0 and nelo([]) == 0.0


def test_elo_bounds_print_as_infinite_when_the_score_bound_is_certain() -> None:
    perfect = MatchStats(wins=20, draws=0, losses=0, pair_scores=(1.0,) * 10)
    assert perfect.score_ci[1] == 1.0
    assert "+inf]" in perfect.summary()
    lost = MatchStats(wins=0, draws=0, losses=20, pair_scores=(0.0,) * 10)
    assert "[-inf," in lost.summary()
    mixed = MatchStats(wins=20, draws=8, losses=12,
                       pair_scores=(1.0, 0.75, 0.5, 0.25, 0.75) * 4)
    assert "inf" not in mixed.summary()


# -- the SPRT -------------------------------------------------------------------------

def _llr_by_constrained_optimisation(counts: list[int], elo0: float, elo1: float) -> float:
    """The GSPRT's LLR computed another way: each hypothesis's maximum-likelihood
    pentanomial distribution found by a general constrained optimiser (SLSQP)."""
    n = np.maximum(np.array(counts, dtype=float), 1e-3)
    v = np.array(PAIR_VALUES)

    def best(score: float) -> np.ndarray:
        cons = [{"type": "eq", "fun": lambda p: p.sum() - 1.0},
                {"type": "eq", "fun": lambda p: p @ v - score}]
        res = optimize.minimize(lambda p: -(n * np.log(p)).sum(), np.full(5, 0.2),
                                constraints=cons, bounds=[(1e-12, 1.0)] * 5, method="SLSQP",
                                options={"ftol": 1e-15, "maxiter": 1000})
        assert res.success
        return res.x

    p0, p1 = best(logistic_score(elo0)), best(logistic_score(elo1))
    return float((n * np.log(p1 / p0)).sum())


@pytest.mark.parametrize("counts", [[10, 20, 40, 20, 10], [3, 9, 30, 15, 7], [0, 5, 50, 0, 9],
                                    [40, 5, 100, 10, 60]])
def test_sprt_llr_matches_an_independent_optimisation(counts: list[int]) -> None:
    sprt = Sprt(0.0, 10.0)
    expected = _llr_by_constrained_optimisation(counts, 0.0, 10.0)
    assert sprt.llr(counts) == pytest.approx(expected, rel=1e-4, abs=1e-6)


def test_sprt_llr_approaches_the_normal_approximation_with_many_pairs() -> None:
    counts = [400, 1600, 3600, 1800, 600]  # mean above 0.5
    sprt = Sprt(-5.0, 5.0)
    probs = np.array(counts) / sum(counts)
    v = np.array(PAIR_VALUES)
    mean = probs @ v
    var = probs @ (v - mean) ** 2
    s0, s1 = logistic_score(-5.0), logistic_score(5.0)
    approx = sum(counts) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert sprt.llr(counts) == pytest.approx(approx, rel=0.01)


def test_sprt_bounds_and_verdicts() -> None:
    sprt = Sprt(0.0, 5.0)
    lower, upper = sprt.bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(-lower)
    assert sprt.verdict(3.0) == "H1" and sprt.verdict(-3.0) == "H0" and sprt.verdict(0.0) is None
    assert sprt.llr([0, 0, 0, 0, 0]) == 0.0


def _pentanomial_of(score: float, draw: float) -> np.ndarray:
    """Two independent games per pair with this expected score and draw rate."""
    win = score - draw / 2
    game = np.array([1 - win - draw, draw, win])  # loss, draw, win: 0, 1/2, 1
    return np.convolve(game, game)


def _wrong_verdicts(sprt: Sprt, probs: np.ndarray, wrong: str, runs: int,
                    rng: np.random.Generator) -> int:
    """How many of ``runs`` simulated tests (pairs drawn from ``probs``, four at a
    time) end with the ``wrong`` verdict."""
    errors = 0
    for _ in range(runs):
        counts = [0] * 5
        verdict = None
        while verdict is None:
            for k in rng.choice(5, size=4, p=probs):
                counts[k] += 1
            verdict = sprt.verdict(sprt.llr(counts))
        errors += verdict == wrong
    return errors


def test_sprt_error_rates_by_simulation() -> None:
    """Under H0 the test rarely accepts H1, and under H1 rarely H0 (alpha = beta = 0.05)."""
    rng = np.random.default_rng(5)
    sprt = Sprt(0.0, 60.0)
    for true_elo, wrong in ((0.0, "H1"), (60.0, "H0")):
        probs = _pentanomial_of(logistic_score(true_elo), 0.3)
        errors = _wrong_verdicts(sprt, probs, wrong, 150, rng)
        assert errors / 150 <= 0.1, (true_elo, errors)


def test_sprt_rejects_bad_bounds() -> None:
    from heurtune.errors import HeurtuneError

    with pytest.raises(HeurtuneError):
        Sprt(5.0, 5.0)
    with pytest.raises(HeurtuneError):
        Sprt(5.0, 0.0)


def test_normalized_sprt_scores_use_the_observed_spread() -> None:
    """The expected scores the Brownian approximation works with (the corrected
    estimate, the forecast): 0.5 + nElo / (800 / ln 10) * sigma. The LLR itself is
    the exact t-value likelihood ratio (tests/match/test_stats_sprt.py)."""
    counts = [10, 20, 40, 20, 10]
    sprt = Sprt(0.0, 20.0, model="normalized")
    probs = np.array(counts) / sum(counts)
    v = np.array(PAIR_VALUES)
    sigma = math.sqrt(2 * float(probs @ (v - probs @ v) ** 2))
    s0, s1 = sprt.scores(list(probs))
    assert s0 == pytest.approx(0.5) and s1 == pytest.approx(0.5 + 20 / (800 / math.log(10)) * sigma)


@pytest.mark.slow
def test_normalized_sprt_error_rates_by_simulation() -> None:
    rng = np.random.default_rng(8)
    sprt = Sprt(0.0, 80.0, model="normalized")
    probs_h0 = _pentanomial_of(0.5, 0.3)
    sigma = math.sqrt(2 * float(probs_h0 @ (np.array(PAIR_VALUES) - 0.5) ** 2))
    probs_h1 = _pentanomial_of(0.5 + 80 / (800 / math.log(10)) * sigma, 0.3)
    for probs, wrong in ((probs_h0, "H1"), (probs_h1, "H0")):
        errors = _wrong_verdicts(sprt, probs, wrong, 120, rng)
        assert errors / 120 <= 0.12, (wrong, errors)
