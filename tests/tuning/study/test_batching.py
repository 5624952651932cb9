"""A ``tune`` worker's storage sends a running trial's writes together
(heurtune.tuning.study.batching): one database transaction for what Optuna
writes in one each, on the database and behind ``heurtune storage-proxy``;
nothing lost or changed (the stored trial equals the one written one by one);
reads in the same process see what is kept; other processes see it at the
latest after ``HEURTUNE_FLUSH`` seconds or when the trial ends."""

from __future__ import annotations

import contextlib
import math
import socket
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import optuna
import pytest
from optuna.storages import RDBStorage, _CachedStorage
from optuna.trial import FrozenTrial, TrialState
from sqlalchemy import event

from heurtune.tuning.study import flush_trial, open_storage
from heurtune.tuning.study.batching import BATCH_ATTR, DeferredTrialWrites, TrialWrites
from heurtune.tuning.study.proxy import _ServedStorage, connect_proxy
from tests.helpers import cli

PARAMS = ("a", "b", "c", "d")
REPORTS = 8
ATTRS = 14
WRITES = len(PARAMS) + REPORTS + ATTRS


def backend_of(storage: Any) -> RDBStorage:
    return storage._backend if isinstance(storage, _CachedStorage) else storage


@contextlib.contextmanager
def transactions(storage: RDBStorage) -> Iterator[list[int]]:
    """The transactions on ``storage``'s database in the block that wrote
    something (an INSERT, UPDATE or DELETE): one count."""
    seen: list[int] = [0]
    wrote: dict[int, bool] = {}  # by connection (the heartbeat thread has its own)

    def begun(conn: Any) -> None:
        wrote[id(conn)] = False

    def statement(conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            wrote[id(conn)] = True

    def committed(conn: Any) -> None:
        seen[0] += wrote.pop(id(conn), False)

    hooks = (("begin", begun), ("before_cursor_execute", statement), ("commit", committed))
    for name, hook in hooks:
        event.listen(storage.engine, name, hook)
    try:
        yield seen
    finally:
        for name, hook in hooks:
            event.remove(storage.engine, name, hook)


def objective(trial: optuna.Trial, *, prune: bool = False) -> float:
    """A trial as heurtune's: weights drawn and stored, a report per pair, the
    match statistics as user attributes."""
    for name in PARAMS:
        trial.suggest_float(name, 0.0, 1.0)
    flush_trial(trial)
    for step in range(1, REPORTS + 1):
        trial.report(step / 10, step=step)
    for i in range(ATTRS):
        trial.set_user_attr(f"stat{i}", {"i": i, "values": [i, i + 0.5]})
    if prune:
        raise optuna.TrialPruned()
    return 0.25


def played(storage: Any, name: str, prune: bool = False) -> tuple[FrozenTrial, int]:
    """One trial of a new study on ``storage`` and the transactions its run took."""
    study = optuna.create_study(study_name=name, storage=storage,
                                sampler=optuna.samplers.RandomSampler(seed=1))
    with transactions(backend_of(storage)) as seen:
        study.optimize(lambda t: objective(t, prune=prune), n_trials=1)
    return study.get_trials(deepcopy=False)[0], seen[0]


def stored(url: str, name: str) -> FrozenTrial:
    """The trial as the database has it, read by a storage of its own."""
    return optuna.load_study(study_name=name, storage=url).get_trials(deepcopy=False)[0]


def same_trial(a: FrozenTrial, b: FrozenTrial) -> None:
    assert (a.state, a.values, a.params, a.intermediate_values, a.user_attrs) == (
        b.state, b.values, b.params, b.intermediate_values, b.user_attrs)


def test_a_trials_writes_are_two_transactions_and_nothing_else_changes(tmp_path,
                                                                       monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'b.db'}"
    monkeypatch.setenv("HEURTUNE_FLUSH", "0")  # every write at once: Optuna's way
    one_by_one, before = played(open_storage(url, batched=True), "one")
    monkeypatch.delenv("HEURTUNE_FLUSH")
    batched = open_storage(url, batched=True)
    assert isinstance(batched, DeferredTrialWrites) and batched.flush_seconds == 5.0
    together, after = played(batched, "together")
    # the parameters once drawn, the rest when the trial ends: two instead of 26
    assert before - after == WRITES - 2, (before, after)
    same_trial(one_by_one, together)
    same_trial(stored(url, "one"), stored(url, "together"))
    assert stored(url, "together").intermediate_values == {s: s / 10
                                                           for s in range(1, REPORTS + 1)}


def test_a_pruned_trial_keeps_its_last_report_as_its_value(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    trial, _ = played(open_storage(url, batched=True), "p", prune=True)
    assert trial.state == TrialState.PRUNED and trial.values == [REPORTS / 10]
    assert stored(url, "p").values == [REPORTS / 10]


def test_kept_writes_are_seen_here_and_stored_when_due(tmp_path, monkeypatch) -> None:
    """The flush is due by the storage's clock (``time.monotonic`` in the batching
    module), here a clock the test moves: kept up to a hair before ``flush_seconds``
    after the last flush, sent by the first write at ``flush_seconds``, however
    slowly the machine runs the trial meanwhile."""
    from heurtune.tuning.study import batching

    clock = [1000.0]
    monkeypatch.setattr(batching, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    url = f"sqlite:///{tmp_path / 'r.db'}"
    storage = open_storage(url, batched=True)
    assert isinstance(storage, DeferredTrialWrites)
    storage.flush_seconds = 0.25  # (binary fractions: the clock's sums are exact)
    other = RDBStorage(url)  # another process's view
    study = optuna.create_study(study_name="r", storage=storage)
    seen: dict[str, Any] = {}

    def watch(trial: optuna.Trial) -> float:
        trial.suggest_float("a", 0.0, 1.0)
        flush_trial(trial)  # the last flush: at 1000.0
        theirs = other.get_trial(trial._trial_id)
        seen["params stored"] = theirs.params == trial.params
        trial.report(0.5, step=1)
        clock[0] = 1000.249  # not yet due
        trial.set_user_attr("x", 1)
        mine = storage.get_trial(trial._trial_id)
        listed = [t for t in study.get_trials(deepcopy=False) if t.number == trial.number][0]
        seen["here"] = (mine.intermediate_values, mine.user_attrs, listed.intermediate_values)
        seen["there before"] = other.get_trial(trial._trial_id).intermediate_values
        clock[0] = 1000.25  # flush_seconds after the last flush
        trial.report(0.6, step=2)  # the first write past flush_seconds sends all
        seen["there after"] = other.get_trial(trial._trial_id).intermediate_values
        seen["attrs after"] = other.get_trial(trial._trial_id).user_attrs
        return 1.0

    study.optimize(watch, n_trials=1)
    assert seen["params stored"]
    assert seen["here"] == ({1: 0.5}, {"x": 1}, {1: 0.5})
    assert seen["there before"] == {}
    assert seen["there after"] == {1: 0.5, 2: 0.6}
    assert seen["attrs after"] == {"x": 1}


def test_a_row_written_meanwhile_falls_back_to_writes_one_by_one(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'i.db'}"
    storage = open_storage(url, batched=True)
    other = RDBStorage(url)
    study = optuna.create_study(study_name="i", storage=storage)

    def clash(trial: optuna.Trial) -> float:
        trial.report(0.9, step=3)
        trial.set_user_attr("kept", True)
        other.set_trial_intermediate_value(trial._trial_id, 3, 0.1)  # the same step, first
        return 1.0

    study.optimize(clash, n_trials=1)
    trial = stored(url, "i")
    assert trial.intermediate_values == {3: 0.9} and trial.user_attrs == {"kept": True}


def test_a_batch_round_trips_and_a_malformed_one_is_refused() -> None:
    writes = TrialWrites(params={"a": (0.5, optuna.distributions.FloatDistribution(0, 1))},
                         intermediate={2: math.nan, 3: math.inf}, user_attrs={"k": [1, 2]})
    import json

    back = TrialWrites.from_dict(json.loads(json.dumps(writes.to_dict())))
    assert back.params == writes.params and back.user_attrs == writes.user_attrs
    assert math.isnan(back.intermediate[2]) and back.intermediate[3] == math.inf
    with pytest.raises(ValueError, match="malformed batch"):
        TrialWrites.from_dict({"params": [["a", 0.5]], "intermediate": [], "user_attrs": {}})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(backend: RDBStorage, heurtunes: bool) -> Iterator[str]:
    """A gRPC proxy in this process in front of ``backend``: heurtune's, or
    Optuna's own (its cached storage, as Optuna's documentation asks)."""
    from optuna.storages._grpc.server import make_server

    port = _free_port()
    server = make_server(_ServedStorage(backend) if heurtunes else _CachedStorage(backend),
                         "127.0.0.1", port)
    server.start()
    try:
        yield f"grpc://127.0.0.1:{port}"
    finally:
        server.stop(None)


def test_behind_a_proxy_a_batch_is_one_call_where_the_proxy_takes_it(tmp_path) -> None:
    """Behind heurtune's proxy a batch is one call and one transaction; behind
    Optuna's own proxy server the writes go one by one; both store the same."""
    seen: dict[bool, int] = {}
    for heurtunes in (True, False):
        url = f"sqlite:///{tmp_path / f'g{heurtunes}.db'}"
        backend = open_storage(url)
        assert isinstance(backend, RDBStorage)
        with served(backend, heurtunes) as address:
            client = connect_proxy(address, heartbeat_interval=30, flush_seconds=5.0)
            assert client.batches is heurtunes
            try:
                study = optuna.create_study(study_name="g", storage=client,
                                            sampler=optuna.samplers.RandomSampler(seed=1))
                with transactions(backend) as count:
                    study.optimize(objective, n_trials=1)
                seen[heurtunes] = count[0]
            finally:
                client.close()
        trial = stored(url, "g")
        assert trial.state == TrialState.COMPLETE and len(trial.params) == len(PARAMS)
        assert len(trial.intermediate_values) == REPORTS and len(trial.user_attrs) == ATTRS
        assert BATCH_ATTR not in trial.system_attrs
    # two batches instead of 26 calls (the trial's creation, heartbeat and end alike)
    assert seen[False] - seen[True] == WRITES - 2, seen


@pytest.mark.parametrize("value", ["-1", "soon", "inf"])
def test_a_bad_flush_setting_is_one_line(tmp_path, capsys, monkeypatch, value) -> None:
    study = Path(__file__).resolve().parents[3] / "studies" / "quick" / "morris.toml"
    monkeypatch.setenv("HEURTUNE_FLUSH", value)
    code, _, err = cli(capsys, "tune", str(study), "--storage",
                       f"sqlite:///{tmp_path / 'f.db'}")
    assert code == 2 and err.count("\n") == 1
    assert "HEURTUNE_FLUSH must be a number of seconds >= 0" in err
    assert not (tmp_path / "f.db").exists()
