"""benchmarks/duels_design.py (what a design of duels can know of the best's gain) and
benchmarks/beyond_bounds.py (how often answers name a bound)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run

DESIGN = ROOT / "benchmarks" / "duels_design.py"
BEYOND = ROOT / "benchmarks" / "beyond_bounds.py"


def _run(script, cwd, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300, check=False)


def test_the_c_optimal_design_knows_the_best_at_least_as_well(tmp_path) -> None:
    proc = _run(DESIGN, tmp_path, "--case", "edge", "--duels", "100", "--path", "0.5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    sd = {line.split("duels")[1].split("sd at")[0].strip():
          float(line.split("sd at the best ")[1].split(",")[0].split(";")[0])
          for line in proc.stdout.splitlines()}
    assert set(sd) == {"current", "path 0.5", "c-optimal"}
    # Frank-Wolfe starts from the sampler's design and only ever lowers the sd
    assert sd["c-optimal"] <= sd["current"] and sd["path 0.5"] < sd["current"]


def test_bad_input_is_one_line_and_exit_2(tmp_path) -> None:
    for script, args in ((DESIGN, ["--case", "nope"]), (DESIGN, ["--duels", "x"]),
                         (DESIGN, ["--path", "2"]), (BEYOND, ["nope", "3"]), (BEYOND, [])):
        proc = _run(script, tmp_path, *args)
        assert proc.returncode == 2, (script, args)
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) >= 1


def test_the_slope_at_an_edge_is_extrapolated_and_hardly_learnt(tmp_path) -> None:
    # in the interior the duels straddle the best and measure its slope directly
    # (sd falling as 1 / sqrt(duels)); at the box's edge they cannot, and the slope
    # there stays near the prior's uncertainty (docs/results/optimisers.md)
    proc = _run(DESIGN, tmp_path, "--case", "fishtest,edge", "--duels", "250,4000",
                "--no-optimal", "--path", "")
    assert proc.returncode == 0, proc.stderr[-3000:]
    slope = {(line.split()[0], int(line.split()[1])):
             float(line.split("slope at the best ")[1]) for line in proc.stdout.splitlines()}
    assert slope["fishtest", 250] / slope["fishtest", 4000] > 3.0  # 16 times the duels
    assert slope["edge", 250] / slope["edge", 4000] < 1.5
    assert slope["edge", 4000] > 4 * slope["fishtest", 4000]
