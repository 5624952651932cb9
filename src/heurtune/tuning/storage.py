"""Opening an Optuna storage, with clear errors instead of SQLAlchemy tracebacks."""

from __future__ import annotations

from pathlib import Path

import optuna
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback

from heurtune.errors import HeurtuneError
from heurtune.tuning import experimental_ok

DEFAULT_STORAGE = "sqlite:///studies/heurtune.db"


def _sqlite_path(url: str) -> Path | None:
    if not url.startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///"):]
    if not path or path == ":memory:":
        return None
    return Path(path)


def open_storage(url: str, *, create: bool = True) -> RDBStorage:
    """An RDB storage with heartbeats (a crashed worker's trial is retried).

    With ``create=False`` (export, dashboard) nothing is written: a missing
    SQLite file is an error rather than a new empty database, and Optuna's
    tables are not created.
    """
    sqlite = _sqlite_path(url)
    if sqlite is not None:
        if create:
            try:
                sqlite.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise HeurtuneError(f"cannot create the folder for {url}: {exc}") from None
        elif not sqlite.is_file():
            raise HeurtuneError(f"no storage at {url}: {sqlite} does not exist")
    engine_kwargs: dict[str, object] = {}
    if url.startswith("postgresql"):
        engine_kwargs["connect_args"] = {"connect_timeout": 5}
    try:
        with experimental_ok():
            return RDBStorage(
                url,
                engine_kwargs=engine_kwargs,
                heartbeat_interval=30,
                grace_period=120,
                heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback(max_retry=2),
                skip_table_creation=not create,
            )
    except ImportError as exc:
        raise HeurtuneError(f"storage {url!r}: the database driver is missing ({exc})") from None
    except Exception as exc:  # SQLAlchemy's errors: bad URL, refused connection, ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise HeurtuneError(f"cannot open storage {url!r}: {first}") from None


def study_names(storage: RDBStorage) -> list[str]:
    try:
        return sorted(s.study_name for s in storage.get_all_studies())
    except Exception:  # no Optuna tables (a storage opened with create=False)
        return []


def load_study(storage: RDBStorage, name: str) -> optuna.Study:
    """An existing study; an unknown name lists the known ones."""
    names = study_names(storage)
    if name not in names:
        known = ", ".join(names) if names else "none"
        raise HeurtuneError(f"no study named {name!r} in this storage (studies: {known})")
    return optuna.load_study(study_name=name, storage=storage)
