"""Opening an Optuna storage, with clear errors instead of SQLAlchemy tracebacks."""

from __future__ import annotations

import errno
import fcntl
import os
import shlex
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import optuna
from optuna.storages import (
    BaseStorage,
    RDBStorage,
    RetryHeartbeatStaleTrialCallback,
    _CachedStorage,
)
from optuna.trial import TrialState

from heurtune.errors import HeurtuneError
from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.study.batching import (
    DeferredTrialWrites,
    TrialWrites,
    flush_seconds_from_env,
    write_through_cache,
)
from heurtune.tuning.study.proxy import (
    DEFAULT_PROXY_HOST,
    DEFAULT_PROXY_PORT,
    GRPC_PREFIX,
    check_port,
    connect_proxy,
    run_proxy,
)

DEFAULT_STORAGE = "sqlite:///studies/heurtune.db"
# ``memory:NAME``: an in-process storage that lives as long as the process (the
# simulated-oracle benchmark and tests run thousands of trials in it)
MEMORY_PREFIX = "memory:"
_MEMORY: dict[str, optuna.storages.InMemoryStorage] = {}


# schemes people write that SQLAlchemy knows by another name
SCHEME_SPELLINGS = {"postgres": "postgresql", "sqlite3": "sqlite"}


def storage_text(url: str) -> str:
    """A storage URL as messages and hints show it: its password, if any, as ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    netloc, slash, path = rest.partition("/")
    userinfo, at, host = netloc.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}{slash}{path}"


def storage_option_text(url: str) -> str:
    """`` --storage URL`` for a command naming this storage (the password hidden,
    quoted for a shell), or nothing for the default storage."""
    return "" if url == DEFAULT_STORAGE else f" --storage {shlex.quote(storage_text(url))}"


def study_command(command: str, study_name: str, storage_url: str, *more: str) -> str:
    """The command line that runs ``heurtune COMMAND`` on this study in this
    storage, as hints print it: ``heurtune export NAME --storage URL ...``."""
    words = " ".join(("heurtune", command, shlex.quote(study_name)) + more)
    return words + storage_option_text(storage_url)


def check_storage_url(url: str) -> None:
    """Refuse, before any work, a storage URL that cannot be opened whatever the
    database says: one SQLAlchemy cannot parse, whose scheme it has no dialect
    for (``postgres://``: write ``postgresql://``) or whose driver is not
    installed. ``memory:NAME`` and ``grpc://HOST:PORT`` are heurtune's own."""
    if url.startswith((MEMORY_PREFIX, GRPC_PREFIX)):
        return
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    shown = storage_text(url)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise HeurtuneError(f"storage {shown!r} is not a database URL (e.g. "
                            "sqlite:///studies/heurtune.db, postgresql://USER@HOST/DB)"
                            ) from None
    try:
        dialect = parsed.get_dialect()
    except NoSuchModuleError:
        scheme = url.partition("://")[0]
        base = scheme.split("+")[0]
        right = SCHEME_SPELLINGS.get(base.lower())
        if right is not None:
            raise HeurtuneError(f"storage {shown!r}: write {right}{scheme[len(base):]}:// "
                                f"instead of {scheme}:// (SQLAlchemy has no database "
                                f"{base!r})") from None
        raise HeurtuneError(f"storage {shown!r}: SQLAlchemy has no database {scheme!r} "
                            "(sqlite:///FILE, postgresql://USER@HOST/DB, mysql://..., or "
                            "grpc://HOST:PORT for a storage proxy)") from None
    load = getattr(dialect, "import_dbapi", None) or getattr(dialect, "dbapi", None)  # (1.4)
    try:
        if callable(load):
            load()
    except ImportError as exc:
        raise HeurtuneError(f"storage {shown!r}: the database driver is missing ({exc})"
                            ) from None


def sqlite_path(url: str) -> Path | None:
    """The database file of a ``sqlite:///`` URL (None for other storages and memory)."""
    if not url.startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///"):]
    if not path or path == ":memory:":
        return None
    return Path(path)


def _seconds_from_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise HeurtuneError(f"{name} must be a whole number of seconds >= 1, got {raw!r}")
    return value


# racing workers creating Optuna's tables in a new database see these
_CREATION_RACES = ("already exists", "duplicate key", "UniqueViolation", "UNIQUE constraint",
                   "database is locked")


class _Storage(RDBStorage):
    """Optuna's RDB storage, which also counts as stale a running trial that never
    sent a heartbeat (its worker died between taking the trial and starting the
    heartbeat thread) once it started more than the grace period ago: Optuna
    would leave such a trial RUNNING forever. Its start time is the worker's
    clock, so this assumes the workers' clocks agree to within the grace period."""

    def _get_stale_trial_ids(self, study_id: int) -> list[int]:
        stale = list(super()._get_stale_trial_ids(study_id))
        grace = self.grace_period or 2 * (self.heartbeat_interval or 60)
        try:
            from optuna.storages._rdb import models
            from sqlalchemy import orm

            with self.scoped_session() as session:
                running = (session.query(models.TrialModel)
                           .options(orm.selectinload(models.TrialModel.heartbeats))
                           .filter(models.TrialModel.state == TrialState.RUNNING)
                           .filter(models.TrialModel.study_id == study_id).all())
                now = datetime.now()
                for trial in running:
                    if (not trial.heartbeats and trial.datetime_start is not None
                            and now - trial.datetime_start > timedelta(seconds=grace)
                            and trial.trial_id not in stale):
                        stale.append(int(trial.trial_id))
        except Exception:  # pragma: no cover - Optuna's internals moved: its own rule only
            pass
        return stale


class _SQLiteStorage(_Storage):
    """SQLite ignores ``SELECT ... FOR UPDATE``, so two processes could both take
    the same waiting trial (the baseline, a retry) and one would crash when the
    other finished it. A lock file beside the database serialises trial state
    changes between processes on this machine (SQLite's only use case)."""

    def __init__(self, url: str, lock_path: Path, **kwargs: Any) -> None:
        self._lock_path = lock_path
        super().__init__(url, **kwargs)

    def set_trial_state_values(self, trial_id: int, state: TrialState,
                               values: Sequence[float] | None = None) -> bool:
        with open(self._lock_path, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                return super().set_trial_state_values(trial_id, state, values)
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)


class _BatchedStorage(DeferredTrialWrites, _CachedStorage):
    """A ``tune`` worker's RDB storage: Optuna's cached storage (what Optuna puts
    in front of an RDB storage anyway), whose running trials' writes go out
    together, one transaction each time (heurtune.tuning.study.batching)."""

    def __init__(self, backend: RDBStorage, flush_seconds: float) -> None:
        _CachedStorage.__init__(self, backend)
        self.init_deferred(flush_seconds)

    def write_batch(self, trial_id: int, writes: TrialWrites) -> None:
        write_through_cache(self, trial_id, writes)


def open_storage(url: str, *, create: bool = True, batched: bool = False) -> BaseStorage:
    """An RDB storage with heartbeats (a crashed worker's trial is retried).

    Workers send a heartbeat every ``HEURTUNE_HEARTBEAT`` seconds (default 30);
    a running trial silent for ``HEURTUNE_GRACE`` seconds (default 120) is
    failed and retried by the next worker that starts or takes a trial. Workers
    that create the tables of a new database at the same moment retry instead
    of failing. With ``create=False`` (export, dashboard, trials) nothing is
    written: a missing SQLite file is an error rather than a new empty database,
    and Optuna's tables are not created. ``memory:NAME`` is a storage inside this
    process (nothing is kept when it ends), for experiments and tests.
    ``grpc://HOST:PORT`` is the database behind ``heurtune storage-proxy`` there
    (heurtune.tuning.study.proxy), with the same heartbeats; the proxy creates
    the tables. ``batched`` (a ``tune`` worker): a running trial's writes go out
    together, at most every ``HEURTUNE_FLUSH`` seconds and before its state
    changes (heurtune.tuning.study.batching).
    """
    if url.startswith("sqlite:") and url.removeprefix("sqlite:").strip("/") in ("", ":memory:"):
        raise HeurtuneError(f"storage {url!r} is a database in memory that vanishes when the "
                            "command ends: give a file, e.g. sqlite:///studies/heurtune.db")
    if url.startswith(MEMORY_PREFIX):
        if url not in _MEMORY:
            if not create:
                raise HeurtuneError(f"no storage at {url}: nothing was stored under that "
                                    "name in this process")
            _MEMORY[url] = optuna.storages.InMemoryStorage()
        return _MEMORY[url]
    check_storage_url(url)
    heartbeat = _seconds_from_env("HEURTUNE_HEARTBEAT", 30)
    grace = _seconds_from_env("HEURTUNE_GRACE", 120)
    if grace < 2 * heartbeat:  # else healthy trials between two heartbeats look dead
        raise HeurtuneError(f"HEURTUNE_GRACE ({grace} s) must be at least twice "
                            f"HEURTUNE_HEARTBEAT ({heartbeat} s)")
    flush = flush_seconds_from_env() if batched else 0.0
    if url.startswith(GRPC_PREFIX):
        return connect_proxy(url, heartbeat, flush)
    sqlite = sqlite_path(url)
    if sqlite is not None:
        if create:
            try:
                sqlite.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise HeurtuneError(f"cannot create the folder for {url}: {exc}") from None
        elif not sqlite.is_file():
            raise HeurtuneError(f"no storage at {url}{_default_note(url)}: {sqlite} does not "
                                "exist")
    engine_kwargs: dict[str, object] = {}
    if url.startswith("postgresql"):
        engine_kwargs["connect_args"] = {"connect_timeout": 5}
    elif sqlite is not None:  # writers queue for the file's lock instead of failing
        engine_kwargs["connect_args"] = {"timeout": 60}
    kind: type[_Storage] = _Storage
    extra: dict[str, Any] = {}
    if sqlite is not None:
        kind, extra = _SQLiteStorage, {"lock_path": Path(f"{sqlite}.lock")}
    for attempt in range(30):
        try:
            with experimental_ok():
                storage = kind(
                    url,
                    **extra,
                    engine_kwargs=engine_kwargs,
                    heartbeat_interval=heartbeat,
                    grace_period=grace,
                    heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback(max_retry=2),
                    skip_table_creation=not create,
                )
            return _BatchedStorage(storage, flush) if batched else storage
        except ImportError as exc:
            raise HeurtuneError(f"storage {storage_text(url)!r}: the database driver is "
                                f"missing ({exc})") from None
        except Exception as exc:  # SQLAlchemy's errors: bad URL, refused connection, ...
            if create and attempt < 29 and any(r in str(exc) for r in _CREATION_RACES):
                time.sleep(0.1 + 0.05 * attempt)  # another worker is creating the tables
                continue
            line = storage_failure(exc)
            if line is None:  # a bad URL
                line = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            raise HeurtuneError(f"cannot open storage {storage_text(url)!r}: "
                                f"{line.removeprefix('storage error: ')}") from None
    raise AssertionError("unreachable")  # pragma: no cover


def serve_proxy(url: str, *, host: str = DEFAULT_PROXY_HOST, port: int = DEFAULT_PROXY_PORT,
                ready: Callable[[str], None] | None = None) -> None:
    """Run Optuna's gRPC storage proxy in front of the database at ``url`` until
    interrupted (heurtune.tuning.study.proxy); ``ready`` is told ``HOST:PORT``
    once the database is open and the port free. The workers' grace period is
    the proxy's ``HEURTUNE_GRACE`` (each worker sends heartbeats at its own
    ``HEURTUNE_HEARTBEAT``)."""
    if url.startswith(GRPC_PREFIX):
        raise HeurtuneError(f"--storage {url!r} is a storage proxy: give the database the "
                            "proxy stands in front of, e.g. postgresql://HOST/DB")
    check_port(host, port)  # before a new database is created for nothing
    storage = open_storage(url, create=True)
    if not isinstance(storage, RDBStorage):
        raise HeurtuneError(f"--storage {url!r}: a storage proxy needs a database "
                            "(sqlite:///FILE, postgresql://HOST/DB, ...)")
    run_proxy(storage, host=host, port=port, ready=ready)


_DATABASE_MODULES = ("sqlalchemy", "sqlite3", "psycopg")
_DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)


