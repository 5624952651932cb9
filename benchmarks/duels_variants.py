"""Try a change to ``duels`` on the simulated oracle in a minute: a stand-in for
``benchmarks/oracle.py --optimisers duels`` without Optuna.

    python benchmarks/duels_variants.py --case edge,fishtest [--variants current,gated]
                                        [--seeds 20] [--budget 64000] [--json [--path]]
                                        [--paired] [--aligned] [--cases MY_CASES.py]

It plays the duels sampler's own loop (heurtune.tuning.samplers.duels: the same
QuadraticModel, refit schedule, ``duel_points``, ``toward_edges``, held-out duels
every 10th trial and per-trial random streams) against the oracle's game draws
(heurtune.match.oracle.game_scores), 16 pairs per trial, and reads the answer
at the benchmark's checkpoints; no study, no storage, so a case of 20 seeds
takes about 50 s on one core instead of 4 to 6 minutes. Its random streams are
not the benchmark's, so its figures differ from it by seed noise (20 seeds: up
to a few thousand games either way; docs/results/optimisers.md compares them).
It is for deciding what is worth a real benchmark run, not the record. ``--cases
FILE.py`` adds cases of your own first, as ``benchmarks/oracle.py --cases`` does.

Per case and variant: games until the median answer over the seeds is within 1
Elo and 0.5 Elo of the in-box best (log-interpolated between checkpoints, as
oracle.py does), the same for the model's own maximum (``centre``: where the
duels are centred), and the largest share of seeds whose answer is worse than
the baseline at any checkpoint. With ``--path``, each seed's final posterior
too: the gradient and curvature it fitted (mean and sd) and its gain along the
straight path from the baseline to the in-box best, against the truth. With
``--json`` each row also holds every seed's loss at every checkpoint (``losses``)
and their mean. With ``--paired`` and two variants, each case ends with the
second's loss minus the first's, seed by seed, averaged with its standard error
at 4,000 games and every doubling: a statistic that 20 or 40 seeds resolve,
where a median's crossing point moves by thousands of games with the streams.
By default a run's games come from one stream in the order they are played, so two
variants that hold out, add or skip different trials draw different games from then
on; with ``--aligned`` every trial draws its games from a stream of its own (by
trial number), and two variants pair trial for trial: ``--paired`` then resolves
differences a few times smaller (``current`` against ``no-holdout``, 40 seeds:
standard errors 0.01 to 0.04 Elo in ``fishtest`` against 0.04 to 0.09 unaligned, 0.7
to 0.9 in ``broad`` against 2 to 3). A held-out duel that ``release`` may fit draws
from a stream of its own either way.

Variants (each changes one thing):

``current``
    heurtune's ``duels`` as it is: its answer, the point of highest lower bound,
    moved toward an edge since 2026-11-25 (``edge_answer = "curved"``,
    :func:`heurtune.tuning.samplers.duels.toward_edges`, where the model's mean gain of
    the move is ``edge_move_sd`` sd above zero), then stepped toward the model's
    maximum since 2026-11-26 (``step_sd``, 0.8,
    :func:`heurtune.tuning.samplers.duels.step_toward`); its radius halved where the
    held-out duels measure 5 sd more than the model since stop 48 (``narrow``), a bar
    that rises from 3 sd at the first held-out duel to 5 at the 100th since stop 49
    (``narrow_from``).
``step-0.8``
    the step's bar at 0.8 sd whatever the sampler's default (``current`` today).
``step-off``
    ``current`` without the step: the sampler's answer of 2026-11-25 (``step_sd = 0``).
``step-0.6`` / ``step-0.7``
    ``step-0.8`` with the step's bar at 0.6 or 0.7 sd in four parameters (``step_sd``).
``step-flat``
    ``step-0.8`` with the bar 0.8 sd in any number of parameters, not scaled by
    sqrt(d / 4).
``step-first``
    ``step-0.8`` with the step made before the move toward an edge, not after.
``edge-unguarded``
    ``current`` with the move toward an edge made without its own test
    (``edge_move_sd = 0``; the sampler's answer on 2026-11-25 before the guard).
``edge-off``
    the answer as it was before 2026-11-25: the point of highest lower bound, neither
    stepped nor moved toward an edge (``step_sd = 0``, ``edge_answer = "off"``).
``shifted``
    duels centred a radius inside the box's edge: a coordinate whose centre lies
    within ``EDGE_ROOM`` radii of an edge is duelled around the point a radius
    inside it (points edge, edge - r, edge - 2r instead of edge, edge - r).
``gated``
    the answer is the point of highest mean gain on the segment from the baseline
    to the model's maximum whose lower bound (mean - z sd) is positive, instead
    of the point of highest lower bound.
``edge-slope``
    the current answer, then every coordinate moved to a box edge where the
    model's mean gain still rises toward it there.
``baseline-curvature``
    the curvature duels around the baseline instead of the model's maximum:
    points chosen without the model, so what they say of the curvature cannot
    follow its errors.
``flat-prior``
    the prior's curvature guess halved (``elo_per_range = 1``, the sampler
    option: 1 Elo half a range out where the oracle's cases have 2).
``edge-half``
    a curvature duel that turns inward at an edge goes half a radius in, not a
    whole one: a third level of the coordinate there (edge, edge - r/2, edge - r).
``edge-narrow``
    every duel of a coordinate at an edge (gradient and curvature alike) is the
    edge against half a radius inside: the duels' midpoint nearer the edge.
``fixed``
    every duel around the baseline, wherever the model's maximum is: a control
    (with ``--path``) for what the adaptive design does to the fitted curvature.
``z-half`` / ``z-quarter``
    the current answer with its lower bound at mean - 0.5 sd / mean - 0.25 sd
    (the sampler's ``z`` option; 1 by default).
``edge-gated``
    the lower bound's point, then its coordinates where the model's maximum lies at
    an edge moved toward it, whatever the fitted curvature: the highest mean gain on
    that segment whose lower bound is still positive (``gated``, for the edge's
    coordinates only; ``edge_answer = "always"``, ``edge_move_sd = 0``).
``gain-every-5`` / ``gain-every-3``
    every 5th / 3rd trial (unless held out) duels the model's maximum against the
    baseline, and the model fits it: a direct measurement of the gain the answer's
    lower bound is about.
``start-elo-4`` / ``start-elo-8`` / ``start-elo-32``
    the prior's distance from the baseline to the optimum guessed at 4, 8 or 32 Elo
    instead of 2 (the sampler's ``start_elo`` option): a wider prior on the gradient,
    so less shrinkage of it toward zero.
``start-elo-8-zd``
    ``start-elo-8`` with the answer's lower bound at mean - sqrt(d / 4) sd in d
    parameters (``z`` as it is in 4, larger in more).
``start-elo-8-z1.5`` / ``start-elo-8-z2``
    ``start-elo-8`` with the answer's lower bound at mean - 1.5 sd / mean - 2 sd.
``averaged``
    the prior's scales averaged over, not chosen: the mixture of the 81 pairs'
    posteriors weighted by their evidence (a shared pair's by the margin more),
    moment-matched to one normal.
``averaged-edge-gated``
    ``averaged`` with the ``edge-gated`` answer.
``edge-far``
    a curvature duel that turns inward at an edge goes two radii in (clipped):
    a third level of the coordinate a whole lever beyond the gradient duel's.
``before``
    ``duels`` as it was on 2026-11-23, the reference for "no regression": one
    empirical-Bayes scale shared by curvature and gradient, every duel point
    clipped to the box (no inward turn), no held-out duels, the lower bound's point
    as the answer.
``no-holdout``
    ``current`` without the held-out duels (their cost: a tenth of the games).
``refits-only``
    ``no-holdout``, but the model refitted before every 10th trial as a held-out
    duel does (a regular duel played there): whether the refits, not the games,
    are what the held-out duels cost.
``release``
    a held-out duel is fitted (added to the model's data) once the answer has
    moved more than ``NEAR`` from the answer it played: it can no longer measure
    the current answer, so it need not cost the model its games.
``shared-scale`` / ``clipped``
    ``current`` with one of ``before``'s two other parts: the one shared prior
    scale, or the clipped duel points.
``margin-1`` / ``margin-0``
    the separate prior scales chosen where they beat the shared one by a Bayes
    factor of e (not 20), or whenever their evidence is larger.
``edge-prior-4`` / ``edge-prior-16``
    the gradient's prior variance 4 / 16 times wider (``start_elo`` 8 / 32) along the
    coordinates where the model's maximum lies at an edge and the fitted curvature is
    at least the prior's (the test of the move toward an edge): after each fit, the
    model refits once with that prior and takes its maximum from the refit. A wider
    prior where the edge needs it, the prior as it is elsewhere.
``edge-prior-4-ev`` / ``edge-prior-2``
    ``edge-prior-4`` only where the wider prior's evidence is at least the prior's
    (at the chosen scales), or with the variance twice as wide (``start_elo`` 4).
``edge-prior-4-duels``
    ``edge-prior-4`` for the duels' centre only: the answer is read off the plain fit
    and its own maximum.
``edge-prior-4-sure`` / ``edge-prior-4-sure2``
    ``edge-prior-4`` only once the plain fit's gain of its maximum over the baseline
    lies 1 (2) sd above zero.
``edge-prior-4-checked``
    ``edge-prior-4``'s answer only where the plain fit's lower bound on its gain over
    the baseline stays positive, else the plain fit's own answer.
``edge-prior-4-after-8`` / ``edge-prior-4-after-16``
    ``edge-prior-4`` only once the model holds 8 (16) duels per coefficient (the
    sampler's ``edge_prior_after``).
``edge-prior-4-curved1`` / ``edge-prior-4-curved2``
    ``edge-prior-4`` only along coordinates whose fitted curvature is at least the
    prior's by 1 (2) posterior sd.
``edge-prior-4-slope1`` / ``edge-prior-4-after-8-slope1``
    ``edge-prior-4`` (``edge-prior-4-after-8``) only along coordinates where the plain
    fit's slope at the baseline toward the edge lies 1 posterior sd above zero (the
    sampler's ``edge_prior_slope_z``).
``radius-0.5`` / ``radius-0.7``
    the duels' radius (the sampler's ``radius`` option) 0.5 or 0.7 half ranges from
    the start, not 1.
``narrow-off``
    the radius never narrows (``narrow = 0``: the sampler before stop 48, whose held-out
    duels the stand-in then counts but does not play).
``narrow-0.5`` / ``narrow-0.7`` / ``narrow-0.35`` / ``narrow-0.5-z5``
    the radius times 0.5 (0.7, 0.35) from the first held-out slot at which the held-out
    duels measure the answer's gain 3 sd (``-z5``: 5 sd, the sampler's default of stop
    48, a flat bar) or more above the model's (``narrow``, ``narrow_z``).
``narrow-rising``
    ``narrow-0.5`` with its bar rising with the held-out slots looked at: 3 sd at the
    first, 4 at the tenth, 5 from the hundredth (3 + log10 k; ``narrow_from = 3`` with
    ``narrow_z = 5``): ``current`` since stop 49.
``cubic`` / ``cubic-0.25``
    the model with a cubic term per parameter (:class:`CubicModel`; the term's prior sd
    1 or 0.25 times the curvature's guess): a landscape steeper on one side of its
    optimum (``skewed``) within the model's reach, or so it was hoped (it is not:
    docs/results/optimisers.md, "A model that fits asymmetry").
``cubic-keep-0.75`` / ``cubic-0.25-keep-0.75``
    either with the ``keep-0.75`` answer.
``hinge`` / ``hinge-0.25`` / ``hinge-1``
    the model with a hinge term per parameter (:class:`HingeModel`: the curvature may
    differ on the two sides of a knot at the duels' centre; the term's prior sd 0.5,
    0.25 or 1 times the curvature's guess): the piecewise road to ``skewed``
    (docs/results/optimisers.md, "A knot at the duels' centre").
``hinge-keep-0.75`` / ``hinge-keep-0.9`` / ``hinge-1-keep-0.75``
    ``hinge`` (or ``hinge-1``) with the ``keep-0.75`` (``keep-0.9``) answer.
``hinge-inner`` / ``hinge-inner-keep-0.75``
    ``hinge`` (``hinge-keep-0.75``) with no hinge along a coordinate whose knot lies
    within the edge room of a bound (the duels see one side of it only).
``asym-keep-0.75-z2``
    ``keep-0.75`` where a hinge model fitted beside the sampler's on the same duels
    (:class:`ShadowHingeModel`) finds no hinge term 2 sd from zero, else ``current``:
    bold where the landscape is one symmetric bowl (``far``), cautious where it is
    steeper on one side (``skewed``), if the duels can tell the two apart (they cannot:
    docs/results/optimisers.md, "Can the duels tell `far` from `skewed`?").
``reach-auto`` / ``reach-off``
    ``current`` with ``reach = -1`` without the scale gate (1.75 below 8 parameters:
    the candidate of stop 60, not adopted) or ``reach = 0`` (the default until stop 61).
``reach-auto-scale-4``
    ``reach-auto`` only where the curvature's empirical-Bayes scale (the model's
    ``scale``) is at most 4: a broad search, whose scale is 16, left out (the default
    since stop 61: ``current`` itself).
``keep-0.75-far-0.9`` / ``keep-0.75-far-1.0``
    ``keep-0.75`` where the model's maximum (the duels' centre) lies at least 0.9 (1.0)
    radii from the baseline, root mean square per coordinate, else ``current``: bold
    where the data put the optimum farther from the baseline than the prior's guess
    (``far``: 1.12 per coordinate; ``skewed``, ``fishtest``: 0.25 and 0.5).
    docs/results/optimisers.md, "How far the model's maximum lies (stop 60)".
``keep-0.75-reach-1.5`` / ``keep-0.75-reach-1.75`` / ``keep-0.75-reach-2``
    ``keep-0.75`` where the model's maximum lies at least 1.5 (1.75, 2) times the
    prior's distance from the baseline (``sqrt(start_elo / elo_per_range)``, 1 by
    default; Euclidean, in the model's units) and the model holds 8 duels per
    coefficient (``edge_prior_after``'s wait), else ``current``.
``half-reach-1.5`` / ``half-reach-1.75``
    ``keep-0.75-reach-1.5`` (``-1.75``) moving half as far from ``current``'s answer.
``keep-sure-1.5`` / ``half-sure-1.5`` / ``half-sure-1.25``
    ``keep-0.75-reach-1.5`` (moving all or half the way; the gate at 1.25 times), the
    distance read off the posterior (:func:`sure_reach`: the 16th percentile over 256
    draws of the coefficients), not off the model's mean, and no wait for duels.
``narrow-below-3``
    ``current`` that also narrows where the held-out duels measure the answer at or
    below the baseline and 3 sd or more below the model (the sampler's
    ``narrow_below = 3``).
``narrow-below-3-forget``
    ``narrow-below-3`` that, on that signal only, refits the model on the duels whose
    points all lie within the narrowed radius of the centre, which stays put until the
    model holds as many more duels as it has coefficients: the cliff's duels forgotten
    (docs/results/optimisers.md, "Forgetting the duels that span a cliff": it gains
    nothing).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/oracle.py: its checkpoints, its crossing points and the duels configuration
from oracle import (  # noqa: E402
    CONFIGS,
    check_cases,
    checkpoints,
    crossing_ratio,
    games_to,
    load_cases,
    paired_losses,
)

from heurtune.engine.heuristics.oracle import CASES, OracleCase  # noqa: E402
from heurtune.errors import HeurtuneError  # noqa: E402
from heurtune.match.oracle import game_scores  # noqa: E402
from heurtune.match.play import mix_seed  # noqa: E402
from heurtune.match.stats import elo as stats_elo  # noqa: E402
from heurtune.match.stats import score_interval  # noqa: E402
from heurtune.tuning.samplers import duels  # noqa: E402
from heurtune.tuning.samplers.quadratic import (  # noqa: E402
    SCALES,
    Observation,
    QuadraticModel,
    interaction_pairs,
    n_features,
)
from heurtune.tuning.samplers.registry import SAMPLERS  # noqa: E402

DUELS = next(c for c in CONFIGS if c.name == "duels")  # the benchmark's duels: its pairs, budget
PAIRS = DUELS.pairs
HOLDOUT_EVERY = 10
RADIUS, CURVATURE_SHARE, Z = 1.0, 0.2, 1.0  # the sampler's defaults

Points = Callable[..., tuple[np.ndarray, np.ndarray]]
Answer = Callable[[QuadraticModel, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
# at a checkpoint: the games played, the model, the box (low, high) and the model's maximum
Checkpoint = Callable[[int, QuadraticModel, np.ndarray, np.ndarray, np.ndarray], None]


# -- the variants --------------------------------------------------------------
def near_edges(centre: np.ndarray, radius: float, low: np.ndarray, high: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per coordinate, whether the centre lies within ``EDGE_ROOM`` radii of the
    upper edge, and of the lower one (``duels.near_edges``)."""
    return duels.near_edges(centre, duels.EDGE_ROOM * radius, low, high)


