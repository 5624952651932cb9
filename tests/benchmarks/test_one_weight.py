"""benchmarks/one_weight.py: points of a real box against its baseline."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "one_weight.py"


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, check=False)


def test_points_and_an_answer_taken_apart_play_the_baseline(tmp_path) -> None:
    proc = _run(tmp_path, "--setup", "isolation-eight", "--pairs", "6", "--point",
                "distance=0", "--answer", "own2=1,distance=-0.35")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = dict(re.findall(r"^(.+?)\s+([+-][0-9.]+) Elo \[", proc.stdout, re.M))
    # the defaults against themselves: the same moves, an even score
    assert float(rows["distance=0"]) == 0.0
    assert {"the answer", "the answer, own2 at its default", "the answer, distance at its default",
            "the defaults, own2 = 1", "the defaults, distance = -0.35"} <= set(rows)
    assert len(rows) == 1 + 1 + 8 + 2  # a point, the answer, each weight back, each moved
    again = _run(tmp_path, "--setup", "isolation-eight", "--pairs", "6", "--point", "distance=-0.35")
    assert again.stdout.splitlines()[0].split()[-4] == rows["the defaults, distance = -0.35"]


def test_bad_input_is_one_line_and_exit_2(tmp_path) -> None:
    for args in (["--setup", "nope", "--point", "x=1"], ["--setup", "isolation-eight"],
                 ["--setup", "isolation-eight", "--point", "territory=1"],
                 ["--setup", "isolation-eight", "--point", "distance=low"]):
        proc = _run(tmp_path, *args)
        assert proc.returncode == 2, args
        last = proc.stderr.strip().splitlines()[-1]
        assert last.startswith("one_weight.py: error: ") and "Traceback" not in proc.stderr, args
