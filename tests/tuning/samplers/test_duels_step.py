"""The duels answer's step toward the model's maximum (``step_sd``, duels.step_toward):
from the lower bound's point (moved toward an edge first, where the maximum lies
there), as far as the mean gain rises, the lower bound on the gain over the baseline
stays positive and the step's own mean gain lies ``step_sd * sqrt(d / 4)`` sd above
zero."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers import DuelsSampler, SamplerSpec
from heurtune.tuning.samplers.duels import best_on_segment, step_toward
from heurtune.tuning.samplers.quadratic import QuadraticModel

LOW, HIGH = -np.ones(2), np.ones(2)


def posterior(g_var: float = 1.0, dim: int = 2) -> QuadraticModel:
    """A posterior set by hand: the gain rises along x1 (slope 3 at the baseline,
    curvature -3: the maximum inside the box at x1 = 0.5, 0.75 Elo above the
    baseline), every other parameter flat; the gradient uncertain (variance
    ``g_var``), so the highest lower bound stops short of the maximum."""
    model = QuadraticModel(dim)
    model.fit()  # the prior's shapes; mean and covariance replaced below
    size = model.size
    mean = np.zeros(size)
    mean[0], mean[dim] = 3.0, -3.0
    mean[dim + 1:2 * dim] = -2.0
    var = np.full(size, 0.01)
    var[0] = g_var
    model.mean, model.cov = mean, np.diag(var)
    return model


def points(model: QuadraticModel) -> tuple[np.ndarray, np.ndarray]:
    low, high = -np.ones(model.dim), np.ones(model.dim)
    top = model.argmax_mean(low, high, np.zeros(model.dim))
    return top, model.recommend(low, high, 1.0, top)[0]


def test_the_step_takes_the_gain_the_model_is_sure_of() -> None:
    model = posterior()
    top, point = points(model)
    assert top[0] == pytest.approx(0.5)
    assert 0.0 < point[0] < 0.45  # the lower bound stops short of the maximum
    stepped = step_toward(model, point, top, 1.0, 0.6)
    assert point[0] < stepped[0] <= top[0]
    mean, sd = model.gain(stepped)
    assert mean > model.gain(point)[0] and mean - sd > 0.0
    step, step_sd = model.difference(stepped, point)
    assert step >= 0.6 * math.sqrt(2 / 4) * step_sd  # the bar in two parameters


def test_no_step_without_step_sd_or_past_what_the_model_can_be_sure_of() -> None:
    model = posterior()
    top, point = points(model)
    assert step_toward(model, point, top, 1.0, 0.0) is point
    # at the lower bound's point no move gains z sd of its own: a bar of z never steps
    assert step_toward(model, point, top, 1.0, 1.0 / math.sqrt(2 / 4)) is point
    assert step_toward(model, point, top, 1.0, 9.0) is point


def test_the_bar_decides_how_far_the_step_goes() -> None:
    model = posterior()
    top, point = points(model)
    low_bar = step_toward(model, point, top, 1.0, 0.2)
    high_bar = step_toward(model, point, top, 1.0, 0.9)
    assert point[0] <= high_bar[0] < low_bar[0] <= top[0] + 1e-12


def test_the_step_never_passes_a_point_whose_gain_is_in_doubt() -> None:
    # a gradient this uncertain puts the maximum's own lower bound below zero: the step
    # stops where the bound of the gain over the baseline is still positive
    model = posterior(g_var=3.0)
    top, point = points(model)
    mean, sd = model.gain(top)
    assert mean - sd < 0.0
    stepped = step_toward(model, point, top, 1.0, 0.1)
    assert point[0] < stepped[0] < top[0]
    mean, sd = model.gain(stepped)
    assert mean - sd > 0.0


def test_the_bar_grows_with_the_square_root_of_the_parameters() -> None:
    for dim in (2, 4, 9):
        model = posterior(dim=dim)
        top, point = points(model)
        bar = 0.5 * math.sqrt(dim / 4.0)
        expected = best_on_segment(model, point, top, 1.0, move_sd=bar)
        assert np.array_equal(step_toward(model, point, top, 1.0, 0.5), expected)
    # and the bar binds: in nine parameters it is 1.5 times the four-parameter one
    model = posterior(dim=9)
    top, point = points(model)
    assert not np.array_equal(best_on_segment(model, point, top, 1.0, move_sd=0.5),
                              step_toward(model, point, top, 1.0, 0.5))


def sampler(**options: float) -> DuelsSampler:
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0)
                                  for i in range(2)))
    spec = SamplerSpec.parse("duels", dict(options), "test", internal=True)  # constants
    s = DuelsSampler(space, {"x1": 100.0, "x2": 100.0}, dict(spec.options), 0, 0)
    s.model = posterior()
    s._centre = s.model.argmax_mean(s.low, s.high, np.zeros(2))
    return s


def test_the_sampler_steps_by_its_option_and_states_the_stepped_gain() -> None:
    assert sampler().options["step_sd"] == 0.8  # the default
    off = sampler(step_sd=0.0)
    lower = off.model.recommend(off.low, off.high, 1.0, off._centre)
    point, mean, sd = off.recommend()
    assert np.array_equal(point, lower[0]) and (mean, sd) == lower[1:]
    assert sampler().recommend()[0][0] > lower[0][0]  # the default steps
    on = sampler(step_sd=0.6)
    point, mean, sd = on.recommend()
    assert point[0] > lower[0][0]
    assert (mean, sd) == on.model.gain(point)


def test_a_bad_step_sd_is_one_clear_error() -> None:
    # a constant now: a record (or research code) holds it, within its bounds
    with pytest.raises(HeurtuneError, match="step_sd must be in"):
        SamplerSpec.from_record("duels", {"step_sd": -0.5}, "the study's record")
    with pytest.raises(HeurtuneError, match="step_sd must be a number"):
        SamplerSpec.from_record("duels", {"step_sd": "far"}, "the study's record")
    with pytest.raises(HeurtuneError, match="step_sd is a fixed constant"):
        SamplerSpec.parse("duels", {"step_sd": 0.5}, "study.toml [sampler]")
