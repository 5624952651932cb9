"""benchmarks/edge_widening.py: where the wider prior at the edge widens, and how sure
the plain fit's slope toward that edge is."""

from __future__ import annotations

from tests.helpers import load_script


def test_at_the_edge_case_it_widens_toward_the_best(capsys) -> None:
    m = load_script("edge_widening")
    rows = m.widened("edge", 2, 8000, 2000, "edge-prior-4")
    assert rows and all(side == "toward" for side, _z, _games in rows)
    assert all(z > 0.0 for _side, z, _games in rows)  # the slope points at the edge it widened
    assert all(2000 <= games <= 8000 for _side, _z, games in rows)
    assert m.widened("edge", 2, 8000, 2000, "current") == []  # no wider prior: nothing
    assert m.main(["--case", "edge", "--seeds", "1", "--budget", "4000",
                   "--from-games", "2000"]) == 0
    out = capsys.readouterr().out
    assert "widened coordinate-checkpoints" in out and "edge away the best: 0" in out
    assert "2000-4000 games: toward " in out and "; away 0" in out
