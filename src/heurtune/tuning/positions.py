"""The positions objective: fit the evaluation to the results of played games.

Texel's method, as Ethereal, Weiss and their descendants use it: a position set
(heurtune.match.positions) holds positions of games played once, each labelled
with the game's result for the side to move (1, 0.5, 0). With the evaluation
``e`` of a position for the side to move and a scale ``K``, the predicted
result is ``sigmoid(e / K)``, and the loss of a set of weights is the mean
cross-entropy between predictions and results (or their mean squared error).
The loss is deterministic and costs one numba pass over the positions
(:class:`heurtune.engine.batch.PositionEvaluator`), no game.

``K`` is fitted once, at the baseline's weights on the training positions, and
then held fixed (a study stores it): the weights' scale is part of what the fit
chooses, as in Texel tuning. The positions are split by game, never by
position, into a training part (the loss trials minimise) and a held-out part
whose loss every trial also reports, so that overfitting shows as a held-out
loss that rises while the training loss falls.

:meth:`PositionsFit.minimize` is the local optimiser for numeric spaces:
L-BFGS-B (scipy) in the unit box of the searched parameters, with the analytic
gradient where the evaluation is linear in the weights (checked numerically on
the positions themselves: exact to 1e-7 at random points) and forward
differences otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit

from heurtune.engine import EngineConfig, FloatParam, IntParam, ParamSpace, Value
from heurtune.engine.batch import PositionEvaluator
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.positions import PositionSet, split_by_game
from heurtune.tuning.studyfile import PERSPECTIVES, POSITION_LOSSES

# what predicts a position's result (PERSPECTIVES): the heuristic's value for the side
# to move less its value for the other side (the default), or the side to move's alone.
# heurtune's heuristics need not be antisymmetric (Halma's distance scores one side
# only): the difference is what predicts there, and for an antisymmetric heuristic it
# is twice the side to move's value, so only K changes (docs/results/positions.md)
LOSSES = POSITION_LOSSES
DEFAULT_HELD_OUT = 0.2
LINEAR_TOLERANCE = 1e-7  # relative error of the linear model at random points
FD_STEP = 1e-4  # forward-difference step, in unit-box coordinates
CALIBRATION_BINS = 10


def loss_and_slope(z: np.ndarray, y: np.ndarray, kind: str) -> tuple[float, np.ndarray]:
    """The mean loss of predictions ``sigmoid(z)`` against results ``y``, and its
    derivative with respect to each ``z`` (already divided by the count)."""
    n = max(1, z.shape[0])
    p = expit(z)
    if kind == "cross-entropy":
        # -(y log p + (1 - y) log(1 - p)) = log(1 + e^z) - y z, computed stably
        return float(np.mean(np.logaddexp(0.0, z) - y * z)), (p - y) / n
    if kind == "mse":
        r = p - y
        return float(np.mean(r * r)), 2.0 * r * p * (1.0 - p) / n
    raise HeurtuneError(f"unknown loss {kind!r} (known: {', '.join(LOSSES)})")


def fit_scale(evals: np.ndarray, labels: np.ndarray, kind: str) -> float:
    """The ``K`` that minimises the loss of ``sigmoid(evals / K)`` (1 where every
    value is zero: no scale predicts anything then)."""
    spread = float(np.mean(np.abs(evals)))
    if not math.isfinite(spread) or spread == 0.0:
        return 1.0
    centre = math.log(spread)
    found = minimize_scalar(lambda t: loss_and_slope(evals / math.exp(t), labels, kind)[0],
                            bounds=(centre - 12.0, centre + 12.0), method="bounded",
                            options={"xatol": 1e-6})
    return float(math.exp(found.x))


@dataclass(frozen=True)
class Losses:
    """One set of weights on the positions: training and held-out loss, and the
    share of decided positions whose winner the evaluation's sign predicts."""

    train: float
    held_out: float | None
    agreement: float

    def to_attrs(self) -> dict[str, float]:
        out = {"positions_loss": self.train, "positions_agreement": self.agreement}
        if self.held_out is not None:
            out["positions_held_out_loss"] = self.held_out
        return out


