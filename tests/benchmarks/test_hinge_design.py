"""benchmarks/hinge_design.py: what duels can say about a curvature per side."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run

SCRIPT = ROOT / "benchmarks" / "hinge_design.py"


def test_three_levels_say_nothing_of_a_hinge_and_more_levels_do(tmp_path) -> None:
    """Noiseless duels at the sampler's three levels per coordinate leave the hinge
    terms at their prior (the term is the slope's feature there); half-radius arms or
    random points pin them down; noisy duels of a study's size do not."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--seeds", "2", "--duels", "200"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ratio = {m.group(1).strip(): float(m.group(2)) for m in re.finditer(
        r"^(.+?)\s+noiseless: posterior sd / prior sd ([0-9.]+)", proc.stdout, re.M)}
    assert set(ratio) == {"three levels", "half radius too", "random"}
    assert ratio["three levels"] > 0.8 and ratio["half radius too"] < 0.2 > ratio["random"]
    noisy = re.findall(r"^(three levels|half radius too)\s+6,400 games, 2 seeds: median "
                       r"largest \|z\| ([0-9.]+)", proc.stdout, re.M)
    assert len(noisy) == 2 and all(float(z) < 2.0 for _d, z in noisy)
    bad = subprocess.run([sys.executable, str(SCRIPT), "--duels", "3"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120, check=False)
    assert bad.returncode == 2 and "--duels" in bad.stderr.splitlines()[-1]
