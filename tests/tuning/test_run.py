"""Study files, tune -> export -> match round trips, resume, and bad input."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import optuna
import pytest

from heurtune.engine.config import resolve_engine
from heurtune.errors import HeurtuneError
from heurtune.tuning import best_config
from heurtune.tuning.study.schema import SETUP as SETUP_ATTR
from heurtune.tuning.studyfile import load_study_file
from heurtune.tuning.views import environment_text, study_facts
from tests.helpers import ROOT, cli, digest

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"

STUDY = """
[study]
name = "t"
game = "morris"
opponent = "morris:seed"
trials = 3
pairs = 3
seed = 5
jobs = 1
opening_plies = 4
sampler = "tpe"

[engine]
heuristic = "seed"
[engine.search]
algorithm = "alphabeta"
depth = 2

[params]
stash = {{ low = 0.0, high = 3.0 }}
{extra}

[pruner]
kind = "{pruner}"
n_startup_steps = 2
"""


def study_file(tmp_path: Path, extra: str = "", pruner: str = "wilcoxon", name: str = "s") -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(STUDY.format(extra=extra, pruner=pruner))
    return str(path)


def test_shipped_study_file_is_valid() -> None:
    sf = load_study_file(ROOT / "studies" / "quick" / "morris.toml")
    assert sf.base.game == "morris" and sf.opponent.label == "morris:seed"
    assert sf.objective_name == "score vs morris:seed"
    assert sf.confirm is not None and sf.confirm.top == 3 and sf.confirm.pairs == 50


@pytest.mark.parametrize(
    "text,message",
    [
        ("[study\n", "malformed TOML"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[confirm]\ntop = 0\n',
         "top must be at least 1"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[confirm]\nsprt = [5, 1]\n',
         "SPRT needs elo0 < elo1"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[confirm]\nsprt = "0,5"\n',
         "sprt must be [elo0, elo1]"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[confirm]\nrounds = 3\n',
         "unknown keys"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[pruner]\nalpha = 0.7\n',
         "alpha must be in (0, 0.5)"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[pruner]\nmargin = -1.0\n',
         "margin must be in [0, 1]"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[pruner]\n'
         'checkpoints = [0.5, 0.2]\n', "checkpoints must be an increasing list"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[study]\n', "malformed TOML"),
        ('[study]\ngame = "xiangqi"\n[engine]\nheuristic = "seed"\n', "unknown game 'xiangqi'"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "x"\n', "unknown heuristic 'x'"),
        ('[study]\ngame = "morris"\ncolour = 1\n[engine]\nheuristic = "seed"\n', "unknown keys"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[params]\nmills = 11.0\n',
         "mills=11.0 is out of bounds"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[params]\nmills = {low = -1.0}\n',
         "out of bounds"),
        ('[study]\ngame = "morris"\nsampler = "grid"\n[engine]\nheuristic = "seed"\n',
         "unknown sampler 'grid'"),
        ('[study]\ngame = "morris"\npairs = 0\n[engine]\nheuristic = "seed"\n', "pairs must be"),
        ('[study]\ngame = "morris"\nopponent = "morris:zz"\n[engine]\nheuristic = "seed"\n',
         "unknown preset 'morris:zz'"),
        ('[study]\ngame = "morris"\n[engine]\nheuristic = "seed"\n[pruner]\nkind = "hyper"\n',
         "unknown kind 'hyper'"),
        ('[study]\ngame = "morris"\ntrials = "many"\n[engine]\nheuristic = "seed"\n',
         "trials must be int"),
        ('[study]\ngame = "morris"\nseed = -1\n[engine]\nheuristic = "seed"\n',
         "seed must be in [0, 4294967295]"),
        ('[study]\ngame = "morris"\nseed = 4294967296\n[engine]\nheuristic = "seed"\n',
         "seed must be in"),
        ('[study]\ngame = "morris"\nname = "' + "x" * 600 + '"\n[engine]\nheuristic = "seed"\n',
         "600 characters long"),
        ('[study]\ngame = "morris"\nsampler_seeding = "often"\n[engine]\nheuristic = "seed"\n',
         "sampler_seeding must be one of"),
    ],
)
def test_malformed_study_files(tmp_path, capsys, text, message) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    db = tmp_path / "h.db"
    code, out, err = cli(capsys, "tune", str(path), "--storage", f"sqlite:///{db}")
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not db.exists()  # nothing written to the storage


def test_tune_export_match_round_trip(tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    url = f"sqlite:///{db}"
    sf = study_file(tmp_path)
    code, out, err = cli(capsys, "tune", sf, "--storage", url)
    assert code == 0, err
    assert "3 finished trials" in out
    study = optuna.load_study(study_name="t", storage=url)
    first = study.trials[0]
    assert first.params == {"stones": 1.0, "stash": 1.0, "mills": 4.0, "possible_mills": 2.0}
    assert first.user_attrs["baseline"] is True
    assert study.metric_names == ["score vs morris:seed"]
    for t in study.trials:
        assert {"wins", "draws", "losses", "games", "score_ci"} <= set(t.user_attrs)
        if t.state == optuna.trial.TrialState.COMPLETE:
            assert sorted(t.intermediate_values) == [0, 1, 2]  # keyed by opening
            assert t.user_attrs["games"] == 6
            assert t.value == pytest.approx(
                (t.user_attrs["wins"] + 0.5 * t.user_attrs["draws"]) / 6
            )
    out_file = tmp_path / "best.toml"
    code, out, err = cli(capsys, "export", "t", "--storage", url, "--out", str(out_file))
    assert code == 2 and "study 't' is unconfirmed" in err and not out_file.exists()
    code, out, err = cli(capsys, "export", "t", "--storage", url, "--out", str(out_file),
                         "--force")
    assert code == 0, err
    cfg = resolve_engine(str(out_file))
    umask = os.umask(0o022)
    os.umask(umask)
    assert out_file.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600
    assert cfg.params == {**cfg.params, **study.best_trial.params}
    prov = cfg.provenance
    assert prov["study"] == "t" and prov["trial"] == study.best_trial.number
    assert prov["games"] == 6 and prov["score"] == study.best_value
    assert len(prov["score_ci"]) == 2 and "optuna_version" in prov and "date" in prov
    code, out, err = cli(capsys, "match", str(out_file), "morris:seed", "--pairs", "2",
                         "--json")
    assert code == 0 and json.loads(out)["games"] == 4
    code, out, err = cli(capsys, "trials", "t", "--storage", url)
    assert code == 0 and "possible_mills" in out and out.count("\n") == 1 + 3
    csv_file = tmp_path / "trials.csv"
    assert cli(capsys, "trials", "t", "--storage", url, "--csv", str(csv_file))[0] == 0
    assert csv_file.read_text().splitlines()[0].startswith("number,state,score,score_ci")


def test_resume_runs_only_the_missing_trials(tmp_path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    sf = study_file(tmp_path, pruner="median")
    assert cli(capsys, "tune", sf, "--storage", url, "--trials", "2")[0] == 0
    assert cli(capsys, "tune", sf, "--storage", url, "--trials", "4")[0] == 0
    study = optuna.load_study(study_name="t", storage=url)
    assert len(study.trials) == 4
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert all(sorted(t.intermediate_values) == [1, 2, 3] for t in complete)  # running score
    code, out, _ = cli(capsys, "tune", sf, "--storage", url, "--trials", "4")
    assert code == 0 and "already has 4 finished trials" in out
    assert len(optuna.load_study(study_name="t", storage=url).trials) == 4


@pytest.mark.slow
def test_a_worker_in_another_environment_is_warned(tmp_path, capsys) -> None:
    # a duels study reproduces only with the same libraries and OpenBLAS kernel: a
    # worker that joins or resumes it elsewhere is told what differs (not the processor)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    sf = study_file(tmp_path, pruner="median")
    assert cli(capsys, "tune", sf, "--storage", url, "--trials", "1")[0] == 0
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "2")
    assert code == 0 and "environment" not in err  # the same one: no warning
    study = optuna.load_study(study_name="t", storage=url)
    recorded = dict(study.user_attrs["environment"])
    here = recorded["numpy"], recorded["blas"]
    recorded.update(numpy="0.1", blas="OpenBLAS Prescott", cpu="another processor")
    study.set_user_attr("environment", recorded)
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "3")
    assert code == 0
    assert (f"heurtune: warning: study 't' was created in another environment (numpy: 0.1 -> "
            f"{here[0]}; blas: OpenBLAS Prescott -> {here[1]}): this worker's trials may "
            "differ") in err
    assert "processor" not in err
    study = optuna.load_study(study_name="t", storage=url)
    assert len(study.trials) == 3
    # the study keeps the joining worker's environment, so its facts say so later
    joined = [v for k, v in study.user_attrs.items() if k.startswith("environment_joined_")]
    assert len(joined) == 1 and joined[0]["numpy"] == here[0]
    assert joined[0]["differs"] == [f"numpy: 0.1 -> {here[0]}",
                                    f"blas: OpenBLAS Prescott -> {here[1]}"]
    facts = dict(study_facts(study, None))["environment"]
    assert facts.startswith("python ") and "numpy 0.1" in facts and "OpenBLAS Prescott on " \
        "another processor" in facts
    assert facts.endswith(f"; a worker joined with numpy: 0.1 -> {here[0]}, blas: OpenBLAS "
                          f"Prescott -> {here[1]}")
    # nothing to run: nothing to warn of
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "3")
    assert code == 0 and "environment" not in err
    # the same worker again: warned again, recorded once
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "4")
    assert code == 0 and "another environment" in err
    attrs = optuna.load_study(study_name="t", storage=url).user_attrs
    assert sum(k.startswith("environment_joined_") for k in attrs) == 1
    # a study created before heurtune recorded its environment (or with something else
    # under its name): not compared, nothing recorded, and its facts say so
    study = optuna.load_study(study_name="t", storage=url)
    study.set_user_attr("environment", "x")
    for key in [k for k in study.user_attrs if k.startswith("environment_joined_")]:
        study.set_user_attr(key, None)
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "5")
    attrs = optuna.load_study(study_name="t", storage=url).user_attrs
    assert code == 0 and "environment" not in err
    assert all(v is None for k, v in attrs.items() if k.startswith("environment_joined_"))
    assert environment_text(attrs) == "not recorded (the study was created by an older heurtune)"
    # a damaged record still gives one line
    assert environment_text({"environment": {}, "environment_joined_1": {"differs": "x"},
                             "environment_joined_2": {"differs": [1, "b"]}}) == \
        "kernel ? on ?; a worker joined with ?; a worker joined with 1, b"


def test_changed_setup_is_refused_and_nothing_stored_changes(tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    url = f"sqlite:///{db}"
    assert cli(capsys, "tune", study_file(tmp_path), "--storage", url, "--trials", "1")[0] == 0
    before = digest(db)
    changed = study_file(tmp_path, name="other")
    Path(changed).write_text(Path(changed).read_text().replace("pairs = 3", "pairs = 4"))
    code, _, err = cli(capsys, "tune", changed, "--storage", url)
    assert code == 2 and "different setup (pairs differ)" in err
    assert digest(db) == before


def test_export_errors(tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    url = f"sqlite:///{db}"
    code, _, err = cli(capsys, "export", "t", "--storage", url)
    assert code == 2 and "does not exist" in err and not db.exists()
    study = optuna.create_study(study_name="empty", storage=url)
    study.set_user_attr(SETUP_ATTR, {"engine": {}})
    code, _, err = cli(capsys, "export", "empty", "--storage", url)
    assert code == 2 and "has no completed trial" in err
    code, _, err = cli(capsys, "export", "nope", "--storage", url)
    assert code == 2 and "no study named 'nope'" in err and "empty" in err


def test_unreachable_storage(tmp_path, capsys) -> None:
    sf = study_file(tmp_path)
    code, _, err = cli(capsys, "tune", sf, "--storage", "postgresql://postgres@127.0.0.1:1/test")
    assert code == 2 and err.startswith("heurtune: error: cannot open storage") and err.count("\n") == 1
    code, _, err = cli(capsys, "tune", sf, "--storage", "nosuchdb://x")
    assert code == 2 and err.count("\n") == 1


@pytest.mark.postgres
def test_postgres_round_trip(tmp_path, capsys) -> None:
    name = f"pg-{uuid.uuid4().hex[:8]}"
    sf = study_file(tmp_path)
    try:
        code, out, err = cli(capsys, "tune", sf, "--storage", PG_URL, "--study-name", name,
                             "--trials", "2")
        assert code == 0, err
        cfg = best_config(PG_URL, name)
        assert cfg.provenance["study"] == name
        study = optuna.load_study(study_name=name, storage=PG_URL)
        assert len(study.trials) == 2
    finally:
        try:
            optuna.delete_study(study_name=name, storage=PG_URL)
        except KeyError:
            pass


def test_best_config_rejects_foreign_studies(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    study = optuna.create_study(study_name="foreign", storage=url)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    with pytest.raises(HeurtuneError, match="not created by heurtune"):
        best_config(url, "foreign")


def test_start_from_an_exported_engine(tmp_path, capsys) -> None:
    start = tmp_path / "start.toml"
    start.write_text('game = "morris"\nheuristic = "seed"\n[params]\nstones = 2.0\nstash = 0.5\n'
                     'mills = 3.0\npossible_mills = 1.5\n')
    sf = study_file(tmp_path)
    text = Path(sf).read_text().replace("opening_plies = 4", 'opening_plies = 4\nstart_from = "start.toml"')
    Path(sf).write_text(text)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "1")
    assert code == 0, err
    first = optuna.load_study(study_name="t", storage=url).trials[0]
    assert first.params == {"stones": 2.0, "stash": 0.5, "mills": 3.0, "possible_mills": 1.5}
    assert first.user_attrs["start_from"].endswith("start.toml")


def test_a_study_of_its_own_heuristic_at_other_weights_is_warned_of_its_baseline(
        tmp_path, capsys) -> None:
    """The opponent is the study's heuristic at other weights inside [params], and no
    start_from: trial 0 is still the defaults, what the answers are measured against
    (and where a duel sampler starts): one warning line names both and the fix; with
    start_from, or an opponent outside the box or of another heuristic, none."""
    (tmp_path / "mine.toml").write_text('game = "morris"\nheuristic = "seed"\n[params]\n'
                                        'stash = 2.5\n[search]\nalgorithm = "alphabeta"\n'
                                        'depth = 2\n')
    sf = study_file(tmp_path)
    Path(sf).write_text(Path(sf).read_text().replace('opponent = "morris:seed"',
                                                     'opponent = "mine.toml"'))
    assert load_study_file(sf).baseline_apart_from_opponent() == {"stash": (1.0, 2.5)}
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "1")
    assert code == 0, err
    lines = [x for x in err.splitlines() if "baseline" in x]
    assert len(lines) == 1 and lines[0].startswith(
        "heurtune: warning: study 't': its baseline, trial 0 and what its answers are "
        "measured against, is the heuristic's defaults within [params] (stash 1), not the "
        "opponent's weights (stash 2.5); to fine-tune the opponent, set start_from = "
        '"mine.toml"')
    code, _, err = cli(capsys, "tune", sf, "--storage", url, "--trials", "2")  # resumed: once
    assert code == 0 and "start_from" not in err
    Path(sf).write_text(Path(sf).read_text().replace(
        "opening_plies = 4", 'opening_plies = 4\nstart_from = "mine.toml"'))
    assert load_study_file(sf).baseline_apart_from_opponent() == {}
    (tmp_path / "mine.toml").write_text('game = "morris"\nheuristic = "seed"\n[params]\n'
                                        'stash = 4.0\n')  # outside [0, 3]
    # the same heuristic at the baseline's own weights: nothing apart
    assert load_study_file(study_file(tmp_path, name="o")).baseline_apart_from_opponent() == {}
    Path(tmp_path / "o.toml").write_text(Path(tmp_path / "o.toml").read_text().replace(
        'opponent = "morris:seed"', 'opponent = "mine.toml"'))
    assert load_study_file(tmp_path / "o.toml").baseline_apart_from_opponent() == {}
    other = study_file(tmp_path, name="p")  # another heuristic of the game
    Path(other).write_text(Path(other).read_text().replace('opponent = "morris:seed"',
                                                           'opponent = "morris:phased"'))
    assert load_study_file(other).opponent.heuristic == "phased"
    assert load_study_file(other).baseline_apart_from_opponent() == {}


@pytest.mark.parametrize(
    "engine,message",
    [
        ('game = "morris"\nheuristic = "phased"\n', "is a morris:phased engine"),
        ('game = "morris"\nheuristic = "seed"\n[params]\nstash = 4.0\n', "stash=4.0 is out of bounds"),
    ],
)
def test_bad_start_from(tmp_path, capsys, engine, message) -> None:
    (tmp_path / "start.toml").write_text(engine)
    sf = study_file(tmp_path)
    Path(sf).write_text(Path(sf).read_text().replace(
        "opening_plies = 4", 'opening_plies = 4\nstart_from = "start.toml"'))
    db = tmp_path / "h.db"
    code, _, err = cli(capsys, "tune", sf, "--storage", f"sqlite:///{db}")
    assert code == 2 and message in err and err.count("\n") == 1 and not db.exists()


def test_an_environment_that_cannot_be_recorded_is_only_warned_of(monkeypatch, caplog) -> None:
    # the joining worker's environment is a note: a storage that refuses it does not
    # stop the worker here (its trials' own writes meet the storage's error, if any)
    from heurtune.tuning import run

    study = optuna.create_study()
    study.set_user_attr("environment", {"numpy": "0.1"})

    def refuse(self: optuna.Study, key: str, value: object) -> None:
        raise optuna.exceptions.StorageInternalError("the database refused a write")

    monkeypatch.setattr(optuna.Study, "set_user_attr", refuse)
    with caplog.at_level("WARNING", logger="heurtune"):
        run._warn_of_environment(study, "t")
    messages = [r.getMessage() for r in caplog.records if r.name == "heurtune"]
    assert messages[0] == ("could not record this worker's environment: storage error: the "
                           "database refused a write")
    assert messages[1].startswith("study 't' was created in another environment (numpy: 0.1 ->")


DUELS_STUDY = """
[study]
name = "d"
game = "morris"
opponent = "morris:phased"
trials = 2
pairs = 2
seed = 5
jobs = 1
opening_plies = 4
sampler = "duels"

