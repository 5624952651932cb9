"""Where an answer's measured gain (held-out duels) and its model-based gain disagree:
``heurtune.tuning.samplers.disagreement`` and the sentence ``tune`` and the study's
facts say (``heurtune.tuning.views.fit_text``)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from heurtune.tuning.after.answers import default_answer
from heurtune.tuning.samplers import DISAGREE_Z, disagreement
from heurtune.tuning.views import fit_text, study_facts
from tests.tuning.samplers.test_samplers import oracle_study, run_oracle

# a real Morris answer (morris-seven, seed 0, 8,000 games): the model +133.0 (sd 16.7),
# the held-out duels +259.2 [+222.1, +302.2]; it confirmed at +250.8 on fresh games
MORRIS = {"is_baseline": False, "model_gain": 133.03, "model_gain_sd": 16.66,
          "measured_gain": 259.22, "measured_gain_ci": [222.10, 302.18],
          "measured_duels": 8, "measured_games": 256}


def test_the_gains_apart_in_sd_of_both_the_measured_side_toward_the_model() -> None:
    se = (259.22 - 222.10) / 1.96  # the measured interval's side toward the model
    assert disagreement(MORRIS) == pytest.approx((259.22 - 133.03) / math.hypot(16.66, se))
    assert disagreement(MORRIS) > 4.9
    below = {**MORRIS, "model_gain": 400.0, "model_gain_sd": 10.0}
    se = (302.18 - 259.22) / 1.96
    assert disagreement(below) == pytest.approx((259.22 - 400.0) / math.hypot(10.0, se))


def test_no_figure_without_both_gains_or_for_the_baseline() -> None:
    assert disagreement({}) is None
    assert disagreement({**MORRIS, "is_baseline": True}) is None
    assert disagreement({**MORRIS, "measured_gain": None, "measured_gain_ci": None}) is None
    assert disagreement({**MORRIS, "model_gain": None}) is None
    for ci in ([1.0], "xy", 5, [None, 2.0]):  # a malformed record reads as none
        assert disagreement({**MORRIS, "measured_gain_ci": ci}) is None
    # an interval to infinity (a measured score of 0 or 1) says nothing
    assert disagreement({**MORRIS, "measured_gain_ci": [-math.inf, math.inf]}) is None
    assert disagreement({**MORRIS, "model_gain_sd": 0.0, "measured_gain": 133.03,
                         "measured_gain_ci": [133.03, 133.03]}) is None


def test_the_sentence_names_both_gains_and_what_to_do_from_the_threshold_on() -> None:
    text = fit_text(MORRIS)
    assert text.startswith("the held-out duels measure +259.2 Elo where the model predicts "
                           "+133.0 (5.0 sd apart): the landscape is not the bowl")
    assert 'search = "broad"' in text
    over = fit_text({**MORRIS, "model_gain": 400.0, "model_gain_sd": 10.0})
    assert "the model overrates its answer" in over and "broad" not in over
    # just under the threshold: nothing said
    sd = 10.0
    se = (302.18 - 259.22) / 1.96
    near = 259.22 - (DISAGREE_Z - 0.01) * math.hypot(sd, se)
    assert fit_text({**MORRIS, "model_gain": 259.22 + (259.22 - near),
                     "model_gain_sd": sd}) == ""
    assert fit_text({}) == "" and fit_text({**MORRIS, "is_baseline": True}) == ""


def _answer_row(study) -> str:
    return next(v for k, v in study_facts(study, None) if k.startswith("answer "))


@pytest.mark.slow
def test_a_broad_landscape_is_named_and_a_fine_tuning_one_is_not(oracle, tmp_path: Path) -> None:
    """On the oracle's ``broad`` case (wells, the baseline 150 Elo below) the model
    underrates its answer by far; on ``far`` (a bowl, 10 Elo below) it does not."""
    study, base = run_oracle(oracle_study(tmp_path, "broad", "duels", 16, 0), 4000, 0)
    found = default_answer(study, base)
    assert found.name == "duels"
    assert disagreement(found.detail) > DISAGREE_Z
    assert "the landscape is not the bowl the model fits" in _answer_row(study)
    study, base = run_oracle(oracle_study(tmp_path, "far", "duels", 16, 1), 8000, 1)
    found = default_answer(study, base)
    assert found.name == "duels" and found.detail["measured_gain"] is not None
    assert abs(disagreement(found.detail)) < DISAGREE_Z
    assert "held-out duels measure" not in _answer_row(study)


@pytest.mark.slow
def test_tune_prints_the_sentence_under_the_answer(tmp_path: Path, capsys,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``tune``'s lines after a study whose answer's gains disagree (the real Morris
    answer's detail, given as the study's answer): the answer with its gains, then the
    sentence; with the gains agreeing, no sentence."""
    from heurtune.tuning import run
    from heurtune.tuning.after.answers import Answer
    from tests.helpers import SMALL_STUDY, cli
    study = tmp_path / "iso.toml"
    study.write_text(SMALL_STUDY.replace("trials = 5", "trials = 2"))
    for name, detail in (("d1", MORRIS), ("d2", {**MORRIS, "model_gain": 250.0})):
        monkeypatch.setattr(run, "default_answer", lambda _s, base, d=detail: Answer(
            "duels", {"own_start": 1.0}, None, d))
        code, out, err = cli(capsys, "tune", str(study), "--storage",
                             f"sqlite:///{tmp_path / (name + '.db')}")
        assert code == 0, err
        lines = out.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("answer duels: "))
        assert "gain over the baseline: measured +259.2 Elo" in lines[at]
        if name == "d1":
            assert lines[at + 1] == "answer duels: " + fit_text(MORRIS)
        else:
            assert not any("held-out duels measure" in line for line in lines)
