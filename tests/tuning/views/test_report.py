"""Dashboard notes and artifacts written by tune, confirm and export; ``heurtune
report``'s HTML file; ``tournament --html``; bad input (one error line, exit 2,
nothing written)."""

from __future__ import annotations

import json
import re
import shutil

import optuna
import pytest
from optuna.artifacts import get_all_artifact_meta
from optuna_dashboard import get_note

from heurtune.engine import EngineConfig
from heurtune.engine.params import value_text
from heurtune.match.records import read_records, replay_positions
from heurtune.tuning.study.schema import SETUP as SETUP_ATTR
from tests.helpers import SMALL_STUDY, cli


def _study(small_study) -> optuna.Study:
    return optuna.load_study(study_name="iso", storage=small_study.storage)


def test_study_and_trial_notes(small_study) -> None:
    study = _study(small_study)
    note = get_note(study)
    for fact in ("# Study `iso`", "| study file | iso.toml |",
                 "| opponent | isolation:ab_open |", "4 pairs (8 games) per trial, 2 plies, seed 3",
                 "| budget | 5 trials, sampler tpe, pruner checkpoint |", "| best | trial ",
                 "| confirmation | winner trial ", "| exported engine | iso-tuned.toml (trial ",
                 "| artifacts | h-artifacts |", "| parameter | trial "):
        assert fact in note, fact
    finished = [t for t in study.trials if t.state.is_finished()]
    assert len(finished) == 5
    for trial in finished:
        text = optuna_dashboard_note(study, trial)
        assert text.startswith(f"## Trial {trial.number}: ")
        st = trial.user_attrs
        assert f"| score | {st['score']:.3f} [{st['score_ci'][0]:.3f}, {st['score_ci'][1]:.3f}] |" in text
        won, even, lost = st["pairs_won"], st["pairs_even"], st["pairs_lost"]
        assert f"| pairs won / even / lost | {won} / {even} / {lost} |" in text
        assert "| pentanomial LL, LD, DD/WL, WD, WW | " + ", ".join(map(str, st["pentanomial"])) in text
        pruned = trial.state == optuna.trial.TrialState.PRUNED
        assert ("pruned after" in text) == pruned


def test_the_note_names_the_trial_that_export_writes(small_study) -> None:
    """The note's parameter table is the confirmation's winner, the trial the
    export wrote, with its parameters (not the best tuning score's trial); the
    commands it names give the study's storage."""
    note = get_note(_study(small_study))
    exported = EngineConfig.load(small_study.exported)
    trial = exported.provenance["trial"]
    assert (f"Trial {trial}'s parameters (the confirmation's winner, which `heurtune export "
            "iso --storage sqlite:///h.db` writes)") in note
    rows = note.split(f"| parameter | trial {trial} | default |\n|---|---|---|\n", 1)[1]
    table = dict(line.split(" | ")[:2] for line in rows.split("\n\n")[0].splitlines())
    study = _study(small_study)
    searched = next(t for t in study.trials if t.number == trial).params
    assert table == {f"| {k}": value_text(exported.params[k]) for k in searched}
    assert "`heurtune report iso --storage sqlite:///h.db`" in note


def optuna_dashboard_note(study: optuna.Study, trial) -> str:
    """A finished trial's note (get_note wants a live Trial: read it through one)."""
    return get_note(optuna.Trial(study, trial._trial_id))


def test_best_trials_have_engine_and_sample_games(small_study) -> None:
    study = _study(small_study)
    best_so_far, holders = -1.0, []
    for trial in sorted(study.trials, key=lambda t: t.number):
        metas = get_all_artifact_meta(trial, storage=study._storage)
        names = sorted(m.filename for m in metas)
        complete = trial.state == optuna.trial.TrialState.COMPLETE
        if complete and trial.value > best_so_far:  # a new best when it finished
            best_so_far = trial.value
            holders.append(trial.number)
            assert names == [f"trial-{trial.number}-games.jsonl", f"trial-{trial.number}.toml"]
            games = next(m for m in metas if m.filename.endswith(".jsonl"))
            records = read_records(small_study.artifacts / games.artifact_id)
            assert len(records) == 2 and records[0]["players"][0] == f"trial-{trial.number}"
            for record in records:
                replay_positions(record)
        else:
            assert names == [], trial.number
    assert holders and holders[0] == 0  # the baseline is the first best
    exported = [m for m in get_all_artifact_meta(study) if m.filename == "iso-tuned.toml"]
    assert len(exported) == 1
    assert (small_study.artifacts / exported[0].artifact_id).read_bytes() == \
        small_study.exported.read_bytes()


