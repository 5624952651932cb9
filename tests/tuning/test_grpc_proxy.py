"""``--storage grpc://HOST:PORT``: workers behind ``heurtune storage-proxy``.

A real proxy process on a free loopback port in front of a new SQLite file or
a new PostgreSQL database (which must be up: its test fails, never skips),
studies tuned through it, the trials read back from the database itself;
heartbeats and stale trials carried through it; an unreachable proxy as one
error line. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tests.helpers import cli

PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=test"

STUDY = """
[study]
name = "g"
game = "isolation"
opponent = "isolation:mm_improved"
trials = {trials}
pairs = 1
seed = 3
jobs = 1
opening_plies = 2

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

[pruner]
kind = "none"
"""


def study_file(tmp_path: Path, trials: int = 4) -> str:
    path = tmp_path / f"g{trials}.toml"
    path.write_text(STUDY.format(trials=trials))
    return str(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _read_line(proc: subprocess.Popen, seconds: float) -> str:
    """The proxy's first line of output, or what it said on stderr when it died."""
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    if not line or not line[0]:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"the proxy did not start in {seconds} s: {err[-2000:]}")
    return line[0]


@contextlib.contextmanager
def proxy(storage: str, port: int | None = None,
          env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """``heurtune storage-proxy`` in front of ``storage``: its grpc:// URL and process,
    stopped (SIGTERM) at the end of the block."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "heurtune", "storage-proxy", "--storage", storage,
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})})
    try:
        line = _read_line(proc, 60)
        assert f"listening on 127.0.0.1:{port}" in line, line
        yield f"grpc://127.0.0.1:{port}", proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()


def finished(trials: list[optuna.trial.FrozenTrial]) -> list[optuna.trial.FrozenTrial]:
    return [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]


def test_a_study_tuned_through_the_proxy_lands_in_the_database(tmp_path, capsys) -> None:
    db = f"sqlite:///{tmp_path / 'p.db'}"
    sf = study_file(tmp_path)
    with proxy(db) as (url, _):
        code, out, err = cli(capsys, "tune", sf, "--storage", url)
        assert code == 0, err
        assert f"study 'g' in {url}: 4 finished trials" in out
        code, out, err = cli(capsys, "trials", "g", "--storage", url)  # read through it
        assert code == 0 and "COMPLETE" in out, err
        code, _, err = cli(capsys, "tune", sf, "--storage", url)  # resumed: nothing to do
        assert code == 0, err
    trials = optuna.load_study(study_name="g", storage=db).get_trials(deepcopy=False)
    assert len(finished(trials)) == 4 and len(trials) == 4
    assert [t.number for t in trials if t.user_attrs.get("baseline")] == [0]
    # heartbeats went to the database's own table, never into the trials' attributes
    assert not any("heurtune:heartbeat" in t.system_attrs for t in trials)


@pytest.mark.postgres
def test_workers_through_the_proxy_on_a_new_postgres_database(tmp_path) -> None:
    import psycopg

    name = f"heurtune_proxy_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    db = f"postgresql://postgres@127.0.0.1:5432/{name}"
    try:
        sf = study_file(tmp_path, trials=6)
        with proxy(db) as (url, _):
            procs = [subprocess.Popen([sys.executable, "-m", "heurtune", "tune", sf,
                                       "--storage", url],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for _ in range(2)]
            for p in procs:
                _, err = p.communicate(timeout=600)  # a guard: a first run compiles
                assert p.returncode == 0, err[-3000:]
                assert "Traceback" not in err
        trials = optuna.load_study(study_name="g", storage=db).get_trials(deepcopy=False)
        done = finished(trials)
        assert len(done) == 6  # exactly the target
        sets = [tuple(sorted(t.params.items())) for t in done]
        assert len(set(sets)) == len(sets)
        stray = [t for t in trials if t.state == TrialState.FAIL
                 and not t.user_attrs.get("surplus")]
        assert not stray
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _started_an_hour_earlier(db: Path, *trial_ids: int) -> None:
    """Move the trials' start an hour back in the database, as if the hour had passed."""
    import datetime as dt
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        for trial_id in trial_ids:
            (start,) = conn.execute("SELECT datetime_start FROM trials WHERE trial_id = ?",
                                    (trial_id,)).fetchone()
            earlier = dt.datetime.fromisoformat(start) - dt.timedelta(hours=1)
            conn.execute("UPDATE trials SET datetime_start = ? WHERE trial_id = ?",
                         (earlier.isoformat(sep=" ", timespec="microseconds"), trial_id))


@pytest.mark.filterwarnings("ignore:Heartbeat of storage is supposed")  # study.ask(): on purpose
def test_stale_trials_are_failed_and_retried_through_the_proxy(tmp_path, monkeypatch) -> None:
    """A running trial with no heartbeat for the proxy's grace period is stale (the
    proxy's clock); one whose worker sends heartbeats through the proxy is not.
    Both trials' starts are moved an hour back once the heartbeat has landed, rather
    than waited out: a grace period of seconds would also fail a healthy trial on a
    machine too loaded to send its heartbeat in time."""
    from optuna.storages._heartbeat import HeartbeatThread

    from heurtune.tuning import open_storage
    from heurtune.tuning._experimental import experimental_ok

    env = {"HEURTUNE_HEARTBEAT": "1", "HEURTUNE_GRACE": "600"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    db = tmp_path / "h.db"
    with proxy(f"sqlite:///{db}", env=env) as (url, _):
        storage = open_storage(url)
        study = optuna.create_study(study_name="h", storage=storage)
        silent = study.ask()  # RUNNING, no heartbeat ever
        alive = study.ask()
        with HeartbeatThread(alive._trial_id, storage):  # type: ignore[arg-type]
            assert storage._get_stale_trial_ids(study._study_id) == []
            deadline = time.monotonic() + 120  # a guard against a hang, nothing more
            while not _heartbeats(db, alive._trial_id):  # through the proxy, into the table
                assert time.monotonic() < deadline, "no heartbeat reached the database"
                time.sleep(0.05)
            _started_an_hour_earlier(db, silent._trial_id, alive._trial_id)
            # (the proxy looks the stale trials up anew at most every second)
            while not (stale := storage._get_stale_trial_ids(study._study_id)):
                assert time.monotonic() < deadline, "no trial became stale"
                time.sleep(0.05)
            assert stale == [silent._trial_id]
            with experimental_ok():
                optuna.storages.fail_stale_trials(study)
        trials = study.get_trials(deepcopy=False)
        assert trials[silent.number].state == TrialState.FAIL
        assert trials[alive.number].state == TrialState.RUNNING
        retries = [t for t in trials if t.system_attrs.get("failed_trial") == silent.number]
        assert len(retries) == 1 and retries[0].state == TrialState.WAITING
        assert not any("heurtune:stale_trial_ids" in s.system_attrs
                       for s in storage.get_all_studies())  # computed, never stored


def _heartbeats(db: Path, trial_id: int) -> int:
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM trial_heartbeats WHERE trial_id = ?",
                                (trial_id,)).fetchone()[0])


