"""benchmarks/real_optimisers.py in small form: real Isolation studies of a few
hundred games, their answers confirmed on a fixed set of fresh openings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PAIRS = 40  # confirmation pairs (80 games)
BUDGETS = (200, 400)


@pytest.mark.slow
def test_the_real_benchmark_runs_from_one_command(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "real_optimisers.py"
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    subprocess.run(
        [sys.executable, str(script), "--games", "isolation", "--samplers",
         "spsa,multivariate-tpe", "--seeds", "1", "--budgets", ",".join(map(str, BUDGETS)),
         "--pairs", "8", "--confirm-pairs", str(PAIRS), "--workers", "2",
         "--out", str(out), "--plot", str(png)],
        check=True, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    data = json.loads(out.read_text())
    assert data["settings"]["budgets"] == list(BUDGETS)
    assert data["setups"]["isolation"]["depth"] == 3
    # the baseline against itself: the same deterministic moves from both sides
    base = data["baseline_confirmed"]["isolation"]
    assert base["games"] == 2 * PAIRS and base["score"] == 0.5
    ref = data["reference_confirmed"]["isolation"]  # the exported study's values in the box
    assert ref["games"] == 2 * PAIRS and set(ref["params"]) == set(data["setups"]["isolation"]["box"])

    runs = data["runs"]
    assert sorted(r["sampler"] for r in runs) == ["multivariate-tpe", "spsa"]
    for r in runs:
        assert r["games"] >= BUDGETS[-1] and r["wall_seconds"] > 0
        assert [c["budget"] for c in r["checkpoints"]] == list(BUDGETS)
        assert all(0 < c["games"] <= c["budget"] for c in r["checkpoints"])

    recs = data["records"]
    for sampler, default in (("spsa", {"spsa", "best"}), ("multivariate-tpe", {"best"})):
        for budget in BUDGETS:
            here = [x for x in recs if x["sampler"] == sampler and x["budget"] == budget]
            defaults = [x for x in here if x["default"]]
            assert len(defaults) == 1 and defaults[0]["answer"] in default
            # every answer once: none repeats another's parameters
            assert len({json.dumps(x["params"], sort_keys=True) for x in here}) == len(here)
    for x in recs:
        c = x["confirmed"]
        assert c["games"] == 2 * PAIRS == c["wins"] + c["draws"] + c["losses"]
        assert 0.0 <= c["score_ci"][0] <= c["score"] <= c["score_ci"][1] <= 1.0
        assert c["elo_ci"][0] <= c["elo"] <= c["elo_ci"][1]
        assert c["diff_vs_baseline_ci"][0] <= c["diff_vs_baseline"] <= c["diff_vs_baseline_ci"][1]
        assert abs(c["diff_vs_baseline"] - (c["score"] - 0.5)) < 1e-9  # the baseline's 0.5
        assert set(x["params"]) == set(data["setups"]["isolation"]["box"])
        if x["is_baseline"]:
            assert c["score"] == 0.5 and c["elo"] == 0.0
    assert png.stat().st_size > 1000

    # merged from its --out file (as the spsa/tpe and duels files are): the same table
    merged = subprocess.run(
        [sys.executable, str(script), "--plot-from", str(out), "--plot", str(tmp_path / "m.png")],
        check=True, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert "multivariate-tpe" in merged.stderr and (tmp_path / "m.png").stat().st_size > 1000
