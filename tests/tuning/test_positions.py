"""The positions objective: the loss and K against a plain numpy recomputation,
the analytic gradient against finite differences, L-BFGS-B lowering the loss,
studies on positions (every sampler kind it takes, K stored, held-out losses,
confirm and export unchanged), warm starts from a positions study, and bad
study files as one error line."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import optuna
import pytest

from heurtune.engine import resolve_engine
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.positions import PositionSet, load_positions, sample_positions
from heurtune.tuning import load_study_file, tune
from heurtune.tuning.positions import PositionsFit, fit_scale, loss_and_slope
from heurtune.tuning.study import schema
from tests.helpers import cli
from tests.match.test_positions import random_lines


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> tuple[PositionSet, Path]:
    s = sample_positions("isolation", {}, random_lines("isolation", 40, 11), seed=2,
                         provenance={"match": {"pairs": 20, "seed": 99, "opening_plies": 2}})
    path = tmp_path_factory.mktemp("positions") / "iso.npz"
    s.save(path)
    load_positions(path)  # its move check compiles here, not in a test that counts lines
    return s, path


def _plain_loss(e: np.ndarray, y: np.ndarray, k: float, kind: str) -> float:
    p = 1.0 / (1.0 + np.exp(-e / k))
    if kind == "mse":
        return float(np.mean((p - y) ** 2))
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)))


@pytest.mark.parametrize("kind", ["cross-entropy", "mse"])
def test_loss_and_k_agree_with_a_plain_recomputation(positions, kind: str) -> None:
    s, _path = positions
    engine = resolve_engine("isolation:ab_improved")
    fit = PositionsFit(s, engine, engine.heuristic_obj.space, loss=kind, held_out=0.25, seed=3,
                       perspective="side-to-move")
    h = engine.heuristic_obj
    kernel = get_game("isolation")
    plain = np.array([h.evaluate(st, h.to_array(engine.params), kernel.side_to_move(st))
                      for st in (s.state(i) for i in range(s.size))])
    other = np.array([h.evaluate(st, h.to_array(engine.params), 1 - kernel.side_to_move(st))
                      for st in (s.state(i) for i in range(s.size))])
    assert np.allclose(fit.evaluate(engine.params), plain)
    # the default perspective: the side to move's value less the other side's
    both = PositionsFit(s, engine, engine.heuristic_obj.space, loss=kind, held_out=0.25, seed=3)
    assert np.allclose(both.evaluate(engine.params), plain - other)
    train = fit.train_mask
    y = s.label
    losses = fit.losses(engine.params)
    assert losses.train == pytest.approx(_plain_loss(plain[train], y[train], fit.scale, kind))
    assert losses.held_out == pytest.approx(_plain_loss(plain[~train], y[~train], fit.scale,
                                                        kind))
    # K minimises the training loss: a grid around it finds nothing lower
    best = _plain_loss(plain[train], y[train], fit.scale, kind)
    for factor in (0.5, 0.8, 0.95, 1.05, 1.25, 2.0):
        assert _plain_loss(plain[train], y[train], fit.scale * factor, kind) >= best - 1e-9
    assert fit_scale(np.zeros(5), np.ones(5), kind) == 1.0


def test_the_slope_is_the_loss_derivative() -> None:
    rng = np.random.default_rng(0)
    z, y = rng.normal(size=50), rng.choice([0.0, 0.5, 1.0], size=50)
    for kind in ("cross-entropy", "mse"):
        value, slope = loss_and_slope(z, y, kind)
        for i in (0, 7, 31):
            dz = z.copy()
            dz[i] += 1e-6
            assert (loss_and_slope(dz, y, kind)[0] - value) / 1e-6 == pytest.approx(
                slope[i], rel=1e-3, abs=1e-9)


def test_linear_heuristics_get_the_analytic_gradient_and_lbfgs_lowers_the_loss(
        positions) -> None:
    s, _path = positions
    from heurtune.engine import EngineConfig

    weighted = EngineConfig(game="isolation", heuristic="weighted")
    space = weighted.heuristic_obj.space.narrowed({"partition": 0.0, "territory": 0.0,
                                                   "region": 0.0, "contested": 0.0,
                                                   "resolution": 0.0})
    fit = PositionsFit(s, weighted, space, held_out=0.2, seed=1)
    assert fit.linear_features() is not None  # mobility terms: linear in their weights
    start = fit.losses(fit.base_values).train
    points: list[float] = []
    best = fit.minimize(fit.base_values, 40, on_point=lambda _v, found: points.append(
        found.train))
    assert points and min(points) < start - 1e-3
    assert fit.losses(best).train == pytest.approx(min(points))
    finite = fit.minimize(fit.base_values, 40, gradient="finite")
    assert fit.losses(finite).train < start - 1e-3
    # the analytic gradient is the finite-difference one
    packed = fit.linear_features()
    assert packed is not None
    names = [p.name for p in space.searched]
    x0 = np.array([float(weighted.params[n]) for n in names])
    e = fit.evaluate(weighted.params)
    assert np.allclose(packed[:, 0], e)
    for i in range(len(names)):
        x = x0.copy()
        x[i] += 0.01
        moved = fit.evaluate(dict(zip(names, x, strict=True)))
        assert np.allclose((moved - e) / 0.01, packed[:, 1 + i], atol=1e-6)


def _study(study_file, path: Path, name: str, sampler: str, trials: int = 6, **extra):
    return study_file(name, study={"opponent": "isolation:ab_improved", "objective": "positions",
                                   "positions": str(path), "trials": trials, "seed": 5,
                                   "sampler": sampler, **extra},
                      search={"algorithm": "alphabeta", "nodes": 300},
                      params={"partition": 0.0, "territory": 0.0, "region": 0.0,
                              "contested": 0.0, "resolution": 0.0, "distance": 0.0,
                              "centrality": 0.0})


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["tpe", "cmaes", "random", "lbfgs"])
def test_a_positions_study_minimises_the_loss(positions, study_file, tmp_path: Path,
                                               sampler: str) -> None:
    _s, path = positions
    sf = load_study_file(_study(study_file, path, f"p-{sampler}", sampler))
    url = f"sqlite:///{tmp_path / 's.db'}"
    summary = tune(sf, storage_url=url)
    study = optuna.load_study(study_name=f"p-{sampler}", storage=url)
    assert study.direction == optuna.study.StudyDirection.MINIMIZE
    done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert 2 <= len(done) <= 6
    info = study.user_attrs[schema.POSITIONS]
    assert info["k"] > 0 and info["positions"] == _s.size
    assert info["baseline_loss"] == pytest.approx(done[0].values[0])  # trial 0: the baseline
    for t in done:
        assert t.values[0] == t.user_attrs[schema.POSITIONS_LOSS]
        assert schema.POSITIONS_HELD_OUT_LOSS in t.user_attrs
    assert summary.best_value == min(t.values[0] for t in done)
    # the setup names the games the positions came from: confirmation avoids their openings
    setup = study.user_attrs[schema.SETUP]
    assert (setup["pairs"], setup["seed"], setup["opening_plies"]) == (20, 99, 2)
    # match --exclude-study on a positions study leaves out the positions' games' openings
    spec = sf.match_spec()
    assert (spec.pairs, spec.seed, spec.plies) == (20, 99, 2)
    if sampler == "lbfgs":  # every trial a point of L-BFGS-B, none repeated
        assert len({tuple(sorted(t.params.items())) for t in done}) == len(done)
        assert summary.best_value < done[0].values[0]


@pytest.mark.slow
def test_confirm_export_and_a_warm_start_from_a_positions_study(positions, study_file,
                                                                tmp_path: Path,
                                                                capsys) -> None:
    _s, path = positions
    url = f"sqlite:///{tmp_path / 's.db'}"
    fitted = _study(study_file, path, "fit", "lbfgs", trials=8)
    code, out, err = cli(capsys, "tune", str(fitted), "--storage", url)
    assert code == 0, err
    assert "loss" in err and "held-out" in err
    code, out, err = cli(capsys, "confirm", "fit", "--storage", url, "--top", "1",
                         "--pairs", "2", "--check-pairs", "2")
    assert code == 0, err
    assert "winner:" in out
    exported = tmp_path / "fit.toml"
    code, out, err = cli(capsys, "export", "fit", "--storage", url, "--out", str(exported),
                         "--force")  # two pairs prove no gain: written all the same
    assert code == 0, err
    engine = resolve_engine(str(exported))
    study = optuna.load_study(study_name="fit", storage=url)
    assert engine.provenance["confirmation"]["games"] > 0
    # the report: the losses per trial, K, and the calibration of baseline and tuned weights
    report = tmp_path / "fit.html"
    code, out, err = cli(capsys, "report", "fit", "--storage", url, "--out", str(report))
    assert code == 0, err
    page = report.read_text()
    assert "Calibration: predicted against observed results" in page
    assert "held-out loss" in page and "fitted at the baseline" in page
    assert "Pruning" not in page
    # a match study starting from it: its first trial plays the positions study's winner
    games = study_file("games", study={"opponent": "isolation:ab_improved", "trials": 1,
                                       "pairs": 1, "start_from": "study:fit"},
                       search={"algorithm": "alphabeta", "nodes": 300},
                       params={"partition": 0.0, "territory": 0.0, "region": 0.0,
                               "contested": 0.0, "resolution": 0.0, "distance": 0.0,
                               "centrality": 0.0})
    tune(load_study_file(games), storage_url=url)
    first = optuna.load_study(study_name="games", storage=url).trials[0]
    assert first.user_attrs[schema.START_FROM] == "study:fit"
    winner = study.user_attrs[schema.CONFIRMATION]
    assert winner is not None
    for name, value in first.params.items():
        assert math.isclose(value, engine.params[name])


def test_bad_positions_studies_are_one_error_line(positions, study_file, tmp_path: Path,
                                                  capsys) -> None:
    _s, path = positions
    url = f"sqlite:///{tmp_path / 's.db'}"
    morris = tmp_path / "m.npz"
    sample_positions("morris", {}, random_lines("morris", 2, 1), seed=1).save(morris)
    cases = [
        (_study(study_file, tmp_path / "nope.npz", "a", "tpe"), "no such file"),
        (_study(study_file, morris, "b", "tpe"), "positions of morris, not isolation"),
        (_study(study_file, path, "c", "duels"), "duels weights in games"),
        (study_file("d", study={"sampler": "lbfgs", "opponent": "isolation:random"}),
         "needs objective = \"positions\""),
        (study_file("e", study={"positions": str(path), "opponent": "isolation:random"}),
         "go with objective"),
        (_study(study_file, path, "f", "tpe", objective="texel"), "objective must be one of"),
    ]
    for file, message in cases:
        code, out, err = cli(capsys, "tune", str(file), "--storage", url)
        assert code == 2 and message in err, err
        assert err.count("\n") == 1
    fresh = study_file("g", study={"opponent": "isolation:ab_improved", "trials": 1,
                                   "pairs": 1, "start_from": "study:absent"})
    code, out, err = cli(capsys, "tune", str(fresh), "--storage", url)
    assert code == 2 and "start_from 'study:absent'" in err, err
    with pytest.raises(HeurtuneError, match="held_out must be in"):
        load_study_file(study_file("h", study={"objective": "positions",
                                               "opponent": "isolation:random",
                                               "positions": str(path)},
                                   positions={"held_out": 0.9}))


def test_the_positions_command_writes_a_file(tmp_path: Path, capsys) -> None:
    out = tmp_path / "p.npz"
    code, stdout, err = cli(capsys, "positions", "isolation:mm_improved", "--opponent",
                            "isolation:random", "--games", "4", "--seed", "3", "--quiet",
                            "--per-game", "5", "--out", str(out))
    assert code == 0, err
    assert f"positions of 4 games to {out}" in stdout
    from heurtune.match.positions import load_positions

    s = load_positions(out, "isolation")
    assert s.games == 4 and s.size <= 20
    assert s.provenance["match"] == {"pairs": 2, "seed": 3, "opening_plies": 2,
                                     "distinct_openings": "symmetry"}
    records = tmp_path / "g.jsonl"
    code, _o, err = cli(capsys, "match", "isolation:mm_improved", "isolation:random",
                        "--pairs", "2", "--seed", "3", "--games", str(records))
    assert code == 0, err
    again = tmp_path / "q.npz"
    code, _o, err = cli(capsys, "positions", "isolation:mm_improved", "--from", str(records),
                        "--out", str(again))
    assert code == 0, err
    assert np.array_equal(load_positions(again).moves, load_positions(tmp_path / "p.npz").moves)
    for argv, message in [
        (["isolation:mm_improved", "--out", str(again)], "give --games N"),
        (["isolation:mm_improved", "--games", "3", "--out", str(again)], "even number"),
        (["morris:ab", "--from", str(records), "--out", str(again)], "holds isolation games"),
        (["isolation:mm_improved", "--games", "2", "--out", str(tmp_path)], "is a directory"),
    ]:
        code, _o, err = cli(capsys, "positions", *argv)
        assert code == 2 and message in err, err
