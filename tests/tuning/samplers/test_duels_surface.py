"""``duels``' small surface: a study file sets five options, every other setting is a
constant of the sampler (refused in a study file in one line), studies stored with
older settings resume with them (the former defaults, one table by heurtune version),
and today's default answers what heurtune 0.2.0's did for the same seeds."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from heurtune.errors import HeurtuneError
from heurtune.tuning.after.answers import default_answer, sampler_spec
from heurtune.tuning.samplers import SAMPLERS, SamplerSpec
from heurtune.tuning.samplers import duels as duels_module
from heurtune.tuning.samplers import duels_constants as dc
from heurtune.tuning.samplers.registry import DUELS_FORMER_DEFAULTS, Former
from tests.tuning.samplers.test_samplers import oracle_study, run_oracle

# every setting of duels and its default, in order, as heurtune 0.2.0 recorded them
# (``SamplerSpec.parse("duels", {}, ...).recorded()`` at a9c8841)
DEFAULTS_0_2_0 = {
    "elo_per_range": 2.0, "start_elo": 2.0, "edge_prior": -1.0, "edge_prior_after": 0.0,
    "edge_prior_slope_z": 0.0, "z": 1.0, "step_sd": 0.8, "reach": -1.0,
    "edge_answer": "curved", "edge_move_sd": 0.3, "radius": 1.0, "narrow": 0.5,
    "narrow_z": 5.0, "narrow_from": 3.0, "narrow_below": 0.0, "guard_z": 3.0,
    "guard_record": 0.5, "curvature_share": 0.2, "holdout_every": 10}
FILE_OPTIONS = ("elo_per_range", "start_elo", "edge_prior", "edge_prior_after", "radius")


def test_a_study_file_sets_five_options_and_every_other_setting_is_a_constant() -> None:
    kind = SAMPLERS["duels"]
    assert kind.file_options == FILE_OPTIONS
    assert set(kind.constants) == set(DEFAULTS_0_2_0) - set(FILE_OPTIONS)
    # the defaults are 0.2.0's, to the order a study records them in
    recorded = SamplerSpec.parse("duels", {}, "t").recorded()
    assert recorded == DEFAULTS_0_2_0 and list(recorded) == list(DEFAULTS_0_2_0)
    # each constant is the named one of duels_constants
    for name in kind.constants:
        assert kind.options[name].default == getattr(dc, name.upper()), name
    # the other samplers have none
    assert all(not k.constants for k in SAMPLERS.values() if k.name != "duels")


@pytest.mark.parametrize("name, value", [
    ("z", 1.5), ("step_sd", 0.0), ("reach", 0.0), ("edge_answer", "off"),
    ("edge_move_sd", 0.0), ("edge_prior_slope_z", 1.0), ("narrow", 0.0), ("narrow_z", 3.0),
    ("narrow_from", 0.0), ("narrow_below", 3.0), ("guard_z", 0.0), ("guard_record", 0.0),
    ("curvature_share", 0.5), ("holdout_every", 0)])
def test_a_constant_in_a_study_file_is_refused_in_one_line(name: str, value: Any) -> None:
    with pytest.raises(HeurtuneError) as caught:
        SamplerSpec.parse("duels", {name: value, "radius": 0.5}, "s.toml [sampler]")
    message = str(caught.value)
    default = SAMPLERS["duels"].options[name].default
    assert message == (f"s.toml [sampler]: {name} is a fixed constant of sampler 'duels' now "
                       f"({default!r}), not an option: remove it from the study file "
                       '(docs/duels.md, "Constants", says why)')
    assert "\n" not in message
    # a study's record and research code still set it
    for spec in (SamplerSpec.from_record("duels", {name: value}, "record"),
                 SamplerSpec.parse("duels", {name: value}, "research", internal=True)):
        assert spec.options[name] == value


def test_an_unknown_option_names_the_options_a_study_file_may_set() -> None:
    with pytest.raises(HeurtuneError, match=r"sampler 'duels' has no option\(s\) \['rdius'\] "
                       r"\(options: edge_prior, edge_prior_after, elo_per_range, radius, "
                       r"start_elo\)"):
        SamplerSpec.parse("duels", {"rdius": 0.5}, "s.toml [sampler]")


def test_the_former_defaults_are_one_table_by_heurtune_version() -> None:
    assert DUELS_FORMER_DEFAULTS == {"0.2.0": {
        "edge_prior": Former(1.0, (0.0,)), "narrow": Former(0.0, (0.0,)),
        "narrow_from": Former(0.0, (0.0,)), "guard_z": Former(0.0, (0.0,)),
        "guard_record": Former(0.0, (0.0,)), "reach": Former(0.0, (0.0,))}}
    kind = SAMPLERS["duels"]
    assert kind.former_defaults is DUELS_FORMER_DEFAULTS
    # what a record lacking the option ran with, and the days' defaults a full record
    # may hold (as before the table was keyed by version)
    assert kind.missing_defaults == {"edge_prior": 1.0, "narrow": 0.0, "narrow_from": 0.0,
                                     "guard_z": 0.0, "guard_record": 0.0, "reach": 0.0}
    assert kind.past_defaults == {"edge_prior": (0.0,), "narrow": (0.0,), "narrow_from": (0.0,),
                                  "guard_z": (0.0,), "guard_record": (0.0,), "reach": (0.0,)}


def test_the_former_defaults_of_several_versions_combine() -> None:
    from dataclasses import replace
    kind = replace(SAMPLERS["duels"], former_defaults={
        "0.2.0": {"reach": Former(0.0, (0.0,))},
        "0.3.0": {"reach": Former(-1.0, (-1.0,)), "z": Former(1.0, (1.0,))}})
    # a record lacking it is the oldest's; any version's default may be held
    assert kind.missing_defaults == {"reach": 0.0, "z": 1.0}
    assert kind.past_defaults == {"reach": (0.0, -1.0), "z": (1.0,)}


# a record of heurtune 0.2.0 before it held guard_record, narrow_from and reach: the
# options of its day, narrow and guard off (their defaults then), and a step_sd its
# study file set by hand (a constant now)
OLD_RECORD = {k: v for k, v in DEFAULTS_0_2_0.items()
              if k not in ("guard_record", "narrow_from", "reach")} | {
    "narrow": 0.0, "guard_z": 0.0, "step_sd": 0.5}


def test_a_record_resumes_with_its_days_values_and_its_missing_options_former_defaults(
        ) -> None:
    file = SamplerSpec.parse("duels", {}, "s.toml [sampler]")
    resumed = file.resuming(OLD_RECORD)
    # held at a day's default: kept; missing: the former default
    assert resumed.options["narrow"] == 0.0 and resumed.options["guard_z"] == 0.0
    assert resumed.options["guard_record"] == 0.0 and resumed.options["narrow_from"] == 0.0
    assert resumed.options["reach"] == 0.0
    # a constant's value set by a study file of 0.2.0: today's constant (a change the
    # study records); every other setting as the file has it
    assert resumed.options["step_sd"] == dc.STEP_SD
    assert {k: v for k, v in resumed.options.items()
            if k not in ("narrow", "guard_z", "guard_record", "narrow_from", "reach")} == {
        k: v for k, v in file.options.items()
        if k not in ("narrow", "guard_z", "guard_record", "narrow_from", "reach")}
    # the answers read the record as it ran
    answered = SamplerSpec.from_record("duels", OLD_RECORD, "the study's record")
    assert answered.options == {**DEFAULTS_0_2_0, **OLD_RECORD, "guard_record": 0.0,
                                "narrow_from": 0.0, "reach": 0.0}


def test_a_stored_study_with_older_settings_resumes_with_them(
        oracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A ``far`` study stored by heurtune 0.2.0 (its record: ``reach = 0``, ``guard_z = 0``
    and ``narrow = 0``, the defaults of its day, no ``guard_record`` or ``narrow_from``)
    resumed by today's study file, which cannot set them: the sampler goes on with the
    record's values and the former defaults, the study's record is unchanged and nothing
    is said; the answers read them too."""
    seen: list[dict[str, Any]] = []
    init = duels_module.DuelsSampler.__init__

    def spy(self, *args: Any) -> None:  # type: ignore[no-untyped-def]
        init(self, *args)
        seen.append(dict(self.options))
    monkeypatch.setattr(duels_module.DuelsSampler, "__init__", spy)
    path = oracle_study(tmp_path, "far", "duels", 16, 1)
    study, base = run_oracle(path, 1000, 1)
    old = {k: v for k, v in DEFAULTS_0_2_0.items() if k not in ("guard_record", "narrow_from")} | {
        "reach": 0.0, "guard_z": 0.0, "narrow": 0.0}
    study.set_user_attr("sampler", {**study.user_attrs["sampler"], "options": old})
    had = len(study.trials)
    seen.clear()
    with caplog.at_level(logging.WARNING, logger="heurtune"):
        study, _ = run_oracle(path, 2000, 1)  # the same storage: resumed
    assert len(study.trials) > had
    assert "other sampler settings" not in caplog.text
    assert study.user_attrs["sampler"]["options"] == old  # no change recorded
    options = seen[-1]  # the sampler that played the resumed trials
    assert options["reach"] == 0.0 and options["guard_z"] == 0.0
    assert options["narrow"] == 0.0 and options["narrow_from"] == 0.0
    assert options["guard_record"] == 0.0
    spec = sampler_spec(study)[0]
    assert (spec.options["reach"], spec.options["guard_record"]) == (0.0, 0.0)
    detail = default_answer(study, base).detail
    assert detail["reach"] == 0.0 and detail["guard_z"] == 0.0 and not detail["reached"]
    # a constant its study file had set by hand (not a default of its day): the file
    # cannot set it now, so the study goes on with the constant and records the change
    study.set_user_attr("sampler", {**study.user_attrs["sampler"],
                                    "options": {**old, "step_sd": 0.5}})
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="heurtune"):
        study, _ = run_oracle(path, 2500, 1)
    assert "other sampler settings than it recorded (step_sd 0.5 -> 0.8)" in caplog.text
    record = study.user_attrs["sampler"]
    # (recorded in full now: the former defaults it ran with, filled in)
    assert record["options"] == {**old, "step_sd": 0.8, "guard_record": 0.0, "narrow_from": 0.0}
    assert record["earlier"][-1]["options"] == {**old, "step_sd": 0.5}
    assert seen[-1]["step_sd"] == 0.8 and seen[-1]["reach"] == 0.0


