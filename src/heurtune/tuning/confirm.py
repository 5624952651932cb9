"""``heurtune confirm``: the best trials re-played on fresh openings before export.

The best of many noisy trials is optimistic (the winner's curse): its tuning
score partly measures its luck on the study's openings. Confirmation re-plays
the ``top`` best completed trials and the baseline against the study's
opponent on new openings (none of the study's, nor their mirror images, where
the game declares its symmetries), all candidates on the same openings, and
picks the winner on those new games only. With an SPRT, the winner then plays
a sequential test on further openings that neither the tuning nor the
selection saw, so its verdict carries no selection bias at all.

The verdict is stored in the study's user attribute :data:`CONFIRM_ATTR`,
which ``heurtune export`` reads.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Callable, Sequence

from optuna.trial import FrozenTrial, TrialState

from heurtune.engine.config import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match.play import PairResult
from heurtune.match.runner import SEED_MAX, MatchRunner, MatchSpec
from heurtune.match.stats import Sprt, t_value
from heurtune.tuning.storage import load_study, open_storage
from heurtune.tuning.studyfile import ConfirmOptions
from heurtune.tuning.tune import load_tuned_study

CONFIRM_ATTR = "confirmation"


def needs_confirmation(storage_url: str, study_name: str) -> bool:
    """Whether the study has no confirmation yet, or one older than its latest
    completed trial (what a study file's ``[confirm]`` section acts on)."""
    study = load_study(open_storage(storage_url, create=False), study_name)
    verdict = study.user_attrs.get(CONFIRM_ATTR)
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return verdict is None or verdict.get("completed_trials") != len(complete)


def trial_config(base: EngineConfig, trial: FrozenTrial, study_name: str) -> EngineConfig:
    """The engine a trial played: the study's base engine with the trial's parameters."""
    return base.with_params(dict(trial.params), name=f"{study_name}-trial-{trial.number}")


def tuning_spec(setup: dict[str, Any], base: EngineConfig, opponent: EngineConfig) -> MatchSpec:
    """The match every trial of the study played (its openings are the ones to avoid)."""
    return MatchSpec(base, opponent, int(setup["pairs"]), int(setup["seed"]),
                     int(setup["opening_plies"]),
                     by_symmetry=setup.get("distinct_openings", "position") == "symmetry",
                     every_class=setup.get("openings") == "all")


def _is_baseline(trial: FrozenTrial) -> bool:
    return bool(trial.user_attrs.get("baseline")) or bool(trial.user_attrs.get("start_from"))


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


def confirm_study(
    storage_url: str,
    study_name: str,
    options: ConfirmOptions,
    on_line: Callable[[str], None] = lambda _line: None,
    on_pair: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Confirm a study's best trials on fresh openings and store the verdict.

    Returns the verdict (also stored as the study's ``confirmation`` user
    attribute). ``on_line`` receives one line per finished match.
    """
    study, setup, complete = load_tuned_study(storage_url, study_name, "confirm")
    base = EngineConfig.from_dict(setup["engine"], source=f"study {study_name!r}")
    opponent = EngineConfig.from_dict(setup["opponent"], source=f"study {study_name!r}")
    ranked = sorted(complete, key=lambda t: (-float(t.value), t.number))
    candidates = [t for t in ranked if not _is_baseline(t)][: options.top]
    baseline = next((t for t in complete if _is_baseline(t)), None)
    if baseline is not None:
        candidates.append(baseline)
    if not candidates:
        raise HeurtuneError(f"study {study_name!r} has no completed trial to confirm")

    tuning = tuning_spec(setup, base, opponent)
    tuning_openings = tuple(tuning.openings())
    seed = options.seed if options.seed is not None else (int(setup["seed"]) + 1) % (SEED_MAX + 1)
    plies = options.opening_plies if options.opening_plies is not None else tuning.plies
    fresh = MatchSpec(base, opponent, options.pairs, seed, plies, tuning_openings)
    openings = fresh.openings()
    results: list[dict[str, Any]] = []
    played: dict[int, list[PairResult]] = {}
    with MatchRunner(options.jobs) as runner:
        for trial in candidates:
            config = trial_config(base, trial, study_name)
            spec = MatchSpec(config, opponent, options.pairs, seed, plies, tuning_openings)
            result = runner.run(spec, on_pair=(lambda _p: on_pair()) if on_pair else None,
                                openings=openings)
            played[trial.number] = result.pairs
            stats = result.stats
            entry = {"trial": trial.number, "baseline": trial is baseline,
                     "tuning_score": float(trial.value), **stats.to_dict()}
            results.append(entry)
            label = (f"baseline (trial {trial.number})" if trial is baseline
                     else f"trial {trial.number}")
            on_line(f"{label:<20} tuning {float(trial.value):.3f}  fresh {stats.summary()}")
        winner = max(results, key=lambda e: (e["score"], -e["trial"]))
        verdict: dict[str, Any] = {
            "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "opponent": setup.get("opponent_spec", opponent.label),
            "pairs": options.pairs,
            "seed": seed,
            "opening_plies": plies,
            "openings": [list(op) for op in openings],
            "excluded_study_openings": len(tuning_openings),
            "completed_trials": len(complete),
            "candidates": results,
            "winner": winner["trial"],
            "winner_is_baseline": bool(winner["baseline"]),
        }
        if baseline is not None and not winner["baseline"]:
            diff, lo, hi = paired_difference(played[winner["trial"]], played[baseline.number])
            verdict["vs_baseline"] = {"difference": diff, "difference_ci": [lo, hi]}
        if options.sprt is not None:
            sprt = Sprt(*options.sprt)
            trial = next(t for t in candidates if t.number == winner["trial"])
            config = trial_config(base, trial, study_name)
            spec = MatchSpec(config, opponent, options.max_pairs, (seed + 1) % (SEED_MAX + 1),
                             plies, tuning_openings + tuple(openings), fewer_ok=True)
            result, outcome = runner.run_sprt(
                spec, sprt, on_pair=(lambda _p, _l: on_pair()) if on_pair else None)
            verdict["sprt"] = {**outcome.to_dict(), **result.stats.to_dict(),
                               "seed": spec.seed}
            on_line(f"winner trial {winner['trial']}: {outcome.summary()}")
    study.set_user_attr(CONFIRM_ATTR, verdict)
    return verdict