[engine]
heuristic = "phased"
[engine.search]
algorithm = "alphabeta"
depth = 1

[params]
{params}
"""
PHASED_EIGHT = ("move_stones", "move_mills", "move_possible_mills", "move_open_mills",
                "move_double_mills", "move_blocked", "place_stones", "place_mills")


@pytest.mark.slow
def test_a_study_recorded_before_a_default_changed_goes_on_with_the_former_one(
        tmp_path, capsys, monkeypatch) -> None:
    """``edge_prior``'s default became automatic (4 from 8 searched parameters on, and
    below them behind both gates since 2026-11-28): a
    study recorded before then (only the options given: none) resumes, and answers,
    with the former default 1; a study recorded now keeps every option."""
    import heurtune.tuning.samplers.duels as duels_module
    from heurtune.tuning.after.answers import sampler_spec
    seen: list[float] = []
    fit = duels_module.fit_at_edges

    def spy(model, low, high, centre, room, edge_prior, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(edge_prior)
        return fit(model, low, high, centre, room, edge_prior, **kwargs)
    monkeypatch.setattr(duels_module, "fit_at_edges", spy)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    path = tmp_path / "d.toml"
    path.write_text(DUELS_STUDY.format(params="\n".join(
        f"{name} = {{ low = 0.0, high = 10.0 }}" for name in PHASED_EIGHT)))
    assert cli(capsys, "tune", str(path), "--storage", url, "--trials", "2")[0] == 0
    assert seen and set(seen) == {4.0}  # 8 parameters: widened by default
    study = optuna.load_study(study_name="d", storage=url)
    record = study.user_attrs["sampler"]
    assert record["options"]["edge_prior"] == -1.0 and len(record["options"]) > 10
    assert sampler_spec(study)[0].options["edge_prior"] == -1.0
    # resumed with the full record: as it began
    seen.clear()
    assert cli(capsys, "tune", str(path), "--storage", url, "--trials", "3")[0] == 0
    assert seen and set(seen) == {4.0}
    # a record of an older heurtune (only the options that differed from the defaults
    # of its day): the former default, in the resumed worker and in the answers
    study.set_user_attr("sampler", {**record, "options": {}})
    seen.clear()
    code, out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "4")
    assert code == 0, err
    assert seen and set(seen) == {1.0}
    assert len(optuna.load_study(study_name="d", storage=url).trials) == 4
    assert sampler_spec(optuna.load_study(study_name="d", storage=url))[0] \
        .options["edge_prior"] == 1.0
    # ... unless the study file sets it
    path.write_text(path.read_text() + "\n[sampler]\nedge_prior = 2\n")
    seen.clear()
    code, out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "5")
    assert code == 0, err
    assert ("study 'd' goes on with other sampler settings than it recorded (edge_prior "
            "1.0 -> 2.0): recorded from trial 4 on, and its answers use them") in err
    assert err.count("goes on with other sampler settings") == 1
    assert set(seen) == {2.0}  # the sampler's and the answers' alike
    # the study now records the file's settings, and what it held before
    study = optuna.load_study(study_name="d", storage=url)
    record = study.user_attrs["sampler"]
    assert record["options"]["edge_prior"] == 2.0 and len(record["options"]) > 10
    [before] = record["earlier"]
    assert before["options"] == {} and before["until_trial"] == 4 and "earlier" not in before
    assert before["kind"] == "duels" and before["answer"] == record["answer"]
    assert sampler_spec(study)[0].options["edge_prior"] == 2.0


@pytest.mark.slow
def test_a_study_resumed_with_other_sampler_settings_records_them(tmp_path, capsys) -> None:
    """A study file that changes the sampler (a non-duel kind, an option, the answer)
    of a stored study: the study goes on with the file's settings, records them with
    the ones they replace and the trial they held until, and says so once."""
    url = f"sqlite:///{tmp_path / 'h.db'}"
    path = Path(study_file(tmp_path))
    assert cli(capsys, "tune", str(path), "--storage", url, "--trials", "2")[0] == 0
    first = optuna.load_study(study_name="t", storage=url).user_attrs["sampler"]
    assert first["kind"] == "tpe" and "earlier" not in first
    # the same file again: nothing changes, nothing said
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "3")
    assert code == 0 and "sampler settings" not in err
    assert optuna.load_study(study_name="t", storage=url).user_attrs["sampler"] == first
    path.write_text(path.read_text().replace('sampler = "tpe"', 'sampler = "random"'))
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "4")
    assert code == 0, err
    assert ("study 't' goes on with other sampler settings than it recorded (kind tpe -> "
            "random): recorded from trial 3 on, and its answers use them") in err
    study = optuna.load_study(study_name="t", storage=url)
    record = study.user_attrs["sampler"]
    assert record["kind"] == "random" and record["options"] == {}
    assert record["earlier"] == [{**first, "until_trial": 3}]
    assert len(study.trials) == 4  # nothing stored was lost
    path.write_text(path.read_text().replace('sampler = "random"', 'sampler = "tpe"')
                    + '\n[sampler]\nn_startup_trials = 2\n')
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "5")
    assert code == 0, err
    assert "(kind random -> tpe): recorded from trial 4 on" in err
    record = optuna.load_study(study_name="t", storage=url).user_attrs["sampler"]
    assert record["options"]["n_startup_trials"] == 2
    assert [e["kind"] for e in record["earlier"]] == ["tpe", "random"]
    assert [e["until_trial"] for e in record["earlier"]] == [3, 4]
    # an option alone
    path.write_text(path.read_text().replace("n_startup_trials = 2", "n_startup_trials = 3"))
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "6")
    assert code == 0, err
    assert "(n_startup_trials 2 -> 3): recorded from trial 5 on" in err
    # a finished study is answered as it ran: a changed file that plays no trial
    # changes nothing
    recorded = optuna.load_study(study_name="t", storage=url).user_attrs["sampler"]
    path.write_text(path.read_text().replace("n_startup_trials = 3", "n_startup_trials = 4"))
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "6")
    assert code == 0 and "sampler settings" not in err
    assert optuna.load_study(study_name="t", storage=url).user_attrs["sampler"] == recorded
    # the study's facts (report, dashboard note) say so
    facts = dict(study_facts(optuna.load_study(study_name="t", storage=url), None))
    assert facts["budget"].startswith(
        "6 trials, sampler tpe (its settings changed on resuming; before: tpe until trial 3, "
        "random until trial 4, tpe (n_startup_trials 2) until trial 5), pruner")


@pytest.mark.slow
def test_a_study_of_the_day_before_goes_on_with_its_edge_prior_below_eight_parameters(
        tmp_path, capsys, monkeypatch) -> None:
    """A ``duels`` study in 4 parameters recorded on 2026-11-27 (``edge_prior = 0``
    among every option: off below 8 parameters) resumed by a file that does not set
    ``edge_prior`` goes on without the wider prior, as it began, and says nothing; a
    file that sets the new default (-1) explicitly widens behind both gates, and the
    study records the change."""
    import heurtune.tuning.samplers.duels as duels_module
    from heurtune.tuning.after.answers import sampler_spec
    seen: list[tuple[float, int, float | None]] = []
    fit = duels_module.fit_at_edges

    def spy(model, low, high, centre, room, edge_prior, after=0, slope_z=None,  # type: ignore[no-untyped-def]
            **kwargs):
        seen.append((edge_prior, after, slope_z))
        return fit(model, low, high, centre, room, edge_prior, after=after, slope_z=slope_z,
                   **kwargs)
    monkeypatch.setattr(duels_module, "fit_at_edges", spy)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    path = tmp_path / "d.toml"
    from heurtune.engine import get_heuristic
    names = [p.name for p in get_heuristic("morris", "phased").space.params]
    path.write_text(DUELS_STUDY.format(params="\n".join(
        f"{name} = {{ low = 0.0, high = 10.0 }}" if name in PHASED_EIGHT[:4]
        else f"{name} = 1.0" for name in names)))
    assert cli(capsys, "tune", str(path), "--storage", url, "--trials", "2")[0] == 0
    assert seen and set(seen) == {(4.0, 112, 1.0)}  # 4 searched: behind both gates
    study = optuna.load_study(study_name="d", storage=url)
    record = study.user_attrs["sampler"]
    study.set_user_attr("sampler", {**record, "options": {**record["options"],
                                                          "edge_prior": 0.0}})
    seen.clear()
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "3")
    assert code == 0 and "sampler settings" not in err
    assert seen and set(seen) == {(1.0, 0, None)}  # as it began: off
    study = optuna.load_study(study_name="d", storage=url)
    assert study.user_attrs["sampler"]["options"]["edge_prior"] == 0.0
    assert sampler_spec(study)[0].options["edge_prior"] == 0.0
    path.write_text(path.read_text() + "\n[sampler]\nedge_prior = -1\n")
    seen.clear()
    code, _out, err = cli(capsys, "tune", str(path), "--storage", url, "--trials", "4")
    assert code == 0, err
    assert "(edge_prior 0.0 -> -1.0): recorded from trial 3 on" in err
    assert seen and set(seen) == {(4.0, 112, 1.0)}


def test_the_facts_read_a_malformed_sampler_history_without_failing() -> None:
    from heurtune.tuning.views.text import sampler_changes_text
    for earlier in (5, None, {"kind": "tpe"}, "tpe", [1, "x"], []):
        assert sampler_changes_text({"kind": "tpe", "earlier": earlier}) == ""
    assert sampler_changes_text(None) == "" and sampler_changes_text([]) == ""
    record = {"kind": "duels", "options": {"edge_prior": 4.0, "z": 1.0},
              "earlier": [{"kind": "duels", "options": {"z": 1.0}, "until_trial": 7}]}
    assert sampler_changes_text(record) == (
        " (its settings changed on resuming; before: duels (edge_prior default) until trial 7)")


def test_a_sampler_change_is_read_off_the_record_as_the_answers_read_it() -> None:
    from heurtune.tuning.run import _sampler_changes
    from heurtune.tuning.samplers import SamplerSpec
    tpe = SamplerSpec.parse("tpe", {}, "t")
    assert _sampler_changes({"kind": "tpe", "options": {}, "answer": "auto"}, tpe, "auto") == []
    assert _sampler_changes({}, tpe, "auto") == []  # an old record: TPE, auto
    assert _sampler_changes({"kind": "random"}, tpe, "model") == [
        "kind random -> tpe", "answer auto -> model"]
    assert _sampler_changes({"kind": "tpe", "options": {"n_startup_trials": 3}}, tpe, "auto") \
        == ["n_startup_trials 3 -> 10"]
    for bad in ({"kind": "nope"}, {"kind": "tpe", "options": {"x": 1}},
                {"kind": "tpe", "planned_pairs": "many"}):
        assert _sampler_changes(bad, tpe, "auto") == [
            "options (a record this heurtune cannot read) replaced"]
