"""Fewer storage round trips per trial: a running trial's writes, sent together.

A heurtune trial writes its parameters (one write each), its running score
after every pair (one intermediate value per pair) and its match statistics
(about fifteen user attributes). On Optuna's RDB storage each write is a
transaction of its own: about 50 per trial of 8 pairs, which is what many
workers on one database pay for (docs/scale.md). The storage of a ``tune``
worker (:func:`heurtune.tuning.study.open_storage` with ``batched=True``)
keeps these writes of its running trials and sends them together, in one
database transaction (one gRPC call behind ``heurtune storage-proxy``):

* before the trial's state changes (completed, pruned, failed), so a finished
  trial holds every value it reported, as before;
* when the objective asks (:func:`flush_trial`): right after a trial draws its
  parameters, so that the retry of a trial whose worker died plays the same
  weights, and other workers' samplers see them;
* at the first write at least ``flush_seconds`` after the trial's last flush
  (``HEURTUNE_FLUSH``, default 5 s), so the dashboard's learning curve of a
  running trial is at most that late; ``HEURTUNE_FLUSH=0`` writes every value
  as it comes (one transaction each, as Optuna does).

Reads of a trial in the same process (the pruner, Optuna's ``tell``, which
takes a pruned trial's value from its last report) see the kept writes. Other
processes see a running trial's reports up to ``flush_seconds`` late; none of
heurtune's or Optuna's pruners compares with other workers' running trials
(they compare with completed ones). A worker killed outright loses at most the
last ``flush_seconds`` of its running trial's reports, and that trial is
failed and retried anyway.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    distribution_to_json,
    json_to_distribution,
)
from optuna.storages import BaseStorage, RDBStorage, _CachedStorage
from optuna.trial import FrozenTrial, TrialState

from heurtune.errors import HeurtuneError

DEFAULT_FLUSH_SECONDS = 5.0
BATCH_ATTR = "heurtune:batch"  # a batch sent through heurtune's storage proxy (never stored)


def flush_seconds_from_env() -> float:
    """``HEURTUNE_FLUSH``: the most seconds a running trial's reports wait
    (default 5; 0: every write at once)."""
    raw = os.environ.get("HEURTUNE_FLUSH", "")
    if not raw:
        return DEFAULT_FLUSH_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise HeurtuneError(f"HEURTUNE_FLUSH must be a number of seconds >= 0, got {raw!r}")
    return value


@dataclass
class TrialWrites:
    """The writes of one trial not yet sent: parameters (internal value and
    distribution, by name), intermediate values (by step), user attributes."""

    params: dict[str, tuple[float, BaseDistribution]] = field(default_factory=dict)
    intermediate: dict[int, float] = field(default_factory=dict)
    user_attrs: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.params or self.intermediate or self.user_attrs)

    def applied(self, trial: FrozenTrial) -> FrozenTrial:
        """A copy of ``trial`` as it is once these writes are stored."""
        if not self:
            return trial
        seen = copy.copy(trial)
        seen.distributions = {**trial.distributions,
                              **{name: dist for name, (_, dist) in self.params.items()}}
        seen.params = {**trial.params, **{name: dist.to_external_repr(value)
                                          for name, (value, dist) in self.params.items()}}
        seen.intermediate_values = {**trial.intermediate_values, **self.intermediate}
        seen.user_attrs = {**trial.user_attrs, **self.user_attrs}
        return seen

    def to_dict(self) -> dict[str, Any]:
        """The batch as JSON-ready data (heurtune's storage proxy carries it)."""
        return {"params": [[n, v, distribution_to_json(d)] for n, (v, d) in self.params.items()],
                "intermediate": [[s, v] for s, v in self.intermediate.items()],
                "user_attrs": self.user_attrs}

    @classmethod
    def from_dict(cls, raw: Any) -> TrialWrites:
        """The batch :meth:`to_dict` wrote (a malformed one is a ValueError)."""
        try:
            return cls(params={str(n): (float(v), json_to_distribution(d))
                               for n, v, d in raw["params"]},
                       intermediate={int(s): float(v) for s, v in raw["intermediate"]},
                       user_attrs=dict(raw["user_attrs"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a malformed batch of trial writes: {exc}") from None


def write_rdb(storage: RDBStorage, trial_id: int, writes: TrialWrites,
              known: Mapping[str, BaseDistribution] | None = None) -> None:
    """Store ``writes`` in one transaction of Optuna's RDB ``storage`` (``known``:
    the study's parameter distributions already checked, as Optuna's
    ``_CachedStorage`` keeps them). Should a row be there already (another
    process wrote it meanwhile), the writes are made one by one instead, as
    Optuna makes them; so they are too where Optuna's internals have moved."""
    known = known or {}
    try:
        from optuna.storages._rdb import models
        from optuna.storages._rdb.storage import _create_scoped_session
        from sqlalchemy.exc import IntegrityError

        put_param = storage._set_trial_param_without_commit
        put_value = storage._set_trial_intermediate_value_without_commit
        put_attr = storage._set_trial_attr_without_commit
    except (ImportError, AttributeError):  # pragma: no cover - Optuna's internals moved
        _write_one_by_one(storage, trial_id, writes, known)
        return
    try:
        with _create_scoped_session(storage.scoped_session) as session:
            for name, (value, dist) in writes.params.items():
                put_param(session, trial_id, name, value, dist, known.get(name))
            for step, inter in writes.intermediate.items():
                put_value(session, trial_id, step, inter)
            for key, attr in writes.user_attrs.items():
                put_attr(session, models.TrialUserAttributeModel, trial_id, key, attr)
    except IntegrityError:
        _write_one_by_one(storage, trial_id, writes, known)


def _write_one_by_one(storage: RDBStorage, trial_id: int, writes: TrialWrites,
                      known: Mapping[str, BaseDistribution]) -> None:
    for name, (value, dist) in writes.params.items():
        storage._set_trial_param(trial_id, name, value, dist, known.get(name))
    for step, inter in writes.intermediate.items():
        storage.set_trial_intermediate_value(trial_id, step, inter)
    for key, attr in writes.user_attrs.items():
        storage.set_trial_user_attr(trial_id, key, attr)


def write_through_cache(cached: _CachedStorage, trial_id: int, writes: TrialWrites) -> None:
    """Store ``writes`` through Optuna's cached RDB storage in one transaction,
    with its cache of the study's distributions (as its ``set_trial_param``)."""
    backend = cached._backend
    with cached._lock:
        where = cached._trial_id_to_study_id_and_number.get(trial_id)
        known = cached._studies[where[0]].param_distribution if where is not None else {}
        write_rdb(backend, trial_id, writes, known)
        for name, (_, dist) in writes.params.items():
            known.setdefault(name, dist)


class DeferredTrialWrites(BaseStorage):
    """A storage that keeps its running trials' parameters, intermediate values
    and user attributes and sends them together (the module docstring says when).

    A subclass puts it first among its bases, before the storage it extends, and
    says how one batch is stored in :meth:`write_batch` (one transaction where it
    can); :meth:`init_deferred` sets it up."""

    _pending: dict[int, TrialWrites]
    _last_flush: dict[int, float]
    _deferred_lock: threading.Lock
    flush_seconds: float

    def init_deferred(self, flush_seconds: float) -> None:
        self._pending = {}
        self._last_flush = {}
        self._deferred_lock = threading.Lock()
        self.flush_seconds = flush_seconds

    def write_batch(self, trial_id: int, writes: TrialWrites) -> None:
        """Store ``writes`` of trial ``trial_id`` (one transaction where possible)."""
        raise NotImplementedError

    def flush(self, trial_id: int) -> None:
        """Send what trial ``trial_id`` has kept, now."""
        with self._deferred_lock:
            writes = self._pending.pop(trial_id, None)
            self._last_flush[trial_id] = time.monotonic()
            if writes:
                self.write_batch(trial_id, writes)

    def _defer(self, trial_id: int, put: Callable[[TrialWrites], None]) -> None:
        """Keep one write (``put`` adds it); send the trial's writes when due."""
        now = time.monotonic()
        with self._deferred_lock:
            last = self._last_flush.setdefault(trial_id, now)  # the clock starts at a first write
            put(self._pending.setdefault(trial_id, TrialWrites()))
            due = now - last >= self.flush_seconds
        if due:
            self.flush(trial_id)

    def set_trial_param(self, trial_id: int, param_name: str, param_value_internal: float,
                        distribution: BaseDistribution) -> None:
        self._defer(trial_id, lambda w: w.params.__setitem__(
            param_name, (param_value_internal, distribution)))

    def set_trial_intermediate_value(self, trial_id: int, step: int,
                                     intermediate_value: float) -> None:
        self._defer(trial_id, lambda w: w.intermediate.__setitem__(step, intermediate_value))

    def set_trial_user_attr(self, trial_id: int, key: str, value: Any) -> None:
        json.dumps(value)  # a value the storage could not take fails here, as it would have
        self._defer(trial_id, lambda w: w.user_attrs.__setitem__(key, value))

    def set_trial_state_values(self, trial_id: int, state: TrialState,
                               values: Any = None) -> bool:
        self.flush(trial_id)
        with self._deferred_lock:
            self._last_flush.pop(trial_id, None)
        # (super(): the concrete storage this mixin precedes, never BaseStorage itself)
        return bool(super().set_trial_state_values(trial_id, state, values))  # type: ignore[safe-super]

    def get_trial(self, trial_id: int) -> FrozenTrial:
        trial = super().get_trial(trial_id)  # type: ignore[safe-super]
        with self._deferred_lock:
            writes = self._pending.get(trial_id)
            return writes.applied(trial) if writes else trial

    def get_all_trials(self, study_id: int, deepcopy: bool = True,
                       states: Container[TrialState] | None = None) -> list[FrozenTrial]:
        trials = super().get_all_trials(  # type: ignore[safe-super]
            study_id, deepcopy=deepcopy, states=states)
        with self._deferred_lock:
            if not self._pending:
                return trials
            return [self._pending[t._trial_id].applied(t) if t._trial_id in self._pending
                    else t for t in trials]


def flush_trial(trial: optuna.Trial) -> None:
    """Store what ``trial`` has written so far now (its parameters, once drawn),
    when its storage defers writes; nothing otherwise."""
    storage = trial.study._storage
    if isinstance(storage, DeferredTrialWrites):
        storage.flush(trial._trial_id)
