"""The examples run as a user runs them (a fresh process, the installed package)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # left out of the quick run


def test_the_library_example_runs(tmp_path) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "library.py"), str(tmp_path)],
                         check=True, capture_output=True, text=True, timeout=600).stdout
    lines = out.splitlines()
    assert lines[0].startswith("match: isolation:ab_improved vs isolation:ab_open: 4 opening pairs")
    assert any(line.startswith("tune: 4 finished trials") for line in lines)
    assert any(line.startswith("environment: numpy ") and " OpenBLAS " in line
               for line in lines)
    assert "sampler: random, options {}; duels' default edge prior in 2 parameters: 4.0 after " \
        "8.0 duels per coefficient and 1.0 sd, in 8: 4.0 at once" in lines
    assert ("gains: 5.0 sd apart; the held-out duels measure +259.2 Elo where the model "
            "predicts +133.0 (5.0 sd apart): the landscape is not the bowl the model fits, "
            "so read the measured gain; where the weights may lie far from good ones, a broad "
            'search (search = "broad") or narrower duels (radius = 0.5) may find more') in lines
    assert any(line.startswith("guard: -5.3 sd apart; the held-out duels measure the model's "
                               "answer at -24.7 Elo [-55.0, +5.3] where the model predicts "
                               "+101.8 (5.3 sd apart): no gain over the baseline is shown, so "
                               "the study answers the baseline (guard_z)") for line in lines)
    assert ("fine: apart from the opponent {'own_end': (1.0, 2.0), 'opp_end': (1.0, 1.5)}; "
            "with start_from {}") in lines
    assert any(line.startswith("confirm: winner ") for line in lines)
    assert (tmp_path / "example-tuned.toml").is_file()
