"""The duels prior widened at the box's edge (``edge_prior``, duels.fit_at_edges):
after a fit, the gradient's prior variance is made ``edge_prior`` times wider along
the coordinates whose fitted maximum lies at an edge with a curvature at least the
prior's, and the model refitted, so the fit stops shrinking the slope out to an edge
optimum toward zero; elsewhere the prior is as it was."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers import DuelsSampler, SamplerSpec
from heurtune.tuning.samplers.duels import EDGE_ROOM, fit_at_edges
from heurtune.tuning.samplers.quadratic import Observation, QuadraticModel

EDGE = 0.4  # the upper bound of x1, relative to the baseline (a near edge, as ``edge``'s)
LOW, HIGH = -np.ones(2), np.array([EDGE, 1.0])
# the duels a sampler plays there: x1's edge against points inside, x2 around the centre
DUELS = (((EDGE, 0.0), (EDGE - 1.0, 0.0)), ((EDGE - 0.5, 0.0), (EDGE, 0.0)),
         ((EDGE - 0.5, 0.0), (EDGE - 1.0, 0.0)), ((0.0, 0.5), (0.0, -0.5)),
         ((0.0, 0.0), (0.0, 1.0)), ((EDGE, 0.5), (EDGE, -0.5)))


def truth(d: np.ndarray, best: tuple[float, float]) -> float:
    """3 Elo per half range squared around ``best``, 0 at the baseline."""
    return float(sum(-3.0 * ((x - b) ** 2 - b ** 2) for x, b in zip(d, best, strict=True)))


def observed(best: tuple[float, float]) -> QuadraticModel:
    """The duels' expected scores (400 games each, 20 times over) on that landscape."""
    model = QuadraticModel(2)
    for _ in range(20):
        for plus, minus in DUELS:
            a, b = np.array(plus), np.array(minus)
            score = 1.0 / (1.0 + 10.0 ** (-(truth(a, best) - truth(b, best)) / 400.0))
            model.add(Observation(a, b, score, 400))
    return model


def test_off_it_is_the_fit_and_its_maximum() -> None:
    model, plain = observed((0.7, 0.2)), observed((0.7, 0.2))
    top = fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 1.0)
    plain.fit()
    assert model.widen is None
    assert np.array_equal(top, plain.argmax_mean(LOW, HIGH, np.zeros(2)))
    assert np.array_equal(model.mean, plain.mean)


def test_at_an_edge_the_gradient_is_shrunk_less_and_the_gain_comes_nearer_the_truth() -> None:
    best = (0.7, 0.2)  # x1's best beyond the bound at 0.4
    narrow, wide = observed(best), observed(best)
    top_narrow = fit_at_edges(narrow, LOW, HIGH, np.zeros(2), EDGE_ROOM, 1.0)
    top = fit_at_edges(wide, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0)
    assert top[0] == pytest.approx(EDGE) and top_narrow[0] == pytest.approx(EDGE)
    assert wide.widen is not None and wide.widen.tolist() == [4.0, 1.0]  # x1 only
    true_slope = 2 * 3.0 * best[0]
    assert narrow.mean[0] < wide.mean[0] <= true_slope  # the gradient at the baseline
    true_gain = truth(top, best)
    assert narrow.gain(top_narrow)[0] < wide.gain(top)[0] <= true_gain + 0.2
    assert abs(wide.gain(top)[0] - true_gain) < 0.5 * abs(narrow.gain(top_narrow)[0] - true_gain)
    # the refit starts over: the next fit is the prior's again until the test passes
    wide.widen = None
    wide.fit()
    assert np.allclose(wide.mean, narrow.mean)


def test_inside_the_box_the_prior_stays() -> None:
    model = observed((0.1, 0.2))  # the best inside
    top = fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0)
    assert top[0] < EDGE - EDGE_ROOM and model.widen is None


def test_a_margin_on_the_evidence_can_hold_it_back() -> None:
    model = observed((0.7, 0.2))
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, margin=1e6)
    assert model.widen is None
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, margin=-1e6)
    assert model.widen is not None


