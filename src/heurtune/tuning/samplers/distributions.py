"""ParamSpace <-> Optuna distributions."""

from __future__ import annotations

from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from heurtune.engine.params import CategoricalParam, FloatParam, IntParam, ParamSpace, Value


def to_optuna(space: ParamSpace) -> dict[str, BaseDistribution]:
    """One distribution per searched (not fixed) parameter."""
    out: dict[str, BaseDistribution] = {}
    for p in space.searched:
        if isinstance(p, FloatParam):
            out[p.name] = FloatDistribution(p.low, p.high, log=p.log, step=p.step)
        elif isinstance(p, IntParam):
            out[p.name] = IntDistribution(p.low, p.high, log=p.log, step=p.step)
        elif isinstance(p, CategoricalParam):
            out[p.name] = CategoricalDistribution(p.choices)
        else:  # pragma: no cover
            raise TypeError(f"unsupported parameter {p!r}")
    return out


def suggest(trial: optuna.Trial, space: ParamSpace) -> dict[str, Value]:
    """Sample the searched parameters; fixed ones keep their pinned value."""
    values: dict[str, Any] = dict(space.fixed)
    for p in space.searched:
        if isinstance(p, FloatParam):
            values[p.name] = trial.suggest_float(p.name, p.low, p.high, log=p.log, step=p.step)
        elif isinstance(p, IntParam):
            values[p.name] = trial.suggest_int(p.name, p.low, p.high, log=p.log, step=p.step)
        else:
            values[p.name] = trial.suggest_categorical(p.name, list(p.choices))
    return space.validate(values)