def storage_failure(exc: BaseException) -> str | None:
    """A failure of the storage or the disk (a full disk, a refused or dropped
    connection, a locked database), from anywhere in ``exc``'s chain of causes,
    as one line naming the database's own message; None when the chain holds
    none (Optuna wraps the driver's error, sometimes twice: its own wording,
    "exceeding max length", guesses wrong, so the driver's is used)."""
    seen: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in seen:
        seen.append(e)
        e = e.__cause__ or e.__context__
    for e in reversed(seen):  # the deepest, the driver's own, first
        if isinstance(e, OSError) and e.errno in _DISK_ERRNOS:
            return f"cannot write: {e.strerror} ({e.filename or 'disk'})"
        if type(e).__module__.startswith("grpc") and callable(getattr(e, "details", None)):
            # the storage proxy (--storage grpc://): gone, or the database behind it failed
            details = str(e.details() or type(e).__name__).strip()  # type: ignore[attr-defined]
            first = details.splitlines()[0] if details else type(e).__name__
            return f"storage error: the storage proxy: {first}"
        if type(e).__module__.startswith(_DATABASE_MODULES):
            text = str(getattr(e, "orig", None) or e).strip()
            first = text.splitlines()[0] if text else type(e).__name__
            return f"storage error: {first}"
    if any(isinstance(e, optuna.exceptions.StorageInternalError) for e in seen):
        return "storage error: the database refused a write"
    return None


def study_names(storage: BaseStorage) -> list[str]:
    try:
        return sorted(s.study_name for s in storage.get_all_studies())
    except Exception:  # no Optuna tables (a storage opened with create=False)
        return []


def _default_note(url: str) -> str:
    """Said after the default storage's URL: a study tuned in another storage is
    read from there."""
    return (" (the default storage; give the --storage the study was tuned with)"
            if url == DEFAULT_STORAGE else "")


def _url_of(storage: BaseStorage) -> str | None:
    """The URL of an opened database storage (None: not known here)."""
    for candidate in (storage, getattr(storage, "_backend", None)):
        url = getattr(candidate, "url", None)
        if isinstance(url, str):
            return url
    return None


def load_study(storage: BaseStorage, name: str, url: str | None = None) -> optuna.Study:
    """An existing study; an unknown name lists the known ones and names the
    storage (``url``, else the opened database's own; its password hidden)."""
    names = study_names(storage)
    if name not in names:
        known = ", ".join(names) if names else "none"
        where = url if url is not None else _url_of(storage)
        shown = storage_text(where) + _default_note(where) if where is not None else "this storage"
        raise HeurtuneError(f"no study named {name!r} in {shown} (studies: {known})")
    return optuna.load_study(study_name=name, storage=storage)