def test_a_bar_on_the_plain_fits_gain_can_hold_it_back() -> None:
    model = observed((0.7, 0.2))
    model.fit()
    mean, sd = model.gain(model.argmax_mean(LOW, HIGH, np.zeros(2)))
    assert mean > 0.0
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, gain_z=mean / sd + 0.1)
    assert model.widen is None  # the maximum's gain is not that sure
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, gain_z=mean / sd - 0.1)
    assert model.widen is not None


def test_the_option_is_validated_and_reaches_the_sampler() -> None:
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0) for i in range(2)))
    for bad in (0.5, -2.0, -0.5, "wide"):
        with pytest.raises(HeurtuneError, match="edge_prior"):
            SamplerSpec.parse("duels", {"edge_prior": bad}, "test")
    with pytest.raises(HeurtuneError, match=r"edge_prior must be -1 or 0 or in \[1.0, 10000.0\]"):
        SamplerSpec.parse("duels", {"edge_prior": 0.5}, "test")
    assert SamplerSpec.parse("duels", {"edge_prior": 0}, "test").options["edge_prior"] == 0.0
    assert SamplerSpec.parse("duels", {"edge_prior": -1}, "test").options["edge_prior"] == -1.0
    spec = SamplerSpec.parse("duels", {"edge_prior": 8.0}, "test")
    s = DuelsSampler(space, {"x1": 100.0, "x2": 100.0}, dict(spec.options), 0, 0)
    assert s.options["edge_prior"] == 8.0


def test_it_waits_for_the_duels_it_is_told_to() -> None:
    model = observed((0.7, 0.2))  # 120 duels
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, after=model.observations + 1)
    assert model.widen is None  # one duel short: the plain fit
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, after=model.observations)
    assert model.widen is not None and model.widen.tolist() == [4.0, 1.0]


def test_a_bar_on_the_curvatures_certainty_can_hold_it_back() -> None:
    model = observed((0.7, 0.2))
    model.fit()
    assert np.array_equal(model.surely_curved(0.0), model.curved())
    assert not model.surely_curved(1e6).any()  # no curvature is that sure
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, curved_z=1e6)
    assert model.widen is None
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, curved_z=0.0)
    assert model.widen is not None


def test_the_sampler_waits_so_many_duels_per_coefficient(monkeypatch) -> None:
    """``edge_prior_after`` duels per coefficient of the model (5 in two parameters:
    two slopes, two curvatures, one interaction) before the prior widens."""
    import heurtune.tuning.samplers.duels as duels_module
    seen: list[int] = []

    def spy(*args, after: int = 0, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(after)
        return fit_at_edges(*args, after=after, **kwargs)
    monkeypatch.setattr(duels_module, "fit_at_edges", spy)
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0) for i in range(2)))
    for bad in (-1.0, "soon"):
        with pytest.raises(HeurtuneError, match="edge_prior_after"):
            SamplerSpec.parse("duels", {"edge_prior_after": bad}, "test")
    for per, expected in ((0.0, 0), (8.0, 40), (2.5, 13)):
        spec = SamplerSpec.parse("duels", {"edge_prior": 4.0, "edge_prior_after": per}, "t")
        s = DuelsSampler(space, {"x1": 100.0, "x2": 100.0}, dict(spec.options), 0, 0)
        s.update([])
        assert seen[-1] == expected


def test_a_bar_on_the_slope_toward_the_edge_can_hold_it_back() -> None:
    model = observed((0.7, 0.2))  # x1's slope at the baseline points up, to its edge
    model.fit()
    up = model.slope_toward(np.ones(2))
    assert up[0] > 0.0 and np.allclose(model.slope_toward(-np.ones(2)), -up)
    sd = np.sqrt(np.diag(model.cov)[:2])
    assert np.allclose(up, model.mean[:2] / sd)
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, slope_z=up[0] + 0.1)
    assert model.widen is None  # the slope toward the edge is not that sure
    fit_at_edges(model, LOW, HIGH, np.zeros(2), EDGE_ROOM, 4.0, slope_z=up[0] - 0.1)
    assert model.widen is not None and model.widen.tolist() == [4.0, 1.0]


