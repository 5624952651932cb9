"""``spsa``: fishtest's SPSA as an Optuna sampler.

theta+ = theta + c * delta plays theta- = theta - c * delta (Rademacher delta),
and theta moves by ``R c (wins - losses) delta`` after each trial.
"Autoselect" (the default schedule): constant c = ``c_ratio`` times the range
and constant ``r = precision / (C chi2 (1 - draw_ratio) / 8)`` (C = 800 / ln 10,
chi2 the ``confidence`` quantile with one degree of freedom per parameter),
fishtest's formula; ``schedule = "classic"`` decays them (a, c, A, alpha,
gamma). Its answer is the iterate theta.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from optuna.trial import FrozenTrial, TrialState

from heurtune.tuning.samplers._duel import DuelSampler, duel_result
from heurtune.tuning.samplers.registry import SamplerContext, SamplerSpec
from heurtune.tuning.study import duel_of

FISHTEST_C = 800.0 / math.log(10.0)  # fishtest's constant C (347.4...)


@dataclass
class SpsaState:
    """SPSA's iterate (unit coordinates) after the duels applied so far, and
    how many pairs they played (its iteration count)."""

    theta: np.ndarray
    pairs: int = 0
    applied: int = 0  # duel trials applied


class SpsaSampler(DuelSampler):
    """fishtest's SPSA (see the module docstring) as an Optuna sampler."""

    name = "spsa"

    def __init__(self, *args: Any) -> None:
        from scipy.stats import chi2  # here: scipy's import would slow every CLI start

        super().__init__(*args)
        o, d = self.options, self.box.dim
        # in unit coordinates every range is 2 wide
        self.c = 2.0 * o["c_ratio"]
        self.r = o["precision"] / (FISHTEST_C * chi2.ppf(o["confidence"], max(d, 1))
                                   * (1.0 - o["draw_ratio"]) / 8.0)
        curvature = 2.0 * o["elo_per_range"]  # -H_ii: elo at a half range (1 unit) away
        lam = FISHTEST_C / (2.0 * self.r * self.c ** 2 * curvature)
        self.planned_games = int(round(o["lambda_ratio"] * lam))
        self._prefix: tuple[int, SpsaState] = (0, SpsaState(self.u0.copy()))

    def schedule(self, pairs_done: int) -> tuple[float, float]:
        """(c_k, R_k c_k^2): perturbation and step after ``pairs_done`` pairs."""
        o = self.options
        if o["schedule"] == "autoselect":
            return self.c, self.r * self.c ** 2
        n = max(self.planned_pairs, 1)
        big_a = o["A"] if o["A"] >= 0 else 0.1 * n
        c_k = self.c * (n / (pairs_done + 1.0)) ** o["gamma"]
        a_k = self.r * self.c ** 2 * ((big_a + n) / (big_a + pairs_done + 1.0)) ** o["alpha"]
        return c_k, a_k

    def state(self, trials: Sequence[FrozenTrial]) -> SpsaState:
        """The iterate after every completed duel, applied in trial-number order.
        The finished prefix is cached; duels completed after a still-running one
        are applied on a copy."""
        done, cached = self._prefix
        ordered = sorted((t for t in trials if t.number >= done), key=lambda t: t.number)
        state = SpsaState(cached.theta.copy(), cached.pairs, cached.applied)
        prefix_open = True
        for t in ordered:
            if t.state in (TrialState.RUNNING, TrialState.WAITING):
                if prefix_open:
                    self._prefix = (t.number, SpsaState(state.theta.copy(), state.pairs,
                                                        state.applied))
                    prefix_open = False
                continue
            duel = duel_of(t)
            if t.state == TrialState.COMPLETE and duel is not None and "flips" in duel:
                _score, games, result, _pairs = duel_result(t)
                flips = np.asarray(duel["flips"], dtype=float)
                state.theta = np.clip(state.theta + duel["step"] / duel["c"] * result * flips,
                                      -1.0, 1.0)
                state.pairs += games // 2
                state.applied += 1
        if prefix_open:
            last = ordered[-1].number + 1 if ordered else done
            self._prefix = (last, SpsaState(state.theta.copy(), state.pairs, state.applied))
        return state

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        state = self.state(trials)
        c_k, step = self.schedule(state.pairs)
        flips = self.rng(number).choice((-1.0, 1.0), size=self.box.dim)
        plus = np.clip(state.theta + c_k * flips, -1.0, 1.0)
        minus = np.clip(state.theta - c_k * flips, -1.0, 1.0)
        return plus, minus, {"flips": flips.tolist(), "c": c_k, "step": step,
                             "iteration": state.pairs, "theta": self.box.from_unit(state.theta)}

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        state = self.state(trials)
        return {"params": self.box.from_unit(state.theta), "duels": state.applied,
                "pairs": state.pairs}


def make(spec: SamplerSpec, seed: int, context: SamplerContext) -> SpsaSampler:
    return SpsaSampler(*DuelSampler.arguments(spec, seed, context))
