"""Per-trial random streams for Optuna's samplers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial, TrialState

from heurtune.match import mix_seed
from heurtune.tuning.study import SEED_MASK


class TrialSeededSampler(BaseSampler):
    """A sampler whose every trial draws from its own stream: a fresh inner
    sampler seeded with the study seed mixed with the trial number. The
    samplers wrapped keep no state besides their random stream (CMA-ES keeps
    its own in the study's trials); what they learn, they read from the study."""

    def __init__(self, make: Callable[[int], BaseSampler], seed: int) -> None:
        self._make = make
        self._seed = seed
        self._inner = make(seed)

    @staticmethod
    def trial_seed(seed: int, number: int) -> int:
        return mix_seed(seed, number) & SEED_MASK

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        self._inner = self._make(self.trial_seed(self._seed, trial.number))
        self._inner.before_trial(study, trial)

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        return self._inner.infer_relative_search_space(study, trial)

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        return self._inner.sample_relative(study, trial, search_space)

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self._inner.sample_independent(study, trial, param_name, param_distribution)

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        self._inner.after_trial(study, trial, state, values)