def test_the_slope_bar_option_reaches_the_fit(monkeypatch) -> None:
    import heurtune.tuning.samplers.duels as duels_module
    seen: list[float | None] = []

    def spy(*args, slope_z: float | None = None, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(slope_z)
        return fit_at_edges(*args, slope_z=slope_z, **kwargs)
    monkeypatch.setattr(duels_module, "fit_at_edges", spy)
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0) for i in range(2)))
    # a constant now (0): a record (or research code) may hold another value
    for bad in (-1.0, 11.0):
        with pytest.raises(HeurtuneError, match="edge_prior_slope_z must be in"):
            SamplerSpec.from_record("duels", {"edge_prior_slope_z": bad}, "test")
    with pytest.raises(HeurtuneError, match="edge_prior_slope_z is a fixed constant"):
        SamplerSpec.parse("duels", {"edge_prior_slope_z": 1.0}, "test")
    for z, expected in ((0.0, None), (1.0, 1.0)):
        spec = SamplerSpec.from_record("duels", {"edge_prior": 4.0, "edge_prior_slope_z": z},
                                       "t")
        s = DuelsSampler(space, {"x1": 100.0, "x2": 100.0}, dict(spec.options), 0, 0)
        s.update([])
        assert seen[-1] == expected


def test_the_default_widens_from_eight_parameters_on_and_waits_for_both_gates_below(
        monkeypatch) -> None:
    """``edge_prior = -1``, the default: 4 in 8 or more searched parameters at once;
    below, 4 once the model holds 8 duels per coefficient and along a slope 1 sd sure
    (docs/results/optimisers.md, "Below 8 parameters: the second rule"); ``edge_prior = 0``
    as on 2026-11-27 (4 from 8 on, off below, no gates); a value set is kept in any
    number of parameters, and so are the gates' options where set."""
    import heurtune.tuning.samplers.duels as duels_module
    from heurtune.tuning.samplers.duels import (
        AUTO_AFTER,
        AUTO_EDGE_PRIOR,
        AUTO_SLOPE_Z,
        MANY_PARAMETERS,
        EdgePrior,
        edge_prior_for,
        edge_prior_in_effect,
    )
    assert SamplerSpec.parse("duels", {}, "t").options["edge_prior"] == -1.0
    assert (MANY_PARAMETERS, AUTO_EDGE_PRIOR, AUTO_AFTER, AUTO_SLOPE_Z) == (8, 4.0, 8.0, 1.0)
    assert [edge_prior_for(-1.0, d) for d in (1, 4, 7, 8, 13)] == [4.0] * 5
    assert [edge_prior_for(0.0, d) for d in (1, 4, 7, 8, 13)] == [1.0, 1.0, 1.0, 4.0, 4.0]
    assert edge_prior_for(1.0, 13) == 1.0 and edge_prior_for(2.0, 4) == 2.0
    default = SamplerSpec.parse("duels", {}, "t").options
    assert edge_prior_in_effect(default, 7) == EdgePrior(4.0, 8.0, 1.0)
    assert edge_prior_in_effect(default, 8) == EdgePrior(4.0, 0.0, 0.0)
    both = {**default, "edge_prior_after": 16.0}
    assert edge_prior_in_effect(both, 4) == EdgePrior(4.0, 16.0, 1.0)
    assert edge_prior_in_effect(both, 8) == EdgePrior(4.0, 16.0, 0.0)
    assert edge_prior_in_effect({**default, "edge_prior": 4.0}, 4) == EdgePrior(4.0, 0.0, 0.0)
    assert edge_prior_in_effect({**default, "edge_prior": 0.0}, 4) == EdgePrior(1.0, 0.0, 0.0)
    with pytest.raises(HeurtuneError, match=r"edge_prior must be -1 or 0 or in \[1.0, 10000.0\], "
                                            r"got 0.5"):
        SamplerSpec.parse("duels", {"edge_prior": 0.5}, "t")
    seen: list[tuple[float, int, float | None]] = []

    def spy(model, low, high, centre, room, edge_prior, after=0, slope_z=None,  # type: ignore[no-untyped-def]
            **kwargs):
        seen.append((edge_prior, after, slope_z))
        return fit_at_edges(model, low, high, centre, room, edge_prior, after=after,
                            slope_z=slope_z, **kwargs)
    monkeypatch.setattr(duels_module, "fit_at_edges", spy)
    # in d parameters the model has 2d + d(d-1)/2 coefficients: 35 in 7, so 8 per: 280
    for dim, options, expected in ((7, {}, (4.0, 280, 1.0)), (8, {}, (4.0, 0, None)),
                                   (8, {"edge_prior": 1.0}, (1.0, 0, None)),
                                   (7, {"edge_prior": 0.0}, (1.0, 0, None)),
                                   (4, {"edge_prior": 4.0}, (4.0, 0, None)),
                                   (4, {"edge_prior_slope_z": 2.0}, (4.0, 112, 2.0))):
        space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0)
                                      for i in range(dim)))
        spec = SamplerSpec.parse("duels", options, "t", internal=True)  # slope_z: a constant
        s = DuelsSampler(space, {p.name: 100.0 for p in space.params}, dict(spec.options), 0, 0)
        s.update([])
        assert seen[-1] == expected, (dim, options)
    # the parameters searched count, not those fixed: 7 searched and 1 fixed waits
    space = ParamSpace("t", tuple(FloatParam(f"x{i + 1}", 0.0, 200.0, 100.0) for i in range(8)),
                       {"x8": 100.0})
    assert len(space.searched) == 7
    spec = SamplerSpec.parse("duels", {}, "t")
    s = DuelsSampler(space, {p.name: 100.0 for p in space.params}, dict(spec.options), 0, 0)
    s.update([])
    assert seen[-1] == (4.0, 280, 1.0)


