"""The environment a study records: library versions, processor, OpenBLAS kernel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from heurtune.tuning.study.environment import blas_core, cpu_name, differences, environment


def test_the_environment_names_libraries_processor_and_kernel() -> None:
    env = environment()
    assert set(env) == {"python", "heurtune", "numpy", "scipy", "numba", "optuna", "cpu",
                        "blas"}
    assert env["numpy"] == np.__version__ and env["cpu"] == cpu_name()
    assert env["blas"] == blas_core() and env["blas"].startswith("OpenBLAS ")  # numpy's wheels


def test_the_kernel_is_read_at_run_time_and_pinned_by_the_environment() -> None:
    # OPENBLAS_CORETYPE pins the kernel; Haswell's runs on any AVX2 processor
    if "avx2" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("the Haswell kernel needs AVX2")
    code = "from heurtune.tuning.study.environment import blas_core; print(blas_core())"
    for kernel in ("Haswell", "Nehalem"):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120, env={**os.environ, "OPENBLAS_CORETYPE": kernel},
                              check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert proc.stdout.strip() == f"OpenBLAS {kernel}"


def test_differences_name_versions_and_kernel_not_the_processor() -> None:
    here = environment()
    assert differences(here, here) == []
    there = {**here, "numpy": "0.1", "blas": "OpenBLAS Prescott", "cpu": "another"}
    assert differences(there, here) == [f"numpy: 0.1 -> {here['numpy']}",
                                        f"blas: OpenBLAS Prescott -> {here['blas']}"]
    # an older record without a key, a kernel nobody could read, a non-text value:
    # not compared
    older = {k: v for k, v in there.items() if k != "numpy"}
    assert differences({**older, "blas": "unknown"}, here) == []
    assert differences({"scipy": 3}, here) == []
