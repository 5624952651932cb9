"""Optuna's gRPC storage proxy: many workers, one database connection pool.

``heurtune storage-proxy --storage DATABASE_URL`` (:func:`run_proxy`) runs
Optuna's proxy server (the one ``optuna.storages.run_grpc_proxy_server`` runs) in front of
the database, and a worker given ``--storage grpc://HOST:PORT`` talks to it
through :class:`ProxyStorage`, Optuna's ``GrpcStorageProxy``. The workers then
hold no database connection: the proxy holds a few, and its in-process cache
of trials (Optuna's ``_CachedStorage``) answers the reads.

Optuna's proxy protocol carries no heartbeats, so a worker killed behind it
would leave its trial running forever (and, since running trials count
towards the target, the study would never end). heurtune carries them on two
calls the protocol has, understood by heurtune's proxy only:

* a worker's heartbeat is a trial system attribute ``heurtune:heartbeat``,
  which the proxy records as the database's heartbeat (Optuna's own table; the
  attribute is never stored);
* the study's system attributes, read through the proxy, carry the ids of its
  stale trials under ``heurtune:stale_trial_ids`` (computed by the proxy from
  the database, never stored), which the worker fails and retries as on a
  database (``optuna.storages.fail_stale_trials``).

A ``tune`` worker's batch of trial writes (heurtune.tuning.study.batching) is
likewise one trial system attribute, ``heurtune:batch``, which the proxy stores
as the parameters, intermediate values and user attributes it holds, in one
transaction. A worker asks at its start whether the proxy is heurtune's (the id
of the study ``heurtune:storage-proxy``); behind Optuna's own server it sends
the writes one by one.

Both clocks involved (a trial's start, its last heartbeat) are the proxy's.
Behind Optuna's own proxy server heurtune's workers still run, without the
detection of dead workers.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import optuna
from optuna.storages import (
    GrpcStorageProxy,
    RDBStorage,
    RetryHeartbeatStaleTrialCallback,
    _CachedStorage,
)
from optuna.storages._grpc.server import make_server
from optuna.storages._heartbeat import BaseHeartbeat, is_heartbeat_enabled
from optuna.trial import FrozenTrial

from heurtune.errors import HeurtuneError
from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.study.batching import (
    BATCH_ATTR,
    DeferredTrialWrites,
    TrialWrites,
    write_through_cache,
)

GRPC_PREFIX = "grpc://"
DEFAULT_PROXY_HOST = "127.0.0.1"  # loopback: the proxy has no authentication
DEFAULT_PROXY_PORT = 13000  # Optuna's
PROXY_TIMEOUT = 5.0  # seconds a worker waits for the proxy to answer at its start

HEARTBEAT_ATTR = "heurtune:heartbeat"
STALE_ATTR = "heurtune:stale_trial_ids"
# a worker asks for this study's id: heurtune's proxy answers BATCH_PROTOCOL, Optuna's
# own says there is none
PROBE_NAME = "heurtune:storage-proxy"
BATCH_PROTOCOL = 1
STALE_SECONDS = 1.0  # how long the proxy reuses a study's stale trials once looked up


def proxy_address(url: str) -> tuple[str, int]:
    """Host and port of a ``grpc://HOST[:PORT]`` URL (port 13000 unless given)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (parts.scheme != "grpc" or not parts.hostname or port == -1 or parts.path.strip("/")
            or parts.query or parts.username is not None):
        raise HeurtuneError(f"storage {url!r}: a storage proxy is grpc://HOST:PORT, "
                            "e.g. grpc://127.0.0.1:13000")
    return parts.hostname, DEFAULT_PROXY_PORT if port is None else port


class ProxyStorage(DeferredTrialWrites, GrpcStorageProxy, BaseHeartbeat):
    """A worker's storage behind ``heurtune storage-proxy``: Optuna's gRPC client,
    with heartbeats and stale trials carried as the module docstring says, and
    a ``tune`` worker's trial writes sent together (``flush_seconds``,
    heurtune.tuning.study.batching), one call each time where the proxy is
    heurtune's (:attr:`batches`)."""

    def __init__(self, *, host: str, port: int, heartbeat_interval: int,
                 flush_seconds: float = 0.0) -> None:
        self._heartbeat_interval = heartbeat_interval
        self.batches = False  # whether the proxy takes a batch in one call (connect_proxy asks)
        self.init_deferred(flush_seconds)
        with experimental_ok():
            GrpcStorageProxy.__init__(self, host=host, port=port)

    def write_batch(self, trial_id: int, writes: TrialWrites) -> None:
        if self.batches:
            GrpcStorageProxy.set_trial_system_attr(self, trial_id, BATCH_ATTR, writes.to_dict())
            return
        for name, (value, dist) in writes.params.items():  # Optuna's own proxy server
            GrpcStorageProxy.set_trial_param(self, trial_id, name, value, dist)
        for step, inter in writes.intermediate.items():
            GrpcStorageProxy.set_trial_intermediate_value(self, trial_id, step, inter)
        for key, attr in writes.user_attrs.items():
            GrpcStorageProxy.set_trial_user_attr(self, trial_id, key, attr)

    def ask_batches(self) -> None:
        """Whether the proxy is heurtune's and takes batches (one round trip)."""
        try:
            self.batches = self.get_study_id_from_name(PROBE_NAME) >= BATCH_PROTOCOL
        except KeyError:  # Optuna's own proxy server: no such study
            self.batches = False

    def record_heartbeat(self, trial_id: int) -> None:
        """Send one heartbeat. Optuna's heartbeat thread calls it; a proxy gone
        away is not its to report (the worker's own next storage call says it
        in one line), so a failure is dropped here rather than printed by the
        thread as a traceback."""
        try:
            self.set_trial_system_attr(trial_id, HEARTBEAT_ATTR, True)
        except Exception:  # noqa: BLE001 (grpc's errors, a closed channel: all the same here)
            return

    def _get_stale_trial_ids(self, study_id: int) -> list[int]:
        return [int(i) for i in self.get_study_system_attrs(study_id).get(STALE_ATTR, [])]

    def get_heartbeat_interval(self) -> int | None:
        return self._heartbeat_interval

    def get_heartbeat_stale_trial_callback(
            self) -> Callable[[optuna.Study, FrozenTrial], None] | None:
        with experimental_ok():
            return RetryHeartbeatStaleTrialCallback(max_retry=2)


