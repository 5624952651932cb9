"""The duels answer at the box's edge (``edge_answer``, duels.toward_edges): the lower
bound's point moved toward the model's maximum where that lies at an edge, only
where the fitted curvature is at least as strong as the prior's (``curved``), for
every such coordinate (``always``) or never (``off``), and only where the model's
mean gain of the move itself is ``edge_move_sd`` sd above zero."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers import DuelsSampler, SamplerSpec
from heurtune.tuning.samplers.duels import EDGE_ROOM, toward_edges
from heurtune.tuning.samplers.quadratic import QuadraticModel

LOW, HIGH = -np.ones(2), np.ones(2)


def posterior(h1: float, g1: float = 5.0, g_var: float = 4.0) -> QuadraticModel:
    """A 2-parameter posterior set by hand: the gain rises along x1 with slope ``g1``
    at the baseline and curvature ``h1`` (its maximum beyond x1's upper edge where
    g1 > -2 h1), x2 flat at 0; the gradient uncertain (variance ``g_var``), so the
    highest lower bound stops short of the edge."""
    model = QuadraticModel(2)
    model.fit()  # the prior: curvature -2 (elo_per_range 2, scale 1)
    model.mean = np.array([g1, 0.0, h1, -2.0, 0.0])
    model.cov = np.diag([g_var, 0.1, 1.0, 1.0, 0.1])
    return model


def answers(model: QuadraticModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The model's maximum, the lower bound's point, and that point moved with
    ``curved_only`` and without."""
    top = model.argmax_mean(LOW, HIGH, np.zeros(2))
    point = model.recommend(LOW, HIGH, 1.0, top)[0]
    return (top, point, toward_edges(model, point, top, LOW, HIGH, 1.0, EDGE_ROOM),
            toward_edges(model, point, top, LOW, HIGH, 1.0, EDGE_ROOM, curved_only=False))


def test_a_maximum_at_the_edge_with_the_priors_curvature_draws_the_answer_to_it() -> None:
    model = posterior(h1=-2.2)
    assert list(model.curved()) == [True, True]
    top, point, curved, always = answers(model)
    assert top[0] == 1.0 and abs(top[1]) < 1e-9  # the maximum on x1's upper edge
    assert 0.0 < point[0] < 0.8  # the lower bound holds the answer back
    assert curved[0] == pytest.approx(1.0) and np.array_equal(curved, always)
    assert curved[1] == point[1]  # x2 (its maximum inside) left alone
    mean, sd = model.gain(curved)
    assert mean - sd > 0.0 and mean > model.gain(point)[0]


def test_a_flatter_curvature_than_the_priors_keeps_the_lower_bounds_point() -> None:
    # the signature of a maximum that overshoots to the edge (the far case)
    model = posterior(h1=-1.8)
    assert list(model.curved()) == [False, True]
    top, point, curved, always = answers(model)
    assert top[0] == 1.0
    assert np.array_equal(curved, point)  # curved: not moved
    assert always[0] > point[0]  # always: moved all the same


def test_the_move_stops_where_the_lower_bound_would_turn_negative() -> None:
    # a gradient so uncertain that the bound is negative at the edge: the answer moves
    # only as far as the bound stays positive, to the highest mean gain there
    model = posterior(h1=-2.2, g1=5.0, g_var=9.0)
    top, point, curved, _ = answers(model)
    mean_edge, sd_edge = model.gain(np.array([1.0, 0.0]))
    assert mean_edge - sd_edge < 0.0
    assert point[0] < curved[0] < 1.0
    mean, sd = model.gain(curved)
    assert mean - sd > 0.0 and mean > model.gain(point)[0]


def test_a_maximum_inside_the_box_leaves_the_answer_alone() -> None:
    model = posterior(h1=-5.0, g1=5.0)  # the maximum at x1 = 0.5
    top, point, curved, always = answers(model)
    assert top[0] == pytest.approx(0.5)
    assert np.array_equal(curved, point) and np.array_equal(always, point)


