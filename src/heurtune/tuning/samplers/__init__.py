"""The samplers a study can use: a registry, one module per sampler family, the
Bayesian quadratic model behind ``duels`` and the ``model`` answer, and the
bridge from parameter spaces to Optuna's distributions.

Adding a sampler: a factory in a module of this package and one
:class:`SamplerKind` line in :data:`heurtune.tuning.samplers.registry.KINDS`
(CONTRIBUTING.md shows one)."""

from heurtune.tuning.samplers._duel import DuelSampler
from heurtune.tuning.samplers._seeding import TrialSeededSampler
from heurtune.tuning.samplers.build import make_sampler
from heurtune.tuning.samplers.distributions import suggest, to_optuna
from heurtune.tuning.samplers.duels import (
    AUTO_AFTER,
    AUTO_EDGE_PRIOR,
    AUTO_SLOPE_Z,
    DISAGREE_Z,
    GUARDED,
    MANY_PARAMETERS,
    NARROWER_RADIUS,
    RECORD,
    DuelsSampler,
    EdgePrior,
    MeasuredGain,
    disagreement,
    edge_prior_for,
    edge_prior_in_effect,
    is_holdout,
    measured_gain,
)
from heurtune.tuning.samplers.quadratic import (
    Observation,
    QuadraticModel,
    UnitBox,
    beyond_bounds,
)
from heurtune.tuning.samplers.registry import (
    DUEL_SAMPLERS,
    KINDS,
    SAMPLER_NAMES,
    SAMPLERS,
    Option,
    SamplerContext,
    SamplerKind,
    SamplerSpec,
    check_space,
)
from heurtune.tuning.samplers.spsa import SpsaSampler

__all__ = [
    "AUTO_AFTER",
    "AUTO_EDGE_PRIOR",
    "AUTO_SLOPE_Z",
    "DISAGREE_Z",
    "DUEL_SAMPLERS",
    "GUARDED",
    "KINDS",
    "MANY_PARAMETERS",
    "NARROWER_RADIUS",
    "RECORD",
    "SAMPLERS",
    "SAMPLER_NAMES",
    "DuelSampler",
    "DuelsSampler",
    "EdgePrior",
    "MeasuredGain",
    "Observation",
    "Option",
    "QuadraticModel",
    "SamplerContext",
    "SamplerKind",
    "SamplerSpec",
    "SpsaSampler",
    "TrialSeededSampler",
    "UnitBox",
    "beyond_bounds",
    "check_space",
    "disagreement",
    "edge_prior_for",
    "edge_prior_in_effect",
    "is_holdout",
    "make_sampler",
    "measured_gain",
    "suggest",
    "to_optuna",
]
