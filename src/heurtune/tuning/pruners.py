"""Pruners: the checkpoint rule (heurtune's, the default) as an Optuna pruner,
and Optuna's ``wilcoxon`` and ``median`` for studies recorded with them.

The checkpoint rule: pruning with error control, a few fixed checkpoints and a
corrected threshold.

A trial is compared with the best completed trial *opening by opening* (both
played the same openings against the same opponent, so the openings' own
difficulty cancels): at each checkpoint (by default after 1/4, 1/2 and 3/4 of
the pairs) the mean paired difference ``trial - best`` over the openings the
trial has played gets a one-sided upper confidence bound, and the trial is
pruned when that bound falls below ``-(margin + b_M)``.

Looking three times instead of once raises the chance of a wrong prune; the
threshold is therefore Pocock's: one critical value ``c`` for all looks, chosen
so that a trial exactly as strong as a fixed best one is pruned at *any*
checkpoint with probability ``alpha`` (the looks' z statistics are correlated
as ``sqrt(t_i / t_j)``; ``c`` solves ``P(min_k Z_k < -c) = alpha`` under that
multivariate normal). At ``k`` pairs the bound uses the t quantile with
``k - 1`` degrees of freedom at the same tail probability.

The best trial is not fixed: it is the luckiest of the ``M`` completed match
trials, so its pair scores overstate its strength (the winner's curse), and
against them a trial exactly as strong would be pruned far more often than
``alpha`` (about 12% at M = 5, 21% at M = 15, 30% at M = 50 without correction;
``docs/pruning.md``). ``b_M`` (:func:`selection_margin`) is that
overstatement, for ``M`` trials of equal strength (the worst case): every trial
plays the same openings, so the openings' effects are common to all ``M`` and
the selection acts only on the rest of a trial's score, whose mean over the
best's ``N`` pairs has the standard deviation ``sigma / sqrt(N)``, ``sigma``
being one pair score's spread about its opening's (``sigma**2`` is half the
variance of the paired differences ``d``, which the rule has at hand). The
maximum of ``M`` such means lies ``e_M`` standard deviations above their
common mean on average, ``e_M`` the expected maximum of ``M`` standard normals
(:func:`expected_maximum`), so ``b_M = e_M * sd(d) / sqrt(2 N)`` (with few
compared openings somewhat more: the noncentral t accounts for ``sd(d)`` being
an estimate). ``b_1 = 0``; a study file's ``[pruner] selection = false`` leaves
``b_M`` out.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import optuna
from optuna.pruners import BasePruner
from optuna.trial import FrozenTrial, TrialState

from heurtune.match.stats import difference_variance
from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.study import best_match_trial, match_trials, schema
from heurtune.tuning.studyfile import PrunerSpec

DEFAULT_CHECKPOINTS = (0.25, 0.5, 0.75)
DEFAULT_ALPHA = 0.05
MIN_PAIRS = 4  # no decision on fewer compared openings
BLOM = 0.375  # Blom: E[k-th smallest of m normals] ~ Phi^-1((k - BLOM) / (m - 2 BLOM + 1))


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
    return (sum(diffs) / n
            + float(t.ppf(1.0 - tail, max(n - 1, 1))) * math.sqrt(difference_variance(diffs) / n))


@functools.lru_cache(maxsize=256)
def expected_maximum(m: int) -> float:
    """The expected maximum of ``m`` independent standard normals, by Blom's
    approximation ``Phi^-1((m - 0.375) / (m + 0.25))``: 0 for one, within 0.026
    of the exact value for m <= 200 (exactly 1.163, 1.736 and 2.249 at 5, 15 and
    50; 1.180, 1.739 and 2.243 here)."""
    from scipy.stats import norm

    if m <= 1:
        return 0.0
    return float(norm.ppf((m - BLOM) / (m - 2.0 * BLOM + 1.0)))


def selection_margin(diffs: Sequence[float], best_pairs: int, completed: int,
                     tail: float) -> float:
    """``b_M``: by how much the best of ``completed`` equally strong trials,
    scored over ``best_pairs`` pairs, overstates its strength on average,
    ``e_M * sigma / sqrt(best_pairs)``, with ``sigma = sd(diffs) / sqrt(2)`` the
    spread of one trial's pair score about its opening's (the paired differences
    ``diffs`` hold two such spreads and no opening effect): about
    ``e_M * sd(diffs) / sqrt(2 * best_pairs)``.

    Exactly, it is what the paired bound at tail probability ``tail`` must
    clear so that an equal trial is pruned with probability ``tail`` when its
    differences average ``-e_M * sigma / sqrt(best_pairs)``: their t statistic
    then has the noncentral t distribution with ``n - 1`` degrees of freedom and
    noncentrality ``-e_M * sqrt(n / (2 * best_pairs))``, and ``b_M`` is the gap
    between its ``tail`` quantile and the central one, in units of the mean's
    standard error. With many pairs that is the formula above; with few (the
    quick studies' 4 or 6 of 8) it is larger, because ``sd(diffs)`` is then
    uncertain and an underestimate would shrink ``b_M`` just when the bound is
    tightest."""
    from scipy.stats import nct, t

    n = len(diffs)
    if completed <= 1 or n < 2 or best_pairs < 1:
        return 0.0
    df = n - 1
    shift = -expected_maximum(completed) * math.sqrt(n / (2.0 * best_pairs))
    gap = -float(nct.ppf(tail, df, shift)) - float(t.ppf(1.0 - tail, df))
    return gap * math.sqrt(difference_variance(diffs) / n)


def should_prune(
    trial_scores: Mapping[int, float],
    best_scores: Mapping[int, float],
    pairs: int,
    *,
    alpha: float = DEFAULT_ALPHA,
    margin: float = 0.0,
    fractions: Sequence[float] = DEFAULT_CHECKPOINTS,
    completed: int = 1,
) -> bool:
    """Whether a trial that has played ``trial_scores`` (opening index -> pair
    score) of its ``pairs`` should stop, compared with the best trial's
    ``best_scores``, the best of ``completed`` completed trials (1: a fixed
    best, no correction for its selection). Decides only when the number played
    is a checkpoint."""
    played = len(trial_scores)
    if played not in checkpoint_steps(pairs, fractions):
        return False
    diffs = [s - best_scores[i] for i, s in trial_scores.items() if i in best_scores]
    if len(diffs) < MIN_PAIRS:
        return False
    looks = tuple(sorted({s / pairs for s in checkpoint_steps(pairs, fractions)}))
    from scipy.stats import norm

    tail = float(norm.sf(pocock_critical_value(looks, alpha)))
    threshold = margin + selection_margin(diffs, len(best_scores), completed, tail)
    return paired_upper_bound(diffs, tail) < -threshold


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
    trial of ``pairs`` pairs; with ``selection`` (the default) the threshold
    allows for the best being the luckiest of the study's completed match
    trials (:func:`selection_margin`)."""

    def __init__(self, pairs: int, *, alpha: float = DEFAULT_ALPHA, margin: float = 0.0,
                 fractions: Sequence[float] = DEFAULT_CHECKPOINTS,
                 selection: bool = True) -> None:
        self.pairs = pairs
        self.alpha = alpha
        self.margin = margin
        self.fractions = tuple(fractions)
        self.selection = selection
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
        # one read of the study: the best and how many it is the luckiest of
        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        best = best_match_trial(study, complete)
        if best is None:  # no completed trial yet
            return False
        best_scores = best.user_attrs.get(schema.PAIR_SCORES)
        if not best_scores or best.number == trial.number:
            return False
        completed = 1
        if self.selection:  # the best is the luckiest of these
            completed = len(match_trials(complete))
        return should_prune(scores, dict(enumerate(best_scores)), self.pairs, alpha=self.alpha,
                            margin=self.margin, fractions=self.fractions, completed=completed)


def make_pruner(spec: PrunerSpec, pairs: int) -> BasePruner:
    """The study's pruner (``pairs``: pairs per trial, where the checkpoints lie)."""
    if spec.kind == "checkpoint":
        return CheckpointPruner(pairs, alpha=spec.alpha, margin=spec.margin,
                                fractions=spec.checkpoints, selection=spec.selection)
    if spec.kind == "wilcoxon":
        with experimental_ok():
            return optuna.pruners.WilcoxonPruner(
                p_threshold=spec.p_threshold, n_startup_steps=spec.n_startup_steps
            )
    if spec.kind == "median":
        return optuna.pruners.MedianPruner(n_warmup_steps=spec.n_warmup_steps)
    return optuna.pruners.NopPruner()
