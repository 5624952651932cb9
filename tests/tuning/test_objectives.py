"""Objectives beyond one opponent at equal nodes: opponent pools, equal time per
move, multi-objective studies (score and cost) with their Pareto front, and the
fine / broad defaults of a study file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import optuna
import pytest

from heurtune.engine.config import EngineConfig
from heurtune.tuning.study.schema import CONFIRMATION as CONFIRM_ATTR
from heurtune.tuning.studyfile import SEARCH_DEFAULTS, load_study_file
from tests.helpers import ISOLATION_PINS, cli, digest

STUDY = """
[study]
name = "p"
game = "isolation"
{versus}
trials = {trials}
pairs = 3
seed = 11
jobs = 1
opening_plies = 3
sampler = "random"
{extra}

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

""" + ISOLATION_PINS + """opp_start = 1.0
{tail}
"""

POOL = 'opponents = [{ engine = "isolation:ab_improved", weight = 2.0 }, "isolation:ab_open"]'


def write(tmp_path: Path, versus: str = POOL, trials: int = 3, extra: str = "",
          tail: str = "") -> str:
    path = tmp_path / "p.toml"
    path.write_text(STUDY.format(versus=versus, trials=trials, extra=extra, tail=tail))
    return str(path)


def test_a_pool_scores_the_weighted_mean_and_keeps_each_opponents_score(
        tmp_path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    code, out, err = cli(capsys, "tune", write(tmp_path), "--storage", url)
    assert code == 0, err
    study = optuna.load_study(study_name="p", storage=url)
    assert "weighted score vs pool (isolation:ab_improved x2, isolation:ab_open x1)" in \
        study.user_attrs["objective"]
    # what the study's trials depend on beyond its file: a duels study reproduces only
    # on the same OpenBLAS kernel
    env = study.user_attrs["environment"]
    assert env["numpy"] == np.__version__ and env["optuna"] == optuna.__version__
    assert env["blas"].startswith("OpenBLAS ") and env["cpu"]
    for t in study.trials:
        members = t.user_attrs["opponents"]
        assert [m["opponent"] for m in members] == ["isolation:ab_improved", "isolation:ab_open"]
        assert [m["games"] for m in members] == [6, 6] and t.user_attrs["games"] == 12
        weighted = (2 * members[0]["score"] + members[1]["score"]) / 3
        assert t.value == pytest.approx(weighted) and t.user_attrs["score"] == pytest.approx(weighted)
        # what later trials compare with, opening by opening: the weighted pair scores
        assert len(t.user_attrs["pair_scores"]) == 3
    code, out, err = cli(capsys, "confirm", "p", "--storage", url, "--pairs", "3", "--top", "1")
    assert code == 0, err
    verdict = optuna.load_study(study_name="p", storage=url).user_attrs[CONFIRM_ATTR]
    assert verdict["opponent"] == "isolation:ab_improved x2, isolation:ab_open x1"
    for c in verdict["candidates"]:
        a, b = c["opponents"]
        assert c["score"] == pytest.approx((2 * a["score"] + b["score"]) / 3)
        assert c["games"] == a["games"] + b["games"] == 12
    code, out, err = cli(capsys, "confirm", "p", "--storage", url, "--sprt", "0,50")
    assert code == 2 and "pool of 2 opponents" in err and err.count("\n") == 1
    out_file = tmp_path / "e.toml"
    assert cli(capsys, "export", "p", "--storage", url, "--out", str(out_file), "--force")[0] == 0
    prov = EngineConfig.load(out_file).provenance
    assert prov["opponents"] == ["isolation:ab_improved", "isolation:ab_open"]
    assert prov["weights"] == [2.0, 1.0]


@pytest.mark.parametrize("versus,extra,message", [
    ("opponents = []", "", "opponents must be a non-empty list"),
    ('opponents = [{ engine = "isolation:ab_open", weight = -1.0 }]', "",
     "weight must be positive, got -1.0"),
    ('opponents = [{ engine = "isolation:ab_open", weight = "heavy" }]', "",
     "weight must be float"),
    ('opponent = "isolation:ab_open"\nopponents = ["isolation:ab_open"]', "", "not both"),
    ('opponents = ["isolation:nobody"]', "", "unknown preset 'isolation:nobody'"),
    ('opponents = ["morris:seed"]', "", "plays morris, not isolation"),
    ('opponent = "isolation:ab_open"', 'budget = "time"', "needs time_ms in [0.05, 600000]"),
    ('opponent = "isolation:mm_open"', 'budget = "time"\ntime_ms = 5', "minimax"),
    ('opponent = "isolation:ab_open"', "time_ms = 5", 'time_ms goes with budget = "time"'),
    ('opponent = "isolation:ab_open"', 'budget = "clock"', "budget must be one of nodes, time"),
    ('opponent = "isolation:ab_open"', 'objectives = ["cost"]', "objectives must be"),
    ('opponent = "isolation:ab_open"', 'objectives = ["score", "cost"]\n[pruner]\nkind = "median"',
     "a multi-objective study cannot prune"),
    ('opponent = "isolation:ab_open"', 'objectives = ["score", "cost"]\nsampler = "duels"',
     "multi-objective study needs a sampler that plays the opponent"),
    ('opponent = "isolation:ab_open"', 'search = "deep"', "search must be one of fine, broad"),
])
def test_bad_objectives_are_one_line_and_store_nothing(
        versus: str, extra: str, message: str, tmp_path, capsys) -> None:
    head, _, tail = extra.partition("\n[")
    text = STUDY.format(versus=versus, trials=2, extra=head, tail="")
    text = text.replace('sampler = "random"\n', "") if 'sampler = "duels"' in head else text
    if tail:
        text += "\n[" + tail + "\n"
    path = tmp_path / "b.toml"
    path.write_text(text)
    db = tmp_path / "b.db"
    code, out, err = cli(capsys, "tune", str(path), "--storage", f"sqlite:///{db}")
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not db.exists()


@pytest.mark.slow
def test_equal_time_gives_every_engine_the_same_time_per_move(tmp_path, capsys) -> None:
    path = write(tmp_path, POOL, trials=2, extra='budget = "time"\ntime_ms = 4')
    sf = load_study_file(path)
    for engine in [sf.base] + [m.engine for m in sf.pool]:
        assert engine.search.time_ms == 4 and engine.search.nodes == 0
        assert engine.search.depth >= 100  # as deep as the time allows
    url = f"sqlite:///{tmp_path / 't.db'}"
    code, out, err = cli(capsys, "tune", path, "--storage", url)
    assert code == 0, err
    study = optuna.load_study(study_name="p", storage=url)
    assert study.user_attrs["heurtune_setup"]["budget"] == "time"
    assert len([t for t in study.trials if t.state.is_finished()]) == 2


@pytest.mark.slow
def test_a_multi_objective_study_minimises_cost_and_exports_its_pareto_front(
        tmp_path, capsys) -> None:
    path = write(tmp_path, 'opponent = "isolation:ab_improved"', trials=4,
                 extra='objectives = ["score", "cost"]')
    url = f"sqlite:///{tmp_path / 'm.db'}"
    code, out, err = cli(capsys, "tune", path, "--storage", url)
    assert code == 0, err
    study = optuna.load_study(study_name="p", storage=url)
    assert [d.name for d in study.directions] == ["MAXIMIZE", "MINIMIZE"]
    for t in study.trials:
        score, cost = t.values
        assert score == pytest.approx(t.user_attrs["score"])
        assert cost == pytest.approx(t.user_attrs["ms_per_move"]) and cost > 0
    db = tmp_path / "m.db"
    before = digest(db)
    code, _, err = cli(capsys, "export", "p", "--storage", url, "--out", str(tmp_path / "x.toml"))
    assert code == 2 and "--pareto" in err and err.count("\n") == 1
    code, _, err = cli(capsys, "confirm", "p", "--storage", url)
    assert code == 2 and "Pareto front" in err and digest(db) == before
    folder = tmp_path / "front"
    code, out, err = cli(capsys, "export", "p", "--storage", url, "--pareto", "--out", str(folder))
    assert code == 0, err
    files = sorted(folder.glob("*.toml"))
    front = {t.number for t in study.best_trials}
    assert {int(f.stem.rsplit("-", 1)[1]) for f in files} == front
    for f in files:
        prov = EngineConfig.load(f).provenance
        trial = study.trials[prov["trial"]]
        assert prov["pareto"] is True and prov["ms_per_move"] == pytest.approx(trial.values[1])
        assert prov["score"] == pytest.approx(trial.values[0])
    # the report shows the front and plots the score
    report = tmp_path / "r.html"
    code, out, err = cli(capsys, "report", "p", "--storage", url, "--out", str(report))
    assert code == 0 and err == "", err
    assert "Pareto front" in report.read_text()
    # one objective has no front
    single = write(tmp_path, 'opponent = "isolation:ab_improved"', trials=2)
    url2 = f"sqlite:///{tmp_path / 's.db'}"
    assert cli(capsys, "tune", single, "--storage", url2)[0] == 0
    code, _, err = cli(capsys, "export", "p", "--storage", url2, "--pareto")
    assert code == 2 and "has one objective" in err


def test_fine_and_broad_searches_choose_the_defaults(tmp_path, study_file) -> None:
    for search, expected in SEARCH_DEFAULTS.items():
        path = study_file(search, study={"name": None, "opponent": "isolation:ab_open",
                                         "search": search})
        sf = load_study_file(path)
        assert (sf.sampler.kind, sf.pairs, sf.answer) == (
            expected["sampler"], expected["pairs"], expected["answer"])
    assert SEARCH_DEFAULTS["fine"]["sampler"] == "duels"  # what docs/results/optimisers.md shows
    plain = tmp_path / "plain.toml"
    plain.write_text('[study]\ngame = "isolation"\nopponent = "isolation:ab_open"\n'
                     '[engine]\nheuristic = "weighted"\n')
    assert load_study_file(plain).sampler.kind == "duels"  # fine-tuning is the default
    given = tmp_path / "given.toml"
    given.write_text('[study]\ngame = "isolation"\nopponent = "isolation:ab_open"\nsearch = '
                     '"broad"\nsampler = "tpe"\npairs = 7\n[engine]\nheuristic = "weighted"\n')
    sf = load_study_file(given)
    assert (sf.sampler.kind, sf.pairs, sf.answer) == ("tpe", 7, SEARCH_DEFAULTS["broad"]["answer"])
