"""benchmarks/duels_variants.py: the fast stand-in of the duels study on the oracle."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np

from heurtune.tuning.samplers.quadratic import QuadraticModel
from tests.helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "duels_variants.py"


def _module():
    spec = importlib.util.spec_from_file_location("duels_variants", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclass looks itself up there)
    spec.loader.exec_module(module)
    return module


def test_the_stand_in_reaches_the_skewed_optimum_and_reports_each_variant(tmp_path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--case", "skewed", "--variants",
                           "current,gated", "--seeds", "3", "--budget", "4000", "--json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["variant"] for r in rows] == ["current", "gated"]
    for r in rows:
        assert r["checkpoints"] == [1000, 1414, 2000, 2828, 4000]
        # the skewed case starts 2 Elo below its optimum; duels gets within 1 Elo at once
        assert r["median"][-1] < 1.0 and r["games_to_1_elo"] is not None
        assert np.isfinite(r["model_gain_at_best"])


def test_unknown_case_or_variant_is_one_line_and_exit_2(tmp_path) -> None:
    for args in (["--case", "nope"], ["--variants", "nope"], ["--seeds", "0"]):
        proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120, check=False)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr and "error:" in proc.stderr.splitlines()[-1]


def test_shifted_duels_span_two_radii_inside_the_edge() -> None:
    m = _module()
    low, high = np.array([-1.5, -1.5]), np.array([0.5, 0.5])
    centre = np.array([0.5, -0.2])  # on the upper edge in x1, inside in x2
    sign = np.array([1.0, 1.0])
    grad = np.array([False, False])
    a, b = m.shifted_points(centre, 1.0, sign, grad, grad, low, high)
    # x1 duelled around 0.5 - 1: the edge against two radii inside; x2 as duel_points
    assert (a[0], b[0]) == (0.5, -1.5)
    assert (a[1], b[1]) == (0.5, -1.2)


def test_gated_answer_is_the_baseline_without_data_and_the_maximum_once_confident() -> None:
    m = _module()
    model = QuadraticModel(1)
    model.fit()
    low, high = np.array([-1.0]), np.array([1.0])
    assert not m.gated_answer(model, low, high, np.array([0.5])).any()
    # a confident bowl with its top at 0.5 (duels of 0.5 against 0, many games each)
    from heurtune.tuning.samplers.quadratic import Observation
    for _ in range(400):
        model.add(Observation(np.array([0.5]), np.array([0.0]), 0.52, 1000))
        model.add(Observation(np.array([1.0]), np.array([0.5]), 0.48, 1000))
    model.fit()
    top = model.argmax_mean(low, high, np.zeros(1))
    assert abs(top[0] - 0.5) < 0.05
    assert np.allclose(m.gated_answer(model, low, high, top), top)


def test_baseline_curvature_duels_do_not_depend_on_the_model() -> None:
    m = _module()
    low, high = np.array([-1.5, -1.5]), np.array([0.5, 0.5])
    sign, curvature = np.array([1.0, -1.0]), np.array([True, False])
    plus_side = np.array([True, True])
    for centre in (np.array([0.4, -0.2]), np.array([-1.0, 0.3])):
        a, b = m.baseline_curvature_points(centre, 1.0, sign, curvature, plus_side, low, high)
        # x1 (curvature): the baseline (0) against 0 + 1 clipped to the box, wherever the
        # centre is; x2 (gradient): around the centre as duel_points
        assert (a[0], b[0]) == (0.5, 0.0)
        assert (a[1], b[1]) == (max(centre[1] - 1.0, -1.5), min(centre[1] + 1.0, 0.5))
