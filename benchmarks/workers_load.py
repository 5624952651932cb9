"""Many workers on one study: throughput, errors, lost and duplicated trials.

    python benchmarks/workers_load.py [--workers 8] [--trials 200] [--storage sqlite|postgres]

Starts ``--workers`` ``heurtune tune`` processes at the same moment on a new
study in a new storage (a new SQLite file, or a new PostgreSQL database on
127.0.0.1:5432), each trial a one-pair Isolation match (short on purpose: the
storage is what is measured), and reports trials per second, workers that
failed, error lines, finished trials against the target (lost = missing),
duplicated parameter sets and how often the baseline ran. ``--match`` instead
measures the parallel efficiency of a 300-pair match with ``--jobs 2``, ``--tune``
that of a study whose trials play 300 pairs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

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

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

[pruner]
kind = "none"
"""


def run_workers(url: str, workers: int, trials: int, folder: Path) -> dict[str, object]:
    import optuna
    from optuna.trial import TrialState

    sf = folder / "load.toml"
    sf.write_text(STUDY.format(trials=trials))
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "heurtune", "tune", str(sf), "--storage", url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(workers)]
    outs = [p.communicate(timeout=3600) for p in procs]
    seconds = time.perf_counter() - t0
    errors = [line for _, err in outs for line in err.splitlines()
              if "error" in line.lower() or "Traceback" in line]
    study = optuna.load_study(study_name="load", storage=url)
    ts = study.get_trials(deepcopy=False)
    done = [t for t in ts if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    sets = [tuple(sorted(t.params.items())) for t in done]
    return {
        "workers": workers, "target": trials, "seconds": round(seconds, 1),
        "trials_per_second": round(len(done) / seconds, 2),
        "failed_workers": sum(1 for p in procs if p.returncode != 0),
        "error_lines": len(errors), "finished": len(done), "lost": max(0, trials - len(done)),
        "duplicated_parameter_sets": len(sets) - len(set(sets)),
        "baseline_runs": sum(1 for t in ts if t.user_attrs.get("baseline")),
        "surplus_trials": sum(1 for t in ts if t.user_attrs.get("surplus")),
        "other_failed_trials": sum(1 for t in ts if t.state == TrialState.FAIL
                                   and not t.user_attrs.get("surplus")),
        "first_errors": errors[:3],
    }


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
    ap.add_argument("--match", action="store_true", help="measure match --jobs 2 efficiency")
    ap.add_argument("--tune", action="store_true", help="measure tune --jobs 2 efficiency")
    ap.add_argument("--pairs", type=int, default=300)
    args = ap.parse_args()
    if args.tune:
        with tempfile.TemporaryDirectory() as tmp:
            print(tune_efficiency(args.pairs, Path(tmp)))
        return 0
    if args.match:
        for game in ("isolation:ab_improved", "morris:ab", "gomoku:ab"):
            print(match_efficiency(args.pairs, 7, game), flush=True)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.storage == "sqlite":
            print(run_workers(f"sqlite:///{folder / 'load.db'}", args.workers, args.trials, folder))
            return 0
        import psycopg

        db = f"heurtune_load_{uuid.uuid4().hex[:8]}"
        admin = "host=127.0.0.1 port=5432 user=postgres dbname=test"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {db}")
        try:
            url = f"postgresql://postgres@127.0.0.1:5432/{db}"
            print(run_workers(url, args.workers, args.trials, folder))
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