def shifted_points(centre: np.ndarray, radius: float, sign: np.ndarray, edge_only: np.ndarray,
                   plus_side: np.ndarray, low: np.ndarray, high: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points`` around a centre moved a radius inside any edge it is near."""
    near_high, near_low = near_edges(centre, radius, low, high)
    c = np.where(near_high, np.maximum(high - radius, low), centre)
    c = np.where(near_low, np.minimum(low + radius, high), c)
    return duels.duel_points(c, radius, sign, edge_only, plus_side, low, high)


def baseline_curvature_points(centre: np.ndarray, radius: float, sign: np.ndarray,
                              edge_only: np.ndarray, plus_side: np.ndarray, low: np.ndarray,
                              high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points``, but the curvature coordinates duelled around the baseline
    (0): points that do not depend on the model."""
    a, b = duels.duel_points(centre, radius, sign, edge_only, plus_side, low, high)
    a0, b0 = duels.duel_points(np.zeros_like(centre), radius, sign, edge_only, plus_side,
                               low, high)
    return np.where(edge_only, a0, a), np.where(edge_only, b0, b)


def turned_inward(depth: float) -> Points:
    """``duel_points``, but a curvature duel that turns inward at an edge goes
    ``depth`` radii in (clipped to the box): with the gradient duel there (edge
    against a radius in) a third level of that coordinate."""
    def points(centre: np.ndarray, radius: float, sign: np.ndarray, edge_only: np.ndarray,
               plus_side: np.ndarray, low: np.ndarray, high: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        a, b = duels.duel_points(centre, radius, sign, edge_only, plus_side, low, high)
        # where duel_points turned a curvature duel inward, its far point went against sign
        turned = edge_only & (sign * (np.where(plus_side, a, b) - centre) < 0)
        inner = np.clip(centre - depth * radius * sign, low, high)
        return np.where(turned & plus_side, inner, a), np.where(turned & ~plus_side, inner, b)
    return points


# half a radius in: the curvature measured where the answer is
edge_half_points = turned_inward(0.5)
# two radii in: a whole lever beyond the gradient duel's, so the curvature between
# the edge and the baseline is measured, not extrapolated
edge_far_points = turned_inward(2.0)


def edge_narrow_points(centre: np.ndarray, radius: float, sign: np.ndarray,
                       edge_only: np.ndarray, plus_side: np.ndarray, low: np.ndarray,
                       high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points``, but every duel of a coordinate whose centre lies at an edge
    (within ``EDGE_ROOM`` radii) compares the centre with the point half a radius
    inside: the duels' midpoint a quarter radius from the edge, not half a radius."""
    a, b = duels.duel_points(centre, radius, sign, edge_only, plus_side, low, high)
    at_high, at_low = near_edges(centre, radius, low, high)
    inward = np.where(at_high, -1.0, 1.0)
    half = np.clip(centre + 0.5 * radius * inward, low, high)
    at_edge = at_high | at_low
    return (np.where(at_edge, np.where(plus_side, centre, half), a),
            np.where(at_edge, np.where(plus_side, half, centre), b))


def fixed_points(centre: np.ndarray, radius: float, sign: np.ndarray, edge_only: np.ndarray,
                 plus_side: np.ndarray, low: np.ndarray, high: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points`` around the baseline (0) always: a design that never follows
    the model (a control for what adaptivity does to the fit; it does not tune)."""
    return duels.duel_points(np.zeros_like(centre), radius, sign, edge_only, plus_side,
                             low, high)


def path_points(centre: np.ndarray, radius: float, low: np.ndarray, high: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """A duel along the line from the baseline through the model's maximum: the
    maximum moved ``radius`` (in its largest coordinate) outward against it moved
    as far back, each coordinate then clipped to the box. The answer lies on that line (between
    the baseline and the maximum, mostly), so its lower bound is about the gain
    along it: random-sign duels measure that sum of slopes with d times the
    variance (d parameters), a duel along the line with one."""
    u = centre / np.abs(centre).max()
    return (np.clip(centre + radius * u, low, high), np.clip(centre - radius * u, low, high))


def z_answer(z: float) -> Answer:
    """The sampler's answer with the lower bound at ``mean - z sd``."""
    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        return model.recommend(low, high, z, centre)[0]
    return answer


lcb_answer = z_answer(Z)  # the point of highest lower bound (the answer before 2026-11-25)


def guarded_answer(move_sd: float, step_sd: float = 0.0, scaled: bool = True) -> Answer:
    """The lower bound's point, moved toward the model's maximum where that lies at an
    edge and the fitted curvature supports it (``duels.toward_edges``, ``edge_answer =
    "curved"``), where the model's mean gain of the move itself lies ``move_sd`` sd
    above zero (``edge_move_sd``; 0: wherever the lower bound of the moved point stays
    positive), then stepped toward that maximum where the step's own gain is
    ``step_sd`` sd sure (``duels.step_toward``, the ``step_sd`` option; 0: no step;
    ``scaled`` False: the bar ``step_sd`` in any number of parameters, not times
    sqrt(d / 4))."""
    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        point = duels.toward_edges(model, lcb_answer(model, low, high, centre), centre, low,
                                   high, Z, duels.EDGE_ROOM * RADIUS, curved_only=True,
                                   move_sd=move_sd)
        if scaled:
            return duels.step_toward(model, point, centre, Z, step_sd)
        return duels.best_on_segment(model, point, centre, Z, step_sd)
    return answer


EDGE_MOVE_SD = float(SAMPLERS["duels"].options["edge_move_sd"].default)  # the sampler's
STEP_SD = float(SAMPLERS["duels"].options["step_sd"].default)  # likewise
EDGE_PRIOR = float(SAMPLERS["duels"].options["edge_prior"].default)  # likewise
NARROW = float(SAMPLERS["duels"].options["narrow"].default)  # likewise
NARROW_Z = float(SAMPLERS["duels"].options["narrow_z"].default)  # likewise
NARROW_FROM = float(SAMPLERS["duels"].options["narrow_from"].default)  # likewise
STEP_TRIED = 0.8  # the step's bar measured (step-0.8, step-flat, step-first)
REACH = float(SAMPLERS["duels"].options["reach"].default)  # likewise
# the sampler's answer without ``reach`` (``reach = 0``, the default until stop 61):
# every rule of the stand-in measured before stop 60 starts from it
unreached_answer = guarded_answer(EDGE_MOVE_SD, STEP_SD)


def reached_answer(option: float, max_scale: float = math.inf) -> Answer:
    """:data:`unreached_answer` moved toward the model's maximum where that lies far
    from the baseline (``duels.reach_toward``, the ``reach`` option at ``option``), and
    only where the curvature's empirical-Bayes scale is at most ``max_scale``."""
    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        point = unreached_answer(model, low, high, centre)
        reach = duels.reach_in_effect(option, model.dim)
        if reach <= 0.0:
            return point
        _, mean, sd = model.recommend(low, high, Z, centre)
        return duels.reach_toward(model, point, centre, mean - Z * sd, Z, reach,
                                  max_scale=max_scale)
    return answer


current_answer = reached_answer(REACH, duels.REACH_MAX_SCALE)  # the sampler's own answer


def kept_answer(share: float, above_prior: bool = False) -> Answer:
    """The sampler's answer, then moved toward the model's maximum as far as the lower
    bound on the gain over the baseline stays at least ``share`` of the highest lower
    bound in the box (the point of highest mean gain on that segment that keeps it):
    where the answer is surely far ahead of the baseline, it gives up part of that
    certainty for mean gain; where it is barely ahead, hardly any. ``above_prior``:
    the bound kept at least the prior's distance of the baseline below the optimum
    (``start_elo``) too, so the answer moves only where the data say the baseline lies
    surely farther below than the prior assumed."""
    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        point = unreached_answer(model, low, high, centre)
        best = model.recommend(low, high, Z, centre)
        sure = best[1] - Z * best[2]
        if sure <= 0.0:
            return point
        floor = max(share * sure, model.start_elo if above_prior else 0.0)
        return duels.best_on_segment(model, point, centre, Z, floor=floor)
    return answer


def stepped_first_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                         centre: np.ndarray) -> np.ndarray:
    """``step-0.8`` the other way round: the lower bound's point stepped toward the
    model's maximum first, then moved toward an edge from there."""
    point = duels.step_toward(model, lcb_answer(model, low, high, centre), centre, Z,
                              STEP_TRIED)
    return duels.toward_edges(model, point, centre, low, high, Z, duels.EDGE_ROOM * RADIUS,
                              curved_only=True, move_sd=EDGE_MOVE_SD)


def z_by_dimension_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                          centre: np.ndarray) -> np.ndarray:
    """The sampler's answer with its lower bound at mean - sqrt(d / 4) sd: ``z``
    as it is in 4 parameters, larger in more (the answer is chosen among more
    directions, so more of them look good by chance)."""
    return model.recommend(low, high, Z * np.sqrt(model.dim / 4.0), centre)[0]


def gated_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                 centre: np.ndarray) -> np.ndarray:
    """The highest mean gain on the segment baseline .. centre whose lower bound is positive."""
    return duels.best_on_segment(model, np.zeros(model.dim), centre, Z)


def edge_gated_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                      centre: np.ndarray) -> np.ndarray:
    """The lower bound's point, its coordinates where the model's maximum lies at an
    edge then moved toward it, whatever the curvature: the highest mean gain on that
    segment whose lower bound is still positive (``edge_answer = "always"``)."""
    return duels.toward_edges(model, lcb_answer(model, low, high, centre), centre, low, high,
                              Z, duels.EDGE_ROOM * RADIUS, curved_only=False)


