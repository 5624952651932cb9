"""benchmarks/workers_load.py in small form: 4 workers x 8 trials each of the
simulated oracle's instant games, on a new PostgreSQL database (which must be
up: fails, never skips) directly and through ``heurtune storage-proxy``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("proxy", [False, True], ids=["postgres", "proxy"])
def test_the_load_benchmark_reaches_the_exact_target(tmp_path, proxy) -> None:
    script = ROOT / "benchmarks" / "workers_load.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--storage", "postgres", "--games", "oracle",
         "--workers", "4", "--trials", "32", "--timeout", "240", "--json",
         *(["--proxy"] if proxy else [])],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["storage"] == "postgresql" + (" via proxy" if proxy else "")
    assert r["finished"] == r["target"] == 32 and r["exact"] and r["lost"] == 0
    assert r["failed_workers"] == r["error_lines"] == 0, r["first_errors"]
    assert r["duplicated_parameter_sets"] == 0 and r["other_failed_trials"] == 0
    assert r["baseline_runs"] == 1
    # the database's side was seen: its connections, its transactions, its CPU
    assert r["db_max_connections"] >= 1 and r["db_transactions_per_trial"] > 1
    assert r["db_cpu_seconds"] > 0
    if proxy:  # the workers hold no connection: the proxy's few are all
        assert r["db_max_connections"] <= 12 and r["proxy_cpu_seconds"] > 0
