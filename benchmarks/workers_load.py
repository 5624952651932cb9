"""Many workers on one study: throughput, errors, lost and duplicated trials.

    python benchmarks/workers_load.py [--workers 8] [--trials 200] [--storage sqlite|postgres]
                                      [--proxy] [--games isolation|oracle] [--pairs-per-trial N]
                                      [--json]

Starts ``--workers`` worker processes at the same moment on a new study in a
new storage (a new SQLite file, or a new PostgreSQL database on 127.0.0.1:5432,
dropped afterwards), each trial a short match (the storage is what is
measured), and reports trials per second (from the start of the processes, and
between the first and the last finished trial: the rate once all run), workers
that failed, error lines, finished trials against the target (lost = missing,
``exact``: finished == target), duplicated parameter sets and how often the
baseline ran. Both studies use TPE with heurtune's per-trial seeds, under which
two trials never draw the same parameters, so a duplicate is a trial that ran
twice (the default ``duels`` sampler replays its answer in held-out duels on
purpose, which would count here).

``--games isolation`` (default): ``heurtune tune`` processes, each trial a
one-pair Isolation match at depth 2. ``--games oracle``: the simulated oracle's
instant games (heurtune.match.oracle: no game is played, every pair drawn from
a known Elo function), so that the storage, not the games, is the bottleneck;
each worker is this script in ``--worker`` mode, which runs heurtune's own
``tune`` with the oracle's runner (8 pairs per trial unless
``--pairs-per-trial``; the default pruner). ``--proxy``: the workers
use ``--storage grpc://127.0.0.1:PORT``, a ``heurtune storage-proxy`` started in
front of the new database.

On PostgreSQL it also reports the database's side: the most connections to the
benchmark's database seen at once (pg_stat_activity, polled every 0.2 s), the
CPU seconds of its backend processes (utime + stime from /proc of the backends
seen in those polls: a backend's last 0.2 s before it exits may be missed, so
this is a lower bound), and transactions per finished trial (the difference of
pg_stat_database's xact_commit + xact_rollback over the run: every storage call
that reaches the database is one transaction, so this counts the round trips
that reach it; the poller's own queries run in another database). With
``--proxy`` also the proxy's CPU seconds. Everything runs on loopback, bounded
by ``--timeout`` seconds.

``--match`` instead measures the parallel efficiency of a 300-pair match with
``--jobs 2``, ``--tune`` that of a study whose trials play 300 pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=test"

STUDY = """
[study]
name = "load"
game = "isolation"
opponent = "isolation:mm_improved"
trials = {trials}
pairs = 1
seed = 11
jobs = 1
opening_plies = 2
sampler = "tpe"

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

[pruner]
kind = "none"
"""

# the simulated oracle's stand-in game and its fishtest case: instant games
ORACLE_STUDY = """
[study]
name = "load"
game = "oracle"
opponent = "oracle:fishtest"
trials = {trials}
pairs = {pairs}
seed = 11
jobs = 1
sampler = "tpe"

