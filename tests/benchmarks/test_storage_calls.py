"""benchmarks/storage_calls.py in small form: a trial's transactions by storage
call, one by one (``HEURTUNE_FLUSH=0``) against batched."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run


def test_batched_writes_take_a_transaction_each_time_instead_of_one_per_write(tmp_path) -> None:
    script = ROOT / "benchmarks" / "storage_calls.py"
    proc = subprocess.run([sys.executable, str(script), "--trials", "4", "--pairs", "6",
                           "--json"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    one, batched = r["one_by_one"], r["batched"]
    # one by one: a transaction per pair's report and per statistic
    assert one["writes: intermediate values"] >= 4 and one["writes: user attributes"] >= 10
    assert "writes: intermediate values" not in batched
    assert "writes: user attributes" not in batched
    # batched: the parameters once drawn (with the sampler seed), the rest at the end
    writes = sum(v for k, v in batched.items() if k.startswith("writes: "))
    assert writes <= 2.0 + 1e-9
    assert batched["total"] < one["total"] - 15
    # the reads are the same either way
    assert batched["_get_trials"] == one["_get_trials"]
