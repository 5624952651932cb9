"""The fault battery's cases (issue 20), one regression test each: every bad input
is one line and exit 2 with stored data unchanged, no long search holds Ctrl-C or
SIGTERM, and no first run is silent."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
import pytest

from heurtune.tuning import storage_failure
from heurtune.tuning.study import Verdict
from tests.helpers import ROOT, SMALL_STUDY, cli, digest

HEURTUNE = [sys.executable, "-m", "heurtune"]


def _one_line_error(code: int, err: str, message: str) -> None:
    assert code == 2, err
    assert err.startswith("heurtune: error: ") and err.count("\n") == 1, err
    assert message in err, err


# -- tracebacks that were ------------------------------------------------------
@pytest.mark.parametrize("bounds", ["0,1e9", "0,10000", "-3000,0", "0,inf"])
def test_sprt_bounds_beyond_any_score_are_refused(capsys, bounds) -> None:
    code, out, err = cli(capsys, "match", "morris:seed", "morris:seed", f"--sprt={bounds}")
    _one_line_error(code, err, "bounds must ")
    assert out == ""


def test_confirm_refuses_hopeless_sprt_bounds_before_playing(small_study, tmp_path,
                                                              capsys, monkeypatch) -> None:
    from heurtune.match.runner import MatchRunner

    played: list[object] = []  # every pair a match plays goes through _iter_many

    def play(*args: object, **kwargs: object) -> None:
        played.append(args)
        raise AssertionError("a pair was played")

    monkeypatch.setattr(MatchRunner, "_iter_many", play)
    db = tmp_path / "h.db"
    db.write_bytes(small_study.db.read_bytes())
    before = digest(db)
    code, out, err = cli(capsys, "confirm", "iso", "--storage", f"sqlite:///{db}",
                         "--sprt", "0,10000")
    _one_line_error(code, err, "SPRT bounds must lie within +-2000 Elo")
    assert out == "" and digest(db) == before and played == []


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite:///:memory:", "sqlite://"])
def test_a_database_in_memory_is_refused(tmp_path, capsys, url) -> None:
    (tmp_path / "iso.toml").write_text(SMALL_STUDY)
    code, _, err = cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url)
    _one_line_error(code, err, "a database in memory that vanishes when the command ends")


@pytest.mark.parametrize("command", [["tune", "STUDY"], ["trials", "iso"], ["export", "iso"],
                                     ["confirm", "iso"], ["dashboard"]])
def test_a_storage_inside_the_process_is_refused_on_the_command_line(tmp_path, capsys,
                                                                     command) -> None:
    (tmp_path / "iso.toml").write_text(SMALL_STUDY)
    argv = [str(tmp_path / "iso.toml") if a == "STUDY" else a for a in command]
    code, _, err = cli(capsys, *argv, "--storage", "memory:x")
    _one_line_error(code, err, "'memory:x' is a storage inside one process: nothing would be "
                               "kept")


def test_closed_standard_output_is_one_line() -> None:
    proc = subprocess.run([*HEURTUNE, "list"], stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1), timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == "heurtune: error: standard output is closed\n"


def test_a_full_disk_is_one_line_and_keeps_the_finished_trials(tmp_path, capsys,
                                                               monkeypatch) -> None:
    """SQLite says "database or disk is full"; Optuna wraps it twice (its own
    wording guesses "exceeding max length") and then fails an assertion."""
    import sqlalchemy.exc

    from heurtune.tuning.study import storage as storage_module

    (tmp_path / "iso.toml").write_text(SMALL_STUDY.replace("[confirm]\ntop = 2\npairs = 4\n",
                                                           ""))
    calls = {"n": 0}
    original = storage_module._SQLiteStorage.set_trial_state_values

    def full_after_two_trials(self, trial_id, state, values=None):
        if state.is_finished():
            calls["n"] += 1
            if calls["n"] > 2:
                raise sqlalchemy.exc.OperationalError(
                    "UPDATE trials", {}, sqlite3.OperationalError("database or disk is full"))
        return original(self, trial_id, state, values)

    monkeypatch.setattr(storage_module._SQLiteStorage, "set_trial_state_values",
                        full_after_two_trials)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url)
    lines = [line for line in err.splitlines() if line.startswith("heurtune:")]
    assert code == 2 and lines == [
        "heurtune: error: storage error: database or disk is full; finished trials are "
        "stored and the same command resumes"], err
    assert "Traceback" not in err
    monkeypatch.undo()
    study = optuna.load_study(study_name="iso", storage=url)
    assert [t.number for t in study.trials if t.state.is_finished()
            and t.state != optuna.trial.TrialState.FAIL] == [0, 1]


def test_storage_failure_finds_the_drivers_message_in_the_chain() -> None:
    import sqlalchemy.exc

    try:
        try:
            try:
                raise sqlalchemy.exc.OperationalError(
                    "INSERT", {}, sqlite3.OperationalError("database or disk is full"))
            except sqlalchemy.exc.OperationalError as exc:
                raise optuna.exceptions.StorageInternalError(
                    "An exception is raised during the commit. This typically happens due to "
                    "invalid data in the commit, e.g. exceeding max length.") from exc
        except optuna.exceptions.StorageInternalError:
            raise AssertionError("Should not reach.") from None
    except AssertionError as exc:
        outer = exc
    # `from None` hides the cause but keeps the context, which is what Optuna leaves
    assert storage_failure(outer) == "storage error: database or disk is full"
    assert storage_failure(OSError(28, "No space left on device", "h.db")) == (
        "cannot write: No space left on device (h.db)")
    assert storage_failure(ValueError("a bug")) is None


# -- silent acceptances that were ----------------------------------------------
@pytest.mark.parametrize("argv", [
    ["match", "morris:seed", "morris:seed", "--pairs", "1", "--jobs", "100000"],
    ["tune", "STUDY", "--jobs", "2000"],
    ["confirm", "iso", "--jobs", "0"],
    ["calibrate", "STUDY", "--jobs", "0"],
])
def test_jobs_beyond_reason_are_refused(tmp_path, capsys, argv) -> None:
    (tmp_path / "iso.toml").write_text(SMALL_STUDY)
    argv = [str(tmp_path / "iso.toml") if a == "STUDY" else a for a in argv]
    code, out, err = cli(capsys, *argv)
    _one_line_error(code, err, "jobs must be in [1, 1024]")
    assert out == "" and not (tmp_path / "studies").exists()


def test_a_study_with_every_parameter_pinned_is_refused(tmp_path, capsys) -> None:
    text = SMALL_STUDY.replace("own_start = { low = 0.0, high = 3.0 }\n"
                               "opp_start = { low = 0.0, high = 3.0 }\n"
                               "own_end = { low = 0.0, high = 3.0 }\n"
                               "opp_end = { low = 0.0, high = 3.0 }\n",
                               "own_start = 1.0\nopp_start = 1.0\nown_end = 1.0\n"
                               "opp_end = 1.0\n")
    names = ("own2", "opp2", "centrality", "distance", "region", "partition", "territory")
    text = text.replace("[params]\n", "[params]\n" + "".join(f"{n} = 0.0\n" for n in names))
    (tmp_path / "iso.toml").write_text(text)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url)
    _one_line_error(code, err, "the study pins every parameter of heuristic 'weighted': "
                               "there is nothing to tune")
    assert not (tmp_path / "h.db").exists()


def test_resuming_with_another_search_space_is_refused(tmp_path, capsys) -> None:
    text = SMALL_STUDY.replace("trials = 5", "trials = 1").replace("[confirm]\ntop = 2\n"
                                                                   "pairs = 4\n", "")
    (tmp_path / "iso.toml").write_text(text)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    assert cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url)[0] == 0
    before = digest(tmp_path / "h.db")
    (tmp_path / "iso.toml").write_text(text.replace("own_start = { low = 0.0, high = 3.0 }",
                                                    "own_start = { low = 0.0, high = 2.0 }"))
    code, _, err = cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url,
                       "--trials", "2")
    _one_line_error(code, err, "was created with a different setup (space differ)")
    assert digest(tmp_path / "h.db") == before


def test_bench_with_one_position_searches(capsys) -> None:
    code, out, err = cli(capsys, "bench", "gomoku", "--positions", "1", "--depth", "2")
    assert code == 0, err
    assert " 0 nodes" not in out and "= 0 nodes/s" not in out


# -- faults --------------------------------------------------------------------
def test_a_baseline_interrupted_is_played_again_on_resume(tmp_path, capsys,
                                                          monkeypatch) -> None:
    from heurtune.match import MatchRunner

    text = SMALL_STUDY.replace("trials = 5", "trials = 2").replace("[confirm]\ntop = 2\n"
                                                                   "pairs = 4\n", "")
    (tmp_path / "iso.toml").write_text(text)
    url = f"sqlite:///{tmp_path / 'h.db'}"
    original = MatchRunner.iter_pairs

    def interrupted(self, *args, **kwargs):
        yield from ()
        raise KeyboardInterrupt

    monkeypatch.setattr(MatchRunner, "iter_pairs", interrupted)
    code, _, err = cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url)
    assert code == 130 and "interrupted" in err
    study = optuna.load_study(study_name="iso", storage=url)
    assert [(t.number, t.state.name, t.user_attrs.get("baseline")) for t in study.trials] == [
        (0, "FAIL", True)]
    monkeypatch.setattr(MatchRunner, "iter_pairs", original)
    code, _, err = cli(capsys, "tune", str(tmp_path / "iso.toml"), "--storage", url)
    assert code == 0, err
    study = optuna.load_study(study_name="iso", storage=url)
    played = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert played[0].user_attrs.get("baseline") is True and played[0].number == 1
    assert played[0].params == study.trials[0].params


@pytest.mark.parametrize("figures,reason", [
    ({"winner_is_baseline": True}, "no candidate scored above the baseline"),
    ({"winner_is_baseline": False}, "it played no baseline to compare trial 3 with"),
    ({"winner_is_baseline": False,
      "vs_baseline": {"difference": 0.0, "difference_ci": [-0.08, 0.08]}},
     "trial 3 is not better than the baseline for sure: +0.000 [-0.080, +0.080]"),
    ({"winner_is_baseline": False,
      "vs_baseline": {"difference": 0.2, "difference_ci": [0.01, 0.39]}}, None),
])
def test_a_gain_is_the_paired_difference_above_zero(figures, reason) -> None:
    verdict = Verdict({"winner_label": "trial 3", "pairs": 50, **figures})
    found = verdict.no_gain()
    assert found == reason if reason is None else reason in (found or "")


# -- long searches: Ctrl-C and SIGTERM -----------------------------------------
def _tree_cpu(root: int) -> float:
    """CPU seconds used so far by process ``root`` and its living descendants."""
    ticks, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError):  # gone meanwhile
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def _waited_cpu() -> float:
    """CPU seconds used by this process's children that have ended (and theirs)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


