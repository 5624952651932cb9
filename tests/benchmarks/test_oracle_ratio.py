"""benchmarks/oracle.py --ratio: one case's games to 1 Elo over another's, with a
bootstrap interval over the seeds; --paired: two runs' losses seed by seed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import ROOT, load_script

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "oracle.py"
MARKS = [1000, 2000, 4000, 8000, 16000]


def _results(path: Path, case: str, losses: list[list[float]], name: str = "duels") -> Path:
    """A results file as ``--out`` writes it, reduced to what --ratio reads."""
    answer = {"losses": losses, "median": np.median(losses, axis=0).tolist()}
    path.write_text(json.dumps({"case": case, "results": {name: {
        "answer": "duels", "checkpoints": MARKS, "answers": {"duels": answer}}}}))
    return path


def _module():
    return load_script("oracle")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, check=False)


def test_ratio_of_two_cases_with_its_interval(tmp_path) -> None:
    rng = np.random.default_rng(5)
    # the base crosses 1 Elo at 4,000 games in every seed, the other at 8,000
    base = [[2.0, 1.5, 1.0 - 0.1 * rng.random(), 0.5, 0.2] for _ in range(30)]
    other = [[2.0, 1.8, 1.5, 1.0 - 0.1 * rng.random(), 0.4] for _ in range(20)]
    a = _results(tmp_path / "a.json", "fishtest", base)
    b = _results(tmp_path / "b.json", "far", other)
    proc = _run("--ratio", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = proc.stdout.strip()
    assert line.startswith("duels: far / fishtest games to 1 Elo ")
    point = float(line.split("games to 1 Elo ")[1].split(" ")[0])
    assert 1.9 <= point <= 2.1  # (the crossing is log-interpolated between checkpoints)
    low, high = (float(x) for x in line.split("(95% ")[1].split(";")[0].split(" to "))
    assert 1.8 <= low <= point <= high <= 2.2
    assert "within 1.3 in 0.0 of resamples; seeds 20 / 30" in line
    # the same files the other way round: the reciprocal
    proc = _run("--ratio", str(b), str(a), cwd=tmp_path)
    back = float(proc.stdout.split("games to 1 Elo ")[1].split(" ")[0])
    assert abs(back * point - 1.0) < 0.01


def test_a_case_that_never_gets_there_is_open_above(tmp_path) -> None:
    base = [[2.0, 1.5, 0.9, 0.5, 0.2]] * 10
    never = [[2.0, 2.0, 2.0, 1.8, 1.5]] * 10
    a = _results(tmp_path / "a.json", "fishtest", base)
    b = _results(tmp_path / "b.json", "edge", never)
    proc = _run("--ratio", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "games to 1 Elo - (95% - to -; within 1.3 in 0.0" in proc.stdout


def test_files_without_per_seed_losses_are_one_line_and_exit_2(tmp_path) -> None:
    a = _results(tmp_path / "a.json", "fishtest", [[2.0, 1.5, 0.9, 0.5, 0.2]] * 3)
    old = json.loads(a.read_text())
    del old["results"]["duels"]["answers"]["duels"]["losses"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "other.json").write_text(json.dumps({"case": "x", "results": {"spsa": {}}}))
    (tmp_path / "list.json").write_text("[1, 2]")
    for files in ((str(a), str(tmp_path / "old.json")), (str(a), str(tmp_path / "missing.json")),
                  (str(a), str(tmp_path / "other.json")), (str(a), str(tmp_path / "list.json"))):
        proc = _run("--ratio", *files, cwd=tmp_path)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_results_file_names_the_libraries_its_numbers_depend_on(tmp_path) -> None:
    # a seed's answers reproduce exactly only with the same numpy / scipy / optuna
    out = tmp_path / "r.json"
    proc = _run("--case", "two", "--optimisers", "duels", "--seeds", "1", "--budget", "2000",
                "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    versions = json.loads(out.read_text())["versions"]
    assert versions["numpy"] == np.__version__
    assert set(versions) == {"python", "heurtune", "numpy", "scipy", "numba", "optuna", "cpu",
                             "blas"}
    assert versions["cpu"]  # the processor: OpenBLAS picks its kernels by it
    assert versions["blas"].startswith("OpenBLAS ")  # the kernel it picked (numpy's wheels)


def test_paired_differences_seed_by_seed(tmp_path) -> None:
    rng = np.random.default_rng(7)
    # the base run worse than the baseline (2 Elo below the best) at 16,000 games only
    base = [[2.0, 1.5 + 0.4 * rng.random(), 1.0 + 0.8 * rng.random(), 0.5, 2.1]
            for _ in range(10)]
    # the other run: 0.2 better at 2,000 games in every seed, 0.1 worse at 4,000 in half of
    # them, and worse than the baseline at 8,000 games in one seed
    other = [[b[0], b[1] - 0.2, b[2] + (0.1 if k % 2 else 0.0), b[3], b[4]]
             for k, b in enumerate(base)]
    other[0][3] = 2.5
    a = _results(tmp_path / "a.json", "fishtest", base)
    b = _results(tmp_path / "b.json", "fishtest", other, name="duels-step")
    proc = _run("--paired", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = proc.stdout.strip()
    assert line.startswith("fishtest: duels-step minus duels, mean loss (se): ")
    assert "2k -0.200 (0.000), 4k +0.050 (0.017), 8k +0.200 (0.200), 16k +0.000 (0.000)" in line
    assert line.endswith("seed-checkpoints worse than the baseline 10 -> 11; seeds worse from "
                         "2k games on 10 -> 10 (in one only 0 / 0, McNemar p 1.00) (10 seeds)")
    assert "warning" in proc.stderr  # these files name no versions: pairing unknown


def test_worse_seeds_from_2000_games_on_with_mcnemars_test() -> None:
    m = _module()
    marks = [1000, 2000, 4000]
    # 12 seeds: worse than the baseline (2 Elo) at 1,000 games does not count; the
    # other run makes 8 seeds worse that the base does not, the base 1 the other does not
    base = np.full((12, 3), 1.5)
    other = base.copy()
    base[:, 0] = other[:, 0] = 2.5
    other[:8, 2] = 2.2
    base[8, 1] = 2.01
    base[9, 1] = other[9, 2] = 2.3  # worse in both
    w = m.worse_seeds(marks, base, other, 2.0)
    assert (w["base"], w["other"], w["base_only"], w["other_only"]) == (2, 9, 1, 8)
    assert w["p"] == pytest.approx(0.0390625)  # 2 * P(X <= 1), X ~ Bin(9, 1/2)
    assert m.worse_seeds(marks, base, base, 2.0)["p"] == 1.0


def _set_versions(path: Path, versions: dict[str, str]) -> None:
    data = json.loads(path.read_text())
    data["versions"] = versions
    path.write_text(json.dumps(data))


def test_paired_files_from_two_machines_are_flagged(tmp_path) -> None:
    # the same code and libraries on another processor send a seed's duels elsewhere
    losses = [[2.0, 1.5, 0.9, 0.5, 0.2]] * 3
    a, b = (_results(tmp_path / f"{n}.json", "fishtest", losses) for n in "ab")
    here = {"python": "3.11.7", "numpy": "2.4.6", "cpu": "Xeon avx512f"}
    _set_versions(a, here)
    _set_versions(b, here)
    proc = _run("--paired", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.startswith("fishtest:")
    _set_versions(b, {**here, "cpu": "EPYC avx2"})
    proc = _run("--paired", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("fishtest:")
    assert proc.stderr.strip() == ("oracle.py: warning: the files differ in cpu Xeon avx512f "
                                   "vs EPYC avx2: seed by seed these runs are not paired")
    # where both name the OpenBLAS kernel, the kernel decides and the processor does not
    _set_versions(a, {**here, "blas": "OpenBLAS SkylakeX"})
    _set_versions(b, {**here, "cpu": "EPYC avx512f", "blas": "OpenBLAS SkylakeX"})
    proc = _run("--paired", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.startswith("fishtest:")
    _set_versions(b, {**here, "cpu": "EPYC avx512f", "blas": "OpenBLAS Haswell"})
    proc = _run("--paired", str(a), str(b), cwd=tmp_path)
    assert proc.stderr.strip() == ("oracle.py: warning: the files differ in blas OpenBLAS "
                                   "SkylakeX vs OpenBLAS Haswell: seed by seed these runs are "
                                   "not paired")


def test_paired_files_of_other_cases_or_seeds_are_one_line_and_exit_2(tmp_path) -> None:
    a = _results(tmp_path / "a.json", "fishtest", [[2.0, 1.5, 0.9, 0.5, 0.2]] * 3)
    b = _results(tmp_path / "b.json", "edge", [[2.0, 1.5, 0.9, 0.5, 0.2]] * 3)
    c = _results(tmp_path / "c.json", "fishtest", [[2.0, 1.5, 0.9, 0.5, 0.2]] * 4)
    (tmp_path / "list.json").write_text("[1, 2]")
    for files in ((a, b), (a, c), (a, tmp_path / "list.json"), (a, tmp_path / "missing.json")):
        proc = _run("--paired", str(files[0]), str(files[1]), cwd=tmp_path)
        assert proc.returncode == 2, files
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_fresh_seeds_and_options_set_on_the_command_line(tmp_path) -> None:
    # --first-seed runs other seeds (to confirm a choice made on the first ones) and
    # --set changes the one optimiser's options, named in its results
    out = tmp_path / "r.json"
    proc = _run("--case", "two", "--optimisers", "duels", "--seeds", "2", "--first-seed", "7",
                "--budget", "2000", "--set", "edge_prior=4", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["first_seed"] == 7 and data["seeds"] == 2
    (name, result), = data["results"].items()
    assert name == "duels[edge_prior=4]" and result["options"]["edge_prior"] == 4
    m = _module()
    cfg = m.with_options(m.Config("x", "duels", 16, 1000, {"z": 1.0}), ["z=2", "edge_answer=off"])
    assert cfg.options == {"z": 2, "edge_answer": "off"} and cfg.name == "x[z=2,edge_answer=off]"
    with pytest.raises(m.HeurtuneError, match="KEY=VALUE"):
        m.with_options(cfg, ["z"])
    # runs of other first seeds do not pair; an unknown option is one line, exit 2
    a = _results(tmp_path / "a.json", "fishtest", [[2.0, 1.5, 0.9, 0.5, 0.2]] * 3)
    b = _results(tmp_path / "b.json", "fishtest", [[2.0, 1.5, 0.9, 0.5, 0.2]] * 3)
    data = json.loads(b.read_text())
    data["first_seed"] = 1000
    b.write_text(json.dumps(data))
    proc = _run("--paired", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 2 and "different seeds (0, 1000)" in proc.stderr
    for bad in (("--set", "nonsense=1"), ("--set", "novalue"), ("--first-seed", "-1")):
        proc = _run("--case", "two", "--optimisers", "duels", "--seeds", "1", "--budget", "1000",
                    *bad, cwd=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("oracle.py: error: ")
    assert "has no option(s) ['nonsense']" in _run(
        "--case", "two", "--optimisers", "duels", "--seeds", "1", "--set", "nonsense=1",
        cwd=tmp_path).stderr
    proc = _run("--case", "two", "--seeds", "1", "--set", "z=1", cwd=tmp_path)
    assert proc.returncode == 2 and "exactly one optimiser" in proc.stderr


def test_results_files_of_other_seeds_pool(tmp_path) -> None:
    # a.json+b.json: the seeds of both, as one run; the ratio is read off the pool
    fast = [[2.0, 1.5, 0.9, 0.5, 0.2]] * 4  # within 1 Elo at 4,000 games
    slow = [[2.0, 1.8, 1.5, 0.9, 0.4]] * 4  # ... at 16,000
    a = _results(tmp_path / "a.json", "fishtest", fast)
    b = _results(tmp_path / "b.json", "fishtest", slow)
    for path, first in ((a, 0), (b, 1000)):
        data = json.loads(path.read_text())
        data.update(seeds=4, first_seed=first)
        path.write_text(json.dumps(data))
    m = _module()
    pooled = m.read_results(f"{a}+{b}")
    assert pooled["seeds"] == 8 and pooled["first_seed"] == [0, 1000]
    assert pooled["results"]["duels"]["answers"]["duels"]["losses"] == fast + slow
    c = _results(tmp_path / "c.json", "edge", slow * 2)
    proc = _run("--ratio", f"{a}+{b}", str(c), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("duels: edge / fishtest games to 1 Elo ")
    assert "seeds 8 / 8" in proc.stdout
    # pooled files pair with files pooled from the same seeds only
    proc = _run("--paired", f"{a}+{b}", f"{a}+{b}", cwd=tmp_path)
    assert proc.returncode == 0 and "+0.000 (0.000)" in proc.stdout
    for bad in (f"{a}+{a}", f"{a}+{c}", f"{a}+{tmp_path / 'missing.json'}"):
        proc = _run("--ratio", bad, str(c), cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.startswith("oracle.py: error: ")
        assert len(proc.stderr.strip().splitlines()) == 1


def test_ratio_of_one_optimiser_each_whatever_their_names(tmp_path) -> None:
    """Two files of one optimiser each (the default of one run against a variant
    named otherwise in another) pair by position; with several, only by name."""
    base = [[2.0, 1.5, 0.95, 0.5, 0.2]] * 10
    other = [[2.0, 1.8, 1.5, 0.95, 0.4]] * 10
    a = _results(tmp_path / "a.json", "fishtest", base, name="duels-edge-prior-off")
    b = _results(tmp_path / "b.json", "far", other)
    proc = _run("--ratio", str(a), str(b), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("duels over duels-edge-prior-off: far / fishtest games to "
                                  "1 Elo 2.00 ")
    two = json.loads(a.read_text())
    two["results"]["spsa"] = two["results"]["duels-edge-prior-off"]
    (tmp_path / "two.json").write_text(json.dumps(two))
    proc = _run("--ratio", str(tmp_path / "two.json"), str(b), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "oracle.py: error: no optimiser is in both results files"


def test_the_seeds_that_narrowed_are_recorded_and_printed(tmp_path) -> None:
    """A `duels` run records per seed the trial from which its duels narrowed (None
    where they never did), from the answer's detail, and prints the count."""
    m = _module()
    marks = m.checkpoints(2000)
    run = ({"duels": [3.0] * len(marks)},
           {"duels": [{"games": g, "truth": 1.0, "model_gain": 1.0, "model_gain_sd": 1.0,
                       "narrowed_at": at} for g, at in zip(marks, (None, 40, 40), strict=False)]})
    never = ({"duels": [3.0] * len(marks)},
             {"duels": [{"games": g, "truth": 1.0, "model_gain": 1.0, "model_gain_sd": 1.0,
                         "narrowed_at": None} for g in marks]})
    cfg = next(c for c in m.CONFIGS if c.name == "duels")
    r = m.summarise("broad", m.replace(cfg, budget=2000), [run, never], 1.0)
    assert r["answers"]["duels"]["narrowed_at"] == [40, None]
    # from the command line, on the broad wells (which narrow within 8,000 games)
    out = _run("--case", "broad", "--optimisers", "duels", "--seeds", "1", "--budget", "8000",
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "narrowed in 1 of 1 seeds" in out.stderr


def test_the_answer_before_the_guard_is_never_the_runs_answer() -> None:
    """``duels-unguarded`` (duels' answer before its guard withdrew it, recorded beside
    it) is a diagnostic: a run's answer, which --ratio and --paired compare, is one a
    study offers, even where the unguarded one crossed 1 Elo sooner."""
    m = _module()
    marks = m.checkpoints(2000)
    guarded = [3.0] * (len(marks) - 1) + [0.9]
    unguarded = [3.0] * (len(marks) - 2) + [0.9, 0.9]  # reaches 1 Elo a checkpoint sooner
    run = ({"duels": guarded, "duels" + m.UNGUARDED: unguarded}, {})
    cfg = next(c for c in m.CONFIGS if c.name == "duels")
    r = m.summarise("fishtest", m.replace(cfg, budget=2000), [run], 1.0)
    assert r["answers"]["duels" + m.UNGUARDED]["games_to_1_elo"] < \
        r["answers"]["duels"]["games_to_1_elo"]
    assert r["answer"] == "duels"
    assert r["games_to_1_elo"] == r["answers"]["duels"]["games_to_1_elo"]
