"""benchmarks/step_trace.py: the duels step traced on one real study."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

import heurtune.tuning.samplers.duels as duels
from tests.helpers import ROOT, load_script

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "step_trace.py"


def _module():
    return load_script("step_trace")


@pytest.mark.slow
def test_the_trace_is_the_answers_own_step() -> None:
    m = _module()
    rows = m.run("isolation", 0, [640, 1280])
    assert [r["budget"] for r in rows] == [640, 1280]
    assert duels.step_toward.__name__ == "step_toward"  # put back after the run
    for r in rows:
        t = r["trace"]
        assert t is not None and set(r["params"]) == {"own_start", "opp_start", "opp_end",
                                                      "own2", "opp2"}
        assert 0.0 <= t["moved"] <= 1.0 and t["span"] >= 0.0
        assert math.isclose(t["bar"], 0.8 * math.sqrt(5 / 4))  # the default step_sd
        assert [a["t"] for a in t["along"]] == list(m.ALONG)
        for a in t["along"]:
            assert a["sd"] >= 0.0 and math.isclose(a["ratio"] * a["sd"], a["step"], abs_tol=1e-9)
        # the step never goes where its own gain is below the bar
        if t["moved"] > 0.0:
            assert t["along"][0]["ratio"] >= t["bar"] or t["moved"] < m.ALONG[0]
    assert "games  answer" in m.line(rows[0])


@pytest.mark.parametrize("args", [("--game", "chess"), ("--budgets", "0"),
                                  ("--budgets", "many")])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120, check=False)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "step_trace:" in proc.stderr
