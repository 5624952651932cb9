"""``heurtune list GAME``: each preset's heuristic, weights, search and limits."""

from __future__ import annotations

from tests.helpers import cli


def _preset_lines(out: str) -> dict[str, str]:
    """Each preset's name -> the line under it that says what it plays."""
    lines = out.splitlines()
    return {line.split()[1].rstrip(":"): lines[i + 1].strip()
            for i, line in enumerate(lines) if line.startswith("  preset ")}


def test_list_shows_the_weights_that_differ_and_the_search(capsys) -> None:
    code, out, _ = cli(capsys, "list", "halma")
    assert code == 0
    presets = _preset_lines(out)
    # the one preset whose params differ from its heuristic's defaults names them
    assert presets["halma:wall_corner_intent"] == (
        "wall_corner, edges_need_piece=1 (the rest at its defaults); alphabeta, depth 2")
    assert presets["halma:wall_corner"] == "wall_corner at its defaults; alphabeta, depth 2"
    assert presets["halma:ab"] == "family at its defaults; alphabeta, 20000 nodes per move"
    assert presets["halma:random"].startswith("a uniformly random legal move")


def test_list_shows_the_algorithm_and_its_settings(capsys) -> None:
    code, out, _ = cli(capsys, "list", "morris")
    assert code == 0
    presets = _preset_lines(out)
    assert set(presets) == {"morris:seed", "morris:seed-ab", "morris:ab", "morris:phased"}
    assert presets["morris:seed"] == "seed at its defaults; minimax, depth 3"
    assert presets["morris:seed-ab"] == "seed at its defaults; alphabeta, depth 3, root ties random"


def test_list_shows_the_rules_and_limits_a_preset_sets(capsys, monkeypatch) -> None:
    from heurtune.engine.heuristics import morris

    monkeypatch.setitem(morris.PRESETS, "tuned", {
        "heuristic": "seed", "params": {"mills": 2.5, "stones": 1.0},
        "search": {"nodes": 5000, "time_ms": 12.5}, "rules": {"flying": 0, "max_plies": 250},
        "description": "a tuned engine"})
    code, out, _ = cli(capsys, "list", "morris")
    assert code == 0
    assert _preset_lines(out)["morris:tuned"] == (
        "seed, mills=2.5 (the rest at its defaults); alphabeta, 5000 nodes per move, "
        "12.5 ms per move; rules flying=0")