@pytest.mark.parametrize("url,says", [
    ("grpc://127.0.0.1:{port}", "no storage proxy answers at 127.0.0.1:{port} within 0.5 s"),
    ("grpc://127.0.0.1:notaport", "a storage proxy is grpc://HOST:PORT"),
    ("grpc://127.0.0.1:13000/db", "a storage proxy is grpc://HOST:PORT"),
])
def test_an_unreachable_or_bad_proxy_is_one_line(tmp_path, capsys, monkeypatch, url,
                                                 says) -> None:
    from heurtune.tuning.study import proxy as proxy_module

    monkeypatch.setattr(proxy_module, "PROXY_TIMEOUT", 0.5)
    port = free_port()  # nothing listens there
    for argv in (("tune", study_file(tmp_path)), ("trials", "g"), ("export", "g")):
        code, _, err = cli(capsys, *argv, "--storage", url.format(port=port))
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith("heurtune: error: ") and says.format(port=port) in err, err


@pytest.mark.slow
def test_a_proxy_that_dies_under_a_worker_is_one_line(tmp_path) -> None:
    db = f"sqlite:///{tmp_path / 'd.db'}"
    sf = study_file(tmp_path, trials=400)
    with proxy(db) as (url, proc):
        worker = subprocess.Popen([sys.executable, "-m", "heurtune", "tune", sf,
                                   "--storage", url],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 240  # a loaded machine starts a worker slowly
        while True:  # until the worker has finished a trial
            assert time.monotonic() < deadline, "the worker finished no trial in 240 s"
            assert worker.poll() is None, worker.communicate()[1][-3000:]
            with contextlib.suppress(Exception):
                if finished(optuna.load_study(study_name="g", storage=db).get_trials()):
                    break
            time.sleep(0.1)
        proc.kill()
        proc.communicate()
        _, err = worker.communicate(timeout=60)
    assert worker.returncode == 2, err[-3000:]
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if x.startswith("heurtune: error:")]
    assert len(lines) == 1 and "the storage proxy" in lines[0], err[-3000:]