class PositionsFit:
    """A study's positions, evaluator, split and ``K``, and the loss of any weights.

    ``base`` is the engine being tuned (its weights are the baseline and supply
    the parameters that are not searched), ``space`` what is searched;
    ``scale``: a ``K`` already fitted (a resumed study's), else fitted here."""

    def __init__(self, positions: PositionSet, base: EngineConfig, space: ParamSpace, *,
                 loss: str = "cross-entropy", held_out: float = DEFAULT_HELD_OUT, seed: int = 0,
                 scale: float | None = None, threads: int | None = None,
                 perspective: str = "difference") -> None:
        if loss not in LOSSES:
            raise HeurtuneError(f"unknown loss {loss!r} (known: {', '.join(LOSSES)})")
        if perspective not in PERSPECTIVES:
            raise HeurtuneError(f"unknown perspective {perspective!r} (known: "
                                f"{', '.join(PERSPECTIVES)})")
        if positions.game != base.game:
            raise HeurtuneError(f"the positions are of {positions.game}, the engine plays "
                                f"{base.game}")
        if base.process is not None:
            raise HeurtuneError(f"{base.label} runs in another process: the positions "
                                "objective evaluates the heuristic itself")
        if dict(positions.rules) != get_game(base.game).resolve_rules(base.rules):
            raise HeurtuneError("the positions were played under other rules than the "
                                "engine's")
        self.positions = positions
        self.base = base
        self.space = space
        self.loss = loss
        self.heuristic = base.heuristic_obj
        self.perspective = perspective
        self.evaluator = PositionEvaluator(get_game(base.game), self.heuristic,
                                           positions.rules, positions.arrays(), threads,
                                           difference=perspective == "difference")
        self.held_mask = split_by_game(positions, held_out, seed)
        self.train_mask = ~self.held_mask
        self.labels = positions.label
        self._names = self.heuristic.space.names
        self._linear: np.ndarray | None | bool = None  # features, or False: not linear
        if scale is None:  # fitted at the baseline's weights on the training positions
            baseline = self.evaluate(self.base_values)
            scale = fit_scale(baseline[self.train_mask], self.labels[self.train_mask], loss)
        self.scale = scale
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise HeurtuneError(f"K must be a positive number, got {self.scale}")

    # -- values -------------------------------------------------------------
    @property
    def base_values(self) -> dict[str, Value]:
        return {p.name: self.base.params[p.name] for p in self.space.searched}

    def _array(self, values: Mapping[str, Any]) -> np.ndarray:
        """The evaluator's array; searched values may be unrounded reals."""
        raw = self.heuristic.space.to_array(self.base.params)
        for name, v in values.items():
            raw[self._names.index(name)] = float(v)
        if self.heuristic.prepare is None:
            return raw
        return np.ascontiguousarray(self.heuristic.prepare(raw), dtype=np.float64)

    def evaluate(self, values: Mapping[str, Any]) -> np.ndarray:
        """Every position's evaluation for the side to move (less the other side's
        with the ``difference`` perspective), at ``values``."""
        return self.evaluator(self._array(values))

    def losses(self, values: Mapping[str, Any]) -> Losses:
        """The training and held-out losses at ``values``."""
        e = self.evaluate(values)
        z = e / self.scale
        train = loss_and_slope(z[self.train_mask], self.labels[self.train_mask], self.loss)[0]
        held = (loss_and_slope(z[self.held_mask], self.labels[self.held_mask], self.loss)[0]
                if self.held_mask.any() else None)
        decided = self.labels != 0.5
        agree = float(np.mean((e[decided] > 0) == (self.labels[decided] > 0.5))
                      if decided.any() else 0.0)
        return Losses(train, held, agree)

    def calibration(self, values: Mapping[str, Any], held_out: bool = True,
                    bins: int = CALIBRATION_BINS) -> list[dict[str, float]]:
        """Predicted against observed results by bins of the prediction (the
        held-out positions, or the training ones): each bin's mean prediction,
        mean result and count."""
        mask = self.held_mask if held_out and self.held_mask.any() else self.train_mask
        p = expit(self.evaluate(values)[mask] / self.scale)
        y = self.labels[mask]
        edges = np.linspace(0.0, 1.0, bins + 1)
        which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
        out = []
        for b in range(bins):
            sel = which == b
            if sel.any():
                out.append({"predicted": float(p[sel].mean()), "observed": float(y[sel].mean()),
                            "count": int(sel.sum())})
        return out

    # -- the local optimiser ------------------------------------------------
    def _box(self) -> list[FloatParam | IntParam]:
        params = []
        for p in self.space.searched:
            if not isinstance(p, (FloatParam, IntParam)):
                raise HeurtuneError(f"sampler 'lbfgs' searches numeric parameters only; "
                                    f"{p.name!r} is categorical (fix it in [params] or use "
                                    "another sampler)")
            params.append(p)
        return params

    @staticmethod
    def _natural(params: list[FloatParam | IntParam], u: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Values at unit coordinates ``u`` in [-1, 1] (unrounded) and dx/du."""
        x, dx = np.empty(len(params)), np.empty(len(params))
        for i, p in enumerate(params):
            if p.log:
                lo, hi = math.log(p.low), math.log(p.high)
                x[i] = math.exp(lo + (u[i] + 1.0) / 2.0 * (hi - lo))
                dx[i] = x[i] * (hi - lo) / 2.0
            else:
                x[i] = p.low + (u[i] + 1.0) / 2.0 * (p.high - p.low)
                dx[i] = (p.high - p.low) / 2.0
        return x, dx

    @staticmethod
    def _unit(params: list[FloatParam | IntParam], values: Mapping[str, Any]) -> np.ndarray:
        u = np.empty(len(params))
        for i, p in enumerate(params):
            lo, hi, v = float(p.low), float(p.high), float(values[p.name])
            if p.log:
                lo, hi, v = math.log(lo), math.log(hi), math.log(v)
            u[i] = 0.0 if hi == lo else 2.0 * (v - lo) / (hi - lo) - 1.0
        return u

    def linear_features(self) -> np.ndarray | None:
        """``(E0, F)`` packed as one array ``[E0 | F]`` where the evaluation is
        linear in the searched weights (``E(x) = E0 + F (x - x0)``, checked at two
        random points of the box), else None."""
        if self._linear is None:
            self._linear = self._check_linear()
        return None if self._linear is False else self._linear  # type: ignore[return-value]

    def _check_linear(self) -> np.ndarray | bool:
        params = self._box()
        names = [p.name for p in params]
        x0 = np.array([float(self.base.params[n]) for n in names])
        e0 = self.evaluate(dict(zip(names, x0, strict=True)))
        cols = []
        for i, p in enumerate(params):
            h = (p.high - p.low) / 4.0
            if h == 0:
                cols.append(np.zeros_like(e0))
                continue
            x = x0.copy()
            x[i] = x0[i] + h if x0[i] + h <= p.high else x0[i] - h
            cols.append((self.evaluate(dict(zip(names, x, strict=True))) - e0) / (x[i] - x0[i]))
        f = np.stack(cols, axis=1) if cols else np.zeros((e0.shape[0], 0))
        rng = np.random.default_rng(12345)
        for _ in range(2):
            u = rng.uniform(-1.0, 1.0, len(params))
            x, _dx = self._natural(params, u)
            actual = self.evaluate(dict(zip(names, x, strict=True)))
            predicted = e0 + f @ (x - x0)
            if np.max(np.abs(actual - predicted)) > LINEAR_TOLERANCE * (1.0 + np.max(
                    np.abs(actual))):
                return False
        return np.concatenate([e0[:, None], f], axis=1)

    def minimize(self, start: Mapping[str, Any], max_evals: int,
                 on_point: Callable[[dict[str, Value], Losses], None] | None = None,
                 gradient: str = "auto") -> dict[str, Value]:
        """L-BFGS-B on the training loss from ``start``, at most ``max_evals``
        loss evaluations; ``on_point`` is told of every point it evaluates (its
        values rounded to the space: integers, steps) and may raise to stop it.
        ``gradient``: ``analytic`` (the evaluation must be linear), ``finite``
        (forward differences) or ``auto``. Returns the best point's values."""
        params = self._box()
        names = [p.name for p in params]
        packed = None
        if gradient in ("auto", "analytic"):
            packed = self.linear_features()
            if packed is None and gradient == "analytic":
                raise HeurtuneError(f"{self.heuristic.name}: the evaluation is not linear in "
                                    "the searched weights (use gradient = 'finite' or 'auto')")
        elif gradient != "finite":
            raise HeurtuneError(f"gradient must be auto, analytic or finite, got {gradient!r}")
        train, y = self.train_mask, self.labels[self.train_mask]
        x0 = np.array([float(self.base.params[n]) for n in names])

        def loss_at(u: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
            x, dx = self._natural(params, u)
            if packed is not None:  # exact: E = E0 + F (x - x0)
                e = packed[:, 0] + packed[:, 1:] @ (x - x0)
            else:
                e = self.evaluate(dict(zip(names, x, strict=True)))
            value, slope = loss_and_slope(e[train] / self.scale, y, self.loss)
            return value, slope / self.scale, dx

        best: dict[str, Any] = {"loss": math.inf, "values": dict(start)}

        def fun(u: np.ndarray) -> tuple[float, np.ndarray]:
            value, slope, dx = loss_at(u)
            if packed is not None:
                grad = (packed[train, 1:].T @ slope) * dx
            else:
                grad = np.empty(len(params))
                for i in range(len(params)):
                    step = FD_STEP if u[i] + FD_STEP <= 1.0 else -FD_STEP
                    v = u.copy()
                    v[i] += step
                    grad[i] = (loss_at(v)[0] - value) / step
            point = self._rounded(params, u)
            found = self.losses(point)
            if found.train < best["loss"]:
                best.update(loss=found.train, values=point)
            if on_point is not None:
                on_point(point, found)
            return value, grad

        u0 = self._unit(params, start)
        if max_evals > 0:
            minimize(fun, u0, jac=True, method="L-BFGS-B", bounds=[(-1.0, 1.0)] * len(params),
                     options={"maxfun": max_evals, "maxiter": max_evals})
        return dict(best["values"])

    @staticmethod
    def _rounded(params: list[FloatParam | IntParam], u: np.ndarray) -> dict[str, Value]:
        x, _dx = PositionsFit._natural(params, u)
        out: dict[str, Value] = {}
        for p, v in zip(params, x, strict=True):
            v = min(max(float(v), p.low), p.high)
            if isinstance(p, IntParam):
                out[p.name] = p.validate(int(p.low + round((v - p.low) / (p.step or 1))
                                             * (p.step or 1)))
            else:
                if p.step:
                    v = p.low + round((v - p.low) / p.step) * p.step
                out[p.name] = p.validate(min(max(v, p.low), p.high))
        return out
