"""benchmarks/cli_start.py: a command's start-up time, timed in fresh processes; and
the base commit's worktree it shares with compare_commits.py (benchmarks/worktree.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "cli_start.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, check=False, timeout=300)


def test_it_times_each_command_and_reports_its_exit_code() -> None:
    proc = _run("--rounds", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("start-up of `heurtune COMMAND`, fresh processes, 1 rounds")
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "--help", "list", "export (no such study)"]
    assert "(exit 0)" in lines[1] and "(exit 0)" in lines[2] and "(exit 2)" in lines[3]
    assert "x faster" not in proc.stdout  # no base: nothing to compare with


def test_bad_input_is_one_line_and_exit_2() -> None:
    for bad in (("--rounds", "0"), ("--base", "no-such-commit")):
        proc = _run(*bad)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("cli_start.py: error: ")


def test_compare_commits_refuses_an_unknown_base_in_one_line_too() -> None:
    # the worktree helper both scripts use (it raised a CalledProcessError here before)
    proc = subprocess.run([sys.executable, str(SCRIPT.parent / "compare_commits.py"), "--base",
                           "no-such-commit"], capture_output=True, text=True, check=False,
                          timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "compare_commits.py: error: cannot check out 'no-such-commit': ")