@pytest.mark.slow
def test_confirm_report_export_and_the_dashboard_work_through_the_proxy(tmp_path,
                                                                        capsys) -> None:
    """Every command that reads or writes a study does so through the proxy: the
    confirmation lands in the database, the report and the export are written,
    and optuna-dashboard shows the study's trials with their learning curves."""
    import json
    import urllib.request

    db = f"sqlite:///{tmp_path / 'c.db'}"
    sf = study_file(tmp_path)
    with proxy(db) as (url, _):
        assert cli(capsys, "tune", sf, "--storage", url)[0] == 0
        code, out, err = cli(capsys, "confirm", "g", "--storage", url, "--top", "2",
                             "--pairs", "4", "--check-pairs", "4", "--jobs", "1")
        assert code == 0, err
        code, _, err = cli(capsys, "report", "g", "--storage", url,
                           "--out", str(tmp_path / "g.html"))
        assert code == 0 and (tmp_path / "g.html").stat().st_size > 10_000, err
        code, _, err = cli(capsys, "export", "g", "--storage", url, "--force",
                           "--out", str(tmp_path / "g.toml"))
        assert code == 0 and (tmp_path / "g.toml").is_file(), err
        port = free_port()
        board = subprocess.Popen([sys.executable, "-m", "heurtune", "dashboard", "--storage",
                                  url, "--port", str(port)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            shown = None
            while shown is None and time.monotonic() < deadline:
                try:
                    base = f"http://127.0.0.1:{port}/api/studies"
                    with urllib.request.urlopen(base, timeout=2) as r:
                        study_id = json.loads(r.read())["study_summaries"][0]["study_id"]
                    with urllib.request.urlopen(f"{base}/{study_id}?after=0", timeout=5) as r:
                        shown = json.loads(r.read())
                except OSError:
                    assert board.poll() is None, board.stderr.read() if board.stderr else ""
                    time.sleep(0.3)
        finally:
            board.terminate()
            board.wait(timeout=10)
        assert shown is not None, "the dashboard never answered through the proxy"
        assert len(shown["trials"]) == 4
        assert all(t["intermediate_values"] for t in shown["trials"])  # the learning curves
    study = optuna.load_study(study_name="g", storage=db)
    assert "confirmation" in study.user_attrs  # stored through the proxy


@pytest.mark.slow  # over ~20 s: left out of the quick run
def test_a_killed_worker_behind_the_proxy_is_retried(tmp_path) -> None:
    """A worker killed outright (its process group, SIGKILL) while playing a trial
    behind the proxy: the next worker fails the trial once its heartbeats have
    stopped for the proxy's grace period, and plays its retry with the same
    weights, even though the target is otherwise reached."""
    from tests.tuning.study.test_workers import finish, worker
    from tests.tuning.study.test_workers import study_file as slow_study

    db = f"sqlite:///{tmp_path / 'k.db'}"
    # trials of several seconds to kill in: at depth 7 a trial took about 1.5 s on a
    # fast 2-core machine and once finished before the poll below saw its weights
    # (depth 10: about 6 s there)
    sf = slow_study(tmp_path, pairs=300, depth=10)
    env = {"HEURTUNE_HEARTBEAT": "1", "HEURTUNE_GRACE": "3"}
    with proxy(db, env=env) as (url, _):
        code, _, err = finish(worker(sf, url, "--trials", "1", env=env))
        assert code == 0, err
        victim = worker(sf, url, "--trials", "2", env=env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until trial 1 has stored its weights
            assert victim.poll() is None, victim.stderr.read() if victim.stderr else ""
            with contextlib.suppress(Exception):
                trials = optuna.load_study(study_name="w", storage=db).get_trials(deepcopy=False)
                if len(trials) > 1 and trials[1].params:
                    break
            time.sleep(0.05)
        os.killpg(victim.pid, signal.SIGKILL)
        victim.communicate(timeout=30)
        time.sleep(4)  # past the grace period
        code, _, err = finish(worker(sf, url, "--trials", "1", env=env))
        assert code == 0, err
    trials = optuna.load_study(study_name="w", storage=db).get_trials(deepcopy=False)
    assert trials[1].state == TrialState.FAIL
    retries = [t for t in trials if t.system_attrs.get("failed_trial") == 1]
    assert len(retries) == 1 and retries[0].state == TrialState.COMPLETE
    assert retries[0].params == trials[1].params and trials[1].params
