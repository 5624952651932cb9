"""A match's worker processes die with their driver, even one killed by SIGKILL.

The driver (``heurtune match --jobs 2``, a real match long enough to still be
playing) is killed once its workers are there; every process it had started
(the workers, multiprocessing's resource tracker) must be gone within seconds,
not left behind holding their memory. "Within seconds" is counted in the CPU
time each spends after the kill, which a loaded machine does not stretch as it
does the wall clock. Killed at once, before the workers are
ready, they find their parent gone as they start; killed a second later,
while they play, the parent-death signal ends them, or (workers started from
another thread than the main one) their watchdog thread. Linux only: it reads
/proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="reads /proc; the parent-death signal is Linux's"),
              pytest.mark.slow]  # left out of the quick run

WORKERS_TIMEOUT_S = 180.0  # the driver compiles (or loads) the search first
DEATH_CPU_S = 5.0  # the most CPU seconds a process may spend after the driver's death
GONE_TIMEOUT_S = 300.0  # a guard against a hang, nothing more
MATCH = ["morris:seed", "morris:seed", "--pairs", "400", "--jobs", "2", "--seed", "1"]
THREADED = Path(__file__).parent / "data" / "threaded_match.py"

Proc = tuple[int, str]  # pid and start time: a pid that is reused is another process


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) of a process, None once it is gone."""
    fields = _fields(pid)
    return None if fields is None else (fields[0], int(fields[1]), fields[19])


def _fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # after "pid (comm) "


def _cpu(proc: Proc) -> float | None:
    """CPU seconds the process has used, None once it is gone (or another)."""
    fields = _fields(proc[0])
    if fields is None or fields[19] != proc[1]:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _alive(proc: Proc) -> bool:
    """Running (a zombie is dead, only not reaped yet), and the same process."""
    stat = _stat(proc[0])
    return stat is not None and stat[0] not in ("Z", "X") and stat[2] == proc[1]


def _ignores_sigint(pid: int) -> bool:
    """Whether a process ignores Ctrl-C: a worker does once its initializer has
    made it die with its parent."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(int(mask, 16) >> (signal.SIGINT - 1) & 1)


def _descendants(root: int) -> dict[Proc, str]:
    """Every live descendant of ``root``, with its command line."""
    parents: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None and stat[0] != "Z":
            parents.setdefault(stat[1], []).append((int(entry), stat[2]))
    found: dict[Proc, str] = {}
    todo = [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            try:
                cmd = Path(f"/proc/{child[0]}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            found[child] = cmd.decode(errors="replace")
            todo.append(child[0])
    return found


@pytest.mark.parametrize(("argv", "ready"), [
    (["-m", "heurtune", "match", *MATCH], True),
    (["-m", "heurtune", "match", *MATCH], False),
    ([str(THREADED)], True),
], ids=["playing", "starting", "from-a-thread"])
def test_workers_die_with_a_killed_driver(tmp_path: Path, argv: list[str], ready: bool) -> None:
    """``ready``: kill the driver once both workers are set up (ignore Ctrl-C),
    else as soon as they exist (most likely still importing)."""
    log = tmp_path / "driver.log"
    with open(log, "wb") as out:
        driver = subprocess.Popen([sys.executable, *argv], stdout=out, stderr=subprocess.STDOUT)
    procs: dict[Proc, str] = {}
    try:
        deadline = time.monotonic() + WORKERS_TIMEOUT_S
        while True:
            assert driver.poll() is None, f"the match ended early:\n{log.read_text()}"
            procs = _descendants(driver.pid)
            workers = [p for p, cmd in procs.items() if "spawn_main" in cmd]
            if len(workers) >= 2 and (not ready or all(_ignores_sigint(pid) for pid, _start in workers)):
                break
            assert time.monotonic() < deadline, f"no workers after {WORKERS_TIMEOUT_S} s"
            time.sleep(0.05)

        used = {p: _cpu(p) or 0.0 for p in procs}  # CPU seconds at the kill, then the last seen
        at_kill = dict(used)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
        deadline = time.monotonic() + GONE_TIMEOUT_S
        while left := [p for p in procs if _alive(p)]:
            for p in left:
                used[p] = _cpu(p) or used[p]
            assert time.monotonic() < deadline, \
                f"alive {GONE_TIMEOUT_S} s after the driver was killed: {[procs[p] for p in left]}"
            time.sleep(0.05)
        after = {procs[p]: round(used[p] - at_kill[p], 2) for p in procs}
        assert max(after.values()) <= DEATH_CPU_S, f"CPU seconds after the kill: {after}"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        for proc in procs:  # a failed run leaves nothing behind either
            if _alive(proc):
                os.kill(proc[0], signal.SIGKILL)
