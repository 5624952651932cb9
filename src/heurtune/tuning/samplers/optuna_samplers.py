"""Optuna's own samplers, built from a study's :class:`SamplerSpec`.

Each is a line of Optuna: one factory per sampler kind, named in
:data:`heurtune.tuning.samplers.registry.KINDS`."""

from __future__ import annotations

import warnings

import optuna
from optuna.samplers import BaseSampler

from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.samplers.registry import SAMPLERS, SamplerContext, SamplerSpec


def tpe(spec: SamplerSpec, seed: int, context: SamplerContext) -> BaseSampler:
    o = spec.options
    with experimental_ok():
        return optuna.samplers.TPESampler(
            seed=seed, multivariate=spec.kind == "multivariate-tpe",
            n_startup_trials=o.get("n_startup_trials", 10),
            n_ei_candidates=o.get("n_ei_candidates", 24))


multivariate_tpe = tpe  # the same factory: the spec's kind sets ``multivariate``


def random(spec: SamplerSpec, seed: int, context: SamplerContext) -> BaseSampler:
    return optuna.samplers.RandomSampler(seed=seed)


def qmc(spec: SamplerSpec, seed: int, context: SamplerContext) -> BaseSampler:
    o = spec.options
    with experimental_ok():
        return optuna.samplers.QMCSampler(seed=seed, qmc_type=o.get("qmc_type", "sobol"),
                                          scramble=o.get("scramble", False))


def cmaes(spec: SamplerSpec, seed: int, context: SamplerContext) -> BaseSampler:
    o = spec.options
    x0 = None
    if o.get("from_baseline", True) and context.baseline is not None and context.space is not None:
        x0 = {p.name: context.baseline[p.name] for p in context.space.searched}
    with experimental_ok(), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # x0 is deprecated (Optuna 4.9), kept in 5
        return optuna.samplers.CmaEsSampler(
            seed=seed, x0=x0, sigma0=o.get("sigma0") or None,
            n_startup_trials=o.get("n_startup_trials", 1),
            popsize=o.get("popsize") or None, consider_pruned_trials=False,
            warn_independent_sampling=False)


def gp(spec: SamplerSpec, seed: int, context: SamplerContext) -> BaseSampler:
    SAMPLERS["gp"].check_requirements("")
    with experimental_ok():
        return optuna.samplers.GPSampler(seed=seed,
                                         n_startup_trials=spec.options.get("n_startup_trials", 10))
