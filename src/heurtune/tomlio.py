"""TOML reading and writing, and atomic file writes, with errors that name the file."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from heurtune.errors import HeurtuneError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse a TOML file; a missing or malformed file is a :class:`HeurtuneError`."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)  # Any to mypy where tomli is absent
            return data
    except FileNotFoundError:
        raise HeurtuneError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise HeurtuneError(f"{p}: is a directory, not a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise HeurtuneError(f"{p}: malformed TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HeurtuneError(f"{p}: cannot read: {exc}") from None


def read_text(path: str | os.PathLike[str], label: str | None = None,
              kind: str = "file", encoding: str = "utf-8") -> str:
    """A text file's contents; a missing, unreadable or undecodable file, or a
    folder, is a :class:`HeurtuneError` that starts with ``label`` (the path by
    default) and calls the file a ``kind``."""
    p = Path(path)
    where = label if label is not None else str(p)
    try:
        return p.read_text(encoding=encoding)
    except FileNotFoundError:
        raise HeurtuneError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise HeurtuneError(f"{where}: is a directory, not a {kind}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HeurtuneError(f"{where}: cannot read: {exc}") from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _nearest_existing(p: Path) -> Path:
    """``p``'s nearest existing ancestor, which must be a writable folder."""
    existing = p.absolute().parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise HeurtuneError(f"{p}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise HeurtuneError(f"{p}: {existing} is not writable")
    return existing


def check_writable(path: str | os.PathLike[str]) -> Path:
    """``path`` can be written as a file (checked before any work that would be
    lost if it could not); a :class:`HeurtuneError` otherwise."""
    p = Path(path)
    if p.is_dir():
        raise HeurtuneError(f"{p}: is a directory, not a file")
    _nearest_existing(p)
    if p.exists() and not os.access(p, os.W_OK):
        raise HeurtuneError(f"{p}: not writable")
    return p


def check_folder_writable(path: str | os.PathLike[str]) -> Path:
    """``path`` is a writable folder or can be made one (nothing is created); a
    :class:`HeurtuneError` otherwise."""
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise HeurtuneError(f"{p}: not a folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise HeurtuneError(f"{p}: not writable")
        return p
    _nearest_existing(p)
    return p


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file beside
    it and a rename: a crash never leaves a half-written file, and a failure none
    at all."""
    p = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    except OSError as exc:
        raise HeurtuneError(f"cannot write {p}: {exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 is for the temporary name only
        os.replace(tmp, p)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):  # a full disk, a file system gone read-only
            raise HeurtuneError(f"cannot write {p}: {exc}") from None
        raise


def toml_text(data: Mapping[str, Any], header: str = "") -> str:
    """``data`` as TOML, after ``header`` (comment lines)."""
    return header + tomli_w.dumps(dict(data))


def write_toml(path: str | os.PathLike[str], data: Mapping[str, Any], header: str = "") -> None:
    """Write ``data`` atomically: a crash never leaves a half-written file."""
    write_atomic(path, toml_text(data, header))
