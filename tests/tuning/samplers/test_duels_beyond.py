"""Where the best may lie beyond the searched box: the model's maximum on a bound with
its gain still rising through it (QuadraticModel.beyond), and how answers say so."""

from __future__ import annotations

import numpy as np

from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.tuning.samplers.quadratic import Observation, QuadraticModel, UnitBox, beyond_bounds
from heurtune.tuning.views import bounds_text


def bowl_duels(optimum: np.ndarray, seed: int = 4, duels: int = 300) -> QuadraticModel:
    """A model fitted to precise duels (2,000 games each) of random box points on a
    4-parameter bowl worth 2 Elo per half range squared around ``optimum`` (unit
    coordinates relative to a baseline at the box's centre: the box is [-1, 1])."""
    rng = np.random.default_rng(seed)

    def f(d: np.ndarray) -> float:
        return float(-2.0 * np.sum((d - optimum) ** 2))

    model = QuadraticModel(4)
    for _ in range(duels):
        a, b = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4)
        p = 1 / (1 + 10 ** (-(f(a) - f(b)) / 400))
        model.add(Observation(a, b, rng.binomial(2000, p) / 2000, 2000))
    model.fit()
    return model


def test_the_slope_is_the_derivative_of_the_mean_gain() -> None:
    model = bowl_duels(np.array([0.3, -0.2, 0.5, 0.0]))
    rng = np.random.default_rng(1)
    for _ in range(5):
        x = rng.uniform(-1, 1, 4)
        for i in range(4):
            step = np.zeros(4)
            step[i] = 1e-5
            numeric = (model.gain(x + step)[0] - model.gain(x - step)[0]) / 2e-5
            mean, sd = model.slope(x, i)
            assert abs(mean - numeric) < 1e-6 and sd > 0.0


def test_an_optimum_beyond_an_upper_and_a_lower_bound_is_named() -> None:
    # x1's best 2 half ranges beyond the upper bound, x3's beyond the lower one (with
    # 1 to 1.5 half ranges the slope at the bound is not always two sd above zero)
    model = bowl_duels(np.array([3.0, 0.2, -3.0, -0.3]))
    low, high = -np.ones(4), np.ones(4)
    assert model.beyond(low, high) == {0: 1, 2: -1}
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0) for i in range(4)))
    names = beyond_bounds(model, UnitBox(space), low, high)
    assert names == {"x1": "upper", "x3": "lower"}
    text = bounds_text({"beyond_bounds": names})
    assert "x1's upper bound" in text and "x3's lower bound" in text and "widen" in text
    # where it cannot be widened: duels' default widens there behind both gates below
    # MANY_PARAMETERS searched parameters (or their number unknown), at once from there
    few = ("tune with sampler duels, which answers nearer it: its default edge_prior widens "
           "the prior there once the fit is sure of the slope; edge_prior = 4 and "
           "edge_prior_after = 8 widen it sooner)")
    assert few in text
    assert few in bounds_text({"beyond_bounds": names}, 4)
    assert few in bounds_text({"beyond_bounds": names}, 7)
    many = bounds_text({"beyond_bounds": names}, 8)
    assert ("tune with sampler duels, which answers nearer it: from 8 parameters on its "
            "default edge_prior widens the prior there, unless edge_prior = 1)") in many
    assert "edge_prior_after" not in many and "edge_prior = 4" not in many


def test_an_optimum_inside_or_just_on_the_bound_is_not_named() -> None:
    low, high = -np.ones(4), np.ones(4)
    assert bowl_duels(np.array([0.5, -0.5, 0.5, -0.5])).beyond(low, high) == {}
    # on the bound itself: the model's maximum may sit there, but nothing rises through it
    assert bowl_duels(np.array([1.0, -0.5, 0.5, -1.0])).beyond(low, high) == {}
    assert bounds_text({}) == "" and bounds_text({"beyond_bounds": {}}) == ""


def test_without_data_nothing_is_beyond() -> None:
    model = QuadraticModel(3)
    model.fit()
    assert model.beyond(-np.ones(3), np.ones(3)) == {}
