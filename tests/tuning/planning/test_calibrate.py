"""heurtune calibrate and the planning arithmetic that tune prints."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from heurtune.match.play import PairResult
from heurtune.match.runner import MatchResult, MatchRunner, MatchSpec
from heurtune.match.stats import PAIR_VALUES, elo, logistic_score
from heurtune.tuning.planning.calibrate import (
    ASSUMED_PAIR_VARIANCE,
    baseline,
    calibrate,
    draw_openings,
    game_figures,
    pair_figures,
    plan,
    resolved_elo,
)
from heurtune.tuning.studyfile import load_study_file
from tests.helpers import ROOT, cli

# a fast study: Isolation, depth-2 alpha-beta against 3-ply minimax
TINY = """
[study]
name = "tiny"
game = "isolation"
opponent = "{opponent}"
trials = 10
pairs = 20
seed = 3
jobs = 1

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

[params]
own_start = {{ low = 0.0, high = 3.0 }}
opp_start = {{ low = 0.0, high = 3.0 }}
own_end = 1.0
opp_end = 1.0
own2 = 0.0
opp2 = 0.0
centrality = 0.0
distance = 0.0
region = 0.0
partition = 0.0
territory = 0.0
contested = 0.0
resolution = 0.0
"""


def tiny_study(tmp_path: Path, opponent: str = "isolation:mm_improved") -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY.format(opponent=opponent))
    return path


# -- planning ----------------------------------------------------------------------
def test_plan_at_an_even_score_is_the_normal_formula() -> None:
    z = stats.norm.ppf(0.975)
    delta = 1.0 / (1.0 + 10.0 ** (-20.0 / 400.0)) - 0.5
    p = plan(0.05, pairs=100, trials=30, elo=20.0, opponents=2)
    assert p.pairs_needed == math.ceil((z / delta) ** 2 * 0.05)
    half = z * math.sqrt(0.05 / 100)
    assert p.resolved_elo == pytest.approx(400.0 * math.log10((0.5 + half) / (0.5 - half)))
    assert p.games == 30 * 100 * 2 * 2
    # the documented no-calibration figure
    assert plan(ASSUMED_PAIR_VARIANCE, pairs=8, trials=12).pairs_needed == 581


@pytest.mark.parametrize("score", [0.5, 0.3, 0.85])
def test_pairs_needed_is_the_least_that_resolve_the_difference(score: float) -> None:
    var = 0.07
    n = plan(var, pairs=10, trials=1, elo=25.0, score=score).pairs_needed
    assert resolved_elo(var, n, score) <= 25.0 < resolved_elo(var, n - 1, score)
    # the interval's half-width at n pairs is no wider than 25 Elo either way
    e0 = elo(score, 10**9)
    delta = min(logistic_score(e0 + 25.0) - score, score - logistic_score(e0 - 25.0))
    assert stats.norm.ppf(0.975) * math.sqrt(var / n) <= delta + 1e-12


def test_a_score_at_the_edge_resolves_nothing_finite() -> None:
    assert math.isinf(resolved_elo(0.2, 1, 0.5))
    assert plan(0.2, pairs=1, trials=1).to_dict()["resolved_elo"] is None


# -- the figures, against an independent computation -------------------------------
def _pair(index: int, a0: float, a1: float, plies: tuple[int, int] = (30, 31)) -> PairResult:
    return PairResult(index, (index,), (a0, a1), plies)


def check_figures(result: MatchResult) -> None:
    """pair_figures and game_figures against numpy over the raw pairs."""
    pairs = result.pairs
    a_games = np.array([s for p in pairs for s in p.a_scores])
    first = np.array([s for p in pairs for s in (p.a_scores[0], 1.0 - p.a_scores[1])])
    scores = np.array([(p.a_scores[0] + p.a_scores[1]) / 2 for p in pairs])
    counts = np.bincount(np.rint(scores * 4).astype(int), minlength=5)
    # the pair variance as the intervals use it: half a pair added at each outcome
    values = np.concatenate([scores, PAIR_VALUES])
    weights = np.concatenate([np.ones(len(scores)), np.full(5, 0.5)])
    var = float(np.cov(values, aweights=weights, bias=True))
    v = {**pair_figures(result), **game_figures(result)}
    assert v["pentanomial"] == counts.tolist()
    assert v["score"] == pytest.approx(a_games.mean())
    assert v["even_fraction"] == pytest.approx(np.mean(scores == 0.5))
    assert v["pair_variance"] == pytest.approx(var, rel=1e-12)
    assert v["game_variance"] == pytest.approx(2 * var, rel=1e-12)
    assert v["virtual_draw_ratio"] == pytest.approx(1 - 8 * var, rel=1e-12)
    assert v["independent_game_variance"] == pytest.approx(np.var(a_games), rel=1e-12)
    assert v["draw_ratio"] == pytest.approx(np.mean(a_games == 0.5))
    assert v["first_player_score"] == pytest.approx(first.mean())
    assert v["mean_plies"] == pytest.approx(np.mean([n for p in pairs for n in p.plies]))
    assert v["games"] == 2 * len(pairs)


def test_figures_with_draws() -> None:
    pairs = [_pair(0, 1.0, 0.5), _pair(1, 0.5, 0.5), _pair(2, 0.0, 1.0), _pair(3, 0.0, 0.5),
             _pair(4, 1.0, 1.0, (12, 250)), _pair(5, 0.5, 0.0)]
    spec = MatchSpec(*(2 * [load_study_file(
        ROOT / "studies" / "quick" / "morris.toml").base]), pairs=6)
    check_figures(MatchResult(spec, pairs))


def test_calibration_of_a_real_match(tmp_path) -> None:
    sf = load_study_file(tiny_study(tmp_path))
    cal = calibrate(sf, pairs=6, jobs=1)
    record = cal.record
    assert record["pairs"] == 6 and record["seed"] == sf.seed + 1
    assert record["openings"] == "fresh" and record["opening_plies"] == sf.opening_plies
    # the engines and openings it says it played, replayed as a plain match
    openings, plies, seed = draw_openings(sf, 6)
    assert seed == sf.seed + 1
    assert not set(openings) & set(sf.match_spec().openings())  # fresh
    with MatchRunner(1) as runner:
        replay = runner.run(MatchSpec(baseline(sf), sf.opponent, 6, sf.seed + 1, plies),
                            openings=openings)
    assert [p.a_scores for p in cal.vs_opponent.pairs] == [p.a_scores for p in replay.pairs]
    check_figures(cal.vs_opponent)
    assert {k: record["vs_opponent"][k] for k in game_figures(replay)} == game_figures(replay)
    # against itself every pair is even by construction; the games are still real
    assert all(p.a_scores[0] + p.a_scores[1] == 1.0 for p in cal.vs_itself.pairs)
    assert record["vs_itself"] == game_figures(cal.vs_itself)
    expected = plan(record["vs_opponent"]["pair_variance"], pairs=sf.pairs, trials=sf.trials,
                    score=record["vs_opponent"]["score"])
    assert record["plan"] == expected.to_dict()


@pytest.mark.slow
# -- the command line ----------------------------------------------------------------
def test_calibrate_writes_beside_the_study_and_tune_reads_it(tmp_path, capsys) -> None:
    study = tiny_study(tmp_path)
    db = tmp_path / "h.db"
    code, out, err = cli(capsys, "tune", str(study), "--dry-run", "--storage", f"sqlite:///{db}")
    assert code == 0, err
    assert "no calibration at" in out and "assuming pair variance 0.125" in out
    assert "10 trials x 20 pairs x 2 games x 1 opponent = 400 games" in out
    code, out, err = cli(capsys, "calibrate", str(study), "--pairs", "4", "--jobs", "2",
                         "--json")
    assert code == 0, err
    saved = tmp_path / "tiny.calibration.json"
    record = json.loads(saved.read_text())
    assert json.loads(out) == record and record["pairs"] == 4
    one = calibrate(load_study_file(study), pairs=4, jobs=1).record  # the same for any --jobs
    assert {k: v for k, v in one.items() if k != "date"} == {
        k: v for k, v in record.items() if k != "date"}
    code, out, err = cli(capsys, "tune", str(study), "--dry-run", "--storage", f"sqlite:///{db}")
    assert code == 0 and "pair variance measured by" in out, out
    needed = record["plan"]["pairs_needed"]
    assert f"+-20 Elo needs {needed:,} pairs per trial" in out
    # an edited study (another opponent) ignores it, with a note
    study.write_text(study.read_text().replace("mm_improved", "mm_open"))
    code, out, err = cli(capsys, "tune", str(study), "--dry-run", "--storage", f"sqlite:///{db}")
    assert code == 0 and "made for another setup (opponent differ); ignored" in out, out
    assert "assuming pair variance 0.125" in out
    saved.write_text("{")
    code, out, _ = cli(capsys, "tune", str(study), "--dry-run", "--storage", f"sqlite:///{db}")
    assert code == 0 and "cannot read a calibration" in out
    assert not db.exists()  # a dry run never touches the storage
    code, _, err = cli(capsys, "tune", str(study), "--dry-run", "--trials", "0")
    assert code == 2 and "trials must be at least 1" in err and err.count("\n") == 1


def test_calibrate_text_and_out(tmp_path, capsys) -> None:
    study = tiny_study(tmp_path)
    out_file = tmp_path / "sub" / "c.json"
    code, out, err = cli(capsys, "calibrate", str(study), "--pairs", "3", "--out", str(out_file),
                         "--study-openings", "--elo", "50")
    assert code == 0, err
    assert out_file.exists() and not (tmp_path / "tiny.calibration.json").exists()
    for text in ("vs isolation:mm_improved: score", "pairs: LL", "virtual draw ratio",
                 "vs itself: draw ratio", "+-50 Elo needs", f"wrote {out_file}"):
        assert text in out, out
    assert json.loads(out_file.read_text())["openings"] == "study"


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--pairs", "0"], "--pairs must be at least 1"),
        (["--elo", "0"], "--elo (the Elo difference to resolve) must be in [0.5, 1000]"),
        (["--elo", "1e-300"], "must be in [0.5, 1000], got 1e-300"),
        (["--elo", "inf"], "must be in [0.5, 1000], got inf"),
        (["--elo", "nan"], "must be in [0.5, 1000], got nan"),
        (["--elo", "100000"], "must be in [0.5, 1000], got 100000"),
        (["--seed", "-1"], "seed must be in"),
        (["--out", "/etc/hostname/c.json"], "is not a directory"),
        (["--study-openings", "--pairs", "21"], "the study has 20 openings, fewer than 21"),
        (["--study-openings", "--opening-plies", "3"], "give no --opening-plies"),
        (["--opening-plies", "1", "--pairs", "40"], "--study-openings plays the study's own"),
    ],
)
def test_calibrate_bad_input(tmp_path, capsys, extra, message) -> None:
    study = tiny_study(tmp_path)
    code, out, err = cli(capsys, "calibrate", str(study), *extra)
    assert code == 2 and err.count("\n") == 1 and err.startswith("heurtune: error: ")
    assert message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]  # nothing written


@pytest.mark.slow
def test_an_opponent_that_plays_like_the_baseline_is_named_and_not_planned_on(
        tmp_path, capsys) -> None:
    # weighted at its defaults is improved: the same moves, every pair a self-play pair
    (tmp_path / "improved.toml").write_text('game = "isolation"\nheuristic = "improved"\n'
                                            '[search]\nalgorithm = "alphabeta"\ndepth = 2\n')
    study = tiny_study(tmp_path, opponent="improved.toml")
    cal = calibrate(load_study_file(study), pairs=5, jobs=1)
    record = cal.record
    assert record["plays_like_baseline"] and record["vs_opponent"]["even_fraction"] == 1.0
    assert record["planning_variance"] == ASSUMED_PAIR_VARIANCE  # no draws in Isolation
    assert record["plan"]["pairs_needed"] == plan(ASSUMED_PAIR_VARIANCE, pairs=20, trials=10,
                                                  score=0.5).pairs_needed
    assert any("played every pair exactly as the baseline did" in line for line in cal.lines())
    cal2 = calibrate(load_study_file(tiny_study(tmp_path)), pairs=5, jobs=1)
    assert not cal2.record["plays_like_baseline"]
    assert cal2.record["planning_variance"] == cal2.record["vs_opponent"]["pair_variance"]


def test_calibrate_refuses_a_baseline_that_is_the_opponent(tmp_path, capsys) -> None:
    (tmp_path / "same.toml").write_text('game = "isolation"\nheuristic = "weighted"\n'
                                        '[search]\nalgorithm = "alphabeta"\ndepth = 2\n')
    study = tiny_study(tmp_path, opponent="same.toml")
    code, _, err = cli(capsys, "calibrate", str(study))
    assert code == 2 and "the baseline is the opponent" in err and err.count("\n") == 1
    code, _, err = cli(capsys, "calibrate", str(tmp_path / "missing.toml"))
    assert code == 2 and "missing.toml: no such file" in err and err.count("\n") == 1
    assert not (tmp_path / "tiny.calibration.json").exists()