SEARCHING = 1.0  # CPU seconds into the search before the signal
SPARE = 2.5  # the most CPU seconds the processes may use after it (their search: hours)


def _stops_at_the_signal(argv: list[str], shallow: list[str], sig: int,
                         tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``heurtune SHALLOW`` (the same search, one ply: the first run compiles
    or loads it, the second's CPU time is what starting, loading and ending cost),
    then ``heurtune ARGV``; once its processes have used SEARCHING CPU seconds more
    than that, it is deep in its search, however loaded the machine: send ``sig``
    and require it to end having used at most SPARE CPU seconds more. CPU time, not
    the wall clock: other work on the machine stretches the one, not the other."""
    for _ in range(2):
        before = _waited_cpu()
        shallow_run = subprocess.run([*HEURTUNE, *shallow], capture_output=True, text=True,
                                     cwd=tmp_path, timeout=900, check=False)
        assert shallow_run.returncode == 0, shallow_run.stderr
    startup = _waited_cpu() - before
    before = _waited_cpu()
    proc = subprocess.Popen([*HEURTUNE, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 600  # a guard against a hang, nothing more
        while (used := _tree_cpu(proc.pid)) < startup + SEARCHING:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, f"{used:.1f} CPU seconds in 600 s"
            time.sleep(0.05)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=600)
    finally:
        proc.kill()
    after = _waited_cpu() - before - used
    assert after < SPARE, f"{after:.2f} CPU seconds after the signal (startup {startup:.2f})"
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@pytest.mark.slow
@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "terminated")])
def test_a_deep_bench_stops_on_a_signal(tmp_path, sig, code, word) -> None:
    done = _stops_at_the_signal(["bench", "morris", "--depth", "40", "--positions", "2"],
                                ["bench", "morris", "--depth", "1", "--positions", "1"],
                                sig, tmp_path)
    assert done.returncode == code and done.stderr.strip().endswith(word), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_unbounded_engine_stops_on_ctrl_c_and_leaves_no_process(tmp_path, jobs) -> None:
    for name, depth in (("deep", 62), ("shallow", 1)):
        (tmp_path / f"{name}.toml").write_text('game = "morris"\nheuristic = "seed"\n'
                                               f'[search]\nalgorithm = "alphabeta"\ndepth = {depth}\n')
    done = _stops_at_the_signal(["match", "deep.toml", "morris:seed", "--pairs", "2",
                                 "--jobs", jobs],
                                ["match", "shallow.toml", "shallow.toml", "--pairs", "1",
                                 "--jobs", jobs], signal.SIGINT, tmp_path)
    assert done.returncode == 130 and "interrupted" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_hopeless_perft_is_refused_with_its_estimate(capsys) -> None:
    # a first run on a cold cache says on stderr that it compiles the perft kernel
    # (tested below): compile it first, so that the refusal is all stderr holds
    assert cli(capsys, "perft", "gomoku", "1")[:2] == (0, "225\n")
    code, out, err = cli(capsys, "perft", "gomoku", "9")
    _one_line_error(code, err, "perft gomoku 9 would take about ")
    assert "years" in err and "is within 10 minutes" in err and out == ""


def test_a_perft_that_ends_is_counted(capsys) -> None:
    assert cli(capsys, "perft", "isolation", "2")[:2] == (0, "2352\n")


def test_a_first_run_says_what_it_compiles(caplog, monkeypatch) -> None:
    """A step that outlasts ``after`` says so while it runs (waited for here, however
    late the timer's thread comes) and then how long it took, by the module's clock
    (set here); a step that ends before ``after`` says nothing."""
    import logging
    import threading
    from types import SimpleNamespace

    from heurtune.match import foreground
    from heurtune.match.foreground import compiling

    clock = [100.0]
    monkeypatch.setattr(foreground, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    said = threading.Event()

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.set()

    logger = logging.getLogger("heurtune")
    handler = Said()
    logger.addHandler(handler)
    try:
        with caplog.at_level("INFO", logger="heurtune"), compiling("the test search", after=0.05):
            assert said.wait(60), "the notice never came"
            clock[0] += 12.4  # the compilation's time
    finally:
        logger.removeHandler(handler)
    assert [r.getMessage() for r in caplog.records] == [
        "compiling the test search (first run on this machine only; cached afterwards) ...",
        "compiled the test search in 12 s"]
    caplog.clear()
    with caplog.at_level("INFO", logger="heurtune"), compiling("the test search", after=600):
        pass
    assert caplog.records == []


def test_quick_studies_exist_for_every_builtin_game() -> None:
    """Every built-in game has a quick study; chess, whose engines worth tuning are
    UCI engines, has its study of one in studies/chess/ (Toga II's)."""
    from heurtune.games import get_game
    from tests.helpers import builtin_games

    quick = {p.stem for p in (ROOT / "studies" / "quick").glob("*.toml")}
    uci = {g for g in builtin_games() if get_game(g).engine_protocol == "uci"}
    assert set(builtin_games()) - uci <= quick
    assert all((ROOT / "studies" / g).is_dir() and list((ROOT / "studies" / g).glob("*.toml"))
               for g in uci)


# -- position files: every move checked where it stands ------------------------
@pytest.fixture(scope="module")
def position_sets(tmp_path_factory: pytest.TempPathFactory):
    """An Isolation position set without quiet lines and one with them, saved."""
    from heurtune.engine import resolve_engine
    from heurtune.match.positions import QuietSearch, sample_positions
    from tests.match.test_positions import random_lines

    folder = tmp_path_factory.mktemp("position-files")
    plain = sample_positions("isolation", {}, random_lines("isolation", 6, 11), seed=2)
    quiet = sample_positions("isolation", {}, random_lines("isolation", 3, 12), seed=2,
                             per_game=4,
                             quiet=QuietSearch(resolve_engine("isolation:ab_improved"), 3))
    assert quiet.extra.size > 0
    plain.save(folder / "plain.npz")
    quiet.save(folder / "quiet.npz")
    return folder, plain, quiet


def _damaged(s, path: Path, array: str, index: int, value: int) -> Path:
    import dataclasses

    changed = getattr(s, array).copy()
    changed[index] = value
    dataclasses.replace(s, **{array: changed}).save(path)
    return path


@pytest.mark.parametrize("kind", ["out of range", "negative", "illegal"])
def test_a_position_file_with_a_move_the_game_forbids_is_refused(position_sets, tmp_path,
                                                                kind) -> None:
    from heurtune.errors import HeurtuneError
    from heurtune.match.positions import load_positions

    _folder, s, _q = position_sets
    g, ply = 1, 4  # the fifth move of the second game
    at = int(s.game_start[g]) + ply
    value = {"out of range": 10**6, "negative": -1,
             "illegal": int(s.moves[at - 2])}[kind]  # a square a piece has left: blocked
    path = _damaged(s, tmp_path / "bad.npz", "moves", at, value)
    with pytest.raises(HeurtuneError) as info:
        load_positions(path, "isolation")
    assert str(info.value) == (f"{path}: isolation game 1, ply 5: move {value} is not a legal "
                               "isolation move there (a damaged or edited position file)")


def test_a_quiet_line_with_a_move_the_game_forbids_is_refused(position_sets, tmp_path) -> None:
    from heurtune.errors import HeurtuneError
    from heurtune.match.positions import load_positions

    _folder, _s, q = position_sets
    i = int(np.flatnonzero(np.diff(q.extra_start) > 1)[0])  # a line of two moves or more
    path = _damaged(q, tmp_path / "bad.npz", "extra", int(q.extra_start[i]) + 1, 10**6)
    with pytest.raises(HeurtuneError) as info:
        load_positions(path)
    assert str(info.value) == (
        f"{path}: isolation game {q.pos_game[i]}, position after ply {q.pos_ply[i]}: move 2 "
        f"of its quiet line, {10**6}, is not a legal isolation move there (a damaged or "
        "edited position file)")


def test_tune_refuses_a_damaged_position_file_before_any_trial(position_sets, study_file,
                                                               tmp_path, capsys) -> None:
    folder, s, _q = position_sets
    path = _damaged(s, tmp_path / "bad.npz", "moves", int(s.game_start[2]) + 3, 10**6)
    url = f"sqlite:///{tmp_path / 's.db'}"
    for file, fine in [(folder / "plain.npz", True), (path, False)]:
        sf = study_file("p" if fine else "q",
                        study={"opponent": "isolation:ab_improved", "objective": "positions",
                               "positions": str(file), "trials": 2, "sampler": "random"},
                        search={"algorithm": "alphabeta", "nodes": 300})
        code, _out, err = cli(capsys, "tune", str(sf), "--storage", url)
        if fine:
            assert code == 0, err
            before = digest(tmp_path / "s.db")
        else:
            _one_line_error(code, err, f"{path}: isolation game 2, ply 4: move 1000000 is "
                                       "not a legal isolation move there")
            assert digest(tmp_path / "s.db") == before


def test_positions_from_records_refuses_a_move_after_the_end(tmp_path, capsys) -> None:
    import json

    records = tmp_path / "g.jsonl"
    code, _o, err = cli(capsys, "match", "gomoku:random", "gomoku:random", "--pairs", "1",
                        "--games", str(records))
    assert code == 0, err
    games = [json.loads(line) for line in records.read_text().splitlines()]
    played = set(games[0]["opening"]) | set(games[0]["moves"])
    free = next(f"{c}{r}" for c in "abcdefghijklmno" for r in range(1, 16)
                if f"{c}{r}" not in played)
    games[0]["moves"].append(free)  # a legal point, after five in a row
    games[0]["nodes"].append(0)
    records.write_text("".join(json.dumps(g) + "\n" for g in games))
    out = tmp_path / "p.npz"
    code, _o, err = cli(capsys, "positions", "gomoku:random", "--from", str(records),
                        "--out", str(out))
    plies = len(games[0]["opening"]) + len(games[0]["moves"])
    _one_line_error(code, err, f"{records} game 0: ply {plies} '{free}' comes after the end "
                               "of the game (")
    assert not out.exists()


def test_positions_refuses_games_that_start_elsewhere(tmp_path, capsys) -> None:
    out = tmp_path / "p.npz"
    code, stdout, err = cli(capsys, "positions", "chess:random", "--games", "2", "--rule",
                            "chess960=1", "--out", str(out))
    _one_line_error(code, err, "these rules start games elsewhere than chess's own start")
    assert stdout == "" and not out.exists()


# -- quiet lines: a bounded depth, a search that Ctrl-C stops --------------------
@pytest.mark.parametrize("argv,message", [
    (["--quiet", "--quiet-depth", "1000"], "--quiet-depth must be in [1, 8]"),
    (["--quiet", "--quiet-depth", "9"], "--quiet-depth must be in [1, 8]"),
    (["--quiet", "--quiet-depth", "0"], "--quiet-depth must be in [1, 8]"),
    (["--quiet-depth", "3"], "--quiet-depth goes with --quiet"),
])
def test_a_quiet_depth_beyond_reason_is_refused_before_any_game(tmp_path, capsys, argv,
                                                                message) -> None:
    out = tmp_path / "p.npz"
    code, stdout, err = cli(capsys, "positions", "isolation:ab_improved", "--games", "2",
                            *argv, "--out", str(out))
    _one_line_error(code, err, message)
    assert stdout == "" and not out.exists()


class _Watched:
    """A ``heurtune`` subprocess whose output lines are read as they come."""

    def __init__(self, argv: list[str], cwd: Path, **popen: object) -> None:
        import queue
        import threading

        self.proc = subprocess.Popen([*HEURTUNE, *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, cwd=cwd,
                                     **popen)  # type: ignore[call-overload]
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.seen: dict[str, list[str]] = {"out": [], "err": []}
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream) -> None:
        for line in stream:
            self.lines.put((name, line))
        self.lines.put((name, ""))

    def wait_for(self, name: str, text: str, seconds: float = 300) -> None:
        """Until a line holding ``text`` comes on ``name`` (out or err)."""
        import queue

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                which, line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen[which].append(line)
            if which == name and text in line:
                return
            assert line or self.proc.poll() is None, self.seen
        raise AssertionError(f"no {text!r} within {seconds} s: {self.seen}")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_busy(self, seconds: float, within: float = 120) -> None:
        """Until the process has computed ``seconds`` of CPU time more than now."""
        start = self.cpu_seconds()
        deadline = time.monotonic() + within
        while self.cpu_seconds() < start + seconds:
            assert self.proc.poll() is None and time.monotonic() < deadline, self.seen
            time.sleep(0.05)

    def finish(self, seconds: float = 60) -> tuple[int, str, str]:
        try:
            self.proc.wait(timeout=seconds)
        finally:
            self.proc.kill()
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        for which, line in rest:
            self.seen[which].append(line)
        return self.proc.returncode, "".join(self.seen["out"]), "".join(self.seen["err"])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time in /proc")
@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "terminated")])
def test_a_deep_quiet_search_stops_on_a_signal(tmp_path, capsys, sig, code, word) -> None:
    """Gomoku's full-width search 6 plies deep takes minutes a position: the
    signal must not wait for it."""
    records = tmp_path / "g.jsonl"
    assert cli(capsys, "match", "gomoku:random", "gomoku:random", "--pairs", "1",
               "--games", str(records))[0] == 0
    run = _Watched(["positions", "gomoku:ab", "--from", str(records), "--quiet",
                    "--quiet-depth", "6", "--out", "p.npz"], tmp_path)
    run.wait_for("out", "each through a 6-ply quiet line")
    run.wait_busy(1.0)  # searching
    sent = time.monotonic()
    run.proc.send_signal(sig)
    got, _out, err = run.finish()
    took = time.monotonic() - sent
    assert got == code and err.strip().endswith(word), err
    assert "Traceback" not in err and took < 2.5, f"{took:.1f} s after the signal"
    assert not (tmp_path / "p.npz").exists()


# -- empty paths ---------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["export", "iso", "--force", "--out", ""],
    ["export", "iso", "--force", "--out", " "],
    ["export", "iso", "--force", "--artifacts", ""],
    ["report", "iso", "--out", ""],
    ["calibrate", "STUDY", "--out", ""],
    ["tune", "STUDY", "--pgn", ""],
    ["confirm", "iso", "--pgn", ""],
    ["match", "morris:seed", "morris:seed", "--pairs", "1", "--games", ""],
    ["match", "morris:seed", "morris:seed", "--pairs", "1", "--pgn", ""],
    ["book", "isolation:ab_improved", "--out", ""],
    ["positions", "isolation:ab_improved", "--games", "2", "--out", ""],
])
def test_an_empty_path_is_refused_not_read_as_the_default(small_study, tmp_path, capsys,
                                                          monkeypatch, argv) -> None:
    monkeypatch.chdir(tmp_path)  # where a default path would be written
    (tmp_path / "iso.toml").write_text(SMALL_STUDY)
    argv = ["iso.toml" if a == "STUDY" else a for a in argv]
    storage = ["--storage", small_study.storage] if argv[0] in ("export", "report", "confirm",
                                                                "tune") else []
    before = digest(small_study.db)
    code, out, err = cli(capsys, *argv, *storage)
    option = next(a for a in reversed(argv) if a.startswith("--"))
    _one_line_error(code, err, f"argument {option}: an empty path names no file or folder")
    assert out == "" and digest(small_study.db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iso.toml"]


# -- Ctrl-C while the match workers start ----------------------------------------
def _spawned_workers(driver: int) -> list[int]:
    """The match worker processes of ``driver`` (not multiprocessing's resource
    tracker, which blocks the signal itself)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == driver and b"spawn_main" in command and b"resource_tracker" not in command:
            found.append(int(entry.name))
    return found


def _importing(pid: int) -> bool:
    """Whether a worker has got as far as numpy's compiled core (imported by
    heurtune's modules, long before the worker's initializer runs)."""
    try:
        return "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("moment", ["spawned", "importing"])
@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_while_match_workers_start_is_one_line(tmp_path, moment, sig, code,
                                                      word) -> None:
    """Ctrl-C at a terminal signals the whole foreground process group: the
    workers too, here just started or still importing heurtune (before their
    initializer ignores it), which printed a KeyboardInterrupt traceback each;
    a SIGTERM to the group killed them, and the broken pool's manager thread
    printed an InvalidStateError traceback."""
    (tmp_path / "iso.toml").write_text(SMALL_STUDY.replace("jobs = 1", "jobs = 3"))
    run = _Watched(["tune", "iso.toml", "--storage", "sqlite:///h.db"], tmp_path,
                   start_new_session=True)  # a group of its own, as a shell's job
    deadline = time.monotonic() + 300  # the driver compiles (or loads) the search first
    while not (started := _spawned_workers(run.proc.pid)) or (
            moment == "importing" and not any(_importing(pid) for pid in started)):
        assert run.proc.poll() is None and time.monotonic() < deadline, run.finish()
        time.sleep(0.01)
    sent = time.monotonic()
    os.killpg(run.proc.pid, sig)  # as the terminal does
    got, out, err = run.finish()
    took = time.monotonic() - sent
    lines = [line for line in err.splitlines() if not line.startswith("heurtune: compil")]
    assert got == code and "Traceback" not in err, err
    assert lines == [f"heurtune: {word} (a running trial is marked failed; finished trials "
                     "are stored; the same command resumes)"], err
    assert took < 2.5, f"{took:.1f} s after the signal"
    deadline = time.monotonic() + 5
    while alive := [pid for pid in started if _running(pid)]:  # none left behind
        assert time.monotonic() < deadline, f"workers {alive} outlive the command"
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_signals_held_take_effect_at_the_end_of_the_block() -> None:
    from heurtune.match.foreground import signals_held

    reached = False
    with pytest.raises(KeyboardInterrupt), signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, and holds it
        reached = True
    assert reached and signal.getsignal(signal.SIGINT) is signal.default_int_handler
