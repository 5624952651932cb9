"""Faults in plain sight: games lost by engine faults are counted in every trial,
match and confirmation, shown by tune, trials, the study note and the report, and
a trial whose engine faulted in more than the study's fault_share fails with the
reason (a broken engine cannot finish a study as if it had lost fairly)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from heurtune.tuning.study import schema
from heurtune.tuning.views import study_facts, trials_table
from tests.helpers import cli

FAKE = Path(__file__).parents[1] / "engine" / "data" / "fake_engine.py"


def _study(tmp_path: Path, mode: str, trials: int = 6, extra: str = "") -> Path:
    path = tmp_path / f"{mode}.toml"
    path.write_text(f"""[study]
name = "{mode}"
game = "isolation"
opponent = "isolation:random"
trials = {trials}
pairs = 3
seed = 3
sampler = "random"
fault_share = 0.2

[engine.process]
command = [{sys.executable!r}, {str(FAKE)!r}, "{mode}"]

[engine.search]
nodes = 10

[pruner]
kind = "none"
{extra}""")
    return path


def test_trials_whose_engine_faults_fail_with_the_reason(tmp_path: Path, capsys: Any) -> None:
    storage = f"sqlite:///{tmp_path / 's.db'}"
    code, out, err = cli(capsys, "tune", str(_study(tmp_path, "wild-illegal")), "--storage",
                         storage)
    assert code == 0, err
    study = optuna.load_study(study_name="wild-illegal", storage=storage)
    trials = study.get_trials(deepcopy=False)
    failed = [t for t in trials if t.state == TrialState.FAIL]
    good = [t for t in trials if t.state == TrialState.COMPLETE]
    assert failed and good  # wild weights fault, calm ones play
    for t in failed:
        assert t.params["style"] == "wild"
        reason = t.user_attrs[schema.FAULTED]
        assert "by its own faults (illegal move" in reason and "fault_share 0.2" in reason
        assert t.user_attrs["faults"]["illegal"] >= 2
        assert f"trial {t.number:>3} failed   its engine lost" in err
    assert all(t.params["style"] == "calm" and "faults" not in t.user_attrs for t in good)
    # failed for faults, they count toward the target: the study ends
    assert len(trials) == 6 and "Traceback" not in err
    table = trials_table(storage, "wild-illegal")
    assert set(table.columns) >= {"faults", schema.FAULTED}
    assert table.loc[table["state"] == "FAIL", "faults"].str.startswith("illegal move").all()
    facts = dict(study_facts(study, None))
    assert "the tuned engine lost" in facts["engine faults"]
    assert "trials failed for them" in facts["engine faults"]
    code, out, _ = cli(capsys, "trials", "wild-illegal", "--storage", storage)
    assert code == 0 and "illegal move" in out


def test_a_study_whose_target_is_reached_with_faulted_trials_confirms(
        tmp_path: Path, capsys: Any) -> None:
    """Trials failed for faults count toward the target everywhere: the study is
    done, its [confirm] section runs, and a second tune starts no trial."""
    storage = f"sqlite:///{tmp_path / 's.db'}"
    path = _study(tmp_path, "wild-illegal", trials=4, extra="\n[confirm]\ntop = 1\npairs = 2\n")
    code, out, err = cli(capsys, "tune", str(path), "--storage", storage)
    assert code == 0, err
    study = optuna.load_study(study_name="wild-illegal", storage=storage)
    states = [t.state for t in study.get_trials(deepcopy=False)]
    assert len(states) == 4 and TrialState.FAIL in states
    assert f"4 finished trials ({states.count(TrialState.FAIL)} failed for engine faults)" in out
    assert schema.CONFIRMATION in study.user_attrs
    code, out, err = cli(capsys, "tune", str(path), "--storage", storage)
    assert code == 0, err
    assert "already has 4 finished trials" in out
    assert len(optuna.load_study(study_name="wild-illegal", storage=storage).trials) == 4


def test_a_baseline_that_faults_stops_the_study(tmp_path: Path, capsys: Any) -> None:
    storage = f"sqlite:///{tmp_path / 's.db'}"
    code, _out, err = cli(capsys, "tune", str(_study(tmp_path, "illegal")), "--storage", storage)
    assert code == 2 and "Traceback" not in err
    assert "at its baseline weights (trial 0) its engine lost" in err.strip().splitlines()[-1]
    study = optuna.load_study(study_name="illegal", storage=storage)
    assert [t.state for t in study.get_trials(deepcopy=False)] == [TrialState.FAIL]


def test_a_match_says_how_many_games_were_lost_by_faults(tmp_path: Path, capsys: Any) -> None:
    engine = tmp_path / "e.toml"
    engine.write_text(f'game = "isolation"\nname = "fake-illegal"\n[process]\ncommand = '
                      f'[{sys.executable!r}, {str(FAKE)!r}, "illegal"]\n[search]\nnodes = 10\n')
    code, out, _ = cli(capsys, "match", str(engine), "isolation:random", "--pairs", "2")
    assert code == 0
    assert "faults: the engine lost 4 of 4 games by faults (illegal move 4)" in out
