"""``duels``' ``guard_z`` option: the baseline instead of an answer the held-out duels
measure at or below the baseline and ``guard_z`` sd or more below the model."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

from heurtune.engine.heuristics.oracle import CASES, loss
from heurtune.tuning.after.answers import default_answer, study_answers
from heurtune.tuning.samplers import GUARDED, MeasuredGain
from heurtune.tuning.samplers.duels import DuelsSampler
from heurtune.tuning.samplers.registry import SAMPLERS, SamplerSpec
from heurtune.tuning.views import bounds_text, fit_text
from tests.helpers import ROOT
from tests.tuning.samplers.test_samplers import oracle_dir, oracle_study, run_oracle


def test_the_default_is_3_sd_and_older_studies_keep_no_guard() -> None:
    option = SAMPLERS["duels"].options["guard_z"]
    assert option.default == 3.0 and (option.low, option.high) == (0.0, 100.0)
    assert SamplerSpec.from_record("duels", {"z": 1.0}, "test").options["guard_z"] == 0.0
    resumed = SamplerSpec.parse("duels", {}, "file").resuming({"guard_z": 0.0})
    assert resumed.options["guard_z"] == 0.0


@pytest.mark.parametrize("measured, low, high, bar, fires", [
    (-20.0, -40.0, 0.0, 3.0, True),     # far below the model and below the baseline
    (-20.0, -40.0, 0.0, 0.0, False),    # guard_z = 0: never
    (5.0, -15.0, 25.0, 3.0, False),     # far below the model, but a gain: it stands
    (0.0, -5.0, 5.0, 3.0, True),        # exactly no gain, 10 sd below the model
    (-3.0, -60.0, 54.0, 3.0, False),    # too uncertain to lie 3 sd from the model
    (-20.0, -40.0, 0.0, 20.0, False),   # a higher bar
])
def test_the_guard_withdraws_only_an_answer_measured_below_the_baseline_and_the_model(
        measured: float, low: float, high: float, bar: float, fires: bool) -> None:
    me = SimpleNamespace(options={"guard_z": bar})
    m = MeasuredGain(measured, low, high, 10, 320)
    got = DuelsSampler.guard(me, {"x1": 3.0}, 50.0, 5.0, m)  # type: ignore[arg-type]
    assert (got is not None) == fires
    if got is not None:
        assert got["params"] == {"x1": 3.0} and got["measured_gain"] == measured
        assert got["apart"] <= -bar and got["model_gain"] == 50.0
    assert DuelsSampler.guard(me, {"x1": 3.0}, 50.0, 5.0, None) is None  # type: ignore[arg-type]


@pytest.mark.slow
def test_on_a_spike_at_the_baseline_the_study_answers_the_baseline_not_a_loss(
        oracle, tmp_path: Path) -> None:
    """``spike`` (benchmarks/cases/real_shapes.py: two weights whose good values lie in a
    narrow band around the baseline's): the model's answer lies far below the baseline,
    the held-out duels measure it so, and the study answers the baseline instead,
    naming the answer it withdrew; the same seed without the guard samples the same
    duels and answers the loss."""
    runpy.run_path(str(ROOT / "benchmarks" / "cases" / "real_shapes.py"))
    guarded, base = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "spike", "duels", 16, 0), 3000, 0)
    plain, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "spike", "duels", 16, 0,
                                       "guard_z = 0.0"), 3000, 0)
    assert [t.params for t in guarded.trials] == [t.params for t in plain.trials]
    on, off = default_answer(guarded, base), default_answer(plain, base)
    case = CASES["spike"]
    assert loss(case, off.params) > case.start_elo + 100.0  # far below the baseline
    assert on.name == "duels" and on.detail["is_baseline"] and GUARDED not in off.detail
    assert loss(case, on.params) == pytest.approx(case.start_elo)
    withdrawn = on.detail[GUARDED]
    assert withdrawn["params"] == off.params and withdrawn["measured_gain"] <= 0.0
    assert withdrawn["apart"] <= -3.0 and on.detail["guard_z"] == 3.0
    text = fit_text(on.detail)
    assert "the study answers the baseline (guard_z)" in text
    assert f"{withdrawn['measured_gain']:+.1f} Elo" in text and 'search = "broad"' in text
    assert text.endswith("beside a good baseline, narrower duels (radius = 0.5) may find more")
    # where the duels are that narrow already, the sentence does not advise it
    narrow = fit_text({**on.detail, "radius": 0.5})
    assert narrow.endswith("narrower ranges around the defaults may find more")
    unrecorded = fit_text({k: v for k, v in on.detail.items() if k != "radius"})
    assert unrecorded.endswith("narrower duels (radius = 0.5) may find more")
    # the withdrawn model's slope at a bound is no advice either
    assert bounds_text({**on.detail, "beyond_bounds": {"x1": "upper"}}) == ""
    assert bounds_text({**off.detail, "beyond_bounds": {"x1": "upper"}}) != ""
    # the answer list: one answer per parameter set, unless asked for every one
    names = [a.name for a in study_answers(guarded, base)]
    assert names == ["best"] and [a.name for a in study_answers(guarded, base, repeated=True)
                                  ] == ["best", "duels"]


@pytest.mark.slow
def test_on_a_bowl_the_guard_changes_nothing(oracle, tmp_path: Path) -> None:
    """``fishtest``, 3,000 games: no answer is measured below the baseline, so the
    guarded and the unguarded study answer alike."""
    guarded, base = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "fishtest", "duels", 16, 1),
                               3000, 1)
    plain, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "fishtest", "duels", 16, 1,
                                       "guard_z = 0.0"), 3000, 1)
    on, off = default_answer(guarded, base), default_answer(plain, base)
    assert on.params == off.params and GUARDED not in on.detail
