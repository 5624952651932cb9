"""Typed, bounded parameter spaces for heuristics.

A :class:`ParamSpace` is the contract between a numba evaluator (which reads a
flat ``float64`` array by position) and everything outside the hot path (which
speaks in names): it validates user values with clear errors, converts to and
from the evaluator's array and plain dicts, and can be narrowed (tighter
bounds, or a fixed value) by a study file. The conversion to Optuna
distributions lives in :mod:`heurtune.tuning.samplers.distributions`, because only the
tuning layer imports Optuna.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from heurtune.errors import HeurtuneError

Value = float | int | str | bool


def value_text(value: Any) -> str:
    """A parameter value as heurtune's lines print it: a float to 4 significant
    digits, anything else as ``str`` does."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class FloatParam:
    """A real-valued weight in ``[low, high]``, optionally on a log scale or a grid."""

    name: str
    low: float
    high: float
    default: float
    log: bool = False
    step: float | None = None
    help: str = ""

    def __post_init__(self) -> None:
        _check_range(self.name, self.low, self.high, self.log)
        self.validate(self.default)

    def validate(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise HeurtuneError(f"parameter {self.name!r} must be a number, got {value!r}")
        v = float(value)
        if not math.isfinite(v) or not self.low <= v <= self.high:
            raise HeurtuneError(
                f"parameter {self.name}={value!r} is out of bounds [{self.low}, {self.high}]"
            )
        if self.step:  # float noise on the grid (Optuna's 0.8500000000000001) is 0.85
            snapped = round(round((v - self.low) / self.step) * self.step + self.low, 12)
            if abs(snapped - v) < 1e-9:
                v = min(max(snapped, self.low), self.high)
        return v

    def encode(self, value: Value) -> float:
        return float(value)

    def decode(self, x: float) -> float:
        return float(x)

    def narrowed(self, low: float, high: float) -> FloatParam:
        self.validate(low), self.validate(high)
        default = min(max(self.default, low), high)
        return replace(self, low=float(low), high=float(high), default=default)


@dataclass(frozen=True)
class IntParam:
    """An integer parameter in ``[low, high]`` (a depth, a count, a switch)."""

    name: str
    low: int
    high: int
    default: int
    log: bool = False
    step: int = 1
    help: str = ""

    def __post_init__(self) -> None:
        _check_range(self.name, self.low, self.high, self.log)
        self.validate(self.default)

    def validate(self, value: Any) -> int:
        if isinstance(value, bool):
            raise HeurtuneError(f"parameter {self.name!r} must be an integer, got {value!r}")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise HeurtuneError(f"parameter {self.name!r} must be an integer, got {value!r}")
        if not self.low <= value <= self.high:
            raise HeurtuneError(
                f"parameter {self.name}={value!r} is out of bounds [{self.low}, {self.high}]"
            )
        return value

    def encode(self, value: Value) -> float:
        return float(value)

    def decode(self, x: float) -> int:
        return int(round(x))

    def narrowed(self, low: float, high: float) -> IntParam:
        lo, hi = self.validate(low), self.validate(high)
        return replace(self, low=lo, high=hi, default=min(max(self.default, lo), hi))


@dataclass(frozen=True)
class CategoricalParam:
    """One of a few choices; the evaluator sees the choice's index."""

    name: str
    choices: tuple[Value, ...]
    default: Value
    help: str = ""

    def __post_init__(self) -> None:
        if len(self.choices) < 1:
            raise ValueError(f"parameter {self.name!r} needs at least one choice")
        self.validate(self.default)

    def validate(self, value: Any) -> Value:
        for choice in self.choices:
            if value == choice and type(value) is type(choice):
                return choice
        raise HeurtuneError(
            f"parameter {self.name}={value!r} is not one of {list(self.choices)}"
        )

    def encode(self, value: Value) -> float:
        return float(self.choices.index(self.validate(value)))

    def decode(self, x: float) -> Value:
        return self.choices[int(round(x))]

    def narrowed(self, low: float, high: float) -> CategoricalParam:
        raise HeurtuneError(f"parameter {self.name!r} is categorical: it has no bounds to narrow")


Param = FloatParam | IntParam | CategoricalParam


def _check_range(name: str, low: float, high: float, log: bool) -> None:
    if not low <= high:
        raise HeurtuneError(f"parameter {name!r}: low {low} is above high {high}")
    if log and low <= 0:
        raise HeurtuneError(f"parameter {name!r}: a log scale needs low > 0, got {low}")


@dataclass(frozen=True)
class ParamSpace:
    """An ordered set of parameters; position ``i`` is ``params[i]`` in the evaluator.

    ``fixed`` holds parameters pinned by a study file: they keep their place in
    the evaluator's array but are not searched.
    """

    name: str
    params: tuple[Param, ...]
    fixed: Mapping[str, Value] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"space {self.name!r} has duplicate parameter names")
        if self.fixed is None:
            object.__setattr__(self, "fixed", {})

    def __iter__(self) -> Iterator[Param]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    @property
    def searched(self) -> list[Param]:
        """The parameters a tuner samples (all but the fixed ones)."""
        return [p for p in self.params if p.name not in self.fixed]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise HeurtuneError(
            f"unknown parameter {name!r} in space {self.name!r} (known: {', '.join(self.names)})"
        )

    def defaults(self) -> dict[str, Value]:
        return {p.name: self.fixed.get(p.name, p.default) for p in self.params}

    def validate(self, values: Mapping[str, Any], *, complete: bool = False) -> dict[str, Value]:
        """Check names, types and bounds; missing names take their defaults unless ``complete``."""
        for key in values:
            self.param(key)
        out: dict[str, Value] = {}
        for p in self.params:
            if p.name in values:
                out[p.name] = p.validate(values[p.name])
            elif complete:
                raise HeurtuneError(f"parameter {p.name!r} of space {self.name!r} is missing")
            else:
                out[p.name] = self.fixed.get(p.name, p.default)
        return out

    def to_array(self, values: Mapping[str, Any]) -> np.ndarray:
        """The evaluator's ``float64`` array for ``values`` (validated, defaults filled in)."""
        full = self.validate(values)
        return np.array([p.encode(full[p.name]) for p in self.params], dtype=np.float64)

    def from_array(self, array: Sequence[float]) -> dict[str, Value]:
        if len(array) != len(self.params):
            raise HeurtuneError(
                f"space {self.name!r} has {len(self.params)} parameters, got {len(array)} values"
            )
        return {p.name: p.decode(float(x)) for p, x in zip(self.params, array, strict=True)}

    def narrowed(self, spec: Mapping[str, Any]) -> ParamSpace:
        """A copy with bounds tightened or values fixed.

        ``spec`` maps a parameter name to ``{"low": .., "high": ..}`` or to
        ``{"fixed": value}`` (a bare value also fixes it). New bounds must lie
        inside the old ones.
        """
        params = list(self.params)
        fixed = dict(self.fixed)
        for name, rule in spec.items():
            p = self.param(name)
            i = params.index(p)
            if isinstance(rule, Mapping):
                unknown = set(rule) - {"low", "high", "fixed"}
                if unknown:
                    raise HeurtuneError(
                        f"parameter {name!r}: unknown keys {sorted(unknown)} "
                        "(use low/high or fixed)"
                    )
                if "fixed" in rule:
                    fixed[name] = p.validate(rule["fixed"])
                    continue
                low = rule.get("low", getattr(p, "low", None))
                high = rule.get("high", getattr(p, "high", None))
                if low is not None and high is not None and low > high:
                    raise HeurtuneError(f"parameter {name!r}: low {low} is above high {high}")
                params[i] = p.narrowed(low, high)
            else:
                fixed[name] = p.validate(rule)
        return ParamSpace(self.name, tuple(params), fixed)

    def describe(self) -> list[dict[str, Any]]:
        """One plain dict per parameter, for listings and docs."""
        rows = []
        for p in self.params:
            row: dict[str, Any] = {"name": p.name, "default": p.default, "help": p.help}
            if isinstance(p, CategoricalParam):
                row["choices"] = list(p.choices)
            else:
                row.update(low=p.low, high=p.high, log=p.log)
            if p.name in self.fixed:
                row["fixed"] = self.fixed[p.name]
            rows.append(row)
        return rows