def test_a_record_of_an_older_study_means_the_former_default() -> None:
    """A study records every option now; an older one recorded only those that
    differed from the defaults of its day, so a missing ``edge_prior`` there was 1."""
    spec = SamplerSpec.parse("duels", {}, "t")
    assert spec.recorded() == dict(spec.options) and spec.recorded()["edge_prior"] == -1.0
    # a record of 2026-11-27 (every option, edge_prior 0) keeps that day's meaning
    day = SamplerSpec.from_record("duels", {**spec.recorded(), "edge_prior": 0.0}, "t")
    assert day.options["edge_prior"] == 0.0
    assert SamplerSpec.from_record("duels", spec.recorded(), "t") == spec
    assert SamplerSpec.from_record("duels", {}, "t").options["edge_prior"] == 1.0
    assert SamplerSpec.from_record("duels", {"edge_prior": 4.0}, "t").options["edge_prior"] == 4.0
    assert SamplerSpec.from_record("tpe", {}, "t") == SamplerSpec.parse("tpe", {}, "t")
    with pytest.raises(HeurtuneError, match="unknown sampler"):
        SamplerSpec.from_record("nope", {}, "t")
    # a study file resuming such a study: the former default, unless the file sets it
    assert spec.resuming({}).options["edge_prior"] == 1.0
    assert spec.resuming(spec.recorded()) is spec
    # one of 2026-11-27 (edge_prior 0 recorded): its 0, unless the file sets a value
    assert spec.resuming({**spec.recorded(), "edge_prior": 0.0}).options["edge_prior"] == 0.0
    assert spec.resuming({"z": 1.0}).options["edge_prior"] == 1.0
    set_four = SamplerSpec.parse("duels", {"edge_prior": 4.0}, "t")
    # (such a record lacks ``narrow``, ``narrow_from``, ``guard_z``, ``guard_record`` and
    # ``reach`` too, which such studies ran without: their former defaults, heurtune 0.2.0)
    assert set_four.resuming({}).options == {**set_four.options, "narrow": 0.0,
                                             "narrow_from": 0.0, "guard_z": 0.0,
                                             "guard_record": 0.0, "reach": 0.0}
    # only a value that was a default in its day is kept: a study that set 4 and a
    # file that no longer does is a change (the study records it), and a file that
    # sets the new default explicitly has it
    assert spec.resuming({**spec.recorded(), "edge_prior": 4.0}) is spec
    explicit = SamplerSpec.parse("duels", {"edge_prior": -1}, "t")
    assert explicit.resuming({**spec.recorded(), "edge_prior": 0.0}) is explicit
    assert explicit.resuming({}).options == {**explicit.options, "narrow": 0.0,
                                             "narrow_from": 0.0, "guard_z": 0.0,
                                             "guard_record": 0.0, "reach": 0.0}
    assert spec.given_names == frozenset() and explicit.given_names == {"edge_prior"}
