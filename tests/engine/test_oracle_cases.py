"""The simulated oracle's cases: defined in one place, validated on definition."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.heuristics import oracle as cases
from heurtune.engine.heuristics.oracle import CASES, define_case, loss, make_case
from heurtune.errors import HeurtuneError
from heurtune.match.oracle import OracleRunner, oracle_game

ROOT = Path(__file__).resolve().parents[2]


def bowl(x: np.ndarray) -> float:
    return float(-0.001 * np.sum((x - 120.0) ** 2))


@pytest.fixture
def own_cases(monkeypatch) -> None:
    """The oracle's case registry copied for one test: its define_case calls leave the
    module's cases as they were."""
    monkeypatch.setattr(cases, "CASES", dict(CASES))
    monkeypatch.setattr(cases, "HEURISTICS", cases.HEURISTICS)
    monkeypatch.setattr(cases, "PRESETS", dict(cases.PRESETS))


def case_file(name: str) -> dict[str, Any]:
    """Run ``benchmarks/cases/NAME``, which defines its cases; its globals."""
    import runpy

    return runpy.run_path(str(ROOT / "benchmarks" / "cases" / name))


def test_every_built_in_case_is_valid_and_its_baseline_lies_as_far_below_as_stated() -> None:
    for c in CASES.values():
        base = dict(zip((f"x{i + 1}" for i in range(c.dim)), c.baseline, strict=True))
        assert math.isclose(loss(c, base), c.start_elo, rel_tol=1e-5), c.name
        assert loss(c, dict(zip(base, c.best, strict=True))) == pytest.approx(0.0, abs=1e-9)
        assert all(lo <= b <= hi for lo, b, hi in zip(c.low, c.baseline, c.high, strict=True))


def test_the_new_landscapes_are_what_they_say() -> None:
    assert CASES["far"].start_elo == pytest.approx(10.0)
    # the edge case's optimum lies beyond the box: the in-box best is the corner
    assert CASES["edge"].best == pytest.approx((200.0, 200.0, 0.0, 0.0), abs=1e-4)
    assert CASES["edge"].best_elo == pytest.approx(-2 * 2.0 * 0.15 ** 2)
    # the rotated bowl is not separable: its Hessian (by differences a full range
    # apart, exact for a quadratic) couples two parameters with a correlation over 0.5
    f = CASES["rotated"].function
    x, step = np.array(CASES["rotated"].best), np.eye(4) * 100.0
    H = np.array([[f(x + step[i] + step[j]) - f(x + step[i]) - f(x + step[j]) + f(x)
                   for j in range(4)] for i in range(4)])
    assert np.all(np.diag(H) < 0)
    d = np.sqrt(-np.diag(H))
    assert np.max(np.abs(H / np.outer(d, d) - np.diag(np.diag(H / np.outer(d, d))))) > 0.5


def test_a_stated_optimum_outside_the_box_is_refused() -> None:
    with pytest.raises(HeurtuneError, match="outside the box"):
        make_case("out", bowl, (0.0, 0.0), (100.0, 100.0), optimum=(120.0, 120.0))


def test_a_stated_optimum_that_is_not_the_best_is_refused() -> None:
    with pytest.raises(HeurtuneError, match="better than the stated optimum"):
        make_case("wrong", bowl, (0.0, 0.0), (200.0, 200.0), optimum=(100.0, 100.0))


def test_without_an_optimum_the_in_box_best_is_computed() -> None:
    c = make_case("clipped", bowl, (0.0, 0.0), (100.0, 150.0))
    assert c.best == pytest.approx((100.0, 120.0), abs=1e-3)
    assert c.start_elo == pytest.approx(2.0)


def test_a_baseline_must_lie_in_the_box_and_as_far_below_as_stated() -> None:
    with pytest.raises(HeurtuneError, match="point of the box"):
        make_case("b1", bowl, (0.0, 0.0), (200.0, 200.0), baseline=(250.0, 0.0))
    with pytest.raises(HeurtuneError, match="not 5 as stated"):
        make_case("b2", bowl, (0.0, 0.0), (200.0, 200.0), baseline=(120.0, 150.0), start_elo=5.0)
    ok = make_case("b3", bowl, (0.0, 0.0), (200.0, 200.0), baseline=(120.0, 150.0),
                   start_elo=0.9)
    assert ok.start_elo == pytest.approx(0.9)


def test_a_baseline_farther_than_the_farthest_corner_is_refused() -> None:
    with pytest.raises(HeurtuneError, match="farthest corner"):
        make_case("deep", bowl, (0.0, 0.0), (200.0, 200.0), start_elo=1000.0)


@pytest.mark.parametrize("low,high,what", [((0.0,), (0.0,), "below its high"),
                                           ((0.0, 1.0), (1.0,), "one bound per parameter"),
                                           ((0.0,), (math.inf,), "finite")])
def test_a_malformed_box_is_refused(low, high, what) -> None:
    with pytest.raises(HeurtuneError, match=what):
        make_case("box", lambda x: 0.0, low, high)


def test_an_elo_that_is_not_finite_is_refused() -> None:
    with pytest.raises(HeurtuneError, match="nan"):
        make_case("nan", lambda x: float("nan"), (0.0,), (1.0,))


