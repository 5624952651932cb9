"""benchmarks/answer_rules.py: answer rules read off the very same stand-in runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.benchmarks.test_duels_variants import _module
from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "answer_rules.py"


def _run(cwd, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, check=False)


def test_every_rule_reads_the_same_runs_as_the_stand_in_plays_them(tmp_path) -> None:
    proc = _run(tmp_path, "--case", "offcentre", "--rules", "step-off,current,edge-off,centre",
                "--seeds", "2", "--budget", "4000", "--workers", "1", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {r["rule"]: r for r in map(json.loads, proc.stdout.splitlines())}
    assert list(rows) == ["step-off", "current", "edge-off", "centre"]
    m = _module()
    case = m.CASES["offcentre"]
    runs = [m.run(case, m.VARIANTS["current"], seed, 4000, True) for seed in (0, 1)]
    # the runs are current's (--aligned): its answers and the model's maximum, as played
    assert rows["current"]["losses"] == [[round(x, 4) for x in r[0]] for r in runs]
    assert rows["centre"]["losses"] == [[round(x, 4) for x in r[1]] for r in runs]
    # every rule paired with the first, seed by seed
    base = rows["step-off"]
    assert all(v == [0.0, 0.0] for v in base["paired"].values())
    k = base["checkpoints"].index(4000)
    mean_4k = sum(rows["current"]["losses"][s][k] - base["losses"][s][k] for s in (0, 1)) / 2
    assert abs(rows["current"]["paired"]["4000"][0] - mean_4k) < 1e-3
    assert rows["current"]["minus"] == "step-off" and rows["current"]["seeds"] == 2


def test_first_seed_runs_the_seeds_from_there(tmp_path) -> None:
    proc = _run(tmp_path, "--case", "two", "--rules", "current,reach-auto", "--seeds", "1",
                "--first-seed", "7", "--budget", "2000", "--workers", "1", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {r["rule"]: r for r in map(json.loads, proc.stdout.splitlines())}
    m = _module()
    run = m.run(m.CASES["two"], m.VARIANTS["current"], 7, 2000, True)
    assert rows["current"]["losses"] == [[round(x, 4) for x in run[0]]]
    assert rows["reach-auto"]["seeds"] == 1


def test_an_unknown_rule_or_case_is_one_line_and_exit_2(tmp_path) -> None:
    for args in (["--rules", "current,nope"], ["--case", "nope"], ["--rules", "fixed"],
                 ["--seeds", "0"], ["--cases", "missing.py"], ["--first-seed", "-1"]):
        proc = _run(tmp_path, *args)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr and proc.stderr.strip().splitlines()[-1]