def mean_slope(model: QuadraticModel, point: np.ndarray, i: int) -> float:
    """The posterior mean's slope along coordinate ``i`` at ``point``."""
    assert model.mean is not None
    g, hessian = model._quadratic()
    return float(g[i] + hessian[i] @ point)


def edge_slope_answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
                      centre: np.ndarray) -> np.ndarray:
    """The current answer, each coordinate then moved to an edge where the mean still rises."""
    point: np.ndarray = lcb_answer(model, low, high, centre).copy()
    if not point.any():
        return point
    for _ in range(model.dim):
        moved = False
        for i in range(model.dim):
            for edge, outward in ((high[i], 1.0), (low[i], -1.0)):
                trial: np.ndarray = point.copy()
                trial[i] = edge
                if point[i] != edge and outward * mean_slope(model, trial, i) > 0.0:
                    point, moved = trial, True
        if not moved:
            break
    return point


class AveragedModel(QuadraticModel):
    """The sampler's model with its prior scales averaged over, not chosen: the
    posterior is the mixture of the 81 pairs' posteriors, each weighted by its
    evidence (a shared pair's by ``separate_margin`` more, the margin as a
    hyperprior), moment-matched to one normal. So where the data do not tell the
    scales apart the answer sees the spread of what they imply."""

    def fit(self) -> None:
        if self._count == 0:
            super().fit()
            return
        fits = []
        for scale in SCALES:
            for start_scale in SCALES:
                found = self.posterior(scale, start_scale)
                if found is not None:
                    weight = found[0] + (self.separate_margin if scale == start_scale else 0.0)
                    fits.append((weight, scale, start_scale, found[1], found[2]))
        top = max(f[0] for f in fits)
        w = np.array([np.exp(f[0] - top) for f in fits])
        w /= w.sum()
        mean = sum(wk * f[3] for wk, f in zip(w, fits, strict=True))
        second = np.zeros((self.size, self.size))
        for wk, f in zip(w, fits, strict=True):
            inv = np.linalg.inv(f[4])
            second += wk * (inv.T @ inv + np.outer(f[3], f[3]))
        self.mean, self.cov = mean, second - np.outer(mean, mean)
        mode = fits[int(np.argmax(w))]
        self.scale, self.start_scale = mode[1], mode[2]


