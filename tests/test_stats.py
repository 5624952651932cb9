from __future__ import annotations

import math

import pytest

from heurtune.match.stats import MatchStats, elo, los, score_interval, wilson


def test_score_counts_draws_half() -> None:
    s = MatchStats(wins=6, draws=2, losses=2, pair_scores=(1, 0.75, 0.5, 0.5, 0.25))
    assert s.games == 10 and s.score == 0.7


def test_interval_is_the_normal_interval_over_pairs() -> None:
    pairs = [1.0, 0.5, 0.5, 0.0, 1.0, 0.75, 0.25, 0.5]
    mean, lo, hi = score_interval(pairs)
    n = len(pairs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in pairs) / (n - 1))
    assert mean == pytest.approx(0.5625)
    assert hi - mean == pytest.approx(1.959964 * sd / math.sqrt(n), rel=1e-5)
    assert mean - lo == pytest.approx(hi - mean)


def test_zero_spread_falls_back_to_wilson() -> None:
    mean, lo, hi = score_interval([0.5] * 10)
    assert mean == 0.5 and (lo, hi) == pytest.approx(wilson(0.5, 20))
    assert lo < 0.5 < hi


def test_elo() -> None:
    assert elo(0.5, 100) == 0.0
    assert elo(0.75, 100) == pytest.approx(190.85, abs=0.01)
    assert elo(0.25, 100) == pytest.approx(-190.85, abs=0.01)
    assert math.isfinite(elo(1.0, 10)) and elo(1.0, 10) > 500


def test_to_dict_keys() -> None:
    d = MatchStats(3, 1, 0, (1.0, 0.75)).to_dict()
    assert set(d) == {"wins", "draws", "losses", "games", "score", "score_ci", "elo", "elo_ci",
                      "los", "pairs_won", "pairs_even", "pairs_lost"}


def test_pair_outcomes() -> None:
    stats = MatchStats(5, 1, 4, (1.0, 0.5, 0.5, 0.75, 0.25, 0.0, 0.5, 1.0))
    assert stats.pair_outcomes == (3, 3, 2)
    assert stats.pairs_summary() == "pairs: 3 won, 3 even, 2 lost"


def test_los_is_the_normal_tail_of_the_pair_mean() -> None:
    """Checked against an independent computation: erf instead of NormalDist."""
    pairs = [1.0, 0.5, 0.5, 0.0, 1.0, 0.75, 0.25, 0.5, 1.0, 0.75]
    n = len(pairs)
    mean = sum(pairs) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in pairs) / (n - 1) / n)
    expected = 0.5 * (1 + math.erf((mean - 0.5) / se / math.sqrt(2)))
    assert los(pairs) == pytest.approx(expected, rel=1e-12)
    assert los([1.0 - x for x in pairs]) == pytest.approx(1 - expected, rel=1e-12)
    assert los([0.5] * 6) == 0.5 and los([1.0] * 3) == 1.0 and los([]) == 0.5


def test_elo_bounds_print_as_infinite_when_the_score_bound_is_certain() -> None:
    perfect = MatchStats(wins=20, draws=0, losses=0, pair_scores=(1.0,) * 10)
    assert perfect.score_ci[1] == 1.0
    assert "+inf]" in perfect.summary() and "LOS 100.0%" in perfect.summary()
    lost = MatchStats(wins=0, draws=0, losses=20, pair_scores=(0.0,) * 10)
    assert "[-inf," in lost.summary()
    mixed = MatchStats(wins=5, draws=2, losses=3, pair_scores=(1.0, 0.75, 0.5, 0.25, 0.75))
    assert "inf" not in mixed.summary()