def test_the_difference_of_two_points_is_their_gains_difference() -> None:
    model = posterior(h1=-2.2)
    a, b = np.array([0.7, -0.2]), np.array([0.1, 0.4])
    mean, sd = model.difference(a, b)
    assert mean == pytest.approx(model.gain(a)[0] - model.gain(b)[0])
    assert 0.0 < sd < model.gain(a)[1] + model.gain(b)[1]
    assert model.difference(a, np.zeros(2)) == model.gain(a)
    assert model.difference(a, a) == (0.0, 0.0)


def test_a_move_whose_own_gain_is_too_uncertain_is_not_made() -> None:
    # the guard: the move's mean gain over the lower bound's point must lie move_sd
    # sd above zero; below that threshold the answer moves, above it it stays
    model = posterior(h1=-2.2)
    top, point, curved, _ = answers(model)
    mean, sd = model.difference(curved, point)
    t = mean / sd
    assert 0.3 < t < 3.0

    def guarded(move_sd: float) -> np.ndarray:
        return toward_edges(model, point, top, LOW, HIGH, 1.0, EDGE_ROOM, move_sd=move_sd)
    assert np.array_equal(guarded(t - 0.05), curved)
    assert guarded(t + 0.05) is point


def sampler(edge_answer: str | None, **more: float) -> DuelsSampler:
    """A sampler with this posterior; the edge rule alone (no step toward the maximum,
    ``step_sd = 0``, unless given: tests/tuning/samplers/test_duels_step.py)."""
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0)
                                  for i in range(2)))
    options: dict[str, object] = {"step_sd": 0.0}
    if edge_answer is not None:
        options["edge_answer"] = edge_answer
    options.update(more)
    spec = SamplerSpec.parse("duels", options, "test", internal=True)  # constants
    s = DuelsSampler(space, {"x1": 100.0, "x2": 100.0}, dict(spec.options), 0, 0)
    s.model = posterior(h1=-2.2)
    s._centre = s.model.argmax_mean(s.low, s.high, np.zeros(2))
    return s


def test_the_sampler_option_picks_the_rule_and_curved_is_the_default() -> None:
    default, curved, always, off = (sampler(None), sampler("curved"), sampler("always"),
                                    sampler("off"))
    assert default.options["edge_answer"] == "curved"
    lower = off.model.recommend(off.low, off.high, 1.0, off._centre)
    point, mean, sd = off.recommend()
    assert np.array_equal(point, lower[0]) and (mean, sd) == lower[1:]
    for s in (default, curved, always):
        point, mean, sd = s.recommend()
        assert point[0] == pytest.approx(1.0)
        assert (mean, sd) == s.model.gain(point)  # the gain of the moved answer


def test_the_sampler_guards_the_move_with_edge_move_sd() -> None:
    assert sampler(None).options["edge_move_sd"] == 0.3
    held = sampler("curved", edge_move_sd=9.0)  # no move is that certain here
    lower = held.model.recommend(held.low, held.high, 1.0, held._centre)
    assert np.array_equal(held.recommend()[0], lower[0])
    assert sampler("curved", edge_move_sd=0.0).recommend()[0][0] == pytest.approx(1.0)


def test_an_unknown_edge_answer_is_one_clear_error() -> None:
    # constants now: a record (or research code) holds them, within their bounds
    with pytest.raises(HeurtuneError, match="edge_answer must be one of curved, always, off"):
        SamplerSpec.from_record("duels", {"edge_answer": "sometimes"}, "the study's record")
    with pytest.raises(HeurtuneError, match="edge_move_sd must be in"):
        SamplerSpec.from_record("duels", {"edge_move_sd": -1.0}, "the study's record")
    with pytest.raises(HeurtuneError, match="edge_answer is a fixed constant"):
        SamplerSpec.parse("duels", {"edge_answer": "off"}, "study.toml [sampler]")
