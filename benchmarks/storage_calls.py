"""Where a trial's storage transactions go: one worker, counted by storage call.

    python benchmarks/storage_calls.py [--trials 40] [--pairs 8] [--json]

Runs heurtune's ``tune`` (one worker, the simulated oracle's instant games, TPE,
the default checkpoint pruner) twice on a new SQLite file each: with
``HEURTUNE_FLUSH=0`` (every write of a running trial its own transaction, as
Optuna makes them) and with the default (a running trial's writes sent together:
heurtune.tuning.study.batching). Every database transaction begun is counted
(SQLAlchemy's ``begin`` event) and put down to the outermost method of Optuna's
RDB storage that was running in that thread (a trial's writes: to what they
carried), so the table says which storage calls cost how many transactions per
finished trial. One process, no
concurrency: the counts are exact and reproduce.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workers_load import ORACLE_STUDY as STUDY  # noqa: E402 (the same oracle study)


class Counter:
    """Transactions by the outermost RDB storage method running in their thread."""

    def __init__(self) -> None:
        self.by_method: collections.Counter[str] = collections.Counter()
        self._where = threading.local()

    def install(self) -> None:
        from optuna.storages import RDBStorage
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        for name, raw in list(vars(RDBStorage).items()):
            if (name.startswith("__") or not callable(raw)
                    or isinstance(raw, (staticmethod, classmethod, type))):
                continue
            setattr(RDBStorage, name, self._wrap(raw, name))
        event.listen(Engine, "begin", self._begun)
        from heurtune.tuning.study import batching

        write = batching.write_rdb

        def written(storage: Any, trial_id: int, writes: Any, *rest: Any) -> None:
            kinds = [kind for kind, part in (("parameters", writes.params),
                                             ("intermediate values", writes.intermediate),
                                             ("user attributes", writes.user_attrs)) if part]
            self._where.name = "writes: " + " + ".join(kinds)
            try:
                write(storage, trial_id, writes, *rest)
            finally:
                self._where.name = None

        batching.write_rdb = written  # what heurtune's batched storage calls

    def _wrap(self, method: Any, name: str) -> Any:
        @functools.wraps(method)
        def counted(storage: Any, *args: Any, **kwargs: Any) -> Any:
            outer = getattr(self._where, "name", None)
            if outer is None:
                self._where.name = name
            try:
                return method(storage, *args, **kwargs)
            finally:
                self._where.name = outer
        return counted

    def _begun(self, _conn: Any) -> None:
        self.by_method[getattr(self._where, "name", None) or "(other)"] += 1


def run(trials: int, pairs: int, flush: str | None, counter: Counter,
        notes: bool = False) -> dict[str, float]:
    """One study of ``trials`` trials; transactions per trial by storage method
    (``notes``: with the dashboard notes that ``heurtune tune`` writes)."""
    from heurtune.match.oracle import OracleRunner, oracle_game
    from heurtune.tuning import Dashboard, tune
    from heurtune.tuning.studyfile import load_study_file

    if flush is None:
        os.environ.pop("HEURTUNE_FLUSH", None)
    else:
        os.environ["HEURTUNE_FLUSH"] = flush
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calls.toml"
        path.write_text(STUDY.format(trials=trials, pairs=pairs))
        counter.by_method.clear()
        with oracle_game():
            tune(load_study_file(path), storage_url=f"sqlite:///{folder}/calls.db",
                 runner=OracleRunner(seed=0), observer=Dashboard(None) if notes else None)
    found = {name: round(n / trials, 2) for name, n in counter.by_method.most_common()}
    found["total"] = round(sum(counter.by_method.values()) / trials, 2)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--notes", action="store_true",
                    help="with the dashboard notes `heurtune tune` writes (no artifacts)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    counter = Counter()
    counter.install()
    result = {"trials": args.trials, "pairs": args.pairs,
              "one_by_one": run(args.trials, args.pairs, "0", counter, args.notes),
              "batched": run(args.trials, args.pairs, None, counter, args.notes)}
    if args.json:
        print(json.dumps(result))
        return 0
    names = list(dict.fromkeys([*result["one_by_one"], *result["batched"]]))
    names.remove("total")
    print(f"transactions per trial ({args.trials} trials of {args.pairs} pairs, one worker, "
          "SQLite), by the storage call that began them")
    print(f"{'storage call':<48} {'one by one':>10} {'batched':>10}")
    for name in [*names, "total"]:
        print(f"{name:<48} {result['one_by_one'].get(name, 0):>10.2f} "
              f"{result['batched'].get(name, 0):>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
