"""``heurtune confirm``: fresh openings, the winner on them, the stored verdict,
the export's confirmation block, the study file's [confirm] section, bad input."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from heurtune.cli import main
from heurtune.engine.config import EngineConfig
from heurtune.games import get_game
from heurtune.match import Sprt
from heurtune.match.openings import opening_images
from heurtune.match.stats import sprt_pair_cap
from heurtune.tuning.study.schema import CONFIRMATION as CONFIRM_ATTR
from heurtune.tuning.study.schema import SETUP as SETUP_ATTR
from heurtune.tuning.studyfile import load_study_file
from tests.helpers import cli, digest

STUDY = """
[study]
name = "c"
game = "isolation"
opponent = "isolation:mm_improved"
trials = 5
pairs = 6
seed = 3
jobs = 1
opening_plies = 3
sampler = "tpe"

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

[pruner]
kind = "none"
{confirm}
"""


@pytest.fixture(scope="module")
def tuned(tmp_path_factory) -> tuple[str, str]:
    """A small finished study (shared: each test copies its database)."""
    d = tmp_path_factory.mktemp("tuned")
    sf = d / "s.toml"
    sf.write_text(STUDY.format(confirm=""))
    assert main(["tune", str(sf), "--storage", f"sqlite:///{d / 'c.db'}"]) == 0
    return str(sf), str(d / "c.db")


def copy_of(tuned: tuple[str, str], tmp_path: Path) -> str:
    db = tmp_path / "c.db"
    db.write_bytes(Path(tuned[1]).read_bytes())
    return f"sqlite:///{db}"


def test_confirm_replays_the_best_trials_on_fresh_openings_and_export_carries_it(
        tuned, tmp_path, capsys) -> None:
    url = copy_of(tuned, tmp_path)
    code, out, err = cli(capsys, "confirm", "c", "--storage", url, "--pairs", "12", "--top", "2")
    assert code == 0, err
    study = optuna.load_study(study_name="c", storage=url)
    verdict = study.user_attrs[CONFIRM_ATTR]
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    best_two = sorted((t for t in complete if not t.user_attrs.get("baseline")),
                      key=lambda t: (-t.value, t.number))[:2]
    trials = [c["trial"] for c in verdict["candidates"] if c["answer"] == "trial"]
    assert trials == [t.number for t in best_two] + [0]
    assert verdict["candidates"][-1]["baseline"] is True
    # the study's other answers (the mean of its best trials at least) are candidates too,
    # each a parameter set of its own
    answers = [c for c in verdict["candidates"] if c["answer"] != "trial"]
    assert "top-mean" in {c["answer"] for c in answers}
    params = [sorted(c["params"].items()) for c in verdict["candidates"]]
    assert len(params) == len({tuple(p) for p in params})
    # the winner is chosen on the fresh games only
    fresh = {c["label"]: c["score"] for c in verdict["candidates"]}
    assert fresh[verdict["winner_label"]] == max(fresh.values())
    assert all(c["games"] == 24 for c in verdict["candidates"])
    # the fresh openings: none is one of the study's, nor a mirror image of one
    kernel = get_game("isolation")
    rules = kernel.resolve_rules({})
    sf = load_study_file(tuned[0])
    used: set[int] = set()
    for op in sf.match_spec().openings():
        used |= opening_images(kernel, rules, op)
    assert len(verdict["openings"]) == 12
    assert not any(opening_images(kernel, rules, op) & used for op in verdict["openings"])
    assert verdict["method"] == "two-stage"
    assert f"winner: {verdict['winner_label']}" in out
    assert "optimistic" in out or verdict["winner_is_baseline"]
    # the second stage: the winner and the baseline on a third set, none of the
    # tuning's or the selection's openings nor their images
    check = verdict.get("check")
    if verdict["winner_is_baseline"]:
        assert check is None
    else:
        for op in verdict["openings"]:
            used |= opening_images(kernel, rules, op)
        assert len(check["openings"]) == 12 and check["pairs"] == 12
        assert not any(opening_images(kernel, rules, op) & used for op in check["openings"])
        assert check["winner"]["games"] == check["baseline"]["games"] == 24
        lo, hi = check["vs_baseline"]["difference_ci"]
        assert lo <= check["vs_baseline"]["difference"] <= hi
        assert "selection_vs_baseline" in verdict and "further fresh pairs" in out
    # reproducible: the same command gives the same scores
    assert cli(capsys, "confirm", "c", "--storage", url, "--pairs", "12", "--top", "2")[0] == 0
    again = optuna.load_study(study_name="c", storage=url).user_attrs[CONFIRM_ATTR]
    assert [c["score"] for c in again["candidates"]] == [c["score"] for c in verdict["candidates"]]
    assert again.get("check") == check
    # export writes the confirmed winner with the check's evidence only
    out_file = tmp_path / "e.toml"
    code, out, err = cli(capsys, "export", "c", "--storage", url, "--out", str(out_file))
    gain = check is not None and check["vs_baseline"]["difference_ci"][0] > 0
    if not gain:  # (12 pairs each: with these seeds, no gain is shown)
        assert code == 2 and "its confirmation found no gain" in err and not out_file.exists()
        code, out, err = cli(capsys, "export", "c", "--storage", url, "--out", str(out_file),
                             "--force")
        assert "written with --force" in err
    assert code == 0 and "unconfirmed" not in err
    cfg = EngineConfig.load(out_file)
    prov = cfg.provenance
    if "winner" in verdict:  # a trial won
        assert prov["trial"] == verdict["winner"]
    else:  # an answer won
        assert "answer " + prov["answer"] == verdict["winner_label"]
    # confirmed: found better than the baseline; else written with --force, unproven
    assert prov["confirmed"] is gain and ("unproven" in prov) is not gain
    block = prov["confirmation"]
    assert block["method"] == "two-stage"
    assert block["selection"]["candidate_scores"] == [c["score"] for c in verdict["candidates"]]
    assert block["selection"]["pairs"] == 12 and "optimistic" in block["note"]
    assert prov["completed_trials"] == 5 and prov["pruned_trials"] == 0
    if check is not None:
        assert block["score"] == check["winner"]["score"] and block["games"] == 24
        assert block["seed"] == check["seed"] and block["pairs"] == 12
        assert len(block["score_ci"]) == 2 and "los" in block
        assert block["difference_vs_baseline"] == check["vs_baseline"]["difference"]
        assert block["baseline_score"] == check["baseline"]["score"]
    else:  # the baseline won the selection: no figures to export but the selection's
        assert "score" not in block and "no_gain" in block
    won = verdict["winner_params"]
    assert {k: cfg.params[k] for k in won} == pytest.approx(won)


@pytest.mark.slow
def test_confirm_max_t_plays_no_further_games_and_exports_no_point_score(
        tuned, tmp_path, capsys) -> None:
    url = copy_of(tuned, tmp_path)
    code, out, err = cli(capsys, "confirm", "c", "--storage", url, "--pairs", "12", "--top", "3",
                         "--max-t")
    assert code == 0, err
    verdict = optuna.load_study(study_name="c", storage=url).user_attrs[CONFIRM_ATTR]
    assert verdict["method"] == "max-t" and "check" not in verdict
    if verdict["winner_is_baseline"]:
        assert "max_t" not in verdict
        return
    m = verdict["max_t"]
    k = sum(1 for c in verdict["candidates"] if not c["baseline"])
    assert m["comparisons"] == k and m["pairs"] == 12 and "max-t" in out
    lo, hi = m["difference_ci"]
    plo, phi = verdict["selection_vs_baseline"]["difference_ci"]
    assert lo <= plo and hi >= phi  # wider than the unadjusted interval
    out_file = tmp_path / "m.toml"
    code, _out, err = cli(capsys, "export", "c", "--storage", url, "--out", str(out_file),
                          "--force")
    block = EngineConfig.load(out_file).provenance["confirmation"]
    assert block["method"] == "max-t" and "score" not in block
    assert block["difference_vs_baseline_ci"] == [lo, hi]
    assert "difference_vs_baseline" not in block


@pytest.mark.slow
def test_confirm_with_an_sprt_tests_the_winner_on_further_openings(
        tuned, tmp_path, capsys) -> None:
    url = copy_of(tuned, tmp_path)
    code, out, err = cli(capsys, "confirm", "c", "--storage", url, "--pairs", "8",
                         "--sprt", "0,150", "--max-pairs", "40", "--jobs", "2")
    assert code == 0, err
    verdict = optuna.load_study(study_name="c", storage=url).user_attrs[CONFIRM_ATTR]
    sprt = verdict["sprt"]
    assert sprt["elo1"] == 150.0 and 1 <= sprt["pairs"] <= 40
    assert sprt["verdict"] in ("H0", "H1", None) and "SPRT:" in out
    lower, upper = sprt["bounds"]
    assert sprt["verdict"] is None or not lower < sprt["llr"] < upper
    out_file = tmp_path / "e.toml"
    # (8 pairs each show no gain over the baseline: written with --force)
    assert cli(capsys, "export", "c", "--storage", url, "--out", str(out_file), "--force")[0] == 0
    exported = EngineConfig.load(out_file).provenance["confirmation"]["sprt"]
    assert exported["pairs"] == sprt["pairs"]
    # the figures corrected for the sequential stop travel with it
    assert exported["elo_corrected"] == sprt["elo_corrected"]
    assert len(exported["elo_corrected_ci"]) == 2


@pytest.mark.slow
def test_confirm_derives_the_sprt_pair_cap_from_the_bounds_and_the_winner(
        tuned, tmp_path, capsys) -> None:
    url = copy_of(tuned, tmp_path)
    code, out, err = cli(capsys, "confirm", "c", "--storage", url, "--pairs", "6",
                         "--check-pairs", "4", "--sprt", "0,400")
    assert code == 0, err
    sprt = optuna.load_study(study_name="c", storage=url).user_attrs[CONFIRM_ATTR]["sprt"]
    # no --max-pairs: not the old fixed 2000, but what 95% of [0, 400] tests need at
    # the winner's measured pair variance (somewhere in (0, 0.25])
    test = Sprt(0.0, 400.0)
    assert (sprt_pair_cap(test, pair_var=1e-3) <= sprt["max_pairs"]
            <= sprt_pair_cap(test, pair_var=0.25) < 2000)
    assert 1 <= sprt["pairs"] <= sprt["max_pairs"] and "SPRT:" in out


def test_an_unconfirmed_study_is_not_exported_unless_forced(tuned, tmp_path, capsys) -> None:
    url = copy_of(tuned, tmp_path)
    out_file = tmp_path / "e.toml"
    code, out, err = cli(capsys, "export", "c", "--storage", url, "--out", str(out_file))
    assert code == 2 and err.count("\n") == 1 and not out and not out_file.exists()
    assert "study 'c' is unconfirmed" in err and f"run `heurtune confirm c --storage {url}`" in err
    assert "or write it anyway with --force" in err
    code, _, err = cli(capsys, "export", "c", "--storage", url, "--out", str(out_file),
                       "--force")
    assert code == 0 and "written with --force: study 'c' is unconfirmed" in err
    prov = EngineConfig.load(out_file).provenance
    assert prov["confirmed"] is False and "unconfirmed" in prov["note"]
    assert "is unconfirmed" in prov["unproven"] and "confirmation" not in prov


@pytest.mark.slow
def test_a_confirm_section_confirms_at_the_end_of_tune(tmp_path, capsys) -> None:
    sf = tmp_path / "s.toml"
    sf.write_text(STUDY.format(confirm="[confirm]\ntop = 1\npairs = 6\n")
                  .replace("trials = 5", "trials = 3"))
    url = f"sqlite:///{tmp_path / 'a.db'}"
    code, out, err = cli(capsys, "tune", str(sf), "--storage", url)
    assert code == 0, err
    assert "confirming study 'c'" in out and "winner: " in out
    verdict = optuna.load_study(study_name="c", storage=url).user_attrs[CONFIRM_ATTR]
    assert [c["answer"] for c in verdict["candidates"]].count("trial") == 2  # top 1, baseline
    assert verdict["pairs"] == 6
    code, out, _ = cli(capsys, "tune", str(sf), "--storage", url)  # nothing new: not again
    assert code == 0 and "confirmed already" in out


@pytest.mark.parametrize("argv,message", [
    (["--top", "0"], "top must be at least 1"),
    (["--pairs", "-3"], "--pairs must be at least 1"),
    (["--pairs", "all"], "confirm takes --pairs N"),
    (["--sprt", "5,0"], "SPRT needs elo0 < elo1"),
    (["--max-pairs", "0"], "max_pairs must be at least 1"),
    (["--seed", "-1"], "seed must be in"),
])
def test_bad_confirm_options(tuned, tmp_path, capsys, argv, message) -> None:
    url = copy_of(tuned, tmp_path)
    before = digest(tmp_path / "c.db")
    code, _, err = cli(capsys, "confirm", "c", "--storage", url, *argv)
    assert code == 2 and err.startswith("heurtune: error: ") and err.count("\n") == 1
    assert message in err
    assert digest(tmp_path / "c.db") == before


def test_confirm_errors(tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    url = f"sqlite:///{db}"
    code, _, err = cli(capsys, "confirm", "c", "--storage", url)
    assert code == 2 and "does not exist" in err and not db.exists()
    study = optuna.create_study(study_name="empty", storage=url)
    study.set_user_attr(SETUP_ATTR, {"engine": {}})
    code, _, err = cli(capsys, "confirm", "empty", "--storage", url)
    assert code == 2 and "has no completed trial to confirm" in err
    code, _, err = cli(capsys, "confirm", "c", "--storage", "postgresql://postgres@127.0.0.1:1/x")
    assert code == 2 and err.count("\n") == 1 and "cannot open storage" in err
    optuna.create_study(study_name="foreign", storage=url).optimize(lambda t: 1.0, n_trials=1)
    code, _, err = cli(capsys, "confirm", "foreign", "--storage", url)
    assert code == 2 and "not created by heurtune tune" in err


@pytest.mark.slow
def test_a_study_may_play_every_opening_class_and_confirm_on_longer_openings(
        tmp_path, capsys) -> None:
    sf = tmp_path / "all.toml"
    sf.write_text(STUDY.format(confirm="").replace("pairs = 6", 'pairs = "all"')
                  .replace("opening_plies = 3", "opening_plies = 2")
                  .replace("trials = 5", "trials = 2").replace("depth = 2", "depth = 1"))
    study_file = load_study_file(sf)
    assert study_file.pairs == 315 and study_file.setup()["openings"] == "all"
    openings = study_file.match_spec().openings()
    kernel = get_game("isolation")
    rules = kernel.resolve_rules({})
    assert len({min(opening_images(kernel, rules, op)) for op in openings}) == 315
    url = f"sqlite:///{tmp_path / 'all.db'}"
    assert cli(capsys, "tune", str(sf), "--storage", url)[0] == 0
    trial = optuna.load_study(study_name="c", storage=url).trials[0]
    assert trial.user_attrs["games"] == 630
    # every two-ply class was tuned on: a confirmation needs longer openings
    code, _, err = cli(capsys, "confirm", "c", "--storage", url, "--pairs", "5")
    assert code == 2 and "openings" in err and err.count("\n") == 1
    code, _, err = cli(capsys, "confirm", "c", "--storage", url, "--pairs", "5",
                       "--opening-plies", "3")
    assert code == 0, err
