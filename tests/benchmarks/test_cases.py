"""benchmarks/cases/*.py: the oracle cases that ``benchmarks/oracle.py --cases`` adds."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT


def test_every_shipped_case_file_defines_valid_cases() -> None:
    """benchmarks/cases/*.py load (define_case validates each: the best inside the box,
    no point found better, the baseline its stated loss below it), each case once."""
    code = (
        "import runpy, sys\n"
        "from heurtune.engine.heuristics.oracle import CASES\n"
        "before = set(CASES)\n"
        "runpy.run_path(sys.argv[1])\n"
        "for name in sorted(set(CASES) - before):\n"
        "    c = CASES[name]\n"
        "    print(name, c.dim, round(c.start_elo, 6), round(-c.elo(c.baseline), 6))\n")
    paths = sorted((ROOT / "benchmarks" / "cases").glob("*.py"))
    assert paths
    for path in paths:
        proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                              text=True, timeout=120, check=False)
        assert proc.returncode == 0, (path.name, proc.stderr[-2000:])
        rows = [line.split() for line in proc.stdout.splitlines()]
        assert rows, path.name
        for name, dim, start, loss in rows:
            assert int(dim) >= 4 and float(start) > 0 and float(loss) == float(start), name
