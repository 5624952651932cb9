"""Exports an engine reads as they are: ``--format uci`` writes only setoption lines
(the provenance beside them), ``--trial N`` exports a chosen trial marked as such,
and ``confirmed`` means what export's refusal means: found better than the baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
import pytest

from heurtune.engine import EngineConfig
from heurtune.tomlio import read_toml
from tests.helpers import cli


def _own_copy(small_study: Any, tmp_path: Path) -> str:
    """The shared tiny study's storage, copied: these exports record themselves in
    the study (its note names the last export), which other tests read."""
    import shutil

    shutil.copy(small_study.db, tmp_path / "h.db")
    return f"sqlite:///{tmp_path / 'h.db'}"


def test_uci_export_is_setoption_lines_only(small_study: Any, tmp_path: Path,
                                            capsys: Any) -> None:
    out = tmp_path / "iso.uci"
    code, stdout, err = cli(capsys, "export", "iso", "--storage", _own_copy(small_study, tmp_path),
                            "--format", "uci", "--out", str(out), "--force")
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines and all(line.startswith("setoption name ") and " value " in line
                         for line in lines)
    sidecar = tmp_path / "iso.provenance.toml"
    assert f"and {sidecar}" in stdout
    data = read_toml(sidecar)
    assert data["provenance"]["study"] == "iso"
    # the sidecar is the engine file itself: it loads, with the same weights
    config = EngineConfig.load(sidecar)
    assert [f"setoption name {k} value {v!r}" for k, v in config.params.items()] == lines


def test_export_a_chosen_trial(small_study: Any, tmp_path: Path, capsys: Any) -> None:
    storage = _own_copy(small_study, tmp_path)
    study = optuna.load_study(study_name="iso", storage=storage)
    numbers = [t.number for t in study.get_trials(deepcopy=False)
               if t.state == optuna.trial.TrialState.COMPLETE]
    chosen = numbers[-1]
    out = tmp_path / "chosen.toml"
    code, _out, err = cli(capsys, "export", "iso", "--storage", storage,
                          "--trial", str(chosen), "--out", str(out))
    assert code == 0, err
    prov = read_toml(out)["provenance"]
    assert prov["trial"] == chosen and prov["confirmed"] is False
    assert "chosen by hand" in prov["note"] and "unproven" in prov
    assert err.startswith("heurtune: warning: written by hand: ")
    params = read_toml(out)["params"]
    assert {k: params[k] for k in study.trials[chosen].params} == pytest.approx(
        study.trials[chosen].params)  # (on the grid: 0.2, not 0.20000000000000018)
    code, _out, err = cli(capsys, "export", "iso", "--storage", storage,
                          "--trial", "999", "--out", str(tmp_path / "none.toml"))
    assert code == 2 and "has no completed trial 999" in err and err.count("\n") == 1
    assert not (tmp_path / "none.toml").exists()


def test_confirmed_means_found_better(small_study: Any) -> None:
    prov = read_toml(small_study.exported)["provenance"]
    confirmation = prov["confirmation"]
    assert prov["confirmed"] is ("no_gain" not in confirmation)
    assert ("unproven" in prov) is (not prov["confirmed"])
