"""How long a ``heurtune`` command takes to start: this checkout against an earlier
commit's, interleaved.

    python benchmarks/cli_start.py [--base COMMIT] [--rounds 7]

Each command below runs in a fresh process (``python -c`` calling the CLI's
``main`` from the given source tree, as the console script does) in a scratch
folder, so nothing is written to the checkout. Without ``--base`` only this
checkout is timed; with it the base commit is checked out into a temporary git
worktree and the two run alternately, ``--rounds`` times each, so that the
machine's load affects both alike. Reported: the fastest and the median wall
time of each command for each side, their ratio (fastest over fastest), and
whether each run gave the same exit code. A cold first round (numba's caches of
both versions go to temporary folders) is discarded.

The commands are the ones whose time is all start-up: ``--help``, ``list``
(every game and heuristic, read from the entry points) and ``export`` of a study
that does not exist (one line on stderr, exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from worktree import ROOT, checked_out

COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "list": ["list"],
    "export (no such study)": ["export", "nope", "--storage", "sqlite:///missing.db"],
}
PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); from heurtune.cli import main; "
         "sys.exit(main(sys.argv[2:]))")


def run(src: Path, cache: Path, cwd: Path, argv: list[str]) -> tuple[float, int]:
    """One fresh process running ``heurtune ARGV`` from ``src``: wall seconds and exit code."""
    env = {"NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PROBE, str(src), *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    return time.perf_counter() - start, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="", help="an earlier commit to time beside this checkout")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        scratch = Path(tmp) / "cwd"
        scratch.mkdir()
        sides = {"this": ROOT / "src"}
        if args.base:
            try:
                tree = stack.enter_context(checked_out(args.base, Path(tmp) / "base"))
            except ValueError as e:
                ap.error(str(e))
            sides = {"base": tree / "src", **sides}
        times: dict[tuple[str, str], list[float]] = {}
        codes: dict[tuple[str, str], set[int]] = {}
        for round_ in range(args.rounds + 1):
            for name, argv in COMMANDS.items():
                for side, src in sides.items():
                    seconds, code = run(src, Path(tmp) / f"cache-{side}", scratch, argv)
                    codes.setdefault((side, name), set()).add(code)
                    if round_:  # the first round compiles or loads caches: discarded
                        times.setdefault((side, name), []).append(seconds)
    print(f"start-up of `heurtune COMMAND`, fresh processes, {args.rounds} rounds "
          f"(python {sys.version.split()[0]}):")
    for name in COMMANDS:
        parts = []
        for side in sides:
            t = times[(side, name)]
            label = args.base if side == "base" else "this checkout"
            parts.append(f"{label} fastest {min(t):.2f} s, median {statistics.median(t):.2f} s "
                         f"(exit {'/'.join(map(str, sorted(codes[(side, name)])))})")
        line = f"  {name}: " + "; ".join(parts)
        if args.base:
            line += f": {min(times[('base', name)]) / min(times[('this', name)]):.2f}x faster"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
