"""benchmarks/real_optimisers.py in small form: real Isolation studies of a few
hundred games, their answers confirmed on a fixed set of fresh openings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run

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
    assert data["versions"]["blas"] and data["versions"]["numpy"]  # what answers depend on
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


def _record(setup: str, sampler: str, seed: int, budget: int, elo: float) -> dict:
    return {"setup": setup, "sampler": sampler, "seed": seed, "budget": budget,
            "default": True, "answer": sampler,
            "confirmed": {"elo": elo, "elo_ci": [elo - 20.0, elo + 20.0]}}


def test_paired_samplers_match_on_game_seed_and_budget(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "real_optimisers.py"
    recs = []
    for seed in range(4):
        for budget in (8000, 16000):
            recs.append(_record("isolation", "duels", seed, budget, 50.0 + seed))
            # the other: 2 Elo better in even seeds, 4 in odd ones
            recs.append(_record("isolation", "spsa", seed, budget, 52.0 + seed + 2 * (seed % 2)))
    recs.append(_record("morris", "spsa", 0, 8000, 300.0))  # no duels to pair it with
    recs.append({**_record("isolation", "duels", 0, 8000, 0.0), "default": False,
                 "answer": "model"})
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"setups": {}, "baseline_confirmed": {}, "runs": [],
                                "records": recs}))
    proc = subprocess.run([sys.executable, str(script), "--plot-from", str(path), "--paired",
                           "duels,spsa"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["pairs"] == 8 and out["mean"] == 3.0 and out["se"] == pytest.approx(0.38, abs=0.01)
    assert out["p"] < 0.001
    assert out["means"] == {"isolation 8000": [51.5, 54.5], "isolation 16000": [51.5, 54.5]}
    assert proc.stderr.count("warning") == 0  # one file: nothing to compare
    # two files of other OpenBLAS kernels: the answers may differ for that alone
    other = tmp_path / "o.json"
    for f, blas in ((path, "OpenBLAS SkylakeX"), (other, "OpenBLAS Haswell")):
        f.write_text(json.dumps({"setups": {}, "baseline_confirmed": {}, "runs": [],
                                 "records": recs if f == path else [],
                                 "versions": {"numpy": "2", "cpu": "x", "blas": blas}}))
    proc = subprocess.run([sys.executable, str(script), "--plot-from", f"{path},{other}",
                           "--paired", "duels,spsa"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["pairs"] == 8
    assert "warning" in proc.stderr and "blas OpenBLAS SkylakeX vs OpenBLAS Haswell" in proc.stderr
    for bad in ("duels", "duels,nope"):
        proc = subprocess.run([sys.executable, str(script), "--plot-from", str(path),
                               "--paired", bad], capture_output=True, text=True, timeout=120,
                              check=False)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert "--paired" in proc.stderr.splitlines()[-1]


def test_rename_shows_a_sampler_under_another_name(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "real_optimisers.py"
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    for f, sampler, elo in ((old, "duels", 50.0), (new, "duels-record", 60.0)):
        f.write_text(json.dumps({"setups": {}, "baseline_confirmed": {},
                                 "runs": [{"sampler": sampler}],
                                 "records": [_record("isolation", sampler, 0, 8000, elo)]}))
    merged = tmp_path / "m.json"
    proc = subprocess.run(
        [sys.executable, str(script), "--plot-from", f"{old},{new}", "--rename",
         "duels=duels (older),duels-record=duels", "--paired", "duels (older),duels",
         "--out", str(merged)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["mean"] == 10.0  # the renamed pair: today's minus older
    data = json.loads(merged.read_text())
    assert sorted(r["sampler"] for r in data["records"]) == ["duels", "duels (older)"]
    assert sorted(r["sampler"] for r in data["runs"]) == ["duels", "duels (older)"]
    for bad in ("nope=x", "duels", "duels=duels-record"):  # unknown, no NEW, a name taken
        proc = subprocess.run([sys.executable, str(script), "--plot-from", f"{old},{new}",
                               "--rename", bad], capture_output=True, text=True, timeout=120,
                              check=False)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert "--rename" in proc.stderr.splitlines()[-1]


@pytest.mark.parametrize(("option", "value", "named"), [
    ("--games", "isolation,nope", "'nope'"), ("--samplers", "duels,nope", "'nope'"),
    ("--budgets", "8000,lots", "--budgets"), ("--budgets", "0", "at least 1 game")])
def test_an_unknown_setup_sampler_or_budget_is_one_line_and_exit_2(
        tmp_path: Path, option: str, value: str, named: str) -> None:
    script = ROOT / "benchmarks" / "real_optimisers.py"
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(script), option, value, "--out", str(out)],
                          capture_output=True, text=True, timeout=120, check=False,
                          cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and lines[0].startswith("real_optimisers.py")
    assert not out.exists()  # nothing run, nothing written


def test_every_setups_box_holds_its_baseline_and_reference_in_the_heuristics_ranges() -> None:
    from heurtune.engine.heuristic import get_heuristic
    from tests.helpers import load_script
    m = load_script("real_optimisers")
    assert len(m.SETUPS["morris-six"].box) == 6 and len(m.SETUPS["morris-seven"].box) == 7
    assert len(m.SETUPS["morris-eight"].box) == 8
    assert len(m.SETUPS["isolation-eight"].box) == 8
    for name, setup in m.SETUPS.items():
        space = {p.name: p for p in get_heuristic(setup.game, setup.heuristic).space.params}
        base = setup.baseline().params
        assert set(setup.start) <= set(setup.box), name  # a start outside the box: pinned
        for param, (low, high) in setup.box.items():
            p = space[param]
            assert p.low <= low < high <= p.high, (name, param)
            assert low <= float(base[param]) <= high, (name, param)
            if param not in setup.start:
                assert base[param] == p.default, (name, param)
            if param in setup.reference:
                assert low <= setup.reference[param] <= high, (name, param)


def test_a_fine_setup_starts_from_its_tuned_point(tmp_path: Path) -> None:
    """``isolation-fine``'s baseline is its ``start``, not the heuristic's defaults: the
    opponent's engine file, the study's pinned weights and the cache key all hold it."""
    import tomllib

    from tests.helpers import load_script
    m = load_script("real_optimisers")
    setup = m.SETUPS["isolation-fine"]
    assert setup.baseline().params["own2"] == setup.start["own2"] == 0.35
    assert setup.engine({"own2": 0.6}).params["own_start"] == setup.start["own_start"]
    path = m.write_study(tmp_path, setup, m.config_of("duels"), 0, 1000)
    opponent = tomllib.loads((tmp_path / "baseline.toml").read_text())
    assert {k: opponent["params"][k] for k in setup.start} == dict(setup.start)
    study = tomllib.loads(path.read_text())
    assert study["params"]["own2"] == {"low": 0.1, "high": 0.6}
    # the study's baseline (first trial, the duel samplers' start) is the start, not the
    # heuristic's defaults clipped into the box
    from heurtune.tuning.studyfile import load_study_file
    assert load_study_file(path).start_params == dict(setup.start)
    assert study["params"]["territory"] == 0.0  # pinned at the default
    # the baseline and the heuristic's defaults are different points to confirm
    assert m.params_key("isolation-fine", {}) != m.params_key("isolation", {})


def test_the_morris_fine_boxes_are_the_ones_their_recorded_runs_used() -> None:
    """``morris_fine`` draws each of the five weights' range half as wide as declared,
    centred on the tuned point and cut at the declared ends: the boxes of the runs
    recorded in research/optimisers/ (2026-11-28), to the digit."""
    from tests.helpers import load_script
    m = load_script("real_optimisers")
    for name in ("morris-fine", "morris-fine-2"):
        recorded = json.loads((ROOT / "research" / "optimisers"
                               / f"real-{name}.json").read_text())["setups"][name]
        setup = m.SETUPS[name]
        assert {k: list(v) for k, v in setup.box.items()} == recorded["box"], name
        assert {k: setup.baseline().params[k] for k in setup.box} == recorded["defaults"]
    box = m.SETUPS["morris-fine"].box
    assert box["move_mills"] == (2.0, 7.0) and box["move_blocked"] == (0.0, 4.25)
