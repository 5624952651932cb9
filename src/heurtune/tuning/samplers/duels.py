"""``duels``: heurtune's own sampler.

Duels between points a trust radius apart around the current estimate of the
optimum, a Bayesian quadratic model of the landscape fitted to all of them
(:mod:`heurtune.tuning.samplers.quadratic`), and as its answer the point whose
lower confidence bound on the gain over the baseline is highest (the baseline
itself until one is positive), moved toward the model's maximum where that lies
at the box's edge, the fitted curvature supports it and the move's own gain is
sure enough (:func:`toward_edges`), then stepped toward that maximum as far as
the step's own gain is sure enough (:func:`step_toward`), then, below 8 parameters
(``reach``), moved half way toward it where the data put it far from the baseline
and the fit is not a broad search's (:func:`reach_toward`).

A study file sets the priors (``elo_per_range``, ``start_elo``), the edge prior
(``edge_prior``, ``edge_prior_after``) and the duels' ``radius``; every other setting
is a constant (:mod:`heurtune.tuning.samplers.duels_constants`, each with why and its
evidence), which the sampler still reads from its settings like the options: a study
recorded with another value (heurtune 0.2.0) answers with it, and resumes with it where
it was a default of its day (``SamplerSpec.resuming``).

The model's gain of its answer is *model-based*: right where the landscape is
quadratic, over-confident where it is not (on the simulated oracle's ``skewed`` case,
from 16,000 games on, it promises 4.0 Elo where the truth is 1.7 and at most 2 exist;
its 95% interval holds the truth 22% of the time and its lower bound never:
benchmarks/oracle.py). So every ``holdout_every``-th trial (by number; every 10th,
:data:`~heurtune.tuning.samplers.duels_constants.HOLDOUT_EVERY`) is held out: it plays
the current answer against the baseline itself, paired on openings of its own like
every duel, and the model never sees it. Those duels *measure* the answer's gain: the
held-out duels whose answer lies near the current one (:data:`NEAR`) are pooled into
its measured gain and 95% interval (:func:`measured_gain`). The model never chose
anything from them, so that interval carries no winner's curse (there it holds the
truth 93% of the time). It is wide: one held-out duel of 16 pairs measures Elo with a
standard error of about 38 at 61% draws, and the pooled interval is 17 to 40 Elo wide
over a 64,000-game study; that is what measuring a gain of a few Elo costs.

Where that measurement lies ``narrow_z`` (5) sd or more above the model's gain, the
landscape is not the bowl the model fits at the duels' radius (wells narrower than the
duels, far from the baseline, which duels a radius wide smooth over): the radius then
narrows, times ``narrow`` (0.5), once, for the rest of the study
(:meth:`DuelsSampler.narrow`; docs/results/optimisers.md, "A higher bar for
narrowing"). The bar starts at ``narrow_from`` (3) at the first held-out duel and
rises by one sd at every tenfold of them, up to ``narrow_z`` (:func:`narrow_bar`; same
page, "A bar that rises with the looks"). With ``narrow_below`` above 0 (the constant
is 0: off), the radius narrows also on the guard's test below (same page, "Narrowing
on the guard's signal": +1.05 Elo on a real Morris fine box, no gain on the oracle's
``cliff``).

Where it lies ``guard_z`` (3) sd or more *below* the model's gain and shows no gain
(0 Elo or less), the model does not fit the box where it matters, between the duels
and the baseline (a spike at the baseline's value that duels a radius wide step over):
the study answers the baseline instead, its detail naming the answer it withdrew
(:meth:`DuelsSampler.guard`; docs/results/optimisers.md, "A real box with cusps").
Sampling is unchanged: the held-out duels go on measuring the model's answer, and
the guard lifts where a later answer is not measured below the baseline. Where no
held-out duel has played near the answer yet (it moved since the last one), the same
test runs on the model's record instead, the latest ``guard_record`` (0.5) of the
held-out duels against the gains the model predicted for the answers they played
(:meth:`DuelsSampler.guard_on_record`, :func:`record_gain`; docs/results/optimisers.md,
"The guard on the model's record").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from optuna.trial import FrozenTrial, TrialState

from heurtune.match.stats import elo, score_interval
from heurtune.tuning.samplers._duel import DuelSampler, duel_result
from heurtune.tuning.samplers.duels_constants import AUTO
from heurtune.tuning.samplers.quadratic import (
    Observation,
    QuadraticModel,
    beyond_bounds,
    n_features,
)
from heurtune.tuning.samplers.registry import SamplerContext, SamplerSpec
from heurtune.tuning.study import duel_of

REFIT_GROWTH = 1.02  # the model is refitted once its duels grew by 2%
HOLDOUT = "holdout"  # a held-out duel's flag in its DUEL record: the answer vs the baseline
RADIUS = "radius"  # a duel's radius in its DUEL record, where it narrowed (``narrow``)
# the bar, in sd, the held-out duel that narrowed the radius cleared (in its DUEL record)
NARROW_BAR = "narrow_bar"
# in an answer's detail: the model's answer the study withdrew, where the held-out duels
# measured it at or below the baseline and ``guard_z`` sd or more below the model
# (:meth:`DuelsSampler.guard`)
GUARDED = "guarded"
# a withdrawn answer's ``basis`` where the guard tested the model's record on its
# latest held-out duels, none having played near the answer (``guard_record``)
RECORD = "record"
# Held-out duels of answers within this of the current answer in every parameter, in
# unit coordinates (a range is 2 wide: a tenth of each range), measure it; farther
# ones measured an answer the sampler has since moved away from.
NEAR = 0.2
# a curvature duel cut by the box's edge to less than this share of the radius
# turns inward (duel_points)
EDGE_ROOM = 0.25
# ``edge_prior = -1`` (the default, since 2026-11-28) is AUTO_EDGE_PRIOR in any
# number of searched parameters: from MANY_PARAMETERS on at once, below that only once
# the model holds AUTO_AFTER duels per coefficient and along the parameters whose plain
# fit's slope toward the edge lies AUTO_SLOPE_Z sd above zero (both gates), unless
# ``edge_prior_after`` or ``edge_prior_slope_z`` is set. From 8 parameters: on the
# simulated oracle, 120 paired seeds in 8 and 12 parameters, the wider prior changed
# the centred cases' mean loss by at most +0.03 Elo (within 1.4 se), and real Morris
# games in 8 by +0.6 Elo (se 3.8) (docs/results/optimisers.md, "A default by the
# number of parameters"). Below 8, where the wider prior alone doubled the centred
# answers worse than the baseline, both gates were adopted by a non-inferiority rule:
# on fresh seeds of four centred cases the price's 95% upper bound stayed below 0.1
# Elo, the edge case went from 2.18 to 1.30 times the centred case's games to 1 Elo,
# and real games changed by -1.09 Elo (se 1.03) (docs/results/optimisers.md, "Below 8
# parameters: the second rule").
# ``edge_prior = 0`` keeps its meaning of 2026-11-27 (4 from 8 parameters on, 1 below,
# no gates): the default then, which studies of that day recorded.
MANY_PARAMETERS = 8
AUTO_EDGE_PRIOR = 4.0
AUTO_AFTER = 8.0
AUTO_SLOPE_Z = 1.0
AUTO_20261127 = 0.0  # edge_prior's automatic of 2026-11-27 (above)

# ``reach``: where the model's maximum lies ``reach`` times the prior's distance from the
# baseline or farther, the answer moves REACH_MOVE of the way toward the point that keeps
# REACH_KEEP of the highest lower bound (:func:`reach_toward`). ``reach = -1``, the
# constant (since 2026-11-29), means AUTO_REACH below MANY_PARAMETERS and off from there
# on: in 12 parameters the model's maximum strays that far by noise alone (the oracle's
# ``twelve`` paid +0.13 Elo at 32,000 games). Without the scale gate below one ``broad``
# seed of 96 lost 13 Elo at 4,000 games ("How far the model's maximum lies"); with it,
# on fresh seeds, it became the default (docs/results/optimisers.md, "The scale gate").
# ``reach = 0``, the default before, is what studies recorded before it resume with.
AUTO_REACH = 1.75
REACH_KEEP = 0.75
REACH_MOVE = 0.5
# ... and only where the curvature's empirical-Bayes scale (``QuadraticModel.scale``) is
# at most REACH_MAX_SCALE: a broad search lifts it to 16 (the stand-in's ``broad``, 12 of
# 12 seeds at 4,000 games), where the quadratic model is not yet the bowl the move
# trusts; ``far`` keeps it at 1 to 4 (docs/results/optimisers.md, "The scale gate").
REACH_MAX_SCALE = 4.0

# the radius that tune's guard sentence and screen's lopsided weights name for a weight
# that falls off steeply beside a good baseline: on both real Morris fine boxes it
# confirmed about 3 Elo over the default radius of 1, level with SPSA, and on both
# Isolation fine boxes, which have no such weight, it cost 3.5 and 10.9 Elo
# (docs/results/optimisers.md, "Narrower duels on the second Morris fine box")
NARROWER_RADIUS = 0.5


@dataclass(frozen=True)
class EdgePrior:
    """The edge prior in effect (:func:`edge_prior_in_effect`): the widening (1: off),
    the duels per coefficient it waits for (0: none) and the slope bar in sd (0:
    none)."""

    widen: float
    after: float
    slope_z: float


def edge_prior_in_effect(options: Mapping[str, Any], dim: int) -> EdgePrior:
    """What duels' ``edge_prior``, ``edge_prior_after`` and ``edge_prior_slope_z``
    options mean in ``dim`` searched parameters: set values as they are; the default
    ``edge_prior = -1`` as :data:`AUTO_EDGE_PRIOR`, with both gates
    (:data:`AUTO_AFTER`, :data:`AUTO_SLOPE_Z`) below :data:`MANY_PARAMETERS` where
    those two options are 0; ``edge_prior = 0`` as on 2026-11-27."""
    widen = float(options["edge_prior"])
    after = float(options.get("edge_prior_after", 0.0))
    slope_z = float(options.get("edge_prior_slope_z", 0.0))
    many = dim >= MANY_PARAMETERS
    if widen == AUTO:
        if not many:
            after, slope_z = after or AUTO_AFTER, slope_z or AUTO_SLOPE_Z
        return EdgePrior(AUTO_EDGE_PRIOR, after, slope_z)
    if widen == AUTO_20261127:
        widen = AUTO_EDGE_PRIOR if many else 1.0
    return EdgePrior(widen, after, slope_z)


def edge_prior_for(option: float, dim: int) -> float:
    """The widening ``edge_prior`` means in ``dim`` searched parameters, the other
    options at their defaults (:func:`edge_prior_in_effect`; below
    :data:`MANY_PARAMETERS` the default's widening waits for both gates)."""
    return edge_prior_in_effect({"edge_prior": option}, dim).widen


def is_holdout(duel: dict[str, Any] | None) -> bool:
    """Whether a duel trial's DUEL record is a held-out duel (answer vs baseline)."""
    return bool(duel is not None and duel.get(HOLDOUT))


@dataclass(frozen=True)
class MeasuredGain:
    """The answer's gain over the baseline as held-out duels measured it: Elo, its
    95% interval, and the duels and games pooled."""

    elo: float
    low: float
    high: float
    duels: int
    games: int

    def apart(self, mean: float, sd: float) -> float | None:
        """How many sd this measurement lies above (negative: below) a model's gain of
        ``mean`` (``sd``): :func:`disagreement`."""
        return disagreement({"model_gain": mean, "model_gain_sd": sd,
                             "measured_gain": self.elo, "measured_gain_ci": [self.low, self.high]})


def measured_gain(held_out: Sequence[tuple[FrozenTrial, np.ndarray]],
                  point: np.ndarray) -> MeasuredGain | None:
    """The gain of the answer at ``point`` (unit coordinates relative to the
    baseline) from the held-out duels (each with the answer it played, likewise)
    whose answer lies within :data:`NEAR` of it in every parameter, their pairs
    pooled; None: no held-out duel played near it yet.

    Where an answer was played matters, not when: pooling every held-out duel
    would measure the average of the answers the sampler once held (worse ones
    early on), and pooling only the latest few would leave most games unused
    once the answer settles. The pool is chosen by the answers' places, which
    the model fixed without seeing a held-out result, so it selects no luck."""
    return pooled_gain([t for t, answer in held_out
                        if np.max(np.abs(answer - point), initial=0.0) <= NEAR])


def pooled_gain(duels: Sequence[FrozenTrial]) -> MeasuredGain | None:
    """The held-out ``duels``' pairs pooled: the gain they measure, with its 95%
    interval (None: no pair)."""
    pairs = [s for t in duels for s in duel_result(t)[3]]
    if not pairs:
        return None
    games = sum(duel_result(t)[1] for t in duels)
    score, low, high = score_interval(pairs)
    return MeasuredGain(elo(score, games), elo(low, games), elo(high, games), len(duels),
                        games)


@dataclass(frozen=True)
class Record:
    """The model's record on its latest held-out duels (:func:`record_gain`): their
    pooled measured gain, and the mean of the gains (and of the sd) the model
    predicted for the answers they played, each when it was proposed."""

    measured: MeasuredGain
    model_gain: float
    model_gain_sd: float

    def apart(self) -> float | None:
        """How many sd the measurement lies above (negative: below) the predictions."""
        return self.measured.apart(self.model_gain, self.model_gain_sd)


def record_gain(held_out: Sequence[tuple[FrozenTrial, np.ndarray]],
                share: float) -> Record | None:
    """The latest ``share`` of the held-out duels (by trial number; at least one),
    each of which measured the answer of its day, pooled, beside the gains the model
    predicted for those answers (recorded in each duel's DUEL record when it was
    proposed); None where ``share`` is 0 or no such duel has a finite prediction
    recorded. A duel whose answer, rounded as played, was the baseline itself is left
    out (it measured the baseline against itself).

    Why: the guard (:meth:`DuelsSampler.guard`) tests the answer against the held-out
    duels played near it, and an answer that has moved since the last of them has
    none: on the real ``isolation-eight`` box five of the seven answers that confirmed
    below the baseline (by 6 to 27 Elo) had no held-out duel near them, while the
    latest half of the held-out duels had measured the answers before them at -16 to
    -31 Elo where the model predicted +84 to +130, 4.3 to 7.2 sd apart
    (docs/results/optimisers.md, "The guard on the model's record").
    The model's latest record is the evidence left there; the latest share, not all,
    so that a model that fits once its early duels are outweighed is judged on its
    recent answers."""
    if share <= 0.0:
        return None
    # (a duel whose answer, rounded as played, was the baseline itself measured nothing)
    latest = sorted((t for t, answer in held_out if answer.any()), key=lambda t: t.number)
    if not latest:
        return None
    latest = latest[len(latest) - max(1, math.ceil(share * len(latest))):]
    rows: list[tuple[FrozenTrial, float, float, int]] = []
    for t in latest:
        duel = duel_of(t) or {}
        mean, sd = duel.get("model_gain"), duel.get("model_gain_sd")
        if (isinstance(mean, (int, float)) and isinstance(sd, (int, float))
                and math.isfinite(mean) and math.isfinite(sd)):
            rows.append((t, float(mean), float(sd), duel_result(t)[1]))
    measured = pooled_gain([t for t, *_rest in rows])
    weight = sum(g for *_rest, g in rows)
    if measured is None or weight <= 0:
        return None
    return Record(measured, sum(m * g for _t, m, _s, g in rows) / weight,
                  sum(s * g for _t, _m, s, g in rows) / weight)


# the measured gain and the model's disagree where they lie this many sd apart (their
# errors combined): on the simulated oracle's fine-tuning cases, whose landscapes are
# the model's bowl, almost never; on real Morris and Isolation boxes and the oracle's
# ``broad`` case, where the model underrates its answer, often
# (docs/results/optimisers.md, "When the model's gain and the measured one disagree")
DISAGREE_Z = 3.0


def shows_no_gain(m: MeasuredGain, apart: float | None, bar: float) -> bool:
    """The guard's test (:meth:`DuelsSampler.guard`; ``narrow_below`` narrows on it
    too): the held-out duels measure the answer at or below the baseline (0 Elo or
    less) and ``bar`` sd or more below the model's gain (``apart``, by
    :func:`disagreement`); never where ``bar`` is 0."""
    return bool(bar) and apart is not None and m.elo <= 0.0 and apart <= -bar


def disagreement(detail: Mapping[str, Any]) -> float | None:
    """How many sd the measured gain of an answer lies above (negative: below) its
    model-based gain, from its ``detail`` (:meth:`DuelsSampler.answer`): the
    difference over the root of the two variances, the measured one read off its 95%
    interval on the side toward the model; None where either gain is missing or the
    answer is the baseline."""
    if detail.get("is_baseline"):
        return None
    model, sd = detail.get("model_gain"), detail.get("model_gain_sd")
    measured, ci = detail.get("measured_gain"), detail.get("measured_gain_ci")
    if (model is None or sd is None or measured is None
            or not isinstance(ci, (list, tuple)) or len(ci) != 2):
        return None
    try:
        model, sd, measured = float(model), float(sd), float(measured)
        low, high = float(ci[0]), float(ci[1])
    except (TypeError, ValueError):
        return None
    se = ((measured - low) if measured > model else (high - measured)) / 1.96
    spread = math.sqrt(max(sd, 0.0) ** 2 + max(se, 0.0) ** 2)
    if not math.isfinite(spread) or spread <= 0.0:
        return None
    return (measured - model) / spread


def narrow_bar(options: Mapping[str, Any], look: int) -> float:
    """The disagreement, in sd, at which the radius narrows at the ``look``-th held-out
    slot (1: the first): ``narrow_z``, or with ``narrow_from`` set (above 0 and below
    ``narrow_z``) ``narrow_from`` at the first slot, one sd more at the tenth and every
    tenfold after, at most ``narrow_z``.

    Why: the test is asked at every held-out slot, about 100 times in a study of
    32,000 games, so a bar low enough to narrow a broad box's wells early (3 sd) also
    narrows some bowls by chance late in the study, when many looks have passed; a bar
    that rises with the looks keeps the early test sensitive and the late one as strict
    as ``narrow_z`` (docs/results/optimisers.md, "A bar that rises with the looks")."""
    top, start = float(options["narrow_z"]), float(options.get("narrow_from", 0.0))
    if start <= 0.0 or start >= top:
        return top
    return min(top, start + math.log10(max(look, 1)))


def duel_points(centre: np.ndarray, radius: float, sign: np.ndarray, edge_only: np.ndarray,
                plus_side: np.ndarray, low: np.ndarray, high: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The two points of a duel around ``centre``, inside the box [low, high].

    Per coordinate: ``centre - radius * sign`` against ``centre + radius * sign``
    (the gradient), or where ``edge_only`` the centre against ``centre + radius *
    sign`` (the curvature; ``plus_side``: the centre is the minus side), clipped
    to the box. Box-aware: a curvature duel that the box would cut to less than
    :data:`EDGE_ROOM` of the radius looks the other way where there is more room.
    Clipped the way ``sign`` says, it collapsed onto the centre exactly where the
    model's maximum lies on the box's edge (an optimum at or beyond it): duels of
    two equal values there, which measure nothing. (Turning every cut duel
    inward instead measured worse on the oracle's ``fishtest`` case.)"""
    outward = np.clip(centre + radius * sign, low, high)
    inward = np.clip(centre - radius * sign, low, high)
    room = np.abs(outward - centre)
    other = (room < EDGE_ROOM * radius) & (np.abs(inward - centre) > room)
    side = np.where(other, inward, outward)
    a = np.where(edge_only, np.where(plus_side, side, centre), centre + radius * sign)
    b = np.where(edge_only, np.where(plus_side, centre, side), centre - radius * sign)
    return np.clip(a, low, high), np.clip(b, low, high)


def near_edges(point: np.ndarray, room: float, low: np.ndarray, high: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per coordinate, whether ``point`` lies within ``room`` of the upper bound,
    and of the lower one."""
    return high - point < room, point - low < room


def nearer_bound(point: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Per coordinate, +1 where ``point`` lies nearer the upper bound than the lower, else
    -1: the side of its edge (for a coordinate at an edge, :func:`near_edges`)."""
    return np.where(high - point < point - low, 1.0, -1.0)


def curved_edges(model: QuadraticModel, point: np.ndarray, room: float, low: np.ndarray,
                 high: np.ndarray, curved_only: bool = True) -> np.ndarray:
    """Per coordinate, whether ``point`` lies within ``room`` of a bound and (where
    ``curved_only``) the fitted curvature along it is at least as strong as the
    prior's (:meth:`~heurtune.tuning.samplers.quadratic.QuadraticModel.curved`): the
    edge test of :func:`toward_edges` and :func:`fit_at_edges`."""
    near_high, near_low = near_edges(point, room, low, high)
    at_edge: np.ndarray = near_high | near_low
    return at_edge & model.curved() if curved_only else at_edge


def toward_edges(model: QuadraticModel, point: np.ndarray, centre: np.ndarray,
                 low: np.ndarray, high: np.ndarray, z: float, room: float,
                 curved_only: bool = True, move_sd: float = 0.0) -> np.ndarray:
    """The answer ``point`` with its coordinates where the model's maximum ``centre``
    lies within ``room`` of a bound moved toward the maximum: the point of highest
    mean gain on that segment (in 100 steps) whose lower bound ``mean - z sd`` on the
    gain over the baseline stays positive, or ``point`` itself. ``curved_only``: only
    the coordinates whose fitted curvature is at least as strong as the prior's
    (:meth:`~heurtune.tuning.samplers.quadratic.QuadraticModel.curved`). ``move_sd``
    (the ``edge_move_sd`` setting): the move made only where the model's mean gain of
    the moved point over ``point`` lies that many sd above zero, else ``point``.

    Why: the lower bound holds an answer back from an optimum on the box's edge
    (the box halves the duels' lever there, so the gain out to the edge stays
    uncertain for long), while in the box's interior the slope at the optimum is
    pinned and the shortfall costs little. Moving every such coordinate (``always``)
    also follows a maximum that *overshoots* to the edge. The curvature tells the two
    apart: the duels at an edge measure the edge against a point a radius inside,
    the prior shrinks the gradient at the baseline toward zero, and the fit makes up
    the difference with the curvature, flatter than the prior's where the edge lies
    more than half a radius from the baseline (there the maximum overshoots) and
    steeper where it lies nearer. On the simulated oracle, 40 seeds paired
    (docs/results/optimisers.md, "An answer that moves to the edge"), ``curved``
    lowered the ``edge`` case's mean loss by 0.12 to 0.36 Elo from 4,000 to 64,000
    games and cost ``far``, ``fishtest`` and ``offcentre`` at most 0.02. The guard
    (``move_sd`` 0.3) drops the early moves in the centred cases that the model is
    least sure of: on the real benchmark, 120 seeds paired, it about halves
    ``fishtest``'s early answers worse than the baseline and keeps ``edge``'s gain
    ("A guard on the move to the edge")."""
    at_edge = curved_edges(model, centre, room, low, high, curved_only)
    if not at_edge.any():
        return point
    moved = best_on_segment(model, point, np.where(at_edge, centre, point), z)
    if moved is not point and move_sd > 0.0:
        mean, sd = model.difference(moved, point)
        if mean <= move_sd * sd:
            return point
    return moved


def fit_at_edges(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                 centre: np.ndarray, room: float, edge_prior: float,
                 margin: float | None = None, gain_z: float | None = None,
                 curved_z: float | None = None, after: int = 0,
                 slope_z: float | None = None) -> np.ndarray:
    """Fit ``model`` and return its maximum in the box (found from ``centre``). With
    ``edge_prior`` above 1 (the option), the gradient's prior variance is then made
    that many times wider along the coordinates where the maximum lies within ``room``
    of a bound and the fitted curvature is at least the prior's (the test of
    :func:`toward_edges`; with ``curved_z``, by that many posterior sd), once the
    model holds at least ``after`` duels (the ``edge_prior_after`` option times the
    model's coefficients), where the wider prior's evidence is at least ``margin``
    above the prior's at the chosen scales (None: wherever), and once the plain fit's
    gain of its maximum over the baseline lies ``gain_z`` sd above zero (None: at
    once), and with ``slope_z`` only along the coordinates where the plain fit's
    slope at the baseline toward that edge lies ``slope_z`` posterior sd above zero,
    and the model refitted with it. The sampler uses ``after`` and ``slope_z`` (its
    ``edge_prior_after`` option and ``edge_prior_slope_z`` setting): on the stand-in the
    other gates (``margin``, ``gain_z``, ``curved_z``) lost the whole gain at the edge,
    and are there for ``benchmarks/duels_variants.py`` (docs/results/optimisers.md,
    "Waiting for the duels" and "A bar on the slope toward the edge").

    Why: the prior shrinks the gradient at the baseline toward zero, and at the box's
    edge the duels hardly learn the slope through the bound (the box halves their
    lever), so the fit holds the gain out to an edge optimum short of the truth for
    long; a wider prior everywhere (``start_elo``) fixes that and costs the centred
    cases' safety. Here the prior widens only where the edge needs it
    (docs/results/optimisers.md, "A wider prior at the edge")."""
    model.widen = None
    model.fit()
    top = model.argmax_mean(low, high, centre)
    if edge_prior <= 1.0 or model.observations == 0 or model.observations < after:
        return top
    wide = curved_edges(model, top, room, low, high)
    if curved_z is not None:
        wide &= model.surely_curved(curved_z)
    if slope_z is not None:
        wide &= model.slope_toward(nearer_bound(top, low, high)) >= slope_z
    if not wide.any():
        return top
    if gain_z is not None:
        mean, sd = model.gain(top)
        if mean <= gain_z * sd:
            return top
    widen = np.where(wide, edge_prior, 1.0)
    if margin is not None:
        narrow = model.posterior(model.scale, model.start_scale)
        model.widen = widen
        broad = model.posterior(model.scale, model.start_scale)
        if narrow is None or broad is None or broad[0] < narrow[0] + margin:
            model.widen = None
            return top
    model.widen = widen
    model.fit()
    return model.argmax_mean(low, high, top)


def best_on_segment(model: QuadraticModel, start: np.ndarray, end: np.ndarray,
                    z: float, move_sd: float = 0.0, floor: float = 0.0) -> np.ndarray:
    """The point of highest mean gain over the baseline on the segment ``start`` ..
    ``end`` (in 100 steps) whose lower bound ``mean - z sd`` lies above ``floor`` (0:
    positive), or ``start`` itself where none beats its mean. ``move_sd``: only points
    whose mean gain over ``start`` itself lies that many sd above zero (0: any)."""
    best, best_mean = start, model.gain(start)[0]
    for t in np.linspace(0.0, 1.0, 101)[1:]:
        trial = start + t * (end - start)
        mean, sd = model.gain(trial)
        if mean - z * sd > floor and mean > best_mean:
            if move_sd > 0.0:
                step, step_sd = model.difference(trial, start)
                if step < move_sd * step_sd:
                    continue
            best, best_mean = trial, mean
    return best


def step_toward(model: QuadraticModel, point: np.ndarray, centre: np.ndarray, z: float,
                step_sd: float) -> np.ndarray:
    """The answer ``point`` stepped toward the model's maximum ``centre``: the point of
    highest mean gain on that segment whose lower bound on the gain over the baseline
    stays positive and whose mean gain over ``point`` lies ``step_sd * sqrt(d / 4)``
    sd above zero in ``d`` parameters (the ``step_sd`` setting; 0: ``point`` itself,
    no step).

    Why: the point of highest lower bound trades mean gain for certainty all the
    way, so it stops short of gains the model is already fairly sure of; the step
    takes them where the model is that sure the step itself gains, and never past a
    point whose gain over the baseline is in doubt. No step can be ``z`` sd sure (at
    the lower bound's point a move's mean gain is at most ``z`` times the sd of its
    own gain), so with ``z = 1`` and a bar of 0.8 there is no step in seven
    parameters or more. The bar grows with the square root of the parameters (a
    maximum over more directions picks up more noise): unscaled, it gained about 0.1
    Elo early in 6 to 16 parameters and more than doubled the answers worse than the
    baseline in 12 with four at the box's edge (docs/results/optimisers.md, "The
    step's bar in more parameters"). After the move toward an edge
    (:func:`toward_edges`), not before: stepped first, the edge move's own gain is
    smaller and its guard holds it back more often.

    Measured (docs/results/optimisers.md, "A step toward the model's maximum"): on
    the simulated oracle, paired seed for seed over 120 seeds, the default 0.8 lowers
    the centred case's mean loss by 0.12, 0.11 and 0.10 Elo at 4,000, 8,000 and
    16,000 games (se 0.01) with as many answers worse than the baseline, and leaves the
    case with its best on the box's edge as it was."""
    if step_sd <= 0.0:
        return point
    return best_on_segment(model, point, centre, z, step_sd * math.sqrt(model.dim / 4.0))


def reach_in_effect(option: float, dim: int) -> float:
    """What duels' ``reach`` setting means in ``dim`` searched parameters: 0 (off) or a
    value as it is; ``-1`` (the constant) as :data:`AUTO_REACH` below
    :data:`MANY_PARAMETERS`, 0 from there on."""
    if option == AUTO:
        return AUTO_REACH if dim < MANY_PARAMETERS else 0.0
    return float(option)


def reach_toward(model: QuadraticModel, point: np.ndarray, centre: np.ndarray,
                 sure: float, z: float, reach: float, after: float = AUTO_AFTER,
                 max_scale: float = REACH_MAX_SCALE) -> np.ndarray:
    """The answer ``point`` moved toward the model's maximum ``centre`` where the data
    put that maximum far from the baseline: at least ``reach`` times the prior's
    distance (``sqrt(start_elo / elo_per_range)``, where a bowl of the prior's curvature
    lies ``start_elo`` below its top), once the model holds ``after`` duels per
    coefficient, and only where the curvature's empirical-Bayes scale is at most
    ``max_scale`` (a broad search's is larger). Then the answer moves :data:`REACH_MOVE`
    of the way to the point of highest mean gain on the segment to ``centre`` whose
    lower bound on the gain over the baseline keeps :data:`REACH_KEEP` of ``sure``, the
    highest lower bound in the box (``QuadraticModel.recommend``'s, which the caller
    has; 0 for ``reach``: ``point`` itself).

    Why: far from the baseline the lower bound's sd is mostly the model's extrapolation
    back to the baseline, which grows as the answer moves toward the maximum, so the
    point of highest lower bound stops short where the duels already are (on the
    simulated oracle's ``far``, the baseline 10 Elo below, the model's maximum reached
    1 Elo in about 7,700 games and the answer in about 10,900). A bolder answer
    everywhere costs a landscape steeper on one side (``skewed``), whose duels look
    like ``far``'s but whose maximum lies near the baseline; the distance tells the two
    apart where nothing else measured did. Half the way: the full move overshoots with
    the model's maximum late (+0.11 Elo in ``far`` at 32,000 games). The scale gate: a
    broad search's curvature scale is 16, its model not yet the bowl the move trusts
    (without the gate one ``broad`` seed of 96 lost 13 Elo at 4,000 games). Measured
    (docs/results/optimisers.md, "The scale gate"): with ``reach = -1``, the default, on
    120 fresh seeds ``far`` reaches 1 Elo in 9,044 games instead of 10,966 (1.25 times the
    centred case's, which it leaves within 0.03 Elo), at a price of 0.06 Elo in ``far``
    at 32,000 games; ``broad`` never moved on 96 fresh seeds."""
    if (reach <= 0.0 or model.scale > max_scale
            or model.observations < after * n_features(model.dim)):
        return point
    prior = math.sqrt(model.start_elo / model.elo_per_range)
    if float(np.linalg.norm(centre)) < reach * prior or sure <= 0.0:
        return point
    top = best_on_segment(model, point, centre, z, floor=REACH_KEEP * sure)
    if top is point:
        return point
    moved: np.ndarray = point + REACH_MOVE * (top - point)
    return moved


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
        # the completed held-out duels and the answer each played (relative unit coordinates)
        self.held_out: list[tuple[FrozenTrial, np.ndarray]] = []
        # the duels' radius now, and the trial from which it narrowed (see ``narrow``)
        self.radius: float = o["radius"]
        self.narrowed_at: int | None = None
        self.narrowed_bar: float | None = None  # the bar it cleared (None: not recorded)
        self.reached = False  # whether the latest answer moved toward a far maximum (reach)

    def update(self, trials: Sequence[FrozenTrial], every: bool = False) -> None:
        """Add the duels completed since the last call and refit (``every``: even
        after one new duel). Held-out duels are kept apart, never fitted."""
        new = False
        for t in trials:
            if t.number in self._seen or t.state != TrialState.COMPLETE:
                continue
            self._seen.add(t.number)
            duel = duel_of(t)
            if duel is not None and RADIUS in duel:  # a narrowed radius, as the trial played it
                bar = duel.get(NARROW_BAR)
                self._narrowed(float(duel[RADIUS]), t.number,
                               float(bar) if isinstance(bar, (int, float)) else None)
            if is_holdout(duel):
                self.held_out.append((t, self.box.to_unit(t.params) - self.u0))
                continue
            if duel is None or "plus_u" not in duel:
                continue
            score, games, _result_, pairs = duel_result(t)
            self.model.add(Observation(np.asarray(duel["plus_u"]), np.asarray(duel["minus_u"]),
                                       score, games, pairs))
            new = True
        # refit after every duel while they are few, then after every 2% more
        due = every or self.model.observations >= self._fitted_at * REFIT_GROWTH
        if self.model.mean is None or (new and due):
            o = self.options
            edge = edge_prior_in_effect(o, self.box.dim)
            self._centre = fit_at_edges(self.model, self.low, self.high, self._centre,
                                        EDGE_ROOM * self.radius, edge.widen,
                                        after=math.ceil(edge.after * n_features(self.box.dim)),
                                        slope_z=edge.slope_z or None)
            self._fitted_at = self.model.observations

    def recommend(self) -> tuple[np.ndarray, float, float]:
        """The model's answer (relative unit coordinates) with its model-based gain
        over the baseline: mean and sd, in Elo. The point of highest lower bound,
        moved toward the model's maximum where that lies at the box's edge and the
        move's own gain is sure enough (``edge_answer``, ``edge_move_sd``,
        :func:`toward_edges`), then stepped toward that maximum as far as the step's
        own gain is sure enough (``step_sd``, :func:`step_toward`), then moved toward it
        where the data put it far from the baseline (``reach``, :func:`reach_toward`)."""
        o = self.options
        point, mean, sd = self.model.recommend(self.low, self.high, o["z"], self._centre)
        moved = point
        if o["edge_answer"] != "off":
            moved = toward_edges(self.model, moved, self._centre, self.low, self.high,
                                 o["z"], EDGE_ROOM * self.radius,
                                 curved_only=o["edge_answer"] == "curved",
                                 move_sd=o["edge_move_sd"])
        moved = step_toward(self.model, moved, self._centre, o["z"], o["step_sd"])
        stepped = moved
        moved = reach_toward(self.model, moved, self._centre, mean - o["z"] * sd, o["z"],
                             reach_in_effect(o["reach"], self.box.dim))
        self.reached = moved is not stepped
        if moved is not point:
            point = moved
            mean, sd = self.model.gain(point)
        return point, mean, sd

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        every = self.options["holdout_every"]
        if every and number % every == 0:
            self.update(trials, every=True)  # the answer as ``answer`` would give it now
            point, mean, sd = self.recommend()
            if point.any():  # (while the answer is the baseline, its gain is zero: a duel)
                plus = self.box.to_unit(self.box.from_unit(self.u0 + point))
                held: dict[str, Any] = {HOLDOUT: True, "model_gain": mean, "model_gain_sd": sd}
                if self.narrow(plus - self.u0, mean, sd, number):
                    held[RADIUS] = self.radius
                    held[NARROW_BAR] = self.narrowed_bar
                return plus, self.u0.copy(), held
        self.update(trials)
        rng = self.rng(number)
        radius, share = self.radius, self.options["curvature_share"]
        d = self.box.dim
        sign = rng.choice((-1.0, 1.0), size=d)
        edge_only = rng.random(d) < share  # one side at the centre: curvature
        plus_side = rng.random(d) < 0.5
        a, b = duel_points(self._centre, radius, sign, edge_only, plus_side,
                           self.low, self.high)
        # the model sees the points as played (integers rounded, steps snapped)
        plus = self.box.to_unit(self.box.from_unit(self.u0 + a))
        minus = self.box.to_unit(self.box.from_unit(self.u0 + b))
        record: dict[str, Any] = {"plus_u": (plus - self.u0).tolist(),
                                  "minus_u": (minus - self.u0).tolist()}
        if self.narrowed_at is not None:
            record[RADIUS] = self.radius
        return plus, minus, record

    def narrow(self, played: np.ndarray, mean: float, sd: float, number: int) -> bool:
        """Narrow the duels' radius (times the ``narrow`` setting, once) where the
        held-out duels already played near the answer ``played`` measure its gain
        ``narrow_z`` sd (5, the constant) or more above the model's (``mean``, ``sd``),
        by :func:`disagreement`, the test of ``tune``'s sentence at its own bar: the
        landscape is not the bowl the model fits at this radius (a broad box's wells,
        which duels a radius wide smooth over). With ``narrow_below`` set, also where
        they measure it at or below the baseline and ``narrow_below`` sd or more *below*
        the model's gain, the guard's test (:meth:`guard`): a cliff or spike beside the
        answer that duels a radius wide span, so the quadratic fitted across it
        overrates the answer (docs/results/optimisers.md, "Narrowing on the guard's
        signal"); the bar recorded is then ``-narrow_below``. Whether it narrowed now."""
        factor = self.options["narrow"]
        if not factor or self.narrowed_at is not None:
            return False
        m = measured_gain(self.held_out, played)
        if m is None:
            return False
        apart = m.apart(mean, sd)
        if apart is None:
            return False
        bar = narrow_bar(self.options, len(self.held_out) + 1)
        below = self.options["narrow_below"]
        if apart >= bar:
            self._narrowed(self.options["radius"] * factor, number, bar)
            return True
        if shows_no_gain(m, apart, below):  # the guard's test: -below recorded
            self._narrowed(self.options["radius"] * factor, number, -below)
            return True
        return False

    def _narrowed(self, radius: float, number: int, bar: float | None = None) -> None:
        if radius < self.radius:
            self.radius = radius
        if radius < self.options["radius"] and (self.narrowed_at is None
                                                or number < self.narrowed_at):
            self.narrowed_at, self.narrowed_bar = number, bar

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        """The answer's parameters, its model-based gain (``model_gain``,
        ``model_gain_sd``: Elo) and its measured gain (``measured_gain`` and
        ``measured_gain_ci``, 95%, pooled over ``measured_duels`` held-out duels
        of ``measured_games`` games; None where none played near this answer
        yet, or it is the baseline itself, ``is_baseline``; ``held_out``: every
        held-out duel; ``beyond_bounds``: the parameters whose best may lie beyond
        the box, :func:`~heurtune.tuning.samplers.quadratic.beyond_bounds`; ``reached``:
        the answer moved half way toward a maximum the duels put far from the baseline,
        :func:`reach_toward`)."""
        self.update(trials, every=True)
        point, mean, sd = self.recommend()
        params = self.baseline if not point.any() else self.box.from_unit(self.u0 + point)
        played = self.box.to_unit(params) - self.u0  # the answer as a held-out duel plays it
        m = measured_gain(self.held_out, played) if point.any() else None
        guarded = self.withdrawn(params, mean, sd, m) if point.any() else None
        reached = self.reached  # (a move leaves the baseline: point is not zero)
        if guarded is not None:  # the measurement shows no gain: the baseline instead
            params, point, mean, sd, m = self.baseline, np.zeros_like(point), 0.0, 0.0, None
            reached = False
        return {"params": params, "is_baseline": not point.any(),
                "model_gain": mean, "model_gain_sd": sd,
                "measured_gain": None if m is None else m.elo,
                "measured_gain_ci": None if m is None else [m.low, m.high],
                "measured_duels": 0 if m is None else m.duels,
                "measured_games": 0 if m is None else m.games,
                "held_out": len(self.held_out), "duels": self.model.observations,
                "beyond_bounds": beyond_bounds(self.model, self.box, self.low, self.high,
                                               self._centre),
                "prior_scale": self.model.scale, "prior_start_scale": self.model.start_scale,
                "radius": self.radius, "narrowed_at": self.narrowed_at,
                "narrow_bar": self.narrowed_bar, "narrow": self.options["narrow"],
                "narrow_z": self.options["narrow_z"], "narrow_from": self.options["narrow_from"],
                "narrow_below": self.options["narrow_below"], "guard_z": self.options["guard_z"],
                "guard_record": self.options["guard_record"],
                "reach": self.options["reach"], "reached": bool(reached),
                **({GUARDED: guarded} if guarded is not None else {})}

    def guard(self, params: dict[str, Any], mean: float, sd: float,
              m: MeasuredGain | None) -> dict[str, Any] | None:
        """Where the held-out duels measure the model's answer ``guard_z`` sd or more
        below the model's gain (``mean``, ``sd``), by :func:`disagreement`, and at or
        below the baseline (their gain at most 0 Elo): the answer ``params`` the study
        withdraws, with both gains and how far apart they lie; None where it stands
        (or ``guard_z`` is 0). The measurement is the figure to trust where the two
        disagree (docs/results/optimisers.md, "When the model's gain and the measured
        one disagree"), and it shows no gain: the model does not fit the box (a spike
        at the baseline that duels a radius wide step over: "A real box with cusps"),
        so the study answers the baseline rather than a point measured worse."""
        if m is None:
            return None
        apart = m.apart(mean, sd)
        if not shows_no_gain(m, apart, self.options["guard_z"]):
            return None
        return withdrawal(params, mean, sd, m, apart)

    def withdrawn(self, params: dict[str, Any], mean: float, sd: float,
                  m: MeasuredGain | None) -> dict[str, Any] | None:
        """The answer ``params`` (the model's gain ``mean``, ``sd``; ``m``: its
        measured gain from the held-out duels near it) the study withdraws, or None:
        the guard's test on ``m`` (:meth:`guard`) where a held-out duel has measured it,
        however few, else the same test on the model's record (:meth:`guard_on_record`)."""
        if m is not None:
            return self.guard(params, mean, sd, m)
        return self.guard_on_record(params, mean, sd)

    def guard_on_record(self, params: dict[str, Any], mean: float,
                        sd: float) -> dict[str, Any] | None:
        """Where no held-out duel has measured the model's answer yet (it moved since
        the last one near it), the guard's test on the model's record instead
        (``guard_record``: the latest share of the held-out duels, :func:`record_gain`):
        where they measured the answers they played at or below the baseline and
        ``guard_z`` sd or more below the gains the model predicted for them, the
        answer ``params`` the study withdraws (``basis``: ``record``, with the record's
        figures; ``model_gain``: this answer's), else None. A model that has
        overrated every answer it was measured on is not trusted with one it has
        not."""
        record = record_gain(self.held_out, self.options["guard_record"])
        if record is None:
            return None
        apart = record.apart()
        if not shows_no_gain(record.measured, apart, self.options["guard_z"]):
            return None
        return withdrawal(params, mean, sd, record.measured, apart, basis=RECORD,
                          record_model_gain=record.model_gain,
                          record_model_gain_sd=record.model_gain_sd)


def withdrawal(params: dict[str, Any], mean: float, sd: float, m: MeasuredGain,
               apart: float | None, **more: Any) -> dict[str, Any]:
    """A withdrawn answer's record (an answer's ``guarded`` detail): its parameters,
    its model-based gain (``mean``, ``sd``), the measurement ``m`` that withdrew it,
    how many sd apart the two lay, and ``more``."""
    return {"params": params, "model_gain": mean, "model_gain_sd": sd, **more,
            "measured_gain": m.elo, "measured_gain_ci": [m.low, m.high],
            "measured_duels": m.duels, "measured_games": m.games, "apart": apart}


def make(spec: SamplerSpec, seed: int, context: SamplerContext) -> DuelsSampler:
    return DuelsSampler(*DuelSampler.arguments(spec, seed, context))
