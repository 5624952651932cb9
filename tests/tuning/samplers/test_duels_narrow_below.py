"""``duels``' ``narrow_below`` setting (a constant, 0): the duels' radius narrowed also where the
held-out duels measure the answer at or below the baseline and ``narrow_below`` sd or
more below the model's gain (the guard's test)."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

from heurtune.errors import HeurtuneError
from heurtune.tuning.after.answers import default_answer, study_answers
from heurtune.tuning.samplers import MeasuredGain
from heurtune.tuning.samplers import duels as duels_module
from heurtune.tuning.samplers.duels import NARROW_BAR, RADIUS, DuelsSampler, is_holdout
from heurtune.tuning.samplers.registry import SAMPLERS, SamplerSpec
from heurtune.tuning.study import duel_of
from heurtune.tuning.studyfile import load_study_file
from heurtune.tuning.views import fit_text
from tests.helpers import ROOT
from tests.tuning.samplers.test_samplers import (
    load_oracle_study,
    oracle_dir,
    oracle_study,
    run_oracle,
)


def test_it_is_off_by_default_and_a_record_without_it_ran_without_it() -> None:
    option = SAMPLERS["duels"].options["narrow_below"]
    assert option.default == 0.0 and (option.low, option.high) == (0.0, 100.0)
    assert SamplerSpec.from_record("duels", {"z": 1.0}, "test").options["narrow_below"] == 0.0


@pytest.mark.parametrize("value", ["-1.0", "101.0", "\"low\""])
def test_a_value_out_of_bounds_is_refused(oracle, tmp_path: Path, value: str) -> None:
    # a constant now: a study file may not set it at all, a record only within bounds
    with pytest.raises(HeurtuneError, match="narrow_below is a fixed constant"):
        load_study_file(oracle_study(tmp_path, "far", "duels", 16, 0, f"narrow_below = {value}"))
    with pytest.raises(HeurtuneError, match="narrow_below must be"):
        load_oracle_study(oracle_study(tmp_path, "far", "duels", 16, 0,
                                       f"narrow_below = {value}"))


def _sampler(below: float, narrowed_at: int | None = None) -> SimpleNamespace:
    """Just what :meth:`DuelsSampler.narrow` reads and writes."""
    me = SimpleNamespace(options={"narrow": 0.5, "narrow_z": 5.0, "narrow_from": 3.0,
                                  "narrow_below": below, "radius": 1.0},
                         held_out=[], radius=1.0, narrowed_at=narrowed_at, narrowed_bar=None)
    me._narrowed = lambda radius, number, bar=None: DuelsSampler._narrowed(
        me, radius, number, bar)  # type: ignore[arg-type]
    return me


@pytest.mark.parametrize("measured, low, high, below, fires", [
    (-20.0, -40.0, 0.0, 3.0, True),    # at or below the baseline, far below the model
    (0.0, -5.0, 5.0, 3.0, True),       # exactly no gain, 10 sd below the model
    (-20.0, -40.0, 0.0, 0.0, False),   # narrow_below = 0: never
    (5.0, -15.0, 25.0, 3.0, False),    # far below the model, but a gain: no
    (-3.0, -60.0, 54.0, 3.0, False),   # too uncertain to lie 3 sd from the model
    (-20.0, -40.0, 0.0, 20.0, False),  # a higher bar
])
def test_it_narrows_on_the_guards_test_once_recording_the_bar_negative(
        monkeypatch, measured: float, low: float, high: float, below: float,
        fires: bool) -> None:
    m = MeasuredGain(measured, low, high, 10, 320)
    monkeypatch.setattr(duels_module, "measured_gain", lambda held, point: m)
    me = _sampler(below)
    got = DuelsSampler.narrow(me, None, 50.0, 5.0, 70)  # type: ignore[arg-type]
    assert got == fires
    assert (me.radius, me.narrowed_at, me.narrowed_bar) == (
        (0.5, 70, -below) if fires else (1.0, None, None))
    # once: a study already narrowed (on either test) does not narrow again
    again = _sampler(below, narrowed_at=30)
    assert not DuelsSampler.narrow(again, None, 50.0, 5.0, 70)  # type: ignore[arg-type]
    # narrow = 0 turns both tests off
    off = _sampler(below)
    off.options["narrow"] = 0.0
    assert not DuelsSampler.narrow(off, None, 50.0, 5.0, 70)  # type: ignore[arg-type]


def test_above_the_model_narrow_z_still_decides(monkeypatch) -> None:
    m = MeasuredGain(120.0, 110.0, 130.0, 10, 320)  # 12 sd above a model of 50 (5)
    monkeypatch.setattr(duels_module, "measured_gain", lambda held, point: m)
    me = _sampler(3.0)
    assert DuelsSampler.narrow(me, None, 50.0, 5.0, 40)  # type: ignore[arg-type]
    assert me.narrowed_bar == 3.0  # the rising bar's first look, as without narrow_below


@pytest.mark.slow
def test_on_a_spike_the_duels_narrow_on_the_guards_signal(oracle, tmp_path: Path) -> None:
    """``spike`` (benchmarks/cases/real_shapes.py): the held-out duels measure the model's
    answer below the baseline and far below the model, the guard's signal; with
    ``narrow_below = 3`` the duels narrow there, the same duels as without it until
    then, and the answer's sentence says which test narrowed them."""
    runpy.run_path(str(ROOT / "benchmarks" / "cases" / "real_shapes.py"))
    plain, base = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "spike", "duels", 16, 0),
                             3000, 0)
    below, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "spike", "duels", 16, 0,
                                       "narrow_below = 3.0"), 3000, 0)
    off, on = default_answer(plain, base), default_answer(below, base)
    assert off.detail["narrowed_at"] is None and off.detail["narrow_below"] == 0.0
    at = on.detail["narrowed_at"]
    assert at is not None and on.detail["radius"] == 0.5 and on.detail["narrow_bar"] == -3.0
    first = next(t for t in below.trials if t.number == at)
    assert is_holdout(duel_of(first)) and duel_of(first)[RADIUS] == 0.5
    assert duel_of(first)[NARROW_BAR] == -3.0
    assert ([t.params for t in plain.trials if t.number < at]
            == [t.params for t in below.trials if t.number < at])
    assert "measured the answer at or below the baseline and 3 sd below the model's gain " \
           "(narrow_below)" in fit_text(on.detail)


@pytest.mark.slow
def test_on_a_bowl_it_changes_nothing(oracle, tmp_path: Path) -> None:
    """``fishtest``, 3,000 games: no answer is measured below the baseline, so the
    study plays the same duels and answers alike."""
    plain, base = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "fishtest", "duels", 16, 1),
                             3000, 1)
    below, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "fishtest", "duels", 16, 1,
                                       "narrow_below = 3.0"), 3000, 1)
    assert [t.params for t in plain.trials] == [t.params for t in below.trials]
    # duels' own answer (by 3,000 games it may still be the baseline, which the best
    # trial is too, and which study_answers then lists once, as the best trial)
    own = next(a for a in study_answers(below, base, repeated=True) if a.name == "duels")
    assert own.detail["narrowed_at"] is None and own.detail["radius"] == 1.0
