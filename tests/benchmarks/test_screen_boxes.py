"""benchmarks/screen_boxes.py: heurtune screen on a real box of real_optimisers.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "screen_boxes.py"


def test_a_real_box_is_screened_as_its_study_file_says(tmp_path) -> None:
    out = tmp_path / "s.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--setups", "morris-fine-2", "--pairs",
                           "3", "--jobs", "1", "--out", str(out)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (data,) = json.loads(out.read_text())["screens"]
    assert data["study"] == "morris-fine-2" and data["pairs"] == 3
    # the box's five weights, each at five points and the baseline's value (morris-fine-2's
    # start), every other weight pinned; the study tunes with duels at radius 1
    assert [p["name"] for p in data["params"]] == ["move_stones", "move_mills",
                                                   "move_possible_mills", "move_open_mills",
                                                   "move_blocked"]
    blocked = next(p for p in data["params"] if p["name"] == "move_blocked")
    assert [q["value"] for q in blocked["points"] if q["baseline"]] == [0.95]
    assert blocked["points"][0]["value"] == 0.0 and blocked["points"][-1]["value"] == 3.45
    assert "lopsided" in blocked and "advice" in data
    assert "== morris-fine-2: " in proc.stderr
    bad = subprocess.run([sys.executable, str(SCRIPT), "--setups", "nope"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'nope'" in bad.stderr
