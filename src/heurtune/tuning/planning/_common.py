"""What calibrate and screen share: the baseline engine, fresh openings, a match."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match import SEED_MAX, MatchResult, MatchSpec, PairResult
from heurtune.tuning.studyfile import StudyFile


def baseline(sf: StudyFile, name: str = "baseline") -> EngineConfig:
    """The study's starting point: its engine with the heuristic's defaults (the
    study's pinned values included), or the ``start_from`` engine's weights."""
    return sf.base.with_params(dict(sf.start_params), name=name)


def fresh_seed(sf: StudyFile) -> int:
    """The default seed of fresh openings: the study's + 1 (as ``confirm``'s)."""
    return (sf.seed + 1) % (SEED_MAX + 1)


def draw_openings(sf: StudyFile, pairs: int, seed: int | None = None,
                  opening_plies: int | None = None, study_openings: bool = False,
                  ) -> tuple[list[tuple[int, ...]], int, int]:
    """``pairs`` openings, their length and the seed: fresh openings (none of the
    study's tuning openings nor their mirror images; ``seed`` default
    :func:`fresh_seed`, ``opening_plies`` default the study's), or with
    ``study_openings`` the first ``pairs`` of the study's own."""
    if pairs < 1:
        raise HeurtuneError(f"--pairs must be at least 1, got {pairs}")
    seed = fresh_seed(sf) if seed is None else seed
    if not 0 <= seed <= SEED_MAX:
        raise HeurtuneError(f"seed must be in [0, {SEED_MAX}], got {seed}")
    tuning = sf.match_spec().openings()
    if study_openings:
        if opening_plies is not None:
            raise HeurtuneError("--study-openings plays the study's openings, of its length: "
                                "give no --opening-plies")
        if pairs > len(tuning):
            raise HeurtuneError(f"the study has {len(tuning)} openings, fewer than {pairs} pairs")
        return tuning[:pairs], sf.opening_plies, seed
    plies = sf.opening_plies if opening_plies is None else opening_plies
    spec = MatchSpec(sf.base, sf.opponent, pairs, seed, plies, tuple(tuning))
    try:
        return spec.openings(), plies, seed
    except HeurtuneError as exc:
        raise HeurtuneError(f"{exc}; fresh openings leave out the study's {len(tuning)} and "
                            "their mirror images (--study-openings plays the study's own)"
                            ) from None


def play(runner: Any, a: EngineConfig, b: EngineConfig, seed: int, plies: int,
         openings: Sequence[tuple[int, ...]],
         on_pair: Callable[[PairResult], None] | None = None) -> MatchResult:
    """A plays B on ``openings`` (tie-breaks from ``seed``) with ``runner``: a
    :class:`MatchRunner` or anything with the same ``run``; the pairs by index."""
    spec = MatchSpec(a, b, len(openings), seed, plies)
    pairs = runner.run(spec, on_pair=on_pair, openings=openings).pairs
    return MatchResult(spec, sorted(pairs, key=lambda p: p.index))
