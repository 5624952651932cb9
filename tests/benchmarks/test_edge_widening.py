"""benchmarks/edge_widening.py: where the wider prior at the edge widens, and how sure
the plain fit's slope toward that edge is."""

from __future__ import annotations

from tests.helpers import load_script


def test_at_the_edge_case_it_widens_toward_the_best(capsys) -> None:
    m = load_script("edge_widening")
    rows = m.widened("edge", 2, 8000, 2000, "edge-prior-4")
    assert rows and all(side == "toward" for side, _z in rows)
    assert all(z > 0.0 for _side, z in rows)  # the slope points at the edge it widened
    assert m.widened("edge", 2, 8000, 2000, "current") == []  # no wider prior: nothing
    assert m.main(["--case", "edge", "--seeds", "1", "--budget", "4000",
                   "--from-games", "2000"]) == 0
    out = capsys.readouterr().out
    assert "widened coordinate-checkpoints" in out and "edge away the best: 0" in out