def connect_proxy(url: str, heartbeat_interval: int, flush_seconds: float = 0.0) -> ProxyStorage:
    """The storage behind the proxy at ``url``, once the proxy answers (an error
    line after :data:`PROXY_TIMEOUT` seconds when none does)."""
    host, port = proxy_address(url)
    try:
        storage = ProxyStorage(host=host, port=port, heartbeat_interval=heartbeat_interval,
                               flush_seconds=flush_seconds)
        storage.wait_server_ready(timeout=PROXY_TIMEOUT)
        storage.ask_batches()
    except ImportError as exc:
        raise HeurtuneError(f"storage {url!r}: gRPC is missing ({exc}; pip install grpcio "
                            "protobuf)") from None
    except ConnectionError:
        storage.close()
        raise HeurtuneError(
            f"cannot open storage {url!r}: no storage proxy answers at {host}:{port} within "
            f"{PROXY_TIMEOUT:g} s (start one there: heurtune storage-proxy --storage "
            "DATABASE_URL)") from None
    return storage


class _ServedStorage(_CachedStorage):
    """The proxy's side: Optuna's cached RDB storage (what Optuna's proxy
    documentation asks for), which also records the workers' heartbeats and
    tells them the study's stale trials, and stores a worker's batch of trial
    writes in one transaction."""

    def __init__(self, backend: RDBStorage) -> None:
        super().__init__(backend)
        self._stale: dict[int, tuple[float, list[int]]] = {}  # study id -> (when, ids)

    def set_trial_system_attr(self, trial_id: int, key: str, value: Any) -> None:
        if key == HEARTBEAT_ATTR:
            self._backend.record_heartbeat(trial_id)
            return
        if key == BATCH_ATTR:
            write_through_cache(self, trial_id, TrialWrites.from_dict(value))
            return
        super().set_trial_system_attr(trial_id, key, value)

    def get_study_id_from_name(self, study_name: str) -> int:
        if study_name == PROBE_NAME:  # a worker asks whether batches are understood
            return BATCH_PROTOCOL
        return super().get_study_id_from_name(study_name)

    def get_study_system_attrs(self, study_id: int) -> dict[str, Any]:
        attrs = super().get_study_system_attrs(study_id)
        if is_heartbeat_enabled(self._backend):
            attrs = {**attrs, STALE_ATTR: self._stale_trial_ids(study_id)}
        return attrs

    def _stale_trial_ids(self, study_id: int) -> list[int]:
        """The study's stale trials, looked up at most every :data:`STALE_SECONDS`
        (every worker's note reads the study's system attributes; staleness is
        counted in the grace period's tens of seconds)."""
        now = time.monotonic()
        known = self._stale.get(study_id)
        if known is None or now - known[0] >= STALE_SECONDS:
            known = (now, list(self._backend._get_stale_trial_ids(study_id)))
            self._stale[study_id] = known
        return known[1]


def check_port(host: str, port: int) -> None:
    """Fail in one line when the proxy could not listen there (gRPC would share a
    port already in use: it binds with SO_REUSEPORT)."""
    if not 0 < port < 65536:
        raise HeurtuneError(f"--port must be in [1, 65535], got {port}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise HeurtuneError(f"--host {host!r}: {exc.strerror}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise HeurtuneError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def run_proxy(storage: RDBStorage, *, host: str, port: int,
              ready: Callable[[str], None] | None = None) -> None:
    """Optuna's gRPC proxy server in front of ``storage`` until interrupted;
    ``ready`` is told ``HOST:PORT`` once the server has started. The server is
    Optuna's (``optuna.storages.run_grpc_proxy_server`` builds the same one with
    ``make_server``), started here so that "listening" is said only once it listens
    and so that it is stopped whatever ends the wait: a Ctrl-C sent on the word used
    to land in gRPC's lazy import, after which CPython, its flag for an unhandled
    KeyboardInterrupt set, killed the process by the signal once heurtune had said
    "interrupted" (exit status -2, not 130; seen once in CI, 1 time in 8 with the
    signal 5 ms after the word), and one between starting and waiting could leave the
    server's threads running."""
    check_port(host, port)
    served = _ServedStorage(storage)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    server: Any = None
    try:
        try:
            server = make_server(served, host, port)  # gRPC is imported here
            server.start()
        except RuntimeError as exc:  # gRPC could not bind after all
            raise HeurtuneError(f"cannot listen on {host}:{port}: {exc}") from None
        if ready is not None:
            ready(f"{host}:{port}")
        server.wait_for_termination()
    finally:
        if server is not None:
            server.stop(None)