def test_sample_games_are_the_games_the_trial_played(small_study, tmp_path, capsys) -> None:
    """The first opening pair of trial 0's match, replayed with its seeds, is what
    `match` plays for the baseline against the opponent on that opening."""
    study = _study(small_study)
    meta = next(m for m in get_all_artifact_meta(study.trials[0], storage=study._storage)
                if m.filename.endswith(".jsonl"))
    sample = read_records(small_study.artifacts / meta.artifact_id)
    engine = small_study.artifacts / next(
        m.artifact_id for m in get_all_artifact_meta(study.trials[0], storage=study._storage)
        if m.filename.endswith(".toml"))
    shutil.copy(engine, tmp_path / "trial-0.toml")
    games = tmp_path / "g.jsonl"
    code, _, _ = cli(capsys, "match", str(tmp_path / "trial-0.toml"), "isolation:ab_open",
                     "--pairs", "4", "--seed", "3", "--games", str(games))
    assert code == 0
    played = read_records(games)
    assert [r["moves"] for r in played if r["opening"] == sample[0]["opening"]] == \
        [r["moves"] for r in sample]


def test_every_export_adds_its_file(small_study, tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    shutil.copy(small_study.db, db)
    storage = f"sqlite:///{db}"
    out = tmp_path / "again.toml"
    before = len(get_all_artifact_meta(optuna.load_study(study_name="iso", storage=storage)))
    assert cli(capsys, "export", "iso", "--storage", storage, "--out", str(out), "--force")[0] == 0
    study = optuna.load_study(study_name="iso", storage=storage)
    after = get_all_artifact_meta(study)
    added = [m for m in after if m.filename == "again.toml"]
    assert len(after) == before + 1 and len(added) == 1
    assert (tmp_path / "h-artifacts" / added[0].artifact_id).read_bytes() == out.read_bytes()
    assert f"| exported engine | {out} (trial " in get_note(study)


def test_report_is_self_contained_with_every_section(small_study, tmp_path, capsys) -> None:
    out = tmp_path / "r" / "report.html"
    code, stdout, err = cli(capsys, "report", "iso", "--storage", small_study.storage,
                            "--out", str(out))
    assert code == 0 and stdout == f"wrote {out}\n"
    html = out.read_text()
    assert not re.search(r"<script[^>]+src=", html)  # nothing loaded from elsewhere
    assert not re.search(r"<link[^>]+href=\"?https?:", html)
    assert html.count("plotly.js v") == 1  # plotly.js embedded once
    for section in ("Optimisation history", "Parameter importances", "Slices and contours",
                    "Pruning", "Confirmation", "Tuned weights", "Sample games"):
        assert f"<h2>{section}" in html, section
    figures = re.findall(r'<div id="(figure-\d+)" class="plotly-graph-div"', html)
    assert len(figures) >= 7
    assert html.count('class="replay"') == 2
    assert "Per-cell weights" not in html  # Isolation's heuristic has no cell_weights hook
    assert "with 95% intervals" in html and "Slice Plot" in html and "Contour Plot" in html


TITLE_LINE = 90  # characters: a title line that fits a figure 1,000 pixels wide


def test_report_titles_fit_and_speak_of_parameters(small_study, tmp_path, capsys) -> None:
    """The importances are the weights' ("parameter", not Optuna's "hyperparameter"),
    and every figure's title fits on the page, the confirmation's (two-stage:
    selection, then check) in lines."""
    out = tmp_path / "report.html"
    assert cli(capsys, "report", "iso", "--storage", small_study.storage, "--out",
               str(out))[0] == 0
    html = out.read_text()
    assert "yperparameter" not in html.lower() and "parameter importances: " in html
    titles = [json.loads(f'"{t}"') for t in
              re.findall(r'"title":\{"text":"((?:[^"\\]|\\.)*)"', html)]
    assert len(titles) > 10
    too_long = [line for t in titles for line in t.split("<br>") if len(line) > TITLE_LINE]
    assert too_long == []
    confirmation = next(t for t in titles if t.startswith("each candidate's score"))
    assert confirmation.split("<br>")[2].startswith("check: the winner and the baseline on 4 ")


def test_report_bad_input_writes_nothing(small_study, tmp_path, capsys) -> None:
    empty_url = f"sqlite:///{tmp_path / 'e.db'}"
    study = optuna.create_study(study_name="empty", storage=empty_url)
    study.set_user_attr(SETUP_ATTR, {"pairs": 2})
    plain = optuna.create_study(study_name="plain", storage=empty_url)
    plain.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    blocker = tmp_path / "file"
    blocker.write_text("")
    cases = [
        (["report", "nope", "--storage", small_study.storage], "no study named 'nope'"),
        (["report", "empty", "--storage", empty_url], "no completed trial to report on"),
        (["report", "plain", "--storage", empty_url], "was not created by heurtune tune"),
        (["report", "iso", "--storage", f"sqlite:///{tmp_path / 'none.db'}"], "does not exist"),
        (["report", "iso", "--storage", small_study.storage, "--out",
          str(blocker / "r.html")], "not a directory"),
    ]
    for argv, message in cases:
        out = tmp_path / "out.html"
        code, stdout, err = cli(capsys, *argv, *([] if "--out" in argv else ["--out", str(out)]))
        assert code == 2 and stdout == "" and not out.exists(), argv
        assert err.count("\n") == 1 and err.startswith("heurtune: error: ") and message in err, err
    assert not (tmp_path / "none.db").exists()


def test_unwritable_artifact_folder_fails_before_the_study(small_study, tmp_path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    db = tmp_path / "new.db"
    for folder, message in ((blocker, "not a folder"), (blocker / "sub", "is not a directory")):
        code, out, err = cli(capsys, "tune", str(small_study.study_file), "--storage",
                             f"sqlite:///{db}", "--artifacts", str(folder))
        assert code == 2 and out == "" and err.startswith("heurtune: error: artifact folder")
        assert message in err and err.count("\n") == 1
        assert not db.exists()  # nothing stored
    exported = tmp_path / "e.toml"
    code, _, err = cli(capsys, "export", "iso", "--storage", small_study.storage, "--out",
                       str(exported), "--artifacts", str(blocker))
    assert code == 2 and "not a folder" in err and not exported.exists()
    code, _, err = cli(capsys, "dashboard", "--storage", small_study.storage, "--artifacts",
                       str(tmp_path / "missing"))
    assert code == 2 and "no such folder" in err


def test_dashboard_failures_never_fail_a_trial(tmp_path, capsys, monkeypatch) -> None:
    import heurtune.tuning.views.dashboard as dashboard

    def broken(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(dashboard, "save_note", broken)
    monkeypatch.setattr(dashboard, "upload_artifact", broken)
    sf = tmp_path / "s.toml"
    sf.write_text(SMALL_STUDY.replace("trials = 5", "trials = 2").replace("[confirm]", "[x]"))
    sf.write_text(sf.read_text().split("[x]")[0])
    code, _, err = cli(capsys, "tune", str(sf), "--storage", f"sqlite:///{tmp_path / 'b.db'}")
    assert code == 0
    assert "heurtune: warning: dashboard content not written" in err and "disk full" in err
    study = optuna.load_study(study_name="iso", storage=f"sqlite:///{tmp_path / 'b.db'}")
    assert [t.state.is_finished() for t in study.trials] == [True, True]


@pytest.mark.slow
def test_halma_report_draws_the_per_cell_heat_maps(tmp_path, capsys) -> None:
    (tmp_path / "opponent.toml").write_text("""
game = "halma"
heuristic = "distance"
[search]
algorithm = "alphabeta"
depth = 1
[rules]
max_plies = 40
""")
    sf = tmp_path / "h.toml"
    sf.write_text("""
[study]
name = "hal"
game = "halma"
opponent = "opponent.toml"
trials = 2
pairs = 1
seed = 1
jobs = 1

[engine]
heuristic = "family"
[engine.search]
algorithm = "alphabeta"
depth = 1
[engine.rules]
max_plies = 40

[params]
progress = { low = 0.5, high = 1.5 }
at_home = { low = 0.0, high = 5.0 }
""")
    storage = f"sqlite:///{tmp_path / 'h.db'}"
    assert cli(capsys, "tune", str(sf), "--storage", storage)[0] == 0
    out = tmp_path / "h.html"
    assert cli(capsys, "report", "hal", "--storage", storage, "--out", str(out))[0] == 0
    html = out.read_text()
    section = html.split("<h2>Per-cell weights of one piece", 1)[1].split("<h2>", 1)[0]
    assert section.count('class="plotly-graph-div"') == 2  # tuned and default
    assert "defaults (the baseline)" in section and "tuned (trial " in section


def test_tournament_html(tmp_path, capsys) -> None:
    out = tmp_path / "t.html"
    code, stdout, _ = cli(capsys, "tournament", "isolation:ab_improved", "isolation:ab_open",
                          "--opponents", "isolation:ab_open", "isolation:random", "--pairs", "2",
                          "--html", str(out))
    assert code == 0 and "Ratings" in stdout
    html = out.read_text()
    assert html.count("plotly.js v") == 1 and not re.search(r"<script[^>]+src=", html)
    cross = html.split("<h2>Cross-table", 1)[1].split("<h2>", 1)[0]
    assert cross.count('"z":[[') == 1 and "(itself)" in cross
    ratings = html.split("<h2>Ratings", 1)[1].split("<h2>", 1)[0]
    assert "Bradley-Terry Elo" in ratings and '"error_x"' in ratings
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, stdout, err = cli(capsys, "tournament", "isolation:ab_open", "--opponents",
                            "isolation:random", "--pairs", "1", "--html", str(blocker / "t.html"))
    assert code == 2 and stdout == "" and err.startswith("heurtune: error: ")


def test_trial_note_of_a_pruned_trial() -> None:
    from heurtune.match.stats import MatchStats
    from heurtune.tuning.views.text import trial_note

    stats = MatchStats(wins=3, draws=1, losses=2, pair_scores=(1.0, 0.5, 0.25))
    text = trial_note(7, stats, 8, "isolation:ab_open", {"own": 1.5, "depth": 3}, pruned=True)
    assert text.startswith("## Trial 7: pruned after 3 of 8 opening pairs\n")
    assert "on 3 opening pairs (6 games)" in text
    assert "| pairs won / even / lost | 1 / 1 / 1 |" in text
    assert "| pentanomial LL, LD, DD/WL, WD, WW | 0, 1, 1, 0, 1 |" in text
    assert "| score | 0.583 [" in text and "Parameters: own = 1.5, depth = 3" in text


def test_halma_cell_weights_are_one_piece_on_an_empty_board() -> None:
    """The `distance` map by its formula: base minus the distance to the target
    corner, the near bonus within its radius, the dead and golden cells."""
    import numpy as np

    from heurtune.engine.heuristic import get_heuristic
    from heurtune.engine.heuristics.halma import DEAD, EUCLID, GOLDEN
    from heurtune.games.halma import CELLS, SIZE

    weights = get_heuristic("halma", "distance").cell_weights
    assert weights is not None
    got = weights({"base": 20.0, "near_bonus": 3.0})
    d = EUCLID[0, :CELLS]
    expected = 20.0 - d + 3.0 * (d <= 4.0) - 20.0 * DEAD[0, :CELLS] + 15.0 * GOLDEN[0, :CELLS]
    assert got.shape == (SIZE, SIZE)
    np.testing.assert_allclose(got.ravel(), expected)
    family = get_heuristic("halma", "family").cell_weights
    assert family is not None  # its whole-position terms are left out: the same map
    np.testing.assert_allclose(family({"base": 20.0, "near_bonus": 3.0, "straggler": 5.0}), got)


def test_report_of_a_one_trial_study(tmp_path, capsys) -> None:
    sf = tmp_path / "one.toml"
    sf.write_text(SMALL_STUDY.replace("trials = 5", "trials = 1").split("[confirm]")[0])
    storage = f"sqlite:///{tmp_path / 'one.db'}"
    assert cli(capsys, "tune", str(sf), "--storage", storage)[0] == 0
    out = tmp_path / "one.html"
    code, stdout, err = cli(capsys, "report", "iso", "--storage", storage, "--out", str(out))
    assert code == 0 and err == ""
    html = out.read_text()
    assert "Importances need at least two completed trials" in html
    assert "Slices and contours" not in html and "not confirmed yet" in html
    assert html.count('class="replay"') == 2