def test_a_defined_case_becomes_a_heuristic_and_plays(own_cases) -> None:
    c = define_case("ridge_test", lambda x: -0.002 * (x[0] - x[1]) ** 2
                    - 0.0002 * (x[0] - 120.0) ** 2, (0.0, 0.0), (200.0, 200.0))
    with pytest.raises(HeurtuneError, match="already defined"):
        define_case("ridge_test", bowl, (0.0, 0.0), (200.0, 200.0))
    with oracle_game():
        h = get_heuristic("oracle", "ridge_test")
        assert [p.default for p in h.space.params] == list(c.baseline)
        from heurtune.engine.config import preset

        base = preset("oracle:ridge_test")
        assert OracleRunner().elo(base) == pytest.approx(-c.start_elo)


@pytest.mark.slow
def test_the_benchmark_lists_the_cases_and_takes_a_file_of_ones_own(tmp_path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text("from heurtune.engine.heuristics.oracle import define_case\n"
                    "define_case('mine', lambda x: -0.001 * (x[0] - 50.0) ** 2, (0.0,), (200.0,))\n")
    script = str(ROOT / "benchmarks" / "oracle.py")
    out = subprocess.run([sys.executable, script, "--case", "--cases", str(mine)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    names = [line.split()[0] for line in out.splitlines()]
    # heurtune's own cases, read in a fresh process: this one's registry holds the
    # cases other tests in it defined from benchmarks/cases (the sampler tests do)
    built_in = subprocess.run(
        [sys.executable, "-c", "from heurtune.engine.heuristics.oracle import CASES; "
                               "print(*CASES)"],
        capture_output=True, text=True, timeout=120, check=True).stdout.split()
    assert set(built_in) <= set(CASES) and "fishtest" in built_in
    assert set(built_in) | {"mine"} == set(names)
    run = subprocess.run([sys.executable, script, "--case", "mine", "--cases", str(mine),
                          "--optimisers", "duels", "--seeds", "1", "--budget", "2000", "--json"],
                         capture_output=True, text=True, timeout=300, check=True)
    assert '"duels"' in run.stdout
    bad = tmp_path / "bad.py"
    bad.write_text("from heurtune.engine.heuristics.oracle import define_case\n"
                   "define_case('bad', lambda x: 0.0, (0.0,), (1.0,), optimum=(2.0,))\n")
    fail = subprocess.run([sys.executable, script, "--case", "--cases", str(bad)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert fail.returncode == 2 and fail.stderr.count("\n") == 1
    assert "outside the box" in fail.stderr


@pytest.mark.slow
def test_the_cliff_case_is_morris_fine_as_measured(own_cases) -> None:
    """``cliff`` (benchmarks/cases/real_shapes.py) validates on definition (its stated
    optimum is the box's best, its baseline 6.1 Elo below) and each parameter follows
    ``morris-fine``'s measured ``move_blocked`` profile within 2 Elo (5,000 games a
    point, intervals +-3 to 5: docs/results/optimisers.md, "Fine-tuning a real tuned
    point: Morris"); the second parameter is mirrored."""
    shapes = case_file("real_shapes.py")
    c = cases.CASES["cliff"]
    assert c.start_elo == pytest.approx(6.12, abs=0.01) and c.draw_ratio == 0.33
    measured = {0.0: -71.0, 1.0: -11.3, 1.25: -4.8, 1.5: -1.6, 2.0: 2.5, 2.25: 1.2,
                2.5: 1.8, 2.75: -1.4, 3.0: -2.2, 3.5: -6.3, 4.25: -20.4}
    per_half = shapes["CLIFF_T"]  # move_blocked per half range; the baseline at 1.75
    base = np.full(4, 100.0)
    for mb, elo in measured.items():
        for i, sign in ((0, 1.0), (1, -1.0)):
            x = base.copy()
            x[i] += sign * 100.0 * (mb - 1.75) / per_half
            assert c.elo(x) - c.elo(base) == pytest.approx(elo, abs=2.0), (i, mb)


def test_skewed_flat_is_skewed_turned_round(own_cases) -> None:
    """``skewed_flat`` (benchmarks/cases/orientation.py) is the built-in ``skewed`` bowl
    mirrored about its optimum: the same Elo at the same distance, the steep side below
    the optimum instead of above, so that fishtest's placement (toward the farthest
    corner) puts its baseline, 2 Elo below as in ``skewed``, on the gentle side."""
    case_file("orientation.py")
    flat, steep = cases.CASES["skewed_flat"], CASES["skewed"]
    assert flat.best == steep.best == (60.0,) * 4
    assert flat.start_elo == pytest.approx(2.0) == steep.start_elo
    assert flat.baseline == (110.0,) * 4 and steep.baseline == (85.0,) * 4
    rng = np.random.default_rng(5)
    for _ in range(20):
        d = rng.uniform(-60.0, 60.0, size=4)
        assert flat.elo(60.0 + d) == pytest.approx(steep.elo(60.0 - d))
    one = np.full(4, 60.0)
    one[0] = 50.0  # 0.1 half ranges below the optimum: the steep side here
    assert flat.elo(one) == pytest.approx(-4.0 * 2.0 * 0.01)
