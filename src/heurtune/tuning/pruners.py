"""Pruners: the checkpoint rule (heurtune's, the default) as an Optuna pruner,
and Optuna's ``wilcoxon`` and ``median`` for studies recorded with them.

The checkpoint rule: pruning with error control, a few fixed checkpoints and a
corrected threshold.

A trial is compared with the best completed trial *opening by opening* (both
played the same openings against the same opponent, so the openings' own
difficulty cancels): at each checkpoint (by default after 1/4, 1/2 and 3/4 of
the pairs) the mean paired difference ``trial - best`` over the openings the
trial has played gets a one-sided upper confidence bound, and the trial is
pruned when that bound falls below ``-margin``.

Looking three times instead of once raises the chance of a wrong prune; the
threshold is therefore Pocock's: one critical value ``c`` for all looks, chosen
so that a trial exactly as strong as a fixed best one is pruned at *any*
checkpoint with probability ``alpha`` (the looks' z statistics are correlated
as ``sqrt(t_i / t_j)``; ``c`` solves ``P(min_k Z_k < -c) = alpha`` under that
multivariate normal). At ``k`` pairs the bound uses the t quantile with
``k - 1`` degrees of freedom at the same tail probability.

What this does not control: the best trial is the luckiest of many, so its
scores on the openings overstate its strength, and a trial as strong as it is
pruned more often than ``alpha`` (``benchmarks/pruning_sim.py`` measures by how
much; ``docs/pruning.md`` records it). ``margin`` is the knob for that.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import optuna
from optuna.pruners import BasePruner
from optuna.trial import FrozenTrial

from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.study import best_match_trial, schema
from heurtune.tuning.studyfile import PrunerSpec

DEFAULT_CHECKPOINTS = (0.25, 0.5, 0.75)
DEFAULT_ALPHA = 0.05
MIN_PAIRS = 4  # no decision on fewer compared openings


@functools.lru_cache(maxsize=64)
def pocock_critical_value(fractions: tuple[float, ...], alpha: float) -> float:
    """The one critical value for looks at these information fractions whose
    overall one-sided false-alarm probability is ``alpha``."""
    from scipy.optimize import brentq
    from scipy.stats import multivariate_normal, norm

    t = np.asarray(fractions, dtype=float)
    if len(t) == 1:
        return float(norm.ppf(1.0 - alpha))
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    mvn = multivariate_normal(mean=np.zeros(len(t)), cov=cov)

    def excess(c: float) -> float:  # P(some Z_k < -c) - alpha = 1 - P(all Z_k < c) - alpha
        return 1.0 - float(mvn.cdf(np.full(len(t), c))) - alpha

    return float(brentq(excess, 0.5, 6.0, xtol=1e-6))


def checkpoint_steps(pairs: int, fractions: Sequence[float] = DEFAULT_CHECKPOINTS) -> list[int]:
    """After how many pairs a trial of ``pairs`` pairs is looked at (distinct,
    at least MIN_PAIRS, fewer than all)."""
    steps = sorted({max(MIN_PAIRS, int(round(f * pairs))) for f in fractions})
    return [s for s in steps if s < pairs]


def paired_upper_bound(diffs: Sequence[float], tail: float) -> float:
    """One-sided upper confidence bound of the mean of ``diffs`` at tail
    probability ``tail`` (t quantile, ``len - 1`` degrees of freedom). All
    differences equal is not certainty: the spread is floored at a quarter pair."""
    from scipy.stats import t

    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.25
    var = max(var, 1.0 / (16.0 * n))
    return mean + float(t.ppf(1.0 - tail, max(n - 1, 1))) * math.sqrt(var / n)


def should_prune(
    trial_scores: Mapping[int, float],
    best_scores: Mapping[int, float],
    pairs: int,
    *,
    alpha: float = DEFAULT_ALPHA,
    margin: float = 0.0,
    fractions: Sequence[float] = DEFAULT_CHECKPOINTS,
) -> bool:
    """Whether a trial that has played ``trial_scores`` (opening index -> pair
    score) of its ``pairs`` should stop, compared with the best trial's
    ``best_scores``. Decides only when the number played is a checkpoint."""
    played = len(trial_scores)
    if played not in checkpoint_steps(pairs, fractions):
        return False
    diffs = [s - best_scores[i] for i, s in trial_scores.items() if i in best_scores]
    if len(diffs) < MIN_PAIRS:
        return False
    looks = tuple(sorted({s / pairs for s in checkpoint_steps(pairs, fractions)}))
    from scipy.stats import norm

    tail = float(norm.sf(pocock_critical_value(looks, alpha)))
    return paired_upper_bound(diffs, tail) < -margin


def trial_order(count: int, seed: int, trial_number: int) -> list[int]:
    """The order in which a trial plays the study's ``count`` openings: a shuffle
    seeded by the study seed and the trial number, so that early decisions do not
    all rest on the same first openings, and every run reproduces."""
    rng = np.random.default_rng([seed, trial_number, 0x5EED])
    return [int(i) for i in rng.permutation(count)]


class CheckpointPruner(BasePruner):
    """The checkpoint rule as an Optuna pruner.

    Optuna's ``trial.report`` takes one number per step, and the running score
    (what the dashboard plots and TPE ranks pruned trials by) is the number a
    trial reports; the rule needs the trial's pair scores *by opening*. The
    objective therefore hands them over with :meth:`observe` as they come, and
    :meth:`prune` compares them with the best completed match trial's (its
    :data:`~heurtune.tuning.study.schema.PAIR_SCORES`) at the checkpoints of a
    trial of ``pairs`` pairs."""

    def __init__(self, pairs: int, *, alpha: float = DEFAULT_ALPHA, margin: float = 0.0,
                 fractions: Sequence[float] = DEFAULT_CHECKPOINTS) -> None:
        self.pairs = pairs
        self.alpha = alpha
        self.margin = margin
        self.fractions = tuple(fractions)
        self._scores: dict[int, dict[int, float]] = {}  # trial number -> opening -> score

    def observe(self, trial_number: int, opening: int, score: float) -> None:
        """Trial ``trial_number`` scored ``score`` on opening ``opening``."""
        self._scores.setdefault(trial_number, {})[opening] = score

    def forget(self, trial_number: int) -> None:
        """The trial has finished: drop its scores."""
        self._scores.pop(trial_number, None)

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        scores = self._scores.get(trial.number, {})
        if len(scores) not in checkpoint_steps(self.pairs, self.fractions):
            return False
        best = best_match_trial(study)
        if best is None:  # no completed trial yet
            return False
        best_scores = best.user_attrs.get(schema.PAIR_SCORES)
        if not best_scores or best.number == trial.number:
            return False
        return should_prune(scores, dict(enumerate(best_scores)), self.pairs, alpha=self.alpha,
                            margin=self.margin, fractions=self.fractions)


def make_pruner(spec: PrunerSpec, pairs: int) -> BasePruner:
    """The study's pruner (``pairs``: pairs per trial, where the checkpoints lie)."""
    if spec.kind == "checkpoint":
        return CheckpointPruner(pairs, alpha=spec.alpha, margin=spec.margin,
                                fractions=spec.checkpoints)
    if spec.kind == "wilcoxon":
        with experimental_ok():
            return optuna.pruners.WilcoxonPruner(
                p_threshold=spec.p_threshold, n_startup_steps=spec.n_startup_steps
            )
    if spec.kind == "median":
        return optuna.pruners.MedianPruner(n_warmup_steps=spec.n_warmup_steps)
    return optuna.pruners.NopPruner()
