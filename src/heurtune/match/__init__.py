"""Paired self-play matches, run in parallel, and their statistics.

The face of the layer: :func:`play_match` (a validated match as one call), the
runner and its specs, results and statistics. Tournaments, game records and
HTML pages live in :mod:`heurtune.match.tournament`, :mod:`heurtune.match.records`
and :mod:`heurtune.match.html`.
"""

from heurtune.match.api import (
    DEFAULT_MAX_PAIRS,
    MatchOutcome,
    MatchPlan,
    check_match_options,
    play_match,
    prepare_match,
)
from heurtune.match.play import GameRecord, PairResult, mix_seed, play_game, play_pair
from heurtune.match.runner import (
    MAX_OPENING_PLIES,
    SEED_MAX,
    MatchResult,
    MatchRunner,
    MatchSpec,
    PoolPair,
    PoolStats,
    SprtOutcome,
    check_jobs,
    stats_of,
)
from heurtune.match.stats import (
    MatchStats,
    RatingDifference,
    Sprt,
    SprtEstimate,
    bradley_terry,
    bradley_terry_differences,
    elo_text,
    pair_variance,
    paired_difference,
    sprt_pair_cap,
)

__all__ = [
    "DEFAULT_MAX_PAIRS",
    "MAX_OPENING_PLIES",
    "SEED_MAX",
    "GameRecord",
    "MatchOutcome",
    "MatchPlan",
    "MatchResult",
    "MatchRunner",
    "MatchSpec",
    "MatchStats",
    "PairResult",
    "PoolPair",
    "PoolStats",
    "RatingDifference",
    "Sprt",
    "SprtEstimate",
    "SprtOutcome",
    "bradley_terry",
    "bradley_terry_differences",
    "check_jobs",
    "check_match_options",
    "elo_text",
    "mix_seed",
    "pair_variance",
    "paired_difference",
    "play_game",
    "play_match",
    "play_pair",
    "prepare_match",
    "sprt_pair_cap",
    "stats_of",
]
