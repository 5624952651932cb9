"""What heurtune's two duel samplers share.

They play a trial's weights against *other weights* (the sampler picks both;
the trial's parameters are the first, the system attribute
:data:`heurtune.tuning.study.schema.DUEL` holds the second), because a
head-to-head game pair measures a difference of strength with a quarter of the
games that two matches against a fixed opponent need. Both rebuild their state
from the study's finished trials, so any number of workers on any machine share
one run, and both draw each trial's randomness from the study seed mixed with
the trial number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial

from heurtune.engine.params import ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.match import mix_seed
from heurtune.tuning.samplers.distributions import to_optuna
from heurtune.tuning.samplers.quadratic import UnitBox
from heurtune.tuning.samplers.registry import SamplerContext, SamplerSpec
from heurtune.tuning.study import schema


def duel_result(trial: FrozenTrial) -> tuple[float, int, int, Sequence[float]]:
    """(score, games, wins - losses, pair scores) of a finished duel, for its plus side."""
    r = schema.TrialResult.of(trial.user_attrs)
    score = 0.5 if r.score is None else r.score
    return score, r.games, r.wins - r.losses, r.pair_scores


class DuelSampler(BaseSampler):
    """Shared machinery: the searched space in unit coordinates, the baseline,
    the plus side returned as relative parameters, the minus side stored on the
    trial, and per-trial random streams."""

    name = ""

    def __init__(self, space: ParamSpace, baseline: Mapping[str, Value], options: dict[str, Any],
                 seed: int, planned_pairs: int) -> None:
        self.space = space
        self.box = UnitBox(space, f"sampler {self.name!r}")
        self.distributions = to_optuna(space)
        self.baseline = {p.name: baseline[p.name] for p in self.box.params}
        self.u0 = self.box.to_unit(self.baseline)
        self.options = options
        self.seed = seed
        self.planned_pairs = planned_pairs
        self._plus: dict[int, dict[str, Value]] = {}

    @classmethod
    def arguments(cls, spec: SamplerSpec, seed: int, context: SamplerContext
                  ) -> tuple[ParamSpace, Mapping[str, Value], dict[str, Any], int, int]:
        """The constructor's arguments from a study's spec and context."""
        if context.space is None or context.baseline is None:
            raise ValueError(f"sampler {spec.kind!r} needs the space and the baseline")
        return context.space, context.baseline, dict(spec.options), seed, context.planned_pairs

    def rng(self, number: int) -> np.random.Generator:
        return np.random.default_rng(mix_seed(self.seed, number, 0x5D))

    def values(self, u: np.ndarray) -> dict[str, Value]:
        """The parameter values at unit point ``u``: the baseline's own where ``u`` is
        the baseline (a round trip through the unit box may move its last digit)."""
        return dict(self.baseline) if np.array_equal(u, self.u0) else self.box.from_unit(u)

    def infer_relative_search_space(self, study: optuna.Study,
                                    trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return dict(self.distributions)

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        if schema.FIXED_PARAMS in trial.system_attrs:  # the baseline, a retry: not a duel
            return
        finished = study.get_trials(deepcopy=False)
        plus, minus, extra = self.propose(finished, trial.number)
        plus_values, minus_values = self.values(plus), self.values(minus)
        self._plus[trial.number] = plus_values
        study._storage.set_trial_system_attr(
            trial._trial_id, schema.DUEL,
            {"sampler": self.name, "minus": minus_values, **extra})

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        plus = self._plus.pop(trial.number, None)
        return {} if plus is None else {k: plus[k] for k in search_space if k in plus}

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        raise HeurtuneError(f"sampler {self.name!r}: parameter {param_name!r} is not in the "
                            "space it was made for")

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """The plus and minus points (unit coordinates) of trial ``number``."""
        raise NotImplementedError

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        """The sampler's recommendation from these trials."""
        raise NotImplementedError