[engine]
heuristic = "fishtest"
"""


def oracle_worker(study_file: str, url: str) -> int:
    """One worker of ``--games oracle``: heurtune's ``tune`` with the oracle's
    runner (every worker the same runner seed, so a trial's result does not
    depend on which worker played it); errors as ``heurtune tune`` says them."""
    from heurtune.errors import HeurtuneError
    from heurtune.match.oracle import OracleRunner, oracle_game
    from heurtune.tuning import tune
    from heurtune.tuning.studyfile import load_study_file

    try:
        with oracle_game():
            tune(load_study_file(study_file), storage_url=url, runner=OracleRunner(seed=0))
    except HeurtuneError as exc:
        print(f"heurtune: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process of this machine (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class DatabaseWatch:
    """Polls pg_stat_activity for one database every 0.2 s (from another
    database, so that the polls do not count in its statistics): the most
    connections seen, and the CPU seconds of its backends (the last reading of
    each backend seen)."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.max_connections = 0
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def counters(self) -> tuple[int, int]:
        """(xact_commit, xact_rollback) of the database so far."""
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute("SELECT pg_stat_clear_snapshot()")
            row = conn.execute("SELECT xact_commit, xact_rollback FROM pg_stat_database "
                               "WHERE datname = %s", (self.db,)).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def _poll(self) -> None:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            while not self._stop.is_set():
                conn.execute("SELECT pg_stat_clear_snapshot()")
                pids = [int(r[0]) for r in conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.db,))]
                self.max_connections = max(self.max_connections, len(pids))
                for pid in pids:
                    cpu = _cpu_seconds(pid)
                    if cpu is not None:
                        self.cpu[pid] = cpu
                self._stop.wait(0.2)

    def __enter__(self) -> DatabaseWatch:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_proxy(url: str) -> tuple[subprocess.Popen[str], str]:
    """``heurtune storage-proxy`` in front of ``url`` on a free loopback port:
    the process and the workers' grpc:// URL, once it listens."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "heurtune", "storage-proxy", "--storage", url,
                             "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if "listening on" not in line:
        proc.kill()
        raise SystemExit(f"the storage proxy did not start: {proc.communicate()[1][-2000:]}")
    return proc, f"grpc://127.0.0.1:{port}"


def run_workers(url: str, workers: int, trials: int, folder: Path, *, games: str = "isolation",
                proxy: bool = False, pairs: int = 8, timeout: float = 3600,
                watch: DatabaseWatch | None = None) -> dict[str, Any]:
    import optuna
    from optuna.trial import TrialState

    sf = folder / "load.toml"
    if games == "oracle":
        sf.write_text(ORACLE_STUDY.format(trials=trials, pairs=pairs))
        command = [sys.executable, __file__, "--worker", str(sf)]
    else:
        sf.write_text(STUDY.format(trials=trials))
        command = [sys.executable, "-m", "heurtune", "tune", str(sf), "--storage"]
    server, worker_url = start_proxy(url) if proxy else (None, url)
    before = watch.counters() if watch else (0, 0)
    t0 = time.perf_counter()
    procs = [subprocess.Popen([*command, worker_url], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
             for _ in range(workers)]
    outs: list[tuple[str, str]] = []
    for p in procs:
        try:
            outs.append(p.communicate(timeout=max(1.0, timeout - (time.perf_counter() - t0))))
        except subprocess.TimeoutExpired:  # bounded: the rest is killed and counted
            os.killpg(p.pid, signal.SIGKILL)
            outs.append(p.communicate())
    seconds = time.perf_counter() - t0
    proxy_cpu = None
    if server is not None:
        proxy_cpu = _cpu_seconds(server.pid)
        server.send_signal(signal.SIGTERM)
        outs.append(("", server.communicate(timeout=60)[1]))
    errors = [line for _, err in outs for line in err.splitlines()
              if "error" in line.lower() or "Traceback" in line]
    after = before
    if watch is not None:
        time.sleep(1.5)  # PostgreSQL publishes its statistics at most every second
        after = watch.counters()
    study = optuna.load_study(study_name="load", storage=url)
    ts = study.get_trials(deepcopy=False)
    done = [t for t in ts if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    sets = [tuple(sorted(t.params.items())) for t in done]
    ends = sorted(t.datetime_complete for t in done if t.datetime_complete is not None)
    span = (ends[-1] - ends[0]).total_seconds() if len(ends) > 1 else 0.0
    out: dict[str, Any] = {
        "workers": workers, "games": games, "pairs_per_trial": pairs if games == "oracle" else 1,
        "storage": url.split(":", 1)[0] + (" via proxy" if proxy else ""),
        "target": trials, "seconds": round(seconds, 1),
        "trials_per_second": round(len(done) / seconds, 2),
        "trials_per_second_running": round((len(ends) - 1) / span, 2) if span > 0 else None,
        "failed_workers": sum(1 for p in procs if p.returncode != 0),
        "error_lines": len(errors), "finished": len(done), "lost": max(0, trials - len(done)),
        "exact": len(done) == trials,
        "duplicated_parameter_sets": len(sets) - len(set(sets)),
        "duplicated_trials": [[t.number for t in done if tuple(sorted(t.params.items())) == s]
                              for s in sorted(set(sets), key=str) if sets.count(s) > 1][:5],
        "baseline_runs": sum(1 for t in ts if t.user_attrs.get("baseline")),
        "surplus_trials": sum(1 for t in ts if t.user_attrs.get("surplus")),
        "other_failed_trials": sum(1 for t in ts if t.state == TrialState.FAIL
                                   and not t.user_attrs.get("surplus")),
        "first_errors": errors[:3],
    }
    if watch is not None:
        commits, rollbacks = after[0] - before[0], after[1] - before[1]
        out.update({
            "db_max_connections": watch.max_connections,
            "db_cpu_seconds": round(sum(watch.cpu.values()), 2),
            "db_transactions_per_trial": round((commits + rollbacks) / max(1, len(done)), 1),
            "db_commits_per_trial": round(commits / max(1, len(done)), 1),
            "db_cpu_ms_per_trial": round(1000 * sum(watch.cpu.values()) / max(1, len(done)), 1),
        })
    if proxy_cpu is not None:
        out["proxy_cpu_seconds"] = round(proxy_cpu, 2)
    return out


def match_efficiency(pairs: int, seed: int, game: str = "isolation:ab_improved") -> dict[str, object]:
    """Wall time of one match with 1 and 2 persistent worker processes (already
    started and warm, as in a tuning study, which reuses them for every trial)."""
    from heurtune.engine.config import preset
    from heurtune.match.runner import MatchRunner, MatchSpec

    engine = preset(game)
    times = {}
    for jobs in (1, 2):
        with MatchRunner(jobs) as runner:
            runner.run(MatchSpec(engine, engine, pairs=4 * jobs, seed=seed + 1))  # warm
            t0 = time.perf_counter()
            runner.run(MatchSpec(engine, engine, pairs=pairs, seed=seed))
            times[jobs] = time.perf_counter() - t0
    return {"match": f"{game} self-play", "pairs": pairs,
            "seconds_jobs_1": round(times[1], 2), "seconds_jobs_2": round(times[2], 2),
            "efficiency": round(times[1] / (2 * times[2]), 3)}


TUNE_STUDY = """
[study]
name = "eff"
game = "isolation"
opponent = "isolation:ab_improved"
trials = 4
pairs = {pairs}
seed = 5
jobs = 1
opening_plies = 2

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
nodes = 4000

