"""The constants of ``duels``: the settings a study file does not set.

Each is one of the sampler's recorded settings (a study records them beside the
options a study file may set, :meth:`~heurtune.tuning.samplers.registry.SamplerSpec.recorded`),
fixed at the value here: each line says why, and where the evidence is (a section of
docs/results/optimisers.md). A study file that sets one is refused in one line. A study
whose record holds another value (heurtune 0.2.0's) answers with it, and resumes with
it where it was a default of its day (the former defaults, ``registry.DUELS_FORMER_DEFAULTS``;
a value its study file set goes on as the constant, a change the study records:
``SamplerSpec.resuming``). Research code sets them through ``SamplerSpec.parse(...,
internal=True)``. docs/duels.md lists them in its table "Constants".

This module imports nothing, so the registry (which the study-file parser reads) can
fill them in without Optuna. The sampler's other constants, which were never settings,
are in :mod:`heurtune.tuning.samplers.duels`.
"""

from __future__ import annotations

# ``edge_prior = -1`` in effect, as the registry, the sampler and the texts read it:
# automatic (``heurtune.tuning.samplers.duels.edge_prior_in_effect``); ``reach`` takes it too
AUTO = -1.0

# The answer: the point of highest lower bound on the gain over the baseline, at mean - Z
# sd. Every later rule was measured on it; z = 1.5 or 2 gave back what a wider prior buys
# (docs/results/optimisers.md, "The gradient's prior is what holds `edge` back, and what
# it buys").
Z = 1.0
# The step toward the model's maximum, taken where its own gain is this many sd sure (in
# 4 parameters, sqrt(d / 4) times that in d): the centred case's loss -0.1 Elo at 4,000 to
# 16,000 games, as many answers worse than the baseline ("A step toward the model's
# maximum", "The step's bar in more parameters").
STEP_SD = 0.8
# The move half way toward a maximum the duels put far from the baseline: AUTO is 1.75
# times the prior's distance below 8 parameters, off from 8 (``duels.reach_in_effect``):
# `far` 10,966 -> 9,044 games to 1 Elo, every other shape within 0.1 Elo ("The scale gate").
REACH = AUTO
# The move toward a maximum at the box's edge, only where the fitted curvature there is
# at least the prior's: halves `edge`'s games to 1 Elo, costs `far` nothing, where
# "always" costs it 0.2 to 0.35 Elo ("An answer that moves to the edge").
EDGE_ANSWER = "curved"
# ... made only where the move's own gain is this many sd sure: about halves the centred
# case's early answers worse than the baseline, keeps `edge`'s gain ("A guard on the move
# to the edge").
EDGE_MOVE_SD = 0.3
# The slope bar of a widening ``edge_prior`` set in the study file: none (the default's
# own bar, ``duels.AUTO_SLOPE_Z``, applies below 8 parameters); alone, 1 sd kept about
# half the edge's gain and did not become a default ("A bar on the slope toward the edge").
EDGE_PRIOR_SLOPE_Z = 0.0

# The radius halves (times NARROW), once, where the held-out duels measure the answer's
# gain NARROW_Z sd or more above the model's: `broad` 26 to 41 Elo nearer from 8,000
# games, never in 240 fresh bowl studies, real games +2.8 Elo ("A higher bar for
# narrowing", "Narrower duels where the measurement disagrees").
NARROW = 0.5
# ... at 5 sd: at 3 it narrowed 7 of 60 studies of a bowl by chance ("A higher bar for
# narrowing").
NARROW_Z = 5.0
# ... the bar starting at 3 sd at the first held-out duel, one sd more at every tenfold of
# them: `broad` narrows a third sooner, no fresh bowl seed narrowed ("A bar that rises
# with the looks").
NARROW_FROM = 3.0
# Narrowing on the guard's test too: off, +1.05 Elo on a real Morris fine box but no gain
# on the oracle's `cliff` on fresh seeds ("Narrowing on the guard's signal").
NARROW_BELOW = 0.0

# The guard: the baseline instead of an answer the held-out duels measure at or below the
# baseline and GUARD_Z sd or more below the model: 8 of 15 answers withdrawn on a real box
# with cusps (-17.8 -> -7.6 Elo), 2 of 5,280 oracle seed-checkpoints ("A real box with
# cusps").
GUARD_Z = 3.0
# ... and, where no held-out duel has measured the answer yet, the same test on this share
# of the latest held-out duels: -7.6 -> -2.3 Elo on that box, 1 of 1,760 oracle
# seed-checkpoints changed ("The guard on the model's record").
GUARD_RECORD = 0.5

# The share of coordinates a duel plays centre against edge (curvature) rather than
# across the centre (gradient): the design since heurtune's first duels; duels placed
# otherwise (along the path to the maximum) did not help ("Why the edge is slow, in
# information").
CURVATURE_SHARE = 0.2
# Every 10th trial is held out: the answer against the baseline, never fitted, the
# measured gain the guard and the narrowing read; it costs what a tenth of the games
# costs, 0.1 Elo at 8,000 to 16,000 games, nothing from 32,000 on ("Paired trial for
# trial: what the held-out and box-aware duels cost").
HOLDOUT_EVERY = 10
