"""Keep numba's on-disk cache of heurtune's functions consistent with its source.

numba decides whether a cached function is stale from the timestamp of the one
file that defines it. But heurtune's functions inline functions from other
files (a heuristic inlines its game's kernel; a specialised search inlines
both), so editing a kernel, or upgrading heurtune, could silently load
compiled code built from the old kernel. This module registers a cache
locator for heurtune's own files whose freshness stamp is a digest of every
source that compiled code can see: the ``games`` and ``engine`` packages and
the package's top-level modules (the layers below ``match`` import nothing
else). Any change there recompiles everything once; a change in ``match``,
``tuning`` or ``cli``, which no jitted function can reach, recompiles nothing.

Cache location: ``$NUMBA_CACHE_DIR/heurtune`` when set, else
``__pycache__/numba`` inside the package if writable, else
``~/.cache/heurtune/numba`` (``$XDG_CACHE_HOME`` respected).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from types import FunctionType

from numba.core import caching, config

PACKAGE_DIR = Path(__file__).resolve().parent


COMPILED_LAYERS = ("games", "engine")  # where jitted code lives, and all it imports


def compiled_sources(root: Path = PACKAGE_DIR) -> list[Path]:
    """The sources jitted code can see: the top-level modules and the
    ``games`` and ``engine`` packages (the layer rules keep them from importing
    ``match``, ``tuning`` or ``cli``)."""
    paths = list(root.glob("*.py"))
    for layer in COMPILED_LAYERS:
        paths.extend((root / layer).rglob("*.py"))
    return sorted(paths)


def package_digest(root: Path = PACKAGE_DIR) -> str:
    """A hash of the sources jitted code can see (names and contents)."""
    h = hashlib.sha256()
    for path in compiled_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


DIGEST = package_digest()


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _cache_root() -> Path:
    cache_dir = config.CACHE_DIR  # type: ignore[attr-defined]  # set from the environment
    if cache_dir:
        return Path(cache_dir) / "heurtune"
    in_tree = PACKAGE_DIR / "__pycache__" / "numba"
    if _writable(in_tree):
        return in_tree
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "heurtune" / "numba"


class HeurtuneCacheLocator(caching._CacheLocator):
    """Locates the cache of functions defined in heurtune's own files."""

    def __init__(self, py_func: FunctionType, py_file: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().parent.relative_to(PACKAGE_DIR)
        self._cache_path = str(_cache_root() / relative)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return DIGEST

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: FunctionType, py_file: str) -> HeurtuneCacheLocator | None:
        try:
            Path(py_file).resolve().relative_to(PACKAGE_DIR)
        except ValueError:
            return None  # not heurtune's: numba's own locators handle it
        return cls(py_func, py_file)


def install() -> None:
    """Put the locator first (idempotent); call before any heurtune function is jitted."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list):  # a numba without this hook: keep its default
        import warnings

        warnings.warn("heurtune: cannot register its numba cache locator; after editing "
                      "heurtune, clear __pycache__ folders to avoid stale compiled code",
                      RuntimeWarning, stacklevel=2)
        return
    if HeurtuneCacheLocator not in classes:
        classes.insert(0, HeurtuneCacheLocator)
