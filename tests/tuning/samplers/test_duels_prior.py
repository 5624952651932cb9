"""The duels model's prior: separate empirical-Bayes scales for the curvature and for
the baseline's distance below the optimum; and its box-aware duels."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.tuning.samplers.duels import duel_points
from heurtune.tuning.samplers.quadratic import Observation, QuadraticModel


def far_duels(model: QuadraticModel, seed: int = 3, duels: int = 300) -> np.ndarray:
    """Duels of 2,000 games (precise: the prior, not the noise, decides) on a 4-parameter bowl worth 2 Elo per half range (the
    prior's guess) whose baseline is 10 Elo below the optimum (five times the
    guess): the oracle's ``far`` case, drawn from the logistic curve."""
    rng = np.random.default_rng(seed)
    opt = np.full(4, np.sqrt(10.0 / 8.0)) * np.array([-1, -1, 1, 1])  # 4 x 2 x 1.25 = 10 Elo

    def f(d: np.ndarray) -> float:
        return float(-2.0 * np.sum((d - opt) ** 2) + 2.0 * np.sum(opt ** 2))

    for _ in range(duels):
        a, b = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4)
        p = 1 / (1 + 10 ** (-(f(a) - f(b)) / 400))
        games = 2000
        score = rng.binomial(games, p) / games
        model.add(Observation(a, b, score, games))
    model.fit()
    return 4.0 * opt  # the true gradient at the baseline: -2 * 2 * (0 - opt)


def test_a_far_baseline_lifts_the_start_scale_not_the_curvature() -> None:
    model = QuadraticModel(4)
    gradient = far_duels(model)
    assert model.start_scale >= 4 and model.scale <= 2
    g = model.mean[:4]
    assert np.linalg.norm(g - gradient) <= 0.25 * np.linalg.norm(gradient)


def test_one_shared_scale_held_the_far_gradient_back() -> None:
    """What the separate scales fix: the same data under the old prior (the curvature
    and the distance scaled together) fit a much smaller gradient."""
    model = QuadraticModel(4)
    gradient = far_duels(model)
    separate = np.linalg.norm(model.mean[:4])
    # the best evidence with one scale for both (the previous prior)
    fits = [model.posterior(s) for s in (1.0, 2.0, 4.0, 8.0)]
    shared = max((f for f in fits if f is not None), key=lambda f: f[0])[1][:4]
    assert np.linalg.norm(shared) < separate
    assert np.linalg.norm(shared - gradient) > np.linalg.norm(model.mean[:4] - gradient)


def test_near_the_baseline_both_scales_stay_at_the_guess() -> None:
    """fishtest's setup (2 Elo per half range, the baseline 2 Elo below): the data
    need no larger prior, and the fitted scales say so (within a factor of the
    grid's coarseness)."""
    rng = np.random.default_rng(5)
    opt = np.full(4, -0.5)  # 4 x 2 x 0.25 = 2 Elo at the baseline
    model = QuadraticModel(4)
    for _ in range(300):
        a, b = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4)
        diff = -2.0 * (np.sum((a - opt) ** 2) - np.sum((b - opt) ** 2))
        p = 1 / (1 + 10 ** (-diff / 400))
        model.add(Observation(a, b, rng.binomial(2000, p) / 2000, 2000))
    model.fit()
    assert model.scale <= 2 and model.start_scale <= 4


def test_a_curvature_duel_at_the_box_edge_looks_inward() -> None:
    """The centre on the box's upper edge in coordinate 0: a curvature duel that
    would step outward (clipped: two equal values, no information) steps inward;
    one with room outward keeps its direction; symmetric duels are clipped."""
    low, high = np.full(2, -1.0), np.full(2, 1.0)
    centre = np.array([1.0, 0.0])
    sign = np.array([1.0, 1.0])
    curvature = np.array([True, True])
    a, b = duel_points(centre, 0.5, sign, curvature, np.array([True, True]), low, high)
    assert a.tolist() == [0.5, 0.5] and b.tolist() == [1.0, 0.0]  # inward in 0, outward in 1
    a, b = duel_points(centre, 0.5, sign, curvature, np.array([False, False]), low, high)
    assert a.tolist() == [1.0, 0.0] and b.tolist() == [0.5, 0.5]
    a, b = duel_points(centre, 0.5, sign, np.array([False, False]), np.array([True, True]),
                       low, high)
    assert a.tolist() == [1.0, 0.5] and b.tolist() == [0.5, -0.5]


def test_a_curvature_duel_with_no_room_either_way_keeps_its_sign() -> None:
    low, high = np.array([-0.1]), np.array([0.1])
    a, b = duel_points(np.array([0.0]), 1.0, np.array([-1.0]), np.array([True]),
                       np.array([True]), low, high)
    assert a.tolist() == pytest.approx([-0.1]) and b.tolist() == [0.0]


def test_clear_forgets_every_observation_and_refitting_them_repeats_the_fit() -> None:
    """``clear``: the statistics as a new model has them; the same duels added again
    give the same posterior (what a subclass whose features change relies on)."""
    model, fresh = QuadraticModel(4), QuadraticModel(4)
    far_duels(model)
    mean, cov = model.mean.copy(), model.cov.copy()
    model.clear()
    assert model.observations == 0 and model.variance_factor == fresh.variance_factor
    assert np.array_equal(model._A, fresh._A) and np.array_equal(model._b, fresh._b)
    far_duels(model)
    assert np.allclose(model.mean, mean) and np.allclose(model.cov, cov)
