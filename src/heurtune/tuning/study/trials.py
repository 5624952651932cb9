"""Reading a study's trials: which played the match, the best, the baseline, duels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from heurtune.errors import HeurtuneError
from heurtune.match import mix_seed
from heurtune.tuning.study import schema
from heurtune.tuning.study.schema import StudySetup
from heurtune.tuning.study.storage import load_study, open_storage

SEED_MASK = 0xFFFFFFFF  # Optuna's samplers and numpy take 32-bit seeds
FINISHED = (TrialState.COMPLETE, TrialState.PRUNED)


def match_trials(trials: Sequence[FrozenTrial]) -> list[FrozenTrial]:
    """The trials that played the study's match (not duels between weights)."""
    return [t for t in trials if schema.DUEL not in t.system_attrs]


def trial_score(trial: FrozenTrial) -> float:
    """A completed trial's score (its first objective in a multi-objective study)."""
    assert trial.values is not None, "a completed trial has values"
    return float(trial.values[0])


def minimises(study: optuna.Study) -> bool:
    """Whether the study's (first) value is minimised: a positions study's loss."""
    return study.directions[0] == optuna.study.StudyDirection.MINIMIZE


def ranked(study: optuna.Study, trials: Sequence[FrozenTrial]) -> list[FrozenTrial]:
    """Completed ``trials`` best first (the highest score, or the lowest loss of
    a positions study), ties to the earlier trial."""
    sign = 1.0 if minimises(study) else -1.0
    return sorted(trials, key=lambda t: (sign * trial_score(t), t.number))


def best_match_trial(study: optuna.Study,
                     complete: Sequence[FrozenTrial] | None = None) -> FrozenTrial | None:
    """The completed trial with the best score against the opponent (duel trials
    score against other weights, which is not comparable), or with the lowest
    loss in a positions study; ``complete``: the study's completed trials, when
    the caller has read them already."""
    if complete is None:
        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    matches = match_trials(complete)
    if not matches:
        return None
    return ranked(study, matches)[0]


def is_baseline(trial: FrozenTrial) -> bool:
    """The enqueued first trial: the defaults, or the start_from engine's weights."""
    return (bool(trial.user_attrs.get(schema.BASELINE))
            or bool(trial.user_attrs.get(schema.START_FROM)))


def duel_seed(study_seed: int, number: int) -> int:
    """The match seed of duel trial ``number``: its openings and tie-breaks, its own
    (confirmation regenerates the openings to leave them out)."""
    return mix_seed(study_seed, number, 0xD0E1) & SEED_MASK


def duel_of(trial: FrozenTrial) -> dict[str, Any] | None:
    """A duel trial's other side and bookkeeping (None: the trial played the match)."""
    duel = trial.system_attrs.get(schema.DUEL)
    return duel if isinstance(duel, dict) else None


def load_tuned_study(storage_url: str, study_name: str,
                     purpose: str) -> tuple[optuna.Study, StudySetup, list[FrozenTrial]]:
    """A study that ``heurtune tune`` created, its setup and its completed trials
    (none is an error: there is nothing to ``purpose``)."""
    study = load_study(open_storage(storage_url, create=False), study_name, storage_url)
    setup = StudySetup.of(study.user_attrs, study_name)
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not complete:
        raise HeurtuneError(f"study {study_name!r} has no completed trial to {purpose}")
    return study, setup, complete