class TermModel(QuadraticModel):
    """The sampler's model plus one term per coordinate (a subclass's :meth:`term`,
    after the quadratic's features), each coefficient with prior mean zero and sd
    ``term_sd`` times the curvature's guess at the chosen scale. Its maximum in the box
    is found numerically, from the quadratic part's, the start and the subclass's own
    :meth:`starts`. Duels only (no opponents' offsets)."""

    def __init__(self, dim: int, term_sd: float, **kw: Any) -> None:
        self.term_sd = term_sd
        super().__init__(dim, **kw)
        if self.offsets:
            raise ValueError(f"the {type(self).__name__} stand-in model fits duels only")

    def term(self, d: np.ndarray) -> np.ndarray:
        """The added term of each coordinate at ``d``."""
        raise NotImplementedError

    def term_slope(self, point: np.ndarray, i: int) -> float:
        """The derivative of coordinate ``i``'s term along it at ``point``."""
        raise NotImplementedError

    def starts(self) -> list[np.ndarray]:
        """Further points the search for the maximum starts from."""
        return []

    @property
    def feature_count(self) -> int:
        return n_features(self.dim) + self.dim

    def features(self, d: np.ndarray) -> np.ndarray:
        return np.concatenate([super().features(d), self.term(d)])

    def slope_features(self, point: np.ndarray, i: int) -> np.ndarray:
        s = np.zeros(self.feature_count)
        s[:n_features(self.dim)] = super().slope_features(point, i)
        s[n_features(self.dim) + i] = self.term_slope(point, i)
        return s

    def _prior(self, scale: float, start_scale: float | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        mean, precision = super()._prior(scale, start_scale)
        added = slice(n_features(self.dim), self.feature_count)
        mean[added] = 0.0
        precision[added] = 1.0 / (self.term_sd * self.elo_per_range * scale) ** 2
        return mean, precision

    def argmax_mean(self, low: np.ndarray, high: np.ndarray, start: np.ndarray) -> np.ndarray:
        assert self.mean is not None
        m = self.mean[:self.feature_count]
        first = super().argmax_mean(low, high, start)  # the quadratic part's maximum
        best, best_value = first, float(self.features(first) @ m)
        for s in (first, *self.starts(), np.asarray(start, dtype=float)):
            r = minimize(lambda x: -float(self.features(x) @ m), np.clip(s, low, high),
                         method="L-BFGS-B", bounds=list(zip(low, high, strict=True)))
            if -float(r.fun) > best_value:
                best, best_value = np.asarray(r.x), -float(r.fun)
        return np.asarray(best)


class CubicModel(TermModel):
    """The sampler's model with a cubic term per coordinate (``k_i d_i^3``), its prior
    sd ``cubic_sd`` times the curvature's guess (:class:`TermModel`): a landscape
    steeper on one side of its optimum than on the other (``skewed``) can be fitted,
    where a quadratic's maximum overshoots toward the flatter side."""

    def __init__(self, dim: int, cubic_sd: float = 1.0, **kw: Any) -> None:
        super().__init__(dim, cubic_sd, **kw)

    def term(self, d: np.ndarray) -> np.ndarray:
        return np.asarray(d ** 3)

    def term_slope(self, point: np.ndarray, i: int) -> float:
        return float(3.0 * point[i] ** 2)


class HingeModel(TermModel):
    """The sampler's model with its curvature allowed to differ on the two sides of a
    knot per coordinate: the term ``a_i u_i |u_i|`` with ``u_i = d_i - k_i`` adds
    ``a_i`` to the curvature on the upper side of the knot and takes it from the lower
    one, with no change of value or slope at the knot (its prior sd ``hinge_sd`` times
    the curvature's guess: :class:`TermModel`). The knot is the duels' centre: the
    model's last maximum in the box (:meth:`argmax_mean`), so the asymmetry is fitted
    where the duels measure it and the terms vanish there; where the knot moves, the
    statistics are rebuilt from the stored duels before the next fit. A landscape
    steeper on one side of its optimum (``skewed``: four times) is then within reach
    where a cubic term about the baseline was not. ``inner_only``: no hinge along a
    coordinate whose knot lies within ``room`` of a bound of ``box`` (set by
    :func:`run`), where the duels see one side of it only."""

    box: tuple[np.ndarray, np.ndarray] | None = None
    room: float = 0.0

    def __init__(self, dim: int, hinge_sd: float = 0.5, inner_only: bool = False,
                 **kw: Any) -> None:
        self.inner_only = inner_only
        self.knot = np.zeros(dim)
        self.active = np.ones(dim, dtype=bool)
        self._next_knot: np.ndarray | None = None
        self._stored: list[Observation] = []
        super().__init__(dim, hinge_sd, **kw)

    def term(self, d: np.ndarray) -> np.ndarray:
        u = d - self.knot
        return np.asarray(np.where(self.active, u * np.abs(u), 0.0))

    def term_slope(self, point: np.ndarray, i: int) -> float:
        return 2.0 * abs(float(point[i] - self.knot[i])) if self.active[i] else 0.0

    def starts(self) -> list[np.ndarray]:
        return [self.knot]

    def add(self, obs: Observation) -> None:
        self._stored.append(obs)
        super().add(obs)

    def fit(self) -> None:
        nxt = self._next_knot
        if nxt is not None and np.abs(nxt - self.knot).max() > HINGE_MOVE:
            self.knot = nxt.copy()
            if self.inner_only and self.box is not None:
                low, high = self.box
                self.active = (nxt - low > self.room) & (high - nxt > self.room)
            stored, self._stored = self._stored, []
            self.clear()
            for obs in stored:
                self.add(obs)
        super().fit()

    def argmax_mean(self, low: np.ndarray, high: np.ndarray, start: np.ndarray) -> np.ndarray:
        best = super().argmax_mean(low, high, start)
        self._next_knot = best.copy()  # the knot of the next fit
        return best


HINGE_MOVE = 0.02  # the knot follows the model's maximum once it moves this far (unit coords)


class ShadowHingeModel(QuadraticModel):
    """The sampler's model, with a :class:`HingeModel` fitted beside it on the same duels
    (:attr:`shadow`) that no gain or answer is read off: only its hinge terms, whose
    z (:meth:`asymmetry`) says whether the landscape is steeper on one side of the
    duels' centre than on the other, which the quadratic cannot fit."""

    def __init__(self, dim: int, **kw: Any) -> None:
        super().__init__(dim, **kw)
        self.shadow = HingeModel(dim, **kw)

    def add(self, obs: Observation) -> None:
        super().add(obs)
        self.shadow.add(obs)

    def asymmetry(self, low: np.ndarray, high: np.ndarray, centre: np.ndarray) -> float:
        """The largest |posterior mean / sd| of the shadow's hinge terms (the shadow
        fitted now, its knot then moved to its maximum for the next fit)."""
        shadow = self.shadow
        shadow.fit()
        shadow.argmax_mean(low, high, centre)
        assert shadow.mean is not None and shadow.cov is not None
        terms = slice(n_features(self.dim), shadow.feature_count)
        sd = np.sqrt(np.diag(shadow.cov)[terms])
        return float(np.max(np.abs(shadow.mean[terms]) / sd))


def asymmetry_gated_answer(share: float, bar: float) -> Answer:
    """``keep-S`` (:func:`kept_answer`) where the shadow hinge model
    (:class:`ShadowHingeModel`) finds no hinge term ``bar`` sd from zero, else the
    sampler's own answer: bolder where the quadratic fits, as cautious as now where the
    landscape is steeper on one side."""
    keep = kept_answer(share)

    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        assert isinstance(model, ShadowHingeModel)
        if model.asymmetry(low, high, centre) >= bar:
            return unreached_answer(model, low, high, centre)
        return keep(model, low, high, centre)
    return answer


def distance_gated_answer(share: float, bar: float) -> Answer:
    """``keep-S`` (:func:`kept_answer`) where the model's maximum ``centre`` lies at
    least ``bar`` radii from the baseline (the origin of the model's coordinates), root
    mean square per coordinate, else the sampler's own answer: bolder where the data
    put the optimum farther from the baseline than the prior's guess."""
    keep = kept_answer(share)

    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        if np.linalg.norm(centre) / math.sqrt(len(centre)) >= bar * RADIUS:
            return keep(model, low, high, centre)
        return unreached_answer(model, low, high, centre)
    return answer


def reach_gated_answer(share: float, reach: float, fraction: float = 1.0,
                       after: float = duels.AUTO_AFTER, sure: bool = False) -> Answer:
    """``keep-S`` (:func:`kept_answer`) where the model's maximum ``centre`` lies at
    least ``reach`` times the prior's distance from the baseline (the distance at which
    a bowl of ``elo_per_range`` per unit squared is ``start_elo`` below its top; the
    origin of the model's coordinates) and the model holds ``after`` duels per
    coefficient, else the sampler's own answer; ``fraction``: move only that share of
    the way from the sampler's answer to ``keep-S``'s; ``sure``: the distance read off
    the posterior's draws (:func:`sure_reach`), not off the mean's maximum."""
    keep = kept_answer(share)

    def answer(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray) -> np.ndarray:
        point = unreached_answer(model, low, high, centre)
        prior = math.sqrt(model.start_elo / model.elo_per_range)
        distance = (sure_reach(model, low, high, centre) if sure
                    else float(np.linalg.norm(centre)))
        if distance < reach * prior or model.observations < after * n_features(len(centre)):
            return point
        return point + fraction * (keep(model, low, high, centre) - point)
    return answer


def sure_reach(model: QuadraticModel, low: np.ndarray, high: np.ndarray,
               centre: np.ndarray, quantile: float = 0.16, draws: int = 256,
               steps: int = 100) -> float:
    """How far from the baseline the model surely puts the best point: the
    ``quantile`` of the distance from the origin of the model's coordinates to each
    posterior draw's best point in the box (projected gradient ascent from the mean's
    maximum ``centre``, ``steps`` steps), over ``draws`` draws of the coefficients
    (a fixed stream: the same model gives the same figure)."""
    assert model.mean is not None and model.cov is not None
    d, nf = model.dim, n_features(model.dim)
    rng = np.random.default_rng(0)
    theta = rng.multivariate_normal(model.mean[:nf], model.cov[:nf, :nf], size=draws,
                                    method="cholesky")
    iu = interaction_pairs(d)
    hess = np.zeros((draws, d, d))
    hess[:, np.arange(d), np.arange(d)] = 2.0 * theta[:, d:2 * d]
    hess[:, iu[0], iu[1]] = theta[:, 2 * d:nf]
    hess[:, iu[1], iu[0]] = theta[:, 2 * d:nf]
    step = 1.0 / np.maximum(np.max(np.abs(np.linalg.eigvalsh(hess)), axis=1), 0.5)
    x = np.tile(centre, (draws, 1))
    for _ in range(steps):
        grad = theta[:, :d] + np.einsum("kij,kj->ki", hess, x)
        x = np.clip(x + step[:, None] * grad, low, high)
    return float(np.quantile(np.linalg.norm(x, axis=1), quantile))


# The sampler's model as it was before 2026-11-24: one empirical-Bayes scale shared by
# the curvature and the baseline's distance (separate scales never beat it)
SharedScaleModel = partial(QuadraticModel, separate_margin=math.inf)


def clipped_points(centre: np.ndarray, radius: float, sign: np.ndarray, edge_only: np.ndarray,
                   plus_side: np.ndarray, low: np.ndarray, high: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``duel_points`` as it was before 2026-11-24: every point clipped to the box,
    a curvature duel cut short by an edge never turned inward."""
    outer = centre + radius * sign
    a = np.where(edge_only, np.where(plus_side, outer, centre), outer)
    b = np.where(edge_only, np.where(plus_side, centre, outer), centre - radius * sign)
    return np.clip(a, low, high), np.clip(b, low, high)


@dataclass(frozen=True)
class Variant:
    points: Points = duels.duel_points
    answer: Answer = current_answer
    elo_per_range: float = 2.0  # the prior's curvature guess (the sampler option's default)
    start_elo: float = 2.0  # the prior's distance below the optimum (likewise)
    # every gain_every-th trial (by number, those at gain_phase), unless held out: the
    # model's maximum against the baseline, fitted like any duel (0: never)
    gain_every: int = 0
    gain_phase: int = 0
    model: Callable[..., QuadraticModel] = QuadraticModel
    holdout_every: int = HOLDOUT_EVERY  # the answer against the baseline, never fitted (0: none)
    refit_every: int = 0  # a refit before every refit_every-th trial, as a held-out duel does
    # a held-out duel is fitted once the answer has moved more than duels.NEAR from the
    # one it played (it can no longer measure the answer then)
    release: bool = False
    # this share of the duels (unless held out) along the line from the baseline through
    # the model's maximum: ``path_points`` (0: none)
    path_share: float = 0.0
    # the gradient's prior widened at an edge (``duels.fit_at_edges``: the sampler's
    # ``edge_prior`` option, and the evidence margin the sampler does not use)
    edge_prior: float = EDGE_PRIOR
    edge_prior_margin: float | None = None
    # False: the wider prior only centres the duels; the answer is read off the plain
    # fit (and its own maximum)
    edge_prior_answer: bool = True
    # widened only once the plain fit's gain of its maximum over the baseline lies this
    # many sd above zero (None: always)
    edge_prior_gain_z: float | None = None
    # the answer off the wider prior only where the plain fit's lower bound on its gain
    # over the baseline stays positive, else the plain fit's own answer
    edge_prior_checked: bool = False
    # widened only once the model holds this many duels per coefficient (0: at once)
    edge_prior_after: float = 0.0
    # widened only along coordinates whose fitted curvature is at least the prior's by
    # this many posterior sd (None: the sampler's test, the mean alone)
    edge_prior_curved_z: float | None = None
    # widened only along coordinates where the plain fit's slope at the baseline toward
    # the edge lies this many posterior sd above zero (None: wherever)
    edge_prior_slope_z: float | None = None
    # the duels' trust radius (the sampler's ``radius`` option) for the duel points and
    # the edge room of the fit; the answer's edge room stays the default radius's
    radius: float = RADIUS
    # the radius times this (0: never) from the first held-out duel at which the gain
    # the held-out duels already played near the answer measure lies ``narrow_z`` sd or
    # more above the model's (the sampler's ``narrow`` and ``narrow_z`` options,
    # ``duels.narrow``); with it, held-out duels are played (from their own streams)
    narrow: float = NARROW
    narrow_z: float = NARROW_Z  # the disagreement that narrows it, in sd
    # the bar at the first held-out slot, rising by one sd per tenfold slots up to
    # ``narrow_z`` (the sampler's ``narrow_from``, ``duels.narrow_bar``; 0: flat)
    narrow_from: float = NARROW_FROM
    # also narrow where the held-out duels measure the answer at or below the baseline
    # and this many sd below the model's gain (the sampler's ``narrow_below``; 0: off)
    narrow_below: float = 0.0
    # on narrowing on the guard's signal (``narrow_below``), the model forgets every
    # duel with a point farther than this many (narrowed) radii from the duels' centre
    # in some parameter, and the centre stays where it was until the model holds
    # ``n_features`` more duels (0: keep them all)
    forget: float = 0.0


VARIANTS = {"current": Variant(), "shifted": Variant(points=shifted_points),
            "gated": Variant(answer=gated_answer), "edge-slope": Variant(answer=edge_slope_answer),
            "flat-prior": Variant(elo_per_range=1.0),
            "baseline-curvature": Variant(points=baseline_curvature_points),
            "edge-half": Variant(points=edge_half_points),
            "edge-narrow": Variant(points=edge_narrow_points),
            "fixed": Variant(points=fixed_points),
            "z-half": Variant(answer=z_answer(0.5)), "z-quarter": Variant(answer=z_answer(0.25)),
            "edge-gated": Variant(answer=edge_gated_answer),
            "edge-off": Variant(answer=lcb_answer),
            "edge-unguarded": Variant(answer=guarded_answer(0.0, STEP_SD)),
            "step-off": Variant(answer=guarded_answer(EDGE_MOVE_SD, 0.0)),
            "step-0.8": Variant(answer=guarded_answer(EDGE_MOVE_SD, STEP_TRIED)),
            "step-0.6": Variant(answer=guarded_answer(EDGE_MOVE_SD, 0.6)),
            "step-0.7": Variant(answer=guarded_answer(EDGE_MOVE_SD, 0.7)),
            "step-flat": Variant(answer=guarded_answer(EDGE_MOVE_SD, STEP_TRIED, scaled=False)),
            "step-first": Variant(answer=stepped_first_answer),
            "keep-0.5": Variant(answer=kept_answer(0.5)),
            "keep-0.75": Variant(answer=kept_answer(0.75)),
            "keep-0.9": Variant(answer=kept_answer(0.9)),
            "keep-0.95": Variant(answer=kept_answer(0.95)),
            "reach-auto": Variant(answer=reached_answer(-1.0)),
            "reach-off": Variant(answer=reached_answer(0.0)),
            "reach-auto-scale-4": Variant(answer=reached_answer(-1.0, duels.REACH_MAX_SCALE)),
            "keep-0.75-far-0.9": Variant(answer=distance_gated_answer(0.75, 0.9)),
            "keep-0.75-far-1.0": Variant(answer=distance_gated_answer(0.75, 1.0)),
            "keep-0.75-reach-1.5": Variant(answer=reach_gated_answer(0.75, 1.5)),
            "keep-0.75-reach-1.75": Variant(answer=reach_gated_answer(0.75, 1.75)),
            "keep-0.75-reach-2": Variant(answer=reach_gated_answer(0.75, 2.0)),
            "half-reach-1.5": Variant(answer=reach_gated_answer(0.75, 1.5, 0.5)),
            "half-reach-1.75": Variant(answer=reach_gated_answer(0.75, 1.75, 0.5)),
            "keep-sure-1.5": Variant(answer=reach_gated_answer(0.75, 1.5, after=0.0, sure=True)),
            "half-sure-1.5": Variant(answer=reach_gated_answer(0.75, 1.5, 0.5, 0.0, True)),
            "half-sure-1.25": Variant(answer=reach_gated_answer(0.75, 1.25, 0.5, 0.0, True)),
            "keep-0.5-prior": Variant(answer=kept_answer(0.5, True)),
            "keep-0.25-prior": Variant(answer=kept_answer(0.25, True)),
            "keep-0-prior": Variant(answer=kept_answer(0.0, True)),
            "gain-every-5": Variant(gain_every=5, gain_phase=3),
            "gain-every-3": Variant(gain_every=3, gain_phase=1),
            "start-elo-4": Variant(start_elo=4.0), "start-elo-8": Variant(start_elo=8.0),
            "start-elo-32": Variant(start_elo=32.0),
            "start-elo-8-zd": Variant(start_elo=8.0, answer=z_by_dimension_answer),
            "start-elo-8-z1.5": Variant(start_elo=8.0, answer=z_answer(1.5)),
            "start-elo-8-z2": Variant(start_elo=8.0, answer=z_answer(2.0)),
            "averaged": Variant(model=AveragedModel),
            "averaged-edge-gated": Variant(model=AveragedModel, answer=edge_gated_answer),
            "edge-far": Variant(points=edge_far_points),
            "before": Variant(points=clipped_points, model=SharedScaleModel, holdout_every=0,
                              answer=lcb_answer),
            "no-holdout": Variant(holdout_every=0),
            "refits-only": Variant(holdout_every=0, refit_every=HOLDOUT_EVERY),
            "release": Variant(release=True),
            "shared-scale": Variant(model=SharedScaleModel),
            "edge-prior-4": Variant(edge_prior=4.0, edge_prior_margin=None),
            # no wider prior at the edge in any number of parameters (edge_prior = 1)
            "edge-prior-off": Variant(edge_prior=1.0, edge_prior_margin=None),
            "edge-prior-16": Variant(edge_prior=16.0, edge_prior_margin=None),
            "edge-prior-4-ev": Variant(edge_prior=4.0, edge_prior_margin=0.0),
            "edge-prior-2": Variant(edge_prior=2.0, edge_prior_margin=None),
            "edge-prior-4-duels": Variant(edge_prior=4.0, edge_prior_answer=False),
            "edge-prior-4-sure": Variant(edge_prior=4.0, edge_prior_gain_z=1.0),
            "edge-prior-4-sure2": Variant(edge_prior=4.0, edge_prior_gain_z=2.0),
            "edge-prior-4-checked": Variant(edge_prior=4.0, edge_prior_checked=True),
            "edge-prior-4-after-8": Variant(edge_prior=4.0, edge_prior_after=8.0),
            "edge-prior-4-after-16": Variant(edge_prior=4.0, edge_prior_after=16.0),
            "edge-prior-4-curved1": Variant(edge_prior=4.0, edge_prior_curved_z=1.0),
            "edge-prior-4-curved2": Variant(edge_prior=4.0, edge_prior_curved_z=2.0),
            "edge-prior-4-slope1": Variant(edge_prior=4.0, edge_prior_slope_z=1.0),
            "edge-prior-4-after-8-slope1": Variant(edge_prior=4.0, edge_prior_after=8.0,
                                                   edge_prior_slope_z=1.0),
            "clipped": Variant(points=clipped_points),
            "path-10": Variant(path_share=0.1), "path-25": Variant(path_share=0.25),
            "path-50": Variant(path_share=0.5),
            "margin-1": Variant(model=partial(QuadraticModel, separate_margin=1.0)),
            "margin-0": Variant(model=partial(QuadraticModel, separate_margin=0.0)),
            "radius-0.5": Variant(radius=0.5), "radius-0.7": Variant(radius=0.7),
            "narrow-0.5": Variant(narrow=0.5, narrow_z=3.0),
            "narrow-0.7": Variant(narrow=0.7, narrow_z=3.0),
            "narrow-0.35": Variant(narrow=0.35, narrow_z=3.0),
            "narrow-off": Variant(narrow=0.0),
            "narrow-0.5-z5": Variant(narrow=0.5, narrow_z=5.0, narrow_from=0.0),
            "narrow-rising": Variant(narrow=0.5, narrow_z=5.0, narrow_from=3.0),
            "cubic": Variant(model=CubicModel),
            "cubic-0.25": Variant(model=partial(CubicModel, cubic_sd=0.25)),
            "cubic-0.25-keep-0.75": Variant(model=partial(CubicModel, cubic_sd=0.25),
                                            answer=kept_answer(0.75)),
            "cubic-keep-0.75": Variant(model=CubicModel, answer=kept_answer(0.75)),
            "hinge": Variant(model=HingeModel),
            "hinge-0.25": Variant(model=partial(HingeModel, hinge_sd=0.25)),
            "hinge-keep-0.75": Variant(model=HingeModel, answer=kept_answer(0.75)),
            "hinge-keep-0.9": Variant(model=HingeModel, answer=kept_answer(0.9)),
            "hinge-1": Variant(model=partial(HingeModel, hinge_sd=1.0)),
            "hinge-1-keep-0.75": Variant(model=partial(HingeModel, hinge_sd=1.0),
                                         answer=kept_answer(0.75)),
            "hinge-inner": Variant(model=partial(HingeModel, inner_only=True)),
            "hinge-inner-keep-0.75": Variant(model=partial(HingeModel, inner_only=True),
                                             answer=kept_answer(0.75)),
            "asym-keep-0.75-z2": Variant(model=ShadowHingeModel,
                                         answer=asymmetry_gated_answer(0.75, 2.0)),
            "narrow-below-3": Variant(narrow_below=3.0),
            "narrow-below-3-forget": Variant(narrow_below=3.0, forget=1.0)}


# -- one run -------------------------------------------------------------------
def unit(case: OracleCase, x: object) -> np.ndarray:
    """A point of the case's box in unit coordinates ([-1, 1] per parameter)."""
    low_x, high_x = np.asarray(case.low), np.asarray(case.high)
    return 2.0 * (np.asarray(x) - low_x) / (high_x - low_x) - 1.0


def relative_box(case: OracleCase) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The case's box and its in-box best in the sampler's coordinates: unit
    coordinates relative to the baseline."""
    u0 = unit(case, case.start)
    return -1.0 - u0, 1.0 - u0, unit(case, case.best) - u0


def relative_elo(case: OracleCase) -> Callable[[np.ndarray], float]:
    """The case's Elo of a point in the sampler's coordinates (unit coordinates
    relative to the baseline, clipped to the box)."""
    low_x, high_x = np.asarray(case.low), np.asarray(case.high)
    u0 = unit(case, case.start)

    def elo(d: np.ndarray) -> float:
        return case.elo(low_x + (np.clip(u0 + d, -1.0, 1.0) + 1.0) / 2.0 * (high_x - low_x))
    return elo


def variant_answer(variant: Variant, model: QuadraticModel, low: np.ndarray,
                   high: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """``variant``'s answer off ``model`` (fitted, its maximum ``centre``). Where the
    fit has a widened prior (``edge_prior``): with ``edge_prior_answer`` False, the
    answer of the plain fit (and its own maximum); with ``edge_prior_checked``, the
    widened fit's answer where the plain fit's lower bound on its gain over the
    baseline stays positive, else the plain fit's. The model is left as it came."""
    if model.widen is None or (variant.edge_prior_answer and not variant.edge_prior_checked):
        return variant.answer(model, low, high, centre)
    wide = variant.answer(model, low, high, centre)
    widen, model.widen = model.widen, None
    model.fit()
    mean, sd = model.gain(wide)
    point = wide
    if not variant.edge_prior_answer or mean - Z * sd <= 0.0:
        point = variant.answer(model, low, high, model.argmax_mean(low, high, centre))
    model.widen = widen
    model.fit()
    return point


def run(case: OracleCase, variant: Variant, seed: int, budget: int, aligned: bool = False,
        on_checkpoint: Checkpoint | None = None
        ) -> tuple[list[float], list[float], float, dict[str, object]]:
    """The loss of the answer and of the model's maximum at every checkpoint, the
    model's final estimate of the best point's gain over the baseline, and its
    final posterior (:func:`posterior_path`). ``aligned``: every trial's games from
    a stream of its own, by trial number (``--aligned``). ``on_checkpoint``: called
    at every checkpoint with the games played and the model as the answer sees it
    (the model, the box and the model's maximum, in the sampler's coordinates), so a
    script can read other answers off the same run."""
    elo = relative_elo(case)
    low, high, best = relative_box(case)
    model = variant.model(case.dim, elo_per_range=variant.elo_per_range,
                          start_elo=variant.start_elo)
    if isinstance(model, HingeModel):
        model.box, model.room = (low, high), duels.EDGE_ROOM * variant.radius
    model.fit()
    centre, fitted_at = np.zeros(case.dim), 0
    pending: list[Observation] = []
    draws = np.random.default_rng(mix_seed(seed, 0xD1CE))
    # the held-out duels' games, a stream of their own: the fitted duels draw the same
    # games with or without them (a variant is paired with ``current`` duel for duel
    # until its first released duel changes the model)
    held_draws = np.random.default_rng(mix_seed(seed, 0x4E1D))
    marks = checkpoints(budget)
    answer_loss: list[float] = []
    centre_loss: list[float] = []
    games = number = 0
    held: list[tuple[np.ndarray, Observation]] = []  # held-out duels not yet released

    def update(every: bool) -> None:
        nonlocal centre, fitted_at
        for obs in pending:
            model.add(obs)
            if variant.forget:
                stored.append(obs)
        new = bool(pending)
        pending.clear()
        if new and (every or model.observations >= fitted_at * duels.REFIT_GROWTH):
            edge = duels.edge_prior_in_effect(
                {"edge_prior": variant.edge_prior, "edge_prior_after": variant.edge_prior_after,
                 "edge_prior_slope_z": variant.edge_prior_slope_z or 0.0}, case.dim)
            top = duels.fit_at_edges(model, low, high, centre, duels.EDGE_ROOM * radius,
                                     edge.widen, variant.edge_prior_margin,
                                     variant.edge_prior_gain_z, variant.edge_prior_curved_z,
                                     math.ceil(edge.after * n_features(case.dim)),
                                     edge.slope_z or None)
            if model.observations >= hold_until:
                centre = top
            fitted_at = model.observations

    def answer() -> np.ndarray:
        return variant_answer(variant, model, low, high, centre)

    radius = variant.radius
    measured: list[tuple[np.ndarray, list[float]]] = []  # held-out duels: answer, pairs
    narrowed_at: int | None = None
    stored: list[Observation] = []  # every fitted duel, kept only for ``forget``
    hold_until = 0  # after forgetting: the centre stays until the model holds this many

    def forget_far() -> None:
        """``forget``: refit on the duels near the centre only (see the field)."""
        nonlocal hold_until
        reach = variant.forget * radius
        model.clear()
        for obs in stored:
            if obs.minus is not None and max(np.abs(obs.plus - centre).max(),
                                             np.abs(obs.minus - centre).max()) <= reach + 1e-12:
                model.add(obs)
        model.fit()
        hold_until = model.observations + n_features(case.dim)

    def measure(point: np.ndarray, own: np.random.Generator | None) -> None:
        """Narrow the radius where the held-out duels played so far near ``point``
        measure its gain ``narrow_z`` sd above the model's (as ``duels.narrow``),
        then play the held-out duel of ``point`` (its own games, never fitted)."""
        nonlocal radius, narrowed_at
        near = [ps for p, ps in measured if np.abs(p - point).max() <= duels.NEAR]
        pooled = [s for ps in near for s in ps]
        if narrowed_at is None and pooled:
            score, lo, hi = score_interval(pooled)
            n = 2 * len(pooled)
            m = duels.MeasuredGain(stats_elo(score, n), stats_elo(lo, n), stats_elo(hi, n),
                                   len(near), n)
            z = m.apart(*model.gain(point))
            bar = duels.narrow_bar({"narrow_z": variant.narrow_z,
                                    "narrow_from": variant.narrow_from}, len(measured) + 1)
            below = duels.shows_no_gain(m, z, variant.narrow_below)  # the guard's test
            if z is not None and (z >= bar or below):
                radius, narrowed_at = variant.radius * variant.narrow, games
                if variant.forget and below:  # the guard's signal only
                    forget_far()
        baseline = np.zeros(case.dim)
        pairs = game_scores(held_draws if own is None else own,
                            np.full((PAIRS, 2), elo(point) - elo(baseline)),
                            case.draw_ratio).mean(axis=1)
        measured.append((point, pairs.tolist()))

    while True:
        number += 1
        # with --aligned, this trial's games: a stream of its own, by trial number
        own = np.random.default_rng(mix_seed(seed, number, 0xD1CE)) if aligned else None
        while len(answer_loss) < len(marks) and games >= marks[len(answer_loss)]:
            update(True)
            if on_checkpoint is not None:
                on_checkpoint(marks[len(answer_loss)], model, low, high, centre)
            answer_loss.append(-elo(answer()))
            centre_loss.append(-elo(centre))
        if len(answer_loss) == len(marks):
            path = posterior_path(model, best, lambda d: elo(d) - elo(np.zeros(case.dim)))
            path["narrowed_at"] = narrowed_at
            return answer_loss, centre_loss, model.gain(best)[0], path
        if variant.holdout_every and number % variant.holdout_every == 0:  # never fitted
            update(True)
            point = answer()
            if point.any():
                if variant.narrow:
                    measure(point, own)
                if variant.release:
                    baseline = np.zeros(case.dim)
                    pairs = game_scores(held_draws if own is None else own,
                                        np.full((PAIRS, 2), elo(point) - elo(baseline)),
                                        case.draw_ratio).mean(axis=1)
                    held.append((point, Observation(point, baseline,
                                                    float(pairs.mean()), 2 * PAIRS,
                                                    pairs.tolist())))
                    pending.extend(o for p, o in held if np.abs(p - point).max() > duels.NEAR)
                    held = [(p, o) for p, o in held if np.abs(p - point).max() <= duels.NEAR]
                games += 2 * PAIRS
                continue
        update(bool(variant.refit_every) and number % variant.refit_every == 0)
        rng = np.random.default_rng(mix_seed(seed, number, 0x5D))
        sign = rng.choice((-1.0, 1.0), size=case.dim)
        edge_only = rng.random(case.dim) < CURVATURE_SHARE
        plus_side = rng.random(case.dim) < 0.5
        along = variant.path_share and rng.random() < variant.path_share  # drawn last
        if variant.gain_every and number % variant.gain_every == variant.gain_phase \
                and np.abs(centre).max() > 1e-9:
            a, b = centre.copy(), np.zeros(case.dim)
        elif along and np.abs(centre).max() > 1e-9:
            a, b = path_points(centre, radius, low, high)
        else:
            a, b = variant.points(centre, radius, sign, edge_only, plus_side, low, high)
        pairs = game_scores(draws if own is None else own, np.full((PAIRS, 2), elo(a) - elo(b)),
                            case.draw_ratio).mean(axis=1)
        games += 2 * PAIRS
        pending.append(Observation(a, b, float(pairs.mean()), 2 * PAIRS, pairs.tolist()))


def posterior_path(model: QuadraticModel, best: np.ndarray,
                   gain: Callable[[np.ndarray], float]) -> dict[str, object]:
    """The final posterior: the gradient at the baseline and the curvature (mean
    and sd per coordinate), the curvature fitted to the duels alone by least squares
    (no prior), the prior scales chosen, duels fitted, and the gain over
    the baseline on the straight path to the in-box best (``t`` 0 .. 1): the
    model's mean and sd against the truth."""
    assert model.mean is not None and model.cov is not None
    d, sd = model.dim, np.sqrt(np.diag(model.cov))
    ts = np.linspace(0.0, 1.0, 6)
    along = [model.gain(t * best) for t in ts]

    def r(x: np.ndarray | list[float]) -> list[float]:
        return [round(float(v), 3) for v in x]
    # the curvature from the data alone (weighted least squares, no prior), where defined
    assert model._A is not None and model._b is not None
    nf = n_features(d)
    try:
        h_ls: list[float] | None = r(np.linalg.solve(model._A[:nf, :nf],
                                                     model._b[:nf])[d:2 * d])
    except np.linalg.LinAlgError:
        h_ls = None
    return {"duels": model.observations, "scales": [model.scale, model.start_scale],
            "h_least_squares": h_ls,
            "g": r(model.mean[:d]), "g_sd": r(sd[:d]),
            "h": r(model.mean[d:2 * d]), "h_sd": r(sd[d:2 * d]),
            "t": r(ts), "mean": r([m for m, _ in along]), "sd": r([s for _, s in along]),
            "true": r([gain(t * best) for t in ts])}


def summarise(case: OracleCase, variant: str, seeds: int, budget: int,
              path: bool = False, aligned: bool = False) -> dict[str, object]:
    runs = [run(case, VARIANTS[variant], seed, budget, aligned) for seed in range(seeds)]
    marks = checkpoints(budget)
    answers = np.array([r[0] for r in runs])
    centres = np.median(np.array([r[1] for r in runs]), axis=0)
    median = np.median(answers, axis=0)
    return {"case": case.name, "variant": variant, "seeds": seeds,
            "games_to_1_elo": games_to(marks, median, 1.0),
            "games_to_half_elo": games_to(marks, median, 0.5),
            "centre_games_to_1_elo": games_to(marks, centres, 1.0),
            "centre_games_to_half_elo": games_to(marks, centres, 0.5),
            # the truth there is start_elo: how well the model knows what the best point gains
            "model_gain_at_best": round(float(np.mean([r[2] for r in runs])), 3),
            "worse_than_baseline": round(float(
                (answers > case.start_elo + 1e-6).mean(axis=0).max()), 3),
            "checkpoints": marks, "median": [round(float(x), 3) for x in median],
            "mean": [round(float(x), 3) for x in answers.mean(axis=0)],
            "losses": [[round(float(x), 3) for x in seed] for seed in answers],
            # with ``narrow``: the games at which each seed's radius narrowed (None: never)
            **({"narrowed_at": [r[3]["narrowed_at"] for r in runs]}
               if VARIANTS[variant].narrow else {}),
            **({"posterior": [r[3] for r in runs]} if path else {}),
            **({"aligned": True} if aligned else {})}


def narrowed_text(row: dict[str, object]) -> str:
    """How many seeds narrowed their radius, and the median games at which (``narrow``
    variants); empty otherwise."""
    at = row.get("narrowed_at")
    if not isinstance(at, list):
        return ""
    games = [g for g in at if g is not None]
    return (f"   narrowed {len(games)}/{len(at)}"
            + (f" (median at {float(np.median(games)):,.0f} games)" if games else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="fishtest,edge", help="comma-separated oracle cases")
    ap.add_argument("--cases", action="append", default=[], metavar="FILE.py",
                    help="a file whose define_case calls add cases (repeatable; as "
                         "benchmarks/oracle.py --cases)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help=f"comma-separated, of {', '.join(VARIANTS)}")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=DUELS.budget)
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    ap.add_argument("--path", action="store_true",
                    help="with --json: each seed's final posterior (gradient, curvature, and "
                         "the gain along the path to the best: the model's against the truth)")
    ap.add_argument("--paired", action="store_true",
                    help="with two variants: per case, the second's mean loss minus the "
                         "first's, seed by seed, at 4,000 games and every doubling")
    ap.add_argument("--aligned", action="store_true",
                    help="every trial's games drawn from a stream of its own, by trial "
                         "number: two variants pair trial for trial (held-out slots "
                         "included), so --paired resolves smaller differences; the figures "
                         "differ from the default streams' by seed noise")
    ap.add_argument("--ratio-to", metavar="CASE",
                    help="per variant, each other case's games to 1 Elo over CASE's (one of "
                         "--case), with a 95%% bootstrap interval over the seeds")
    args = ap.parse_args()
    cases, variants = args.case.split(","), args.variants.split(",")
    try:
        load_cases(args.cases)
        check_cases(cases)
    except HeurtuneError as e:
        ap.error(str(e))
    for name in variants:
        if name not in VARIANTS:
            ap.error(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    if args.path and not args.json:
        ap.error("--path needs --json (the posterior is printed as JSON)")
    if args.ratio_to is not None and args.ratio_to not in cases:
        ap.error(f"--ratio-to {args.ratio_to!r} must be one of --case")
    if args.paired and len(variants) != 2:
        ap.error("--paired compares exactly two variants")
    if args.seeds < 1 or args.budget < 1000:
        ap.error("--seeds must be at least 1 and --budget at least 1000")
    done: dict[tuple[str, str], dict[str, object]] = {}
    for case in cases:
        rows = []
        for variant in variants:
            start = time.monotonic()
            r = summarise(CASES[case], variant, args.seeds, args.budget, args.path,
                          args.aligned)
            rows.append(r)
            done[case, variant] = r
            if args.json:
                print(json.dumps(r), flush=True)
            else:
                print(f"{case:<10} {variant:<11} to 1 Elo {r['games_to_1_elo'] or '-':>7}  "
                      f"to 0.5 {r['games_to_half_elo'] or '-':>7}   model's maximum "
                      f"{r['centre_games_to_1_elo'] or '-':>7} / "
                      f"{r['centre_games_to_half_elo'] or '-':>7}   worse {r['worse_than_baseline']:.2f}"
                      + narrowed_text(r) + f"   ({time.monotonic() - start:.0f} s)", flush=True)
        if args.paired:
            p = paired(rows[0], rows[1])
            print(json.dumps(p) if args.json else paired_line(p), flush=True)
    if args.ratio_to is not None:
        for variant in variants:
            for case in cases:
                if case != args.ratio_to:
                    q = ratio(done[args.ratio_to, variant], done[case, variant])
                    print(json.dumps(q) if args.json else ratio_line(q), flush=True)
    return 0


def paired(first: dict[str, object], second: dict[str, object]) -> dict[str, object]:
    """The second variant's loss minus the first's, seed by seed (the same seed draws
    the same games until the two designs part), averaged over the seeds with its
    standard error, at 4,000 games and every doubling up to the budget (oracle.py's
    ``paired_losses``): negative is better. A statistic that 20 seeds resolve, unlike
    a median's crossing point."""
    marks = list(first["checkpoints"])  # type: ignore[call-overload]
    out: dict[str, object] = {"case": first["case"], "paired": [first["variant"],
                                                               second["variant"]]}
    p = paired_losses(marks, np.asarray(first["losses"]), np.asarray(second["losses"]))
    out.update({k: v for k, v in p.items() if int(k) >= 4000})
    return out


def ratio(base: dict[str, object], other: dict[str, object]) -> dict[str, object]:
    """``other``'s games until the median answer is within 1 Elo over ``base``'s,
    with a 95% bootstrap interval over the seeds (oracle.py's ``crossing_ratio``):
    how well the seeds pin the ratio down."""
    q = crossing_ratio(list(base["checkpoints"]),  # type: ignore[call-overload]
                       np.asarray(base["losses"]), np.asarray(other["losses"]))
    return {"ratio": [other["case"], base["case"]], "variant": base["variant"],
            "seeds": q["seeds"], "games_to_1_elo": q["games_to_1_elo"],
            "interval_95": q["interval_95"], "share_within_1_3": q["share_within"]}


def ratio_line(q: dict[str, object]) -> str:
    case, base = q["ratio"]  # type: ignore[misc]
    low, high = q["interval_95"]  # type: ignore[misc]

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"
    return (f"{case:<10} {q['variant']}: games to 1 Elo / {base}'s {f(q['games_to_1_elo'])}"  # type: ignore[arg-type]
            f" (95% {f(low)} to {f(high)}; within 1.3 in {q['share_within_1_3']} of resamples)")


def paired_line(p: dict[str, object]) -> str:
    a, b = p["paired"]  # type: ignore[misc]
    cells = [f"{int(k) // 1000}k {v[0]:+.2f} ({v[1]:.2f})"  # type: ignore[index]
             for k, v in p.items() if k.isdigit()]
    return f"{p['case']:<10} {b} - {a}, mean loss (se): " + ", ".join(cells)


if __name__ == "__main__":
    sys.exit(main())
