"""An earlier commit checked out beside this checkout, for the benchmarks that time
two versions of heurtune in one run (compare_commits.py, cli_start.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def checked_out(commit: str, where: Path) -> Iterator[Path]:
    """``commit`` checked out into a detached git worktree at ``where``, removed
    again on leaving. A commit git cannot check out raises ValueError with git's
    last line."""
    made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where),
                           commit], capture_output=True, text=True, check=False)
    if made.returncode != 0:
        reason = (made.stderr.strip().splitlines() or ["git worktree add failed"])[-1]
        raise ValueError(f"cannot check out {commit!r}: {reason}")
    try:
        yield where
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)],
                       check=False, capture_output=True)
