"""``duels``' ``narrow`` setting (a constant): the duels' radius narrowed once the
held-out duels measure the answer's gain ``DISAGREE_Z`` sd or more above the model's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from heurtune.engine.heuristics.oracle import CASES, loss
from heurtune.errors import HeurtuneError
from heurtune.tuning.after.answers import default_answer
from heurtune.tuning.samplers import DISAGREE_Z, disagreement
from heurtune.tuning.samplers._duel import DuelSampler
from heurtune.tuning.samplers.duels import NARROW_BAR, RADIUS, DuelsSampler, is_holdout, narrow_bar
from heurtune.tuning.samplers.registry import SAMPLERS, SamplerContext, SamplerSpec
from heurtune.tuning.study import duel_of
from heurtune.tuning.studyfile import load_study_file
from tests.tuning.samplers.test_samplers import (
    load_oracle_study,
    oracle_dir,
    oracle_study,
    run_oracle,
)


def _duels(study) -> list:
    return [t for t in study.trials if duel_of(t) is not None]


def test_the_default_halves_the_radius_at_a_bar_from_3_to_5_sd_older_studies_keep_theirs() -> None:
    options = SAMPLERS["duels"].options
    assert options["narrow"].default == 0.5 and (options["narrow"].low,
                                                  options["narrow"].high) == (0.0, 1.0)
    assert options["narrow_z"].default == 5.0 and options["narrow_from"].default == 3.0
    # a study recorded before the option existed ran without it, and goes on so
    assert SamplerSpec.from_record("duels", {"z": 1.0}, "test").options["narrow"] == 0.0
    resumed = SamplerSpec.parse("duels", {}, "file").resuming({"narrow": 0.0})
    assert resumed.options["narrow"] == 0.0
    # one recorded with the flat bar (no narrow_from in its record, or 0) keeps it
    assert SamplerSpec.from_record("duels", {"narrow": 0.5}, "t").options["narrow_from"] == 0.0
    flat = SamplerSpec.parse("duels", {}, "file").resuming(
        {**SamplerSpec.parse("duels", {}, "f").recorded(), "narrow_from": 0.0})
    assert flat.options["narrow_from"] == 0.0


@pytest.mark.slow
def test_on_broad_wells_the_radius_narrows_and_the_answer_finds_the_optimum(
        oracle, tmp_path: Path) -> None:
    """``broad`` (wells 40 wide, the baseline 150 Elo below): duels a half range wide
    smooth the wells over and the answer stalls far short; once the held-out duels
    measure more than the model predicts, the duels narrow to half the radius and the
    answer reaches the optimum. Same seed, same games until then."""
    plain, base = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "broad", "duels", 16, 0,
                                          "narrow = 0.0"), 4000, 0)
    narrowed, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "broad", "duels", 16, 0,
                                          "narrow = 0.5\nnarrow_z = 3.0"), 4000, 0)
    off, on = default_answer(plain, base), default_answer(narrowed, base)
    assert off.detail["radius"] == 1.0 and off.detail["narrowed_at"] is None
    assert on.detail["radius"] == 0.5
    at = on.detail["narrowed_at"]
    assert at is not None
    trials = _duels(narrowed)
    first = next(t for t in trials if t.number == at)
    assert is_holdout(duel_of(first)) and duel_of(first)[RADIUS] == 0.5
    # before it, the very duels of the study without the option; from it, every duel
    # records the radius and spans at most two of them (a gradient duel: 2 r)
    before = {t.number: t.params for t in _duels(plain) if t.number < at}
    assert before == {t.number: t.params for t in trials if t.number < at}
    for t in trials:
        if t.number > at and not is_holdout(duel_of(t)):
            duel = duel_of(t)
            assert duel[RADIUS] == 0.5
            span = np.abs(np.array(duel["plus_u"]) - np.array(duel["minus_u"]))
            assert span.max() <= 1.0 + 1e-9
    case = CASES["broad"]
    # 3.4 against 16.8 Elo with OpenBLAS's SkylakeX kernel, 3.1 against 11.5 with Haswell's
    # or Zen's (kernels round differently: the same seed's duels part later on)
    assert loss(case, on.params) < 5.0 and loss(case, on.params) + 5.0 < loss(case, off.params)
    # a sampler rebuilt from the stored trials (a resumed study, another worker) reads
    # the narrowed radius and where it narrowed
    spec = SamplerSpec.parse("duels", {"narrow": 0.5}, "test", internal=True)
    context = SamplerContext(space=base.heuristic_obj.space, baseline=dict(base.params))
    resumed = DuelsSampler(*DuelSampler.arguments(spec, 0, context))
    assert resumed.radius == 1.0
    resumed.update(narrowed.trials)
    assert resumed.radius == 0.5 and resumed.narrowed_at == at
    assert resumed.narrowed_bar == 3.0 == on.detail["narrow_bar"]  # the bar it cleared


@pytest.mark.slow
def test_on_a_bowl_it_never_narrows_and_changes_nothing(oracle, tmp_path: Path) -> None:
    """``far`` (a bowl, 10 Elo below): the gains agree, so the default changes nothing."""
    plain, base = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "far", "duels", 16, 1,
                                          "narrow = 0.0"), 8000, 1)
    narrowed, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "far", "duels", 16, 1),
                             8000, 1)
    on = default_answer(narrowed, base)
    assert abs(disagreement(on.detail)) < DISAGREE_Z
    assert on.detail["narrowed_at"] is None and on.detail["radius"] == 1.0
    assert on.params == default_answer(plain, base).params
    assert [t.params for t in _duels(plain)] == [t.params for t in _duels(narrowed)]
    assert not any(RADIUS in duel_of(t) for t in _duels(narrowed))


@pytest.mark.parametrize(("key", "value"), [
    ("narrow", "-0.1"), ("narrow", "1.5"), ("narrow", "\"half\""),
    ("narrow_from", "-1.0"), ("narrow_from", "101.0"), ("narrow_from", "\"low\"")])
def test_a_narrow_setting_out_of_bounds_is_refused(oracle, tmp_path: Path, key: str,
                                                   value: str) -> None:
    # a constant now: a study file may not set it at all, a record only within bounds
    with pytest.raises(HeurtuneError, match=f"{key} is a fixed constant"):
        load_study_file(oracle_study(tmp_path, "far", "duels", 16, 0, f"{key} = {value}"))
    with pytest.raises(HeurtuneError, match=f"{key} must be"):
        load_oracle_study(oracle_study(tmp_path, "far", "duels", 16, 0, f"{key} = {value}"))


def test_the_answer_says_where_the_duels_narrowed() -> None:
    from heurtune.tuning.views import fit_text
    said = ("the duels narrowed to a radius of 0.5 half ranges from trial 40 on, where the "
            "held-out duels first measured the answer's gain 3 sd above the model's (narrow)")
    agree = {"is_baseline": False, "model_gain": 100.0, "model_gain_sd": 5.0,
             "measured_gain": 101.0, "measured_gain_ci": [90.0, 112.0]}
    assert fit_text({**agree, "radius": 1.0, "narrowed_at": None}) == ""
    assert fit_text({**agree, "radius": 0.5, "narrowed_at": 40}) == said
    five = fit_text({**agree, "radius": 0.5, "narrowed_at": 40, "narrow_z": 5.0})
    assert five == said.replace("gain 3 sd", "gain 5 sd")
    apart = {**agree, "measured_gain": 160.0, "measured_gain_ci": [150.0, 170.0],
             "radius": 0.5, "narrowed_at": 40}
    text = fit_text(apart)
    assert text.startswith("the held-out duels measure +160.0 Elo") and text.endswith("; " + said)


def test_with_narrow_off_a_measurement_above_the_model_names_narrower_duels() -> None:
    from heurtune.tuning.views import fit_text
    above = {"is_baseline": False, "model_gain": 100.0, "model_gain_sd": 5.0,
             "measured_gain": 160.0, "measured_gain_ci": [150.0, 170.0]}
    tip = 'a broad search (search = "broad") or narrower duels (radius = 0.5) may find more'
    assert fit_text({**above, "narrow": 0.0}).endswith(tip)
    assert fit_text(above).endswith(tip)  # a detail without the setting: off
    assert fit_text({**above, "narrow": 0.0, "radius": 1.0}).endswith(tip)
    # duels that narrow already (radius = 0.5 set): not advised again
    assert fit_text({**above, "narrow": 0.0, "radius": 0.5}).endswith(
        'a broad search (search = "broad") may find more')
    on = fit_text({**above, "narrow": 0.5, "radius": 1.0, "narrowed_at": None})
    assert on.endswith('a broad search (search = "broad") may find more')
    below = fit_text({**above, "narrow": 0.0, "model_gain": 250.0})
    assert "narrow" not in below and "overrates" in below


@pytest.mark.slow
def test_a_study_without_narrowing_resumed_with_radius_half_duels_narrower(
        oracle, tmp_path: Path) -> None:
    """What the sentence advises: a ``broad`` study tuned without narrowing (as a study
    recorded before it: ``narrow = 0``), then resumed by its file with ``radius = 0.5``,
    duels half as wide after the trials it had, and goes on without narrowing, as it
    began."""
    plain = oracle_study(tmp_path, "broad", "duels", 16, 0, "narrow = 0.0")
    study, base = run_oracle(plain, 4000, 0)
    assert "narrower duels (radius = 0.5)" in fit_text_of(study, base)
    had = max(t.number for t in study.trials)
    # the study's record, as a study of before narrowing holds it: narrow = 0, a day's
    # default, which a file that does not set the option goes on with
    assert study.user_attrs["sampler"]["options"]["narrow"] == 0.0
    Path(plain).write_text(Path(plain).read_text().replace("narrow = 0.0", "radius = 0.5"))
    study, _ = run_oracle(plain, 2000, 0)  # the same storage: resumed, 2,000 games more
    found = default_answer(study, base)
    assert found.detail["radius"] == 0.5 and found.detail["narrow"] == 0.0
    record = study.user_attrs["sampler"]
    assert record["options"]["radius"] == 0.5 and record["options"]["narrow"] == 0.0
    later = [t for t in _duels(study) if t.number > had and not is_holdout(duel_of(t))]
    assert later
    for t in later:  # a gradient duel spans 2 r: at most one half range now
        duel = duel_of(t)
        span = np.abs(np.array(duel["plus_u"]) - np.array(duel["minus_u"]))
        assert span.max() <= 1.0 + 1e-9


def fit_text_of(study, base) -> str:
    from heurtune.tuning.views import fit_text
    return fit_text(default_answer(study, base).detail)


@pytest.mark.slow
def test_narrow_z_is_the_bar_the_disagreement_must_reach(oracle, tmp_path: Path) -> None:
    """The same ``broad`` study: at a bar no disagreement reaches it never narrows, at
    5 sd (flat, `narrow_from = 0`) no sooner than at 3."""
    runs = {}
    for name, bar in (("z3", "narrow_z = 3.0"), ("z5", "narrow_from = 0.0"),
                      ("z100", "narrow_z = 100.0\nnarrow_from = 0.0")):
        study, base = run_oracle(oracle_study(oracle_dir(tmp_path, name), "broad", "duels", 16, 0,
                                              f"narrow = 0.5\n{bar}"), 6000, 0)
        runs[name] = default_answer(study, base).detail["narrowed_at"]
    assert runs["z100"] is None
    assert runs["z3"] is not None and runs["z5"] is not None and runs["z5"] >= runs["z3"]


def test_narrow_bar_rises_one_sd_per_tenfold_held_out_duels_up_to_narrow_z() -> None:
    rising = {"narrow_z": 5.0, "narrow_from": 3.0}
    assert [narrow_bar(rising, k) for k in (1, 10, 100, 1000)] == [3.0, 4.0, 5.0, 5.0]
    assert abs(narrow_bar(rising, 40) - (3.0 + np.log10(40))) < 1e-12
    # off (0), or at or above narrow_z: narrow_z from the first held-out duel
    for start in (0.0, 5.0, 7.0):
        assert narrow_bar({"narrow_z": 5.0, "narrow_from": start}, 1) == 5.0
    assert narrow_bar({"narrow_z": 3.0}, 1) == 3.0  # a record without the option
    option = SAMPLERS["duels"].options["narrow_from"]
    assert (option.low, option.high) == (0.0, 100.0)


@pytest.mark.slow
def test_a_rising_bar_narrows_between_its_first_and_last_bar(oracle, tmp_path: Path) -> None:
    """The same ``broad`` study at 3 sd, rising from 3 to 5, and at 5: the rising bar
    narrows no sooner than 3 sd and no later than 5, records the bar it cleared (in the
    duel that narrowed, and the answer's sentence names it), and a study that never
    narrows is the flat bar's to the game."""
    runs = {}
    for name, bar in (("z3", "narrow_z = 3.0"), ("rising", ""), ("z5", "narrow_from = 0.0")):
        study, base = run_oracle(oracle_study(oracle_dir(tmp_path, name), "broad", "duels", 16, 0,
                                              f"narrow = 0.5\n{bar}"), 6000, 0)
        runs[name] = study, default_answer(study, base).detail
    at = {name: detail["narrowed_at"] for name, (_, detail) in runs.items()}
    assert at["z3"] <= at["rising"] <= at["z5"] and at["z3"] < at["z5"]
    study, detail = runs["rising"]
    bar = detail["narrow_bar"]
    assert 3.0 <= bar <= 5.0 and detail["narrow_from"] == 3.0
    first = next(t for t in study.trials if t.number == at["rising"])
    assert duel_of(first)[NARROW_BAR] == bar
    from heurtune.tuning.views import fit_text
    assert f"first measured the answer's gain {bar:.3g} sd above" in fit_text(detail)
    plain, base = run_oracle(oracle_study(oracle_dir(tmp_path, "far-z5"), "far", "duels", 16, 1,
                                          "narrow_from = 0.0"), 4000, 1)
    rising, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "far-rising"), "far", "duels", 16, 1),
                           4000, 1)
    assert default_answer(rising, base).detail["narrowed_at"] is None
    assert [t.params for t in _duels(plain)] == [t.params for t in _duels(rising)]