[pruner]
kind = "none"
"""


def tune_efficiency(pairs: int, folder: Path) -> dict[str, object]:
    """Seconds per trial of a 4-trial study with 1 and 2 match workers, timed from
    the end of its first trial (the workers are then started and warm) to the end
    of its last."""
    from heurtune.tuning import tune
    from heurtune.tuning.studyfile import load_study_file

    path = folder / "eff.toml"
    path.write_text(TUNE_STUDY.format(pairs=pairs))
    sf = load_study_file(path)
    per_trial = {}
    for jobs in (1, 2):
        ends: list[float] = []
        tune(sf, storage_url=f"sqlite:///{folder / f'eff{jobs}.db'}", jobs=jobs,
             on_trial=lambda _t: ends.append(time.perf_counter()))  # noqa: B023 (called within this iteration)
        per_trial[jobs] = (ends[-1] - ends[0]) / (len(ends) - 1)
    return {"study": f"isolation weighted vs ab_improved, {pairs} pairs per trial",
            "seconds_per_trial_jobs_1": round(per_trial[1], 2),
            "seconds_per_trial_jobs_2": round(per_trial[2], 2),
            "efficiency": round(per_trial[1] / (2 * per_trial[2]), 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--storage", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--proxy", action="store_true",
                    help="workers use grpc://, a heurtune storage-proxy in front of the storage")
    ap.add_argument("--games", choices=["isolation", "oracle"], default="isolation",
                    help="tiny real Isolation games, or the simulated oracle's instant ones")
    ap.add_argument("--pairs-per-trial", type=int, default=8, help="--games oracle: pairs")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds before the workers still running are killed")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--worker", nargs=2, metavar=("STUDY_FILE", "URL"), help=argparse.SUPPRESS)
    ap.add_argument("--match", action="store_true", help="measure match --jobs 2 efficiency")
    ap.add_argument("--tune", action="store_true", help="measure tune --jobs 2 efficiency")
    ap.add_argument("--pairs", type=int, default=300)
    args = ap.parse_args()
    if args.worker:
        return oracle_worker(*args.worker)
    if args.tune:
        with tempfile.TemporaryDirectory() as tmp:
            print(tune_efficiency(args.pairs, Path(tmp)))
        return 0
    if args.match:
        for game in ("isolation:ab_improved", "morris:ab", "gomoku:ab"):
            print(match_efficiency(args.pairs, 7, game), flush=True)
        return 0
    def show(result: dict[str, Any]) -> None:
        print(json.dumps(result) if args.json else result, flush=True)

    options = {"games": args.games, "proxy": args.proxy, "pairs": args.pairs_per_trial,
               "timeout": args.timeout}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.storage == "sqlite":
            show(run_workers(f"sqlite:///{folder / 'load.db'}", args.workers, args.trials,
                             folder, **options))
            return 0
        import psycopg

        db = f"heurtune_load_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {db}")
        try:
            url = f"postgresql://postgres@127.0.0.1:5432/{db}"
            with DatabaseWatch(db) as watch:
                show(run_workers(url, args.workers, args.trials, folder, watch=watch, **options))
        finally:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
    return 0

if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
