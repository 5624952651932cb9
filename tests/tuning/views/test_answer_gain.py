"""A duels study's answer and its gain over the baseline in the views: measured by
held-out duels first, the model's prediction labelled model-based, in the
study note (and so the report's facts), the held-out duels' trial notes and
the trials table."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import optuna
import pandas as pd
import pytest
from optuna_dashboard import get_note

from heurtune.match.oracle import OracleRunner, oracle_game
from heurtune.tuning import tune
from heurtune.tuning.samplers import SamplerSpec, is_holdout
from heurtune.tuning.study import duel_of, load_study, open_storage
from heurtune.tuning.studyfile import load_study_file
from heurtune.tuning.views import Dashboard, gain_text, study_facts, trials_table


@pytest.fixture(scope="module")
def duel_study(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, optuna.Study]]:
    """A duels study of the oracle's skewed case, with held-out duels (every 5th
    trial), tuned with the dashboard's notes."""
    path = tmp_path_factory.mktemp("gain") / "skewed.toml"
    path.write_text("""
[study]
name = "o"
game = "oracle"
opponent = "oracle:skewed"
trials = 100000
pairs = 16
seed = 2
[engine]
heuristic = "skewed"
[sampler]
kind = "duels"
""")
    with oracle_game():
        # every 5th trial held out (a constant, set as research code sets one)
        sf = load_study_file(path)
        sf = replace(sf, sampler=SamplerSpec.parse("duels", {"holdout_every": 5}, str(path),
                                                   internal=True))
        runner = OracleRunner(seed=2)
        url = f"memory:{path}"
        tune(sf, storage_url=url, runner=runner, until=lambda _s: runner.games >= 3000,
             observer=Dashboard())
        yield url, load_study(open_storage(url), "o")


def test_the_study_note_shows_the_measured_and_the_model_based_gain(duel_study) -> None:
    _url, study = duel_study
    facts = dict(study_facts(study, None))
    row = facts["answer duels"]
    assert "gain over the baseline: measured " in row and "held-out duels" in row
    assert "; model-based " in row and " Elo (sd " in row
    assert row.index("measured") < row.index("model-based")  # the measurement first
    assert "| answer duels | " in get_note(study)


def test_gain_text_says_what_is_known() -> None:
    model_only = {"is_baseline": False, "model_gain": 3.14, "model_gain_sd": 0.5}
    assert gain_text(model_only) == "model-based +3.1 Elo (sd 0.5)"
    unmeasured = {**model_only, "measured_gain": None, "measured_gain_ci": None}
    assert gain_text(unmeasured).startswith("measured: not yet")
    measured = {**model_only, "measured_gain": 1.04, "measured_gain_ci": [-9.5, 11.6],
                "measured_duels": 7, "measured_games": 224}
    assert gain_text(measured) == ("measured +1.0 Elo [-9.5, +11.6] over 7 held-out duels "
                                   "against the baseline (224 games); model-based +3.1 Elo "
                                   "(sd 0.5)")
    assert gain_text({"is_baseline": True, "model_gain": 0.0, "model_gain_sd": 0.0}) == (
        "the baseline itself (no gain claimed)")
    assert gain_text({"score": 0.6}) == ""  # the best trial: nothing to say


def test_held_out_duels_in_the_trial_notes_and_the_trials_table(duel_study) -> None:
    url, study = duel_study
    held = [t for t in study.trials if is_holdout(duel_of(t))]
    assert held
    for t in held:
        note = get_note(optuna.Trial(study, t._trial_id))
        assert "Against the baseline (a held-out duel: the sampler's answer measured" in note
        assert f"model-based prediction of this gain {duel_of(t)['model_gain']:+.1f} Elo" in note
    other = next(t for t in study.trials if duel_of(t) is not None and not is_holdout(duel_of(t)))
    assert "Against the sampler's other weights (x1 = " in get_note(optuna.Trial(study, other._trial_id))
    df = trials_table(url, "o").set_index("number")
    assert {"duel", "model_based_gain", "model_based_gain_sd"} <= set(df.columns)
    assert pd.isna(df.loc[0, "duel"])  # the baseline trial played the match
    for t in study.trials:
        duel = duel_of(t)
        if is_holdout(duel):
            assert df.loc[t.number, "duel"] == "held-out"
            assert df.loc[t.number, "model_based_gain"] == pytest.approx(duel["model_gain"])
        elif duel is not None:
            assert df.loc[t.number, "duel"] == "search"
            assert pd.isna(df.loc[t.number, "model_based_gain"])


def test_a_match_study_keeps_its_table_and_note(small_study, tmp_path: Path) -> None:
    study = optuna.load_study(study_name="iso", storage=small_study.storage)
    assert not any(name.startswith("answer") for name, _ in study_facts(study, None))
    df = trials_table(small_study.storage, "iso")
    assert not {"duel", "model_based_gain"} & set(df.columns)
