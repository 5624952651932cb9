"""TOML reading and writing with errors that name the file."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

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
            return tomllib.load(fh)
    except FileNotFoundError:
        raise HeurtuneError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise HeurtuneError(f"{p}: is a directory, not a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise HeurtuneError(f"{p}: malformed TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HeurtuneError(f"{p}: cannot read: {exc}") from None


def write_toml(path: str | os.PathLike[str], data: Mapping[str, Any], header: str = "") -> None:
    """Write ``data`` atomically: a crash never leaves a half-written file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = header + tomli_w.dumps(dict(data))
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