# Today's default on three oracle cases, fixed seeds: the answers heurtune 0.2.0 (a9c8841)
# gave, to the last digit on the machine they were made on (an OpenBLAS SkylakeX kernel);
# another kernel rounds differently, hence the relative tolerance
MAIN_ANSWERS = [
    ("fishtest", 0, 3000, 94, {"x1": 155.72263074727192, "x2": 145.40121490021468,
                               "x3": 146.42075503921495, "x4": 136.22751503536935},
     0.26514831536724487, 32.66801858052783, 1.0, None),
    ("far", 1, 8000, 250, {"x1": 121.68127678369865, "x2": 124.07971152530122,
                           "x3": 105.78819751620117, "x4": 125.22544399109931},
     2.364520440837426, 10.86089841744591, 1.0, None),
    ("broad", 0, 4000, 125, {"x1": 42.41421584564213, "x2": 79.76653639040816,
                             "x3": 120.9932739290708, "x4": 160.09444445166926},
     34.36594942945463, 133.37323283940944, 0.5, 50),
]


@pytest.mark.parametrize("case, seed, games, trials, params, model_gain, measured_gain, "
                         "radius, narrowed_at", MAIN_ANSWERS)
def test_the_default_answers_as_heurtune_0_2_0_did(
        oracle, tmp_path: Path, case: str, seed: int, games: int, trials: int,
        params: dict[str, float], model_gain: float, measured_gain: float, radius: float,
        narrowed_at: int | None) -> None:
    study, base = run_oracle(oracle_study(tmp_path, case, "duels", 16, seed), games, seed)
    found = default_answer(study, base)
    assert found.name == "duels" and len(study.trials) == trials
    assert found.params == pytest.approx(params, rel=1e-6)
    assert found.detail["model_gain"] == pytest.approx(model_gain, rel=1e-5)
    assert found.detail["measured_gain"] == pytest.approx(measured_gain, rel=1e-6)
    assert found.detail["radius"] == radius and found.detail["narrowed_at"] == narrowed_at
