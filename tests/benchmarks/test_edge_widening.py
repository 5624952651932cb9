"""benchmarks/edge_widening.py: where the wider prior at the edge widens, how sure the
plain fit's slope toward that edge is, its slope at the bound, and for how long in a row
the coordinate has widened."""

from __future__ import annotations

import pytest

from tests.helpers import load_script

pytestmark = pytest.mark.slow  # left out of the quick run


def test_at_the_edge_case_it_widens_toward_the_best(capsys) -> None:
    m = load_script("edge_widening")
    rows = m.widened("edge", 2, 8000, 2000, "edge-prior-4")
    assert rows and all(r[0] == "toward" for r in rows)
    assert all(r[1] > 0.0 for r in rows)  # the slope points at the edge it widened
    assert all(2000 <= r[2] <= 8000 for r in rows)
    # the plain fit's maximum mostly lies inside the bound (the wider prior is what
    # moves it there), so its slope through the bound mostly points back in
    assert sum(r[3] < 0.0 for r in rows) > len(rows) / 2 and all(abs(r[3]) < 10 for r in rows)
    # in a row: 1 where it starts, one more each checkpoint it goes on
    assert min(r[4] for r in rows) >= 1 and max(r[4] for r in rows) > 1
    assert m.widened("edge", 2, 8000, 2000, "edge-prior-off") == []  # no wider prior: nothing
    # the default in four parameters waits for 8 duels per coefficient (about 4,000
    # games) and a slope 1 sd sure: fewer widenings than edge_prior = 4 alone
    gated = m.widened("edge", 2, 8000, 2000, "current")
    assert gated and all(r[0] == "toward" and r[1] >= 1.0 for r in gated), gated
    assert all(r[2] >= 4000 for r in gated)  # 8 x 14 coefficients = 112 duels first
    assert len(gated) < len(rows)  # here 4 against 19
    assert m.main(["--case", "edge", "--seeds", "1", "--budget", "4000",
                   "--from-games", "2000"]) == 0
    out = capsys.readouterr().out
    assert "widened coordinate-checkpoints" in out and "edge away the best: 0" in out
    assert "2000-4000 games: toward " in out and "; away 0" in out
    assert "\n    2000-4000 games: toward slope at the bound -" in out and "; away none" in out
    assert "the checkpoint at 4000 games is in the counts above only" in out
