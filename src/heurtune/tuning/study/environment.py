"""What a study's numbers depend on beyond its file: library versions, processor and
the OpenBLAS kernel.

A study reproduces trial by trial (one uninterrupted worker, docs/scale.md) only with
the same libraries and, for a sampler that fits a model with numpy's linear algebra
(``duels``), the same OpenBLAS kernel: OpenBLAS picks its kernel by the processor when
it starts (``OPENBLAS_CORETYPE`` pins it), and kernels round differently. On one AMD
EPYC its own ``Haswell`` kernel sent an oracle study's duels elsewhere from 2,000
games on, and under ``SkylakeX`` it gave an Intel Xeon's trials to the digit
(docs/results/optimisers.md, "Both gates"). ``tune`` records :func:`environment` in a
new study (user attribute ``environment``); a worker that joins or resumes a study in
another environment warns of what :func:`differences` finds and records its own
(user attribute ``environment_joined_`` + :func:`digest`); the oracle benchmarks
record it in their ``--out`` files.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import platform
import sys
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["blas_core", "cpu_name", "differences", "digest", "environment"]

LIBRARIES = ("heurtune", "numpy", "scipy", "numba", "optuna")
# what can change a study's numbers: the versions and the kernel, not the processor
COMPARED = ("python", *LIBRARIES, "blas")
_CORENAME_SYMBOLS = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename")


def environment() -> dict[str, str]:
    """Python's and :data:`LIBRARIES`' versions, the processor (``cpu``,
    :func:`cpu_name`) and the OpenBLAS kernel in use (``blas``, :func:`blas_core`)."""
    out = {"python": sys.version.split()[0]}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    out["cpu"] = cpu_name()
    out["blas"] = blas_core()
    return out


def differences(recorded: Mapping[str, object], current: Mapping[str, str]) -> list[str]:
    """What differs between a study's recorded environment and ``current`` that can
    change its numbers: Python's and the libraries' versions and the OpenBLAS kernel,
    one ``"numpy: 2.1.0 -> 2.2.0"`` (recorded, then current) per difference. The
    processor's name is left out: on the same kernel and libraries two processors give
    the same trials. Keys either side lacks (an older heurtune's record) and values
    ``unknown`` are not compared."""
    out = []
    for key in COMPARED:
        then, now = recorded.get(key), current.get(key)
        if (isinstance(then, str) and now is not None and then != now
                and "unknown" not in (then, now)):
            out.append(f"{key}: {then} -> {now}")
    return out


def digest(env: Mapping[str, str]) -> str:
    """Eight hex digits naming what :func:`differences` compares of ``env`` (the
    versions and the kernel, not the processor): equal for environments that give
    the same trials."""
    kept = {key: env.get(key) for key in COMPARED}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:8]


def blas_core() -> str:
    """The kernel the OpenBLAS libraries bundled with numpy and scipy use in this
    process (for example ``OpenBLAS SkylakeX``; ``unknown`` where no library says,
    as with a numpy built against another BLAS)."""
    import numpy
    import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS)

    names: set[str] = set()
    for package in (numpy, sys.modules["scipy"]):
        home = Path(package.__file__ or "").parent  # the wheels' bundled libraries:
        found = [p for folder in (home.parent / f"{package.__name__}.libs", home / ".dylibs")
                 for pattern in ("*openblas*.so*", "*openblas*.dylib", "*openblas*.dll")
                 for p in sorted(folder.glob(pattern))]  # Linux, macOS, Windows
        for path in found:
            try:
                lib = ctypes.CDLL(str(path))
            except OSError:
                continue
            for symbol in _CORENAME_SYMBOLS:
                get = getattr(lib, symbol, None)
                if get is not None:
                    get.restype = ctypes.c_char_p
                    names.add((get() or b"?").decode().strip())
                    break
    return "OpenBLAS " + "/".join(sorted(names)) if names else "unknown"


def cpu_name() -> str:
    """The processor's model and its widest vector extension (``unknown`` where the
    platform does not say)."""
    model, flags = platform.processor() or platform.machine() or "unknown", set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    except OSError:
        pass
    widest = next((f for f in ("avx512f", "avx2", "avx", "neon", "asimd") if f in flags), "")
    return f"{model} {widest}".strip()
