"""benchmarks/duels_variants.py: the fast stand-in of the duels study on the oracle."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys

import numpy as np
import pytest

from heurtune.tuning.samplers import duels
from heurtune.tuning.samplers.quadratic import QuadraticModel
from tests.helpers import ROOT, load_script

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "duels_variants.py"


def _module():
    return load_script("duels_variants")


def _stand_in(cwd, *args: str) -> subprocess.CompletedProcess[str]:
    """The stand-in run with ``args`` in ``cwd``."""
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, check=False)


def test_the_stand_in_reaches_the_skewed_optimum_and_reports_each_variant(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--case", "skewed", "--variants",
                     "current,gated", "--seeds", "3", "--budget", "4000", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["variant"] for r in rows] == ["current", "gated"]
    for r in rows:
        assert r["checkpoints"] == [1000, 1414, 2000, 2828, 4000]
        # the skewed case starts 2 Elo below its optimum; duels gets within 1 Elo at once
        assert r["median"][-1] < 1.0 and r["games_to_1_elo"] is not None
        assert np.isfinite(r["model_gain_at_best"])


def test_unknown_case_or_variant_is_one_line_and_exit_2(tmp_path) -> None:
    for args in (["--case", "nope"], ["--variants", "nope"], ["--seeds", "0"], ["--path"]):
        proc = _stand_in(tmp_path, *args)
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


def test_edge_half_and_edge_narrow_duels_at_an_edge() -> None:
    m = _module()
    low, high = np.array([-1.5, -1.5]), np.array([0.5, 0.5])
    centre = np.array([0.5, -0.2])  # on the upper edge in x1, inside in x2
    sign = np.array([1.0, 1.0])  # outward in x1: no room, so a curvature duel turns inward
    curvature, plus_side = np.array([True, True]), np.array([True, False])
    a, b = m.edge_half_points(centre, 1.0, sign, curvature, plus_side, low, high)
    # x1: the edge against half a radius inside (not a whole one); x2 as duel_points
    assert (a[0], b[0]) == (0.0, 0.5)
    assert (a[1], b[1]) == (-0.2, 0.5)
    gradient = np.array([False, False])
    a, b = m.edge_narrow_points(centre, 1.0, sign, gradient, plus_side, low, high)
    # x1 at the edge: even a gradient duel is the edge against half a radius in
    assert (a[0], b[0]) == (0.5, 0.0)
    assert (a[1], b[1]) == (0.5, -1.2)


def test_fixed_duels_stay_around_the_baseline_and_z_answers_are_bolder() -> None:
    m = _module()
    low, high = np.array([-1.5, -1.5]), np.array([0.5, 0.5])
    sign, grad = np.array([1.0, -1.0]), np.array([False, False])
    for centre in (np.array([0.4, -0.2]), np.array([-1.0, 0.3])):
        a, b = m.fixed_points(centre, 1.0, sign, grad, grad, low, high)
        assert list(a) == [0.5, -1.0] and list(b) == [-1.0, 0.5]
    from heurtune.tuning.samplers.quadratic import Observation
    model = QuadraticModel(1)
    for _ in range(100):  # a bowl with its top at 0.5, known well but not exactly
        model.add(Observation(np.array([0.5]), np.array([0.0]), 0.505, 200))
        model.add(Observation(np.array([1.0]), np.array([0.5]), 0.495, 200))
    model.fit()
    lo, hi = np.array([-1.0]), np.array([1.0])
    top = model.argmax_mean(lo, hi, np.zeros(1))
    cautious = m.lcb_answer(model, lo, hi, top)[0]
    bold = m.z_answer(0.25)(model, lo, hi, top)[0]
    assert 0.0 < cautious < bold <= top[0] + 1e-6
    # the sampler's own answer steps from the lower bound's point toward the top
    assert m.VARIANTS["step-off"].answer(model, lo, hi, top)[0] == cautious
    stepped = m.current_answer(model, lo, hi, top)[0]
    assert cautious < stepped <= top[0] + 1e-6


def test_path_reports_the_posterior_against_the_truth(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--case", "fishtest", "--variants",
                     "current", "--seeds", "2", "--budget", "2000", "--json", "--path")
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(row["posterior"]) == 2
    for p in row["posterior"]:
        assert p["t"][0] == 0.0 and p["t"][-1] == 1.0
        # the baseline gains nothing, by model and truth; the best gains the case's 2 Elo
        assert p["mean"][0] == 0.0 and p["sd"][0] == 0.0 and p["true"][0] == 0.0
        assert abs(p["true"][-1] - 2.0) < 1e-6
        assert len(p["g"]) == len(p["h_sd"]) == len(p["h_least_squares"]) == 4
        # at most the prior's sd: half the curvature guess (2 Elo) times the chosen scale
        assert all(0.0 < s <= 1.0 * p["scales"][0] + 1e-9 for s in p["h_sd"])


def _bowl_model() -> QuadraticModel:
    """A 2-parameter model that knows well that the gain rises toward +1 in x1 and
    peaks at 0 in x2 (duels along each axis), but not so well that its answer (the
    highest lower bound) reaches the edge."""
    from heurtune.tuning.samplers.quadratic import Observation
    model = QuadraticModel(2)
    for _ in range(20):
        model.add(Observation(np.array([0.5, 0.0]), np.array([0.0, 0.0]), 0.51, 400))
        model.add(Observation(np.array([1.0, 0.0]), np.array([0.5, 0.0]), 0.505, 400))
        model.add(Observation(np.array([0.0, 0.5]), np.array([0.0, -0.5]), 0.5, 400))
        model.add(Observation(np.array([0.0, 0.0]), np.array([0.0, 0.5]), 0.503, 400))
    model.fit()
    return model


def test_edge_gated_moves_only_the_coordinates_whose_maximum_is_at_an_edge() -> None:
    m = _module()
    model = _bowl_model()
    low, high = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    top = model.argmax_mean(low, high, np.zeros(2))
    assert top[0] == 1.0 and abs(top[1]) < 0.2  # the maximum: on the edge in x1 only
    current = m.lcb_answer(model, low, high, top)
    gated = m.edge_gated_answer(model, low, high, top)
    assert current[0] < gated[0] <= 1.0  # x1 moved toward its edge ...
    assert gated[1] == current[1]  # ... x2 (inside the box) left alone
    mean, sd = model.gain(gated)
    assert mean - sd > 0.0 and mean >= model.gain(current)[0]
    # a maximum inside the box: the current answer unchanged
    inside = np.array([0.5, 0.0])
    assert np.array_equal(m.edge_gated_answer(model, low, high, inside),
                          m.lcb_answer(model, low, high, inside))


def test_z_by_dimension_is_the_current_answer_in_four_parameters() -> None:
    m = _module()
    model = _bowl_model()  # 2 parameters: z = sqrt(2 / 4), bolder than z = 1
    low, high = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    top = model.argmax_mean(low, high, np.zeros(2))
    assert np.allclose(m.z_by_dimension_answer(model, low, high, top),
                       m.z_answer(np.sqrt(0.5))(model, low, high, top))
    four = QuadraticModel(4)
    four.fit()
    assert not m.z_by_dimension_answer(four, -np.ones(4), np.ones(4), np.zeros(4)).any()


def test_gain_duels_and_a_wider_gradient_prior_change_the_fit(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--case", "fishtest", "--variants",
                     "current,gain-every-5,start-elo-8", "--seeds", "1", "--budget",
                     "2000", "--json", "--path")
    assert proc.returncode == 0, proc.stderr[-3000:]
    current, gain, wide = ([json.loads(line) for line in proc.stdout.splitlines()])
    assert (current["variant"], gain["variant"], wide["variant"]) == \
        ("current", "gain-every-5", "start-elo-8")
    (c,), (g,), (w,) = current["posterior"], gain["posterior"], wide["posterior"]
    assert g["g"] != c["g"]  # the gain duels were played and fitted
    # the prior's gradient sd doubles (4 times the distance): after 2,000 games the
    # posterior's is still wider everywhere
    assert all(ws > cs for ws, cs in zip(w["g_sd"], c["g_sd"], strict=True))


def test_averaged_model_mixes_the_scales_and_is_at_least_as_uncertain() -> None:
    m = _module()
    from heurtune.tuning.samplers.quadratic import Observation
    rng = np.random.default_rng(3)
    chosen, averaged = QuadraticModel(2), m.AveragedModel(2)
    for _ in range(60):  # noisy duels on a gentle bowl
        a, b = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2)
        obs = Observation(a, b, float(np.clip(0.5 + rng.normal(0, 0.05), 0.05, 0.95)), 32)
        chosen.add(obs)
        averaged.add(obs)
    chosen.fit()
    averaged.fit()
    assert averaged.mean is not None and averaged.cov is not None
    # a mixture's covariance holds its members' spread: symmetric, positive definite
    assert np.allclose(averaged.cov, averaged.cov.T)
    assert np.all(np.linalg.eigvalsh(averaged.cov) > 0)
    assert not np.allclose(averaged.mean, chosen.mean)


def test_before_is_one_shared_scale_with_clipped_duels() -> None:
    m = _module()
    from heurtune.tuning.samplers.quadratic import Observation
    model = m.SharedScaleModel(1)
    for _ in range(200):  # a steep slope far from the prior: the one scale must grow
        model.add(Observation(np.array([0.5]), np.array([-0.5]), 0.75, 1000))
    model.fit()
    assert model.scale == model.start_scale > 1.0
    low, high = np.array([-1.5]), np.array([0.5])
    # at the upper edge, a curvature duel outward collapses onto the centre (clipped)
    a, b = m.clipped_points(np.array([0.5]), 1.0, np.array([1.0]), np.array([True]),
                            np.array([True]), low, high)
    assert (a[0], b[0]) == (0.5, 0.5)
    # the same duel in duels' own design turns inward
    a, b = m.duels.duel_points(np.array([0.5]), 1.0, np.array([1.0]), np.array([True]),
                               np.array([True]), low, high)
    assert (a[0], b[0]) == (-0.5, 0.5)


def test_edge_far_turns_a_cut_curvature_duel_two_radii_in() -> None:
    m = _module()
    low, high = np.array([-2.5, -2.5]), np.array([0.5, 0.5])
    centre, sign = np.array([0.5, -1.0]), np.array([1.0, 1.0])
    curvature, plus = np.array([True, True]), np.array([True, True])
    a, b = m.edge_far_points(centre, 1.0, sign, curvature, plus, low, high)
    assert (a[0], b[0]) == (-1.5, 0.5)  # turned inward, two radii
    assert (a[1], b[1]) == (0.0, -1.0)  # room outward: as duel_points


def test_paired_reports_the_mean_difference_seed_by_seed(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--case", "skewed", "--variants",
                     "before,current", "--seeds", "3", "--budget", "8000", "--json",
                     "--paired")
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, current, paired = [json.loads(line) for line in proc.stdout.splitlines()]
    assert paired["paired"] == ["before", "current"] and set(paired) > {"4000", "8000"}
    marks = before["checkpoints"]
    for games in (4000, 8000):
        diff = (np.array(current["losses"])[:, marks.index(games)]
                - np.array(before["losses"])[:, marks.index(games)])
        assert paired[str(games)][0] == round(float(diff.mean()), 3)
    assert np.allclose(np.mean(current["losses"], axis=0), current["mean"], atol=2e-3)
    proc = _stand_in(tmp_path, "--variants", "current", "--paired")
    assert proc.returncode == 2 and "exactly two" in proc.stderr


def test_ratio_to_reports_each_case_over_the_base_with_an_interval(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--case", "skewed,two", "--variants",
                     "current", "--seeds", "3", "--budget", "8000", "--json",
                     "--ratio-to", "skewed")
    assert proc.returncode == 0, proc.stderr[-3000:]
    skewed, two, q = [json.loads(line) for line in proc.stdout.splitlines()]
    assert q["ratio"] == ["two", "skewed"] and q["seeds"] == [3, 3]
    if two["games_to_1_elo"] is not None:
        # (from the per-seed losses as printed, to 3 decimals: the crossing may move a little)
        assert abs(q["games_to_1_elo"] - two["games_to_1_elo"] / skewed["games_to_1_elo"]) < 0.02
    low, high = q["interval_95"]
    assert low is not None and low <= (q["games_to_1_elo"] or float("inf"))
    proc = _stand_in(tmp_path, "--case", "two", "--ratio-to", "skewed")
    assert proc.returncode == 2 and "must be one of --case" in proc.stderr


def test_release_fits_held_out_duels_and_refits_only_plays_none(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--case", "fishtest", "--variants",
                     "current,release,no-holdout,refits-only", "--seeds", "1", "--budget",
                     "16000", "--json", "--path")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {r["variant"]: r["posterior"][0] for r in map(json.loads, proc.stdout.splitlines())}
    # the same games: released held-out duels are fitted, so the model holds more duels
    # than without release (the held-out duels' games are played either way)
    assert rows["release"]["duels"] > rows["current"]["duels"]
    # without held-out duels every trial is a fitted duel, with or without the refits
    assert rows["refits-only"]["duels"] == rows["no-holdout"]["duels"] > rows["current"]["duels"]


def test_path_duels_go_along_the_line_from_the_baseline_through_the_maximum() -> None:
    m = _module()
    low, high = np.array([-1.5, -1.5, -0.5]), np.array([0.5, 0.5, 1.5])
    centre = np.array([0.5, -0.25, 0.0])  # on the upper edge in x1
    a, b = m.path_points(centre, 1.0, low, high)
    # the maximum plus / minus a radius along centre / |centre|_inf = (1, -0.5, 0), each
    # coordinate then clipped to the box (x1 of the outer point)
    assert np.allclose(a, [0.5, -0.75, 0.0]) and np.allclose(b, [-0.5, 0.25, 0.0])
    assert m.VARIANTS["path-25"].path_share == 0.25 and m.VARIANTS["current"].path_share == 0.0


def test_aligned_streams_draw_each_trials_games_by_its_number(monkeypatch) -> None:
    """With ``aligned``, a trial's games come from a stream of its own: two variants
    that hold out different trials still draw the same games at the same trial
    numbers; by default one stream runs on in the order of play."""
    m = _module()
    seen: list[str] = []
    real = m.game_scores

    def recording(rng, elo_diffs, draw_ratio):
        seen.append(json.dumps(rng.bit_generator.state, sort_keys=True))
        return real(rng, elo_diffs, draw_ratio)

    monkeypatch.setattr(m, "game_scores", recording)
    case = m.CASES["skewed"]  # its answer leaves the baseline at once: held-out duels play

    def states(variant: str, aligned: bool) -> list[str]:
        seen.clear()
        m.run(case, m.VARIANTS[variant], 5, 4000, aligned)
        return list(seen)

    # (``narrow-off``: ``current`` before stop 48, whose held-out duels draw no games
    # here; ``current`` plays them, from their trials' own streams, to test narrowing)
    held, free = states("narrow-off", True), states("no-holdout", True)
    # every trial of ``narrow-off`` that duels is the same trial of ``no-holdout``: its
    # stream starts where that one's does; the held-out slots are the ones missing
    assert set(held) < set(free)
    assert len(free) - len(held) >= 5 and len(set(free)) == len(free)
    by_order, free_by_order = states("narrow-off", False), states("no-holdout", False)
    # by default one stream in the order of play: ``narrow-off``'s k-th duel draws what
    # ``no-holdout``'s k-th trial drew, so after the first held-out slot the two pair
    # each trial with the one before it
    assert by_order == free_by_order[:len(by_order)] and len(by_order) < len(free_by_order)
    assert not set(by_order) & set(held)


def test_cases_from_a_file_join_and_a_missing_file_is_one_line(tmp_path) -> None:
    proc = _stand_in(tmp_path, "--cases", str(ROOT / "benchmarks" / "cases" / "edge_answer.py"),
                     "--case", "near_edge", "--variants", "edge-off,current", "--seeds", "1",
                     "--budget", "2000", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["case"], r["variant"]) for r in rows] == [("near_edge", "edge-off"),
                                                         ("near_edge", "current")]
    proc = _stand_in(tmp_path, "--cases", "missing.py", "--case", "near_edge")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--cases missing.py: no such file" in proc.stderr.splitlines()[-1]


def test_current_is_the_samplers_edge_answer_and_edge_off_the_lower_bounds_point() -> None:
    m = _module()
    model = _bowl_model()
    low, high = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    top = model.argmax_mean(low, high, np.zeros(2))
    from heurtune.tuning.samplers.duels import EDGE_ROOM, step_toward, toward_edges
    lower = m.lcb_answer(model, low, high, top)
    assert np.array_equal(m.VARIANTS["edge-off"].answer(model, low, high, top), lower)
    assert np.array_equal(m.VARIANTS["before"].answer(model, low, high, top), lower)
    assert m.EDGE_MOVE_SD == 0.3 and m.STEP_SD == 0.8  # the sampler's defaults
    assert np.array_equal(m.current_answer(model, low, high, top),
                          step_toward(model, toward_edges(model, lower, top, low, high, 1.0,
                                                          EDGE_ROOM, move_sd=0.3),
                                      top, 1.0, 0.8))
    assert np.array_equal(m.VARIANTS["edge-unguarded"].answer(model, low, high, top),
                          step_toward(model, toward_edges(model, lower, top, low, high, 1.0,
                                                          EDGE_ROOM), top, 1.0, 0.8))
    assert np.array_equal(m.edge_gated_answer(model, low, high, top),
                          toward_edges(model, lower, top, low, high, 1.0, EDGE_ROOM,
                                       curved_only=False))


def test_edge_moves_tabulates_the_moves_and_refuses_an_unknown_case(tmp_path) -> None:
    script = ROOT / "benchmarks" / "edge_moves.py"
    proc = subprocess.run([sys.executable, str(script), "edge", "1", "4000"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    header, row = proc.stdout.splitlines()
    assert header.split()[:3] == ["case", "moves", "all"]
    assert "guarded" in header.split()  # the rule with its edge_move_sd test
    cells = row.split()
    assert cells[0] == "edge" and int(cells[1]) > 0
    proc = subprocess.run([sys.executable, str(script), "nope", "1"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60, check=False)
    assert proc.returncode == 2 and "unknown case 'nope'" in proc.stderr
    for bad in (["edge", "x"], ["edge", "2", "10"]):
        proc = subprocess.run([sys.executable, str(script), *bad], capture_output=True,
                              text=True, cwd=tmp_path, timeout=60, check=False)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines() == [
            "edge_moves.py: SEEDS must be a whole number of at least 1 and BUDGET one of at "
            "least 1000"]


def test_step_variants_step_after_the_edge_move() -> None:
    m = _module()
    model = _bowl_model()
    low, high = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    top = model.argmax_mean(low, high, np.zeros(2))
    from heurtune.tuning.samplers.duels import (
        EDGE_ROOM,
        best_on_segment,
        step_toward,
        toward_edges,
    )
    lower = m.lcb_answer(model, low, high, top)
    moved = toward_edges(model, lower, top, low, high, 1.0, EDGE_ROOM, move_sd=0.3)
    for name, step_sd in (("step-off", 0.0), ("step-0.6", 0.6), ("step-0.7", 0.7),
                          ("step-0.8", 0.8), ("current", 0.8)):
        assert np.array_equal(m.VARIANTS[name].answer(model, low, high, top),
                              step_toward(model, moved, top, 1.0, step_sd)), name
    assert not np.array_equal(m.VARIANTS["current"].answer(model, low, high, top), moved)
    # the bar not scaled (two parameters: sqrt(2 / 4) times it when scaled)
    assert np.array_equal(m.VARIANTS["step-flat"].answer(model, low, high, top),
                          best_on_segment(model, moved, top, 1.0, 0.8))
    assert np.array_equal(m.VARIANTS["step-first"].answer(model, low, high, top),
                          toward_edges(model, step_toward(model, lower, top, 1.0, 0.8), top,
                                       low, high, 1.0, EDGE_ROOM, move_sd=0.3))


def test_on_checkpoint_sees_the_model_the_answer_is_read_from() -> None:
    m = _module()
    case = m.CASES["fishtest"]
    seen: list[tuple[int, float]] = []
    elo = m.relative_elo(case)

    def record(games, model, low, high, centre) -> None:
        seen.append((games, -elo(m.current_answer(model, low, high, centre))))

    answers = m.run(case, m.VARIANTS["current"], 3, 4000, True, on_checkpoint=record)[0]
    assert [g for g, _ in seen] == m.checkpoints(4000)
    assert [loss for _, loss in seen] == answers


def test_every_shipped_case_file_defines_valid_cases() -> None:
    """benchmarks/cases/*.py load (define_case validates each: the best inside the box,
    no point found better, the baseline its stated loss below it), each case once."""
    code = (
        "import runpy, sys\n"
        "from heurtune.engine.heuristics.oracle import CASES\n"
        "before = set(CASES)\n"
        "runpy.run_path(sys.argv[1])\n"
        "for name in sorted(set(CASES) - before):\n"
        "    c = CASES[name]\n"
        "    print(name, c.dim, round(c.start_elo, 6), round(-c.elo(c.baseline), 6))\n")
    for path in sorted((ROOT / "benchmarks" / "cases").glob("*.py")):
        proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                              text=True, timeout=120, check=False)
        assert proc.returncode == 0, (path.name, proc.stderr[-2000:])
        rows = [line.split() for line in proc.stdout.splitlines()]
        assert rows, path.name
        for name, dim, start, loss in rows:
            assert int(dim) >= 4 and float(start) > 0 and float(loss) == float(start), name


def test_edge_prior_for_the_duels_only_centres_them_alike_and_answers_off_the_plain_fit() -> None:
    m = _module()
    case = m.CASES["edge"]
    wide = m.run(case, m.VARIANTS["edge-prior-4"], 1, 8000, aligned=True)
    duels_only = m.run(case, m.VARIANTS["edge-prior-4-duels"], 1, 8000, aligned=True)
    plain = m.run(case, m.VARIANTS["current"], 1, 8000, aligned=True)
    # the same maximum to start with (the duels part once the answers do: a held-out
    # slot is a duel while the answer is the baseline), answers of their own
    assert duels_only[1][0] == wide[1][0] and wide[1] != plain[1]
    assert duels_only[0] != wide[0]
    for name, z in (("edge-prior-4-sure", 1.0), ("edge-prior-4-sure2", 2.0)):
        assert m.VARIANTS[name].edge_prior_gain_z == z and m.VARIANTS[name].edge_prior == 4.0


def test_a_checked_edge_prior_answer_falls_back_to_the_plain_fits_where_it_doubts_it(
        monkeypatch) -> None:
    m = _module()
    from heurtune.tuning.samplers.duels import fit_at_edges
    from heurtune.tuning.samplers.quadratic import Observation
    edge = 0.4  # x1's bound; its best (0.7) lies beyond it
    low, high = -np.ones(2), np.array([edge, 1.0])
    duels = (((edge, 0.0), (edge - 1.0, 0.0)), ((edge - 0.5, 0.0), (edge, 0.0)),
             ((0.0, 0.5), (0.0, -0.5)), ((edge, 0.5), (edge, -0.5)))
    model = QuadraticModel(2)
    for _ in range(20):
        for plus, minus in duels:
            a, b = np.array(plus), np.array(minus)
            diff = sum(-3.0 * ((x - c) ** 2 - (y - c) ** 2)
                       for x, y, c in zip(a, b, (0.7, 0.2), strict=True))
            model.add(Observation(a, b, 1.0 / (1.0 + 10.0 ** (-diff / 400.0)), 400))
    top = fit_at_edges(model, low, high, np.zeros(2), 0.25, 4.0)
    assert model.widen is not None
    mean_before = model.mean.copy()
    wide = m.variant_answer(m.VARIANTS["edge-prior-4"], model, low, high, top)
    checked = m.variant_answer(m.VARIANTS["edge-prior-4-checked"], model, low, high, top)
    plain = m.variant_answer(m.VARIANTS["edge-prior-4-duels"], model, low, high, top)
    assert np.array_equal(model.mean, mean_before) and model.widen is not None  # as it came
    assert not np.array_equal(plain, wide)  # the plain fit answers nearer the baseline
    assert np.array_equal(checked, plain)  # ... and doubts the wider prior's answer
    for z in (-1e6, 1e6):  # a plain fit sure of everything, of nothing
        monkeypatch.setattr(m, "Z", z)
        checked = m.variant_answer(m.VARIANTS["edge-prior-4-checked"], model, low, high, top)
        wide = m.variant_answer(m.VARIANTS["edge-prior-4"], model, low, high, top)
        plain = m.variant_answer(m.VARIANTS["edge-prior-4-duels"], model, low, high, top)
        assert not np.array_equal(wide, plain)
        assert np.array_equal(checked, wide if z < 0 else plain)


def test_a_waiting_edge_prior_is_the_plain_fit_until_its_duels_are_in() -> None:
    """``edge-prior-4-after-8`` widens once the model holds 8 duels per coefficient
    (14 in ``edge``'s four parameters: 112 duels, some 3,600 games): up to 2,000 games
    it answers as ``current``, not as ``edge-prior-4``."""
    m = _module()
    case = m.CASES["edge"]
    runs = {name: m.run(case, m.VARIANTS[name], 1, 2000, aligned=True)[0]
            for name in ("current", "edge-prior-4", "edge-prior-4-after-8")}
    assert runs["edge-prior-4-after-8"] == runs["current"] != runs["edge-prior-4"]
    assert m.VARIANTS["edge-prior-4-after-16"].edge_prior_after == 16.0
    for name, z in (("edge-prior-4-curved1", 1.0), ("edge-prior-4-curved2", 2.0)):
        assert m.VARIANTS[name].edge_prior_curved_z == z
    for name in ("edge-prior-4-slope1", "edge-prior-4-after-8-slope1"):
        assert m.VARIANTS[name].edge_prior_slope_z == 1.0


def test_the_stand_in_resolves_edge_prior_as_the_sampler_does(monkeypatch) -> None:
    """``current`` is the sampler's default: ``edge_prior`` 4 at once in 8 or more
    parameters (``twelve``), 4 behind both gates in four (``fishtest``)."""
    import heurtune.tuning.samplers.duels as duels_module
    from heurtune.engine.heuristics.oracle import CASES
    module = _module()
    seen: list[tuple[float, int, float | None]] = []
    fit = duels_module.fit_at_edges

    def spy(model, low, high, centre, room, edge_prior, margin, gain_z, curved_z,  # type: ignore[no-untyped-def]
            after, slope_z):
        seen.append((edge_prior, after, slope_z))
        return fit(model, low, high, centre, room, edge_prior, margin, gain_z, curved_z,
                   after, slope_z)
    monkeypatch.setattr(duels_module, "fit_at_edges", spy)
    # 8 duels per coefficient: 14 coefficients in four parameters
    for case, expected in (("twelve", (4.0, 0, None)), ("fishtest", (4.0, 112, 1.0))):
        seen.clear()
        module.run(CASES[case], module.VARIANTS["current"], 0, 1000)
        assert seen and set(seen) == {expected}


def test_kept_answers_trade_part_of_the_sure_gain_for_mean_gain_toward_the_maximum() -> None:
    """``keep-S``: from the sampler's answer toward the model's maximum, the highest mean
    gain whose lower bound keeps S of the box's highest; ``-prior`` also keeps the
    prior's start distance. Read off the stand-in's own ``far`` run."""
    m = _module()
    from heurtune.engine.heuristics.oracle import CASES
    seen: list[tuple[int, dict[str, np.ndarray], float, float, float]] = []

    def read(games: int, model: QuadraticModel, low: np.ndarray, high: np.ndarray,
             centre: np.ndarray) -> None:
        answers = {name: m.VARIANTS[name].answer(model, low, high, centre)
                   for name in ("current", "keep-0.5", "keep-0.9", "keep-0.5-prior")}
        best = model.recommend(low, high, 1.0, centre)
        base = answers["current"]
        for name, point in answers.items():
            mean, sd = model.gain(point)
            assert mean >= model.gain(base)[0] - 1e-9, name
            step = point - base
            along = centre - base
            if step.any():  # on the segment from the answer to the maximum
                t = float(step @ along / (along @ along))
                assert 0.0 < t <= 1.0 + 1e-9 and np.allclose(step, t * along), name
                share = 0.5 if name.startswith("keep-0.5") else 0.9
                floor = share * (best[1] - best[2])
                if name.endswith("-prior"):
                    floor = max(floor, model.start_elo)
                assert mean - sd >= floor - 1e-9, name
        dist = {n: float(np.abs(p - base).max()) for n, p in answers.items()}
        assert dist["keep-0.5"] >= dist["keep-0.9"] - 1e-12
        assert dist["keep-0.5"] >= dist["keep-0.5-prior"] - 1e-12
        seen.append((games, answers, dist["keep-0.5"], dist["keep-0.9"], best[1] - best[2]))

    m.run(CASES["far"], m.VARIANTS["current"], 0, 8000, aligned=True, on_checkpoint=read)
    assert [s[0] for s in seen] == [1000, 1414, 2000, 2828, 4000, 5657, 8000]
    # far from the baseline and sure of it, the answer moves toward the maximum
    assert any(s[2] > 0.01 for s in seen)
    assert any(s[2] > s[3] + 1e-6 for s in seen)


def _noiseless(model: QuadraticModel, truth, rng: np.random.Generator, duels: int = 400) -> None:
    """``duels`` duels between random points of [-1, 1]^d scored as the truth says
    (as Elo, converted to a mean score), many games each: nearly noiseless data."""
    from heurtune.tuning.samplers.quadratic import Observation
    for _ in range(duels):
        a, b = rng.uniform(-1, 1, model.dim), rng.uniform(-1, 1, model.dim)
        elo = truth(a) - truth(b)
        model.add(Observation(a, b, 1.0 / (1.0 + 10.0 ** (-elo / 400.0)), 100_000))
    model.fit()


def test_cubic_model_fits_a_cubic_term_and_finds_its_maximum_in_the_box() -> None:
    m = _module()
    # one parameter: 3 d - 2 d^2 - 2 d^3, highest in [-1, 1] where 3 - 4 d - 6 d^2 = 0
    top = (-4.0 + np.sqrt(88.0)) / 12.0  # 0.448
    def truth(d):
        return float(3 * d[0] - 2 * d[0] ** 2 - 2 * d[0] ** 3)
    cubic = m.CubicModel(1, cubic_sd=4.0)
    _noiseless(cubic, truth, np.random.default_rng(1))
    assert cubic.feature_count == 3 and cubic.size == 3
    assert np.allclose(cubic.mean, [3.0, -2.0, -2.0], atol=0.05)
    low, high = np.array([-1.0]), np.array([1.0])
    assert abs(cubic.argmax_mean(low, high, np.zeros(1))[0] - top) < 0.02
    # the gain, its slope and the lower bound's point read the cubic term too
    assert abs(cubic.gain(np.array([1.0]))[0] - (-1.0)) < 0.05
    assert abs(cubic.slope(np.array([top]), 0)[0]) < 0.05
    point, mean, _ = cubic.recommend(low, high, 1.0)
    assert 0.3 < point[0] < 0.6 and abs(mean - truth(point)) < 0.05
    # the quadratic model cannot: its gain at the box's edge is far off (-0.2 against -1)
    plain = QuadraticModel(1)
    _noiseless(plain, truth, np.random.default_rng(1))
    assert abs(plain.gain(np.array([1.0]))[0] - (-1.0)) > 0.5


@pytest.mark.parametrize("name", ["CubicModel", "HingeModel"])
def test_an_added_terms_prior_is_the_quadratic_one_plus_a_zero_centred_term(name) -> None:
    model, plain = getattr(_module(), name)(3, 0.5), QuadraticModel(3)
    tm, tp = model._prior(2.0, 1.0)
    pm, pp = plain._prior(2.0, 1.0)
    assert np.array_equal(tm[:9], pm) and np.array_equal(tp[:9], pp)
    assert np.array_equal(tm[9:], np.zeros(3))
    assert np.allclose(tp[9:], 1.0 / (0.5 * 2.0 * 2.0) ** 2)


def test_a_narrow_variant_counts_the_seeds_that_narrowed() -> None:
    m = _module()
    from heurtune.engine.heuristics.oracle import CASES
    row = m.summarise(CASES["broad"], "narrow-0.5", 2, 4000, aligned=True)
    assert len(row["narrowed_at"]) == 2 and all(g is not None for g in row["narrowed_at"])
    assert m.narrowed_text(row).startswith("   narrowed 2/2 (median at ")
    assert "narrowed_at" not in m.summarise(CASES["broad"], "narrow-off", 1, 2000,
                                            aligned=True)
    assert m.narrowed_text({"narrowed_at": [None, None]}) == "   narrowed 0/2"


def test_hinge_model_fits_two_curvatures_about_its_knot_and_follows_the_maximum() -> None:
    m = _module()
    # one parameter, optimum at 0.3, curvature -1 below it and -4 above (skewed's shape)
    def truth(d):
        u = d[0] - 0.3
        return float(-(u * u) * (4.0 if u > 0 else 1.0))
    low, high = np.array([-1.0]), np.array([1.0])
    hinge = m.HingeModel(1, hinge_sd=4.0)
    assert hinge.feature_count == 3 and np.array_equal(hinge.knot, [0.0])
    _noiseless(hinge, truth, np.random.default_rng(2))
    top = hinge.argmax_mean(low, high, np.zeros(1))
    hinge.fit()  # the knot moves to the maximum: the duels are refitted about it
    assert np.allclose(hinge.knot, top) and hinge.observations == 400
    for _ in range(3):
        top = hinge.argmax_mean(low, high, top)
        hinge.fit()
    assert abs(top[0] - 0.3) < 0.03 and abs(hinge.knot[0] - 0.3) < 0.05
    # both sides as the truth has them: the gain at the box's two ends
    for end in (-1.0, 1.0):
        d = np.array([end])
        assert abs(hinge.gain(d)[0] - (truth(d) - truth(np.zeros(1)))) < 0.1
    assert abs(hinge.slope(top, 0)[0]) < 0.1
    # the quadratic model's maximum lies off, toward the flatter side
    plain = QuadraticModel(1)
    _noiseless(plain, truth, np.random.default_rng(2))
    assert plain.argmax_mean(low, high, np.zeros(1))[0] < 0.2


def test_a_hinge_knot_at_a_bound_drops_its_term_with_inner_only() -> None:
    m = _module()
    # at the knot the hinge adds nothing; inner_only drops it where the knot is at a bound
    inner = m.HingeModel(2, inner_only=True)
    inner.box, inner.room = (np.array([-1.0, -1.0]), np.array([1.0, 1.0])), 0.1
    inner._next_knot = np.array([0.2, 0.95])
    inner.fit()
    assert np.array_equal(inner.active, [True, False])
    assert np.array_equal(inner.features(np.array([0.2, 0.95]))[5:], [0.0, 0.0])
    assert inner.features(np.array([-0.8, 0.0]))[5:].tolist() == [-1.0, 0.0]


def test_a_rising_bar_narrows_no_sooner_than_3_sd_and_no_later_than_5() -> None:
    m = _module()
    from heurtune.engine.heuristics.oracle import CASES
    at = {v: m.summarise(CASES["broad"], v, 2, 6000, aligned=True)["narrowed_at"]
          for v in ("narrow-0.5", "narrow-rising", "narrow-0.5-z5")}
    for low, rising, high in zip(*at.values(), strict=True):
        assert low is not None and rising is not None
        assert low <= rising and (high is None or rising <= high)
    # on these seeds (1,888 to 3,168 games) the rising bar lies strictly between
    assert at["narrow-0.5"] != at["narrow-rising"] != at["narrow-0.5-z5"]


def test_a_shadow_hinge_sees_a_one_sided_curvature_and_gates_the_kept_answer() -> None:
    """``ShadowHingeModel``: the quadratic fitted as the sampler's, a hinge model beside it
    on the same duels; its asymmetry z is large where the truth is four times steeper
    on one side (noiseless data) and small in a bowl, and ``asym-keep-0.75-z2``
    answers ``keep-0.75`` below the bar, the sampler's own answer at or above it."""
    m = _module()
    low, high, centre = np.array([-1.0]), np.array([1.0]), np.zeros(1)

    def skewed(d):
        u = d[0] - 0.3
        return float(-(u * u) * (4.0 if u > 0 else 1.0))

    def bowl(d):
        return float(-2.0 * (d[0] - 0.3) ** 2)

    z = {}
    for name, truth in (("skewed", skewed), ("bowl", bowl)):
        model = m.ShadowHingeModel(1)
        _noiseless(model, truth, np.random.default_rng(3))
        assert model.shadow.observations == model.observations == 400
        for _ in range(3):  # the shadow's knot follows its maximum
            z[name] = model.asymmetry(low, high, centre)
        plain = QuadraticModel(1)
        _noiseless(plain, truth, np.random.default_rng(3))
        assert np.allclose(plain.mean, model.mean)  # the answer's model is the sampler's
    assert z["skewed"] > 3.0 > 1.0 > z["bowl"]
    # the gate: the sampler's own answer at or above the bar, keep-0.75 below it
    model = m.ShadowHingeModel(1)
    _noiseless(model, skewed, np.random.default_rng(3))
    top = model.argmax_mean(low, high, centre)
    gated_low = m.asymmetry_gated_answer(0.75, 0.0)(model, low, high, top)
    gated_high = m.asymmetry_gated_answer(0.75, np.inf)(model, low, high, top)
    assert np.array_equal(gated_low, m.unreached_answer(model, low, high, top))
    assert np.array_equal(gated_high, m.kept_answer(0.75)(model, low, high, top))


def test_a_distance_gate_answers_keep_where_the_models_maximum_lies_far() -> None:
    """``keep-0.75-far-B``: ``keep-0.75`` where the model's maximum lies at least B
    radii from the baseline (root mean square per coordinate), the sampler's own answer
    nearer; on a far bowl the two differ, so the gate decides something."""
    m = _module()
    low, high = -np.ones(2), np.ones(2)

    def bowl(d):
        return float(-2.0 * np.sum((d - 0.8) ** 2))

    model = QuadraticModel(2)
    _noiseless(model, bowl, np.random.default_rng(5))
    top = model.argmax_mean(low, high, np.zeros(2))
    spread = np.linalg.norm(top) / np.sqrt(2)
    assert 0.7 < spread < 0.9  # the fit's maximum, near the truth's (0.8 per coordinate)
    keep = m.kept_answer(0.75)(model, low, high, top)
    own = m.unreached_answer(model, low, high, top)
    assert not np.allclose(keep, own)
    assert np.array_equal(m.distance_gated_answer(0.75, spread - 0.01)(model, low, high, top), keep)
    assert np.array_equal(m.distance_gated_answer(0.75, spread + 0.01)(model, low, high, top), own)
    assert {"keep-0.75-far-0.9", "keep-0.75-far-1.0"} <= set(m.VARIANTS)


def test_reach_gated_rules_move_part_of_the_way_where_the_maximum_lies_far() -> None:
    """``half-reach-B``: half of ``keep-0.75``'s move where the model's maximum lies B
    times the prior's distance out (after 8 duels per coefficient); ``sure_reach`` reads
    that distance off the posterior's draws (near the mean's on near-noiseless data);
    ``reach-auto`` is stop 60's ``reach = -1``, ``reach-auto-scale-4`` the sampler's own
    (the default since stop 61: only where the curvature's scale is at most 4)."""
    m = _module()
    low, high = -2.0 * np.ones(2), 2.0 * np.ones(2)

    def bowl(d):
        return float(-2.0 * np.sum((d - 1.3) ** 2))

    model = QuadraticModel(2)
    _noiseless(model, bowl, np.random.default_rng(5))
    top = model.argmax_mean(low, high, np.zeros(2))
    assert np.linalg.norm(top) > 1.75  # 1.84: past the gate
    own = m.unreached_answer(model, low, high, top)
    keep = m.kept_answer(0.75)(model, low, high, top)
    half = m.reach_gated_answer(0.75, 1.75, 0.5)(model, low, high, top)
    assert np.allclose(half, own + 0.5 * (keep - own))
    assert np.array_equal(m.reach_gated_answer(0.75, 2.0, 0.5)(model, low, high, top), own)
    assert np.array_equal(m.reach_gated_answer(0.75, 1.75, 0.5, after=1e6)(model, low, high, top),
                          own)  # the wait: fewer duels than that
    assert 0.0 < np.linalg.norm(top) - m.sure_reach(model, low, high, top) < 0.1  # its 16%
    auto = m.VARIANTS["reach-auto"].answer(model, low, high, top)
    _, mean, sd = model.recommend(low, high, 1.0, top)
    assert np.array_equal(auto, duels.reach_toward(model, own, top, mean - sd, 1.0, 1.75))
    assert np.array_equal(m.VARIANTS["reach-off"].answer(model, low, high, top), own)
    assert model.scale <= 4.0  # a bowl of the prior's curvature: the scale gate lets it by
    assert np.array_equal(m.VARIANTS["reach-auto-scale-4"].answer(model, low, high, top), auto)
    assert np.array_equal(m.reached_answer(-1.0, model.scale / 2)(model, low, high, top), own)
    assert np.array_equal(m.current_answer(model, low, high, top), auto)


def test_narrowing_on_the_guards_signal_and_forgetting_the_duels_that_span_it() -> None:
    """``narrow-below-3`` narrows a ``cliff`` study where the held-out duels measure the
    answer below the baseline and the model (seed 0, at 3,488 games), as the sampler's
    ``narrow_below`` does; ``-forget`` then refits on the duels within the narrowed
    radius of the centre only, so its model holds fewer duels than the one that keeps
    them all, while before the narrowing the two are the same run."""
    m = _module()
    runpy.run_path(str(ROOT / "benchmarks" / "cases" / "real_shapes.py"))
    from heurtune.engine.heuristics.oracle import CASES
    case = CASES["cliff"]
    held: dict[str, dict[int, int]] = {}
    for name in ("current", "narrow-below-3", "narrow-below-3-forget"):
        counts: dict[int, int] = {}

        def read(games, model, low, high, centre, counts=counts) -> None:
            counts[games] = model.observations
        *_, path = m.run(case, m.VARIANTS[name], 0, 5657, aligned=True, on_checkpoint=read)
        held[name] = counts
        assert (path["narrowed_at"] is None) == (name == "current")
    before = [g for g in held["current"] if g < 3488]
    assert before and all(held["narrow-below-3-forget"][g] == held["narrow-below-3"][g]
                          for g in before)
    assert held["narrow-below-3-forget"][4000] < held["narrow-below-3"][4000] / 2
