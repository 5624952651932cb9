"""``duels``: heurtune's own sampler.

Duels between points a trust radius apart around the current estimate of the
optimum, a Bayesian quadratic model of the landscape fitted to all of them
(:mod:`heurtune.tuning.samplers.quadratic`), and as its answer the point whose
lower confidence bound on the gain over the baseline is highest (the baseline
itself until one is positive).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from optuna.trial import FrozenTrial, TrialState

from heurtune.tuning.samplers._duel import DuelSampler, duel_result
from heurtune.tuning.samplers.quadratic import Observation, QuadraticModel
from heurtune.tuning.samplers.registry import SamplerContext, SamplerSpec
from heurtune.tuning.study import duel_of

REFIT_GROWTH = 1.02  # the model is refitted once its duels grew by 2%


class DuelsSampler(DuelSampler):
    """heurtune's duels sampler (see the module docstring)."""

    name = "duels"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        o = self.options
        self.model = QuadraticModel(self.box.dim, elo_per_range=o["elo_per_range"],
                                    start_elo=o["start_elo"])
        self.low, self.high = -1.0 - self.u0, 1.0 - self.u0  # the box around the baseline
        self._seen: set[int] = set()
        self._centre = np.zeros(self.box.dim)
        self._fitted_at = 0

    def update(self, trials: Sequence[FrozenTrial], every: bool = False) -> None:
        """Add the duels completed since the last call and refit (``every``: even
        after one new duel)."""
        new = False
        for t in trials:
            if t.number in self._seen or t.state != TrialState.COMPLETE:
                continue
            self._seen.add(t.number)
            duel = duel_of(t)
            if duel is None or "plus_u" not in duel:
                continue
            score, games, _result_, pairs = duel_result(t)
            self.model.add(Observation(np.asarray(duel["plus_u"]), np.asarray(duel["minus_u"]),
                                       score, games, pairs))
            new = True
        # refit after every duel while they are few, then after every 2% more
        due = every or self.model.observations >= self._fitted_at * REFIT_GROWTH
        if self.model.mean is None or (new and due):
            self.model.fit()
            self._fitted_at = self.model.observations
            self._centre = self.model.argmax_mean(self.low, self.high, self._centre)

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        self.update(trials)
        rng = self.rng(number)
        radius, share = self.options["radius"], self.options["curvature_share"]
        d = self.box.dim
        sign = rng.choice((-1.0, 1.0), size=d)
        edge_only = rng.random(d) < share  # one side at the centre: curvature
        plus_side = rng.random(d) < 0.5
        s = np.where(edge_only, np.where(plus_side, sign, 0.0), sign)
        t = np.where(edge_only, np.where(plus_side, 0.0, sign), -sign)
        a = np.clip(self._centre + radius * s, self.low, self.high)
        b = np.clip(self._centre + radius * t, self.low, self.high)
        # the model sees the points as played (integers rounded, steps snapped)
        plus = self.box.to_unit(self.box.from_unit(self.u0 + a))
        minus = self.box.to_unit(self.box.from_unit(self.u0 + b))
        return plus, minus, {"plus_u": (plus - self.u0).tolist(),
                             "minus_u": (minus - self.u0).tolist()}

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        self.update(trials, every=True)
        point, mean, sd = self.model.recommend(self.low, self.high, self.options["z"],
                                               self._centre)
        params = self.baseline if not point.any() else self.box.from_unit(self.u0 + point)
        return {"params": params, "gain": mean, "gain_sd": sd,
                "duels": self.model.observations, "prior_scale": self.model.scale}


def make(spec: SamplerSpec, seed: int, context: SamplerContext) -> DuelsSampler:
    return DuelsSampler(*DuelSampler.arguments(spec, seed, context))
