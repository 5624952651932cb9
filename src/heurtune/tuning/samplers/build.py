"""Building a study's sampler from its spec (imports the sampler's factory, and so
Optuna, only here: the registry stays free of both)."""

from __future__ import annotations

from collections.abc import Mapping

from optuna.samplers import BaseSampler

from heurtune.engine import ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers._seeding import TrialSeededSampler
from heurtune.tuning.samplers.registry import SAMPLERS, SamplerContext, SamplerSpec


def make_sampler(spec: SamplerSpec, seed: int, seeding: str = "per-study",
                 space: ParamSpace | None = None, baseline: Mapping[str, Value] | None = None,
                 planned_pairs: int = 0) -> BaseSampler:
    """The study's sampler. ``seeding = "per-trial"`` gives every trial its own
    stream (but for samplers that keep their own, and the duel samplers, which
    seed each trial themselves); ``space`` and ``baseline`` are the searched
    space and where the search starts (needed by cmaes, spsa and duels);
    ``planned_pairs`` is what the study plans to play."""
    kind = SAMPLERS.get(spec.kind)
    if kind is None:
        raise HeurtuneError(f"unknown sampler {spec.kind!r}")
    context = SamplerContext(space, baseline, planned_pairs)
    factory = kind.load_factory()
    if seeding == "per-trial" and not kind.duels and not kind.own_stream:
        return TrialSeededSampler(lambda s: factory(spec, s, context), seed)
    return factory(spec, seed, context)
