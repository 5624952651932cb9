"""The study note during ``tune``: rewritten after a finished trial at most every
``NOTE_SECONDS`` by each worker (a rewrite is about 20 storage round trips) and
once more when the run ends, so the note left behind counts every trial."""

from __future__ import annotations

from typing import Any

import optuna
import pytest
from optuna_dashboard import get_note

from heurtune.match.oracle import OracleRunner, oracle_game
from heurtune.tuning import run as run_module
from heurtune.tuning import tune
from heurtune.tuning.study import load_study, open_storage
from heurtune.tuning.studyfile import load_study_file
from heurtune.tuning.views import Dashboard

STUDY = """
[study]
name = "n"
game = "oracle"
opponent = "oracle:fishtest"
trials = 6
pairs = 4
seed = 5
sampler = "random"
[engine]
heuristic = "fishtest"
[pruner]
kind = "none"
"""


class CountingDashboard(Dashboard):
    def __init__(self) -> None:
        super().__init__(None)
        self.rewrites = 0

    def refresh(self, study: optuna.Study) -> None:
        self.rewrites += 1
        super().refresh(study)


@pytest.mark.parametrize("seconds,rewrites", [(1e9, 2), (0.0, 6)])
def test_the_study_note_is_rewritten_at_most_every_note_seconds_and_at_the_end(
        tmp_path, monkeypatch, seconds: float, rewrites: int) -> None:
    monkeypatch.setattr(run_module, "NOTE_SECONDS", seconds)
    path = tmp_path / "n.toml"
    path.write_text(STUDY)
    board = CountingDashboard()
    url = f"memory:{tmp_path}-{seconds}"
    with oracle_game():
        tune(load_study_file(path), storage_url=url, runner=OracleRunner(seed=5),
             observer=board)
    # 1e9: after the first trial and when the run ends; 0: after every trial only
    assert board.rewrites == rewrites
    note: Any = get_note(load_study(open_storage(url), "n"))
    assert "| trials | 6 complete, 0 pruned, 0 failed, 0 running |" in note
