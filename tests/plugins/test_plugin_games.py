"""The example plugin games pass the public conformance check, and plug into every
layer: perft, engines, matches in worker processes, records and replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heurtune.engine.conformance import check_game
from heurtune.games import PythonKernel, get_game
from heurtune.games.perft import perft
from tests.helpers import cli


def test_pyisolation_conforms_and_counts_like_the_kernel() -> None:
    report = check_game("pyisolation", games=10)
    assert report.games == 10 and report.searches > 0
    plain, compiled = get_game("pyisolation"), get_game("isolation")
    assert isinstance(plain, PythonKernel)
    assert [perft(plain, d) for d in range(4)] == [perft(compiled, d) for d in range(4)]


def test_connect4_conforms() -> None:
    report = check_game("connect4", rules=({}, {"columns": 5, "rows": 4}), games=8)
    assert report.games == 16
    assert [perft(get_game("connect4"), d) for d in range(1, 6)] == [7, 49, 343, 2401, 16807]


@pytest.mark.slow
def test_pyisolation_same_records_as_the_kernel(tmp_path: Path, capsys: Any) -> None:
    """A match between the same engines, Isolation written both ways: the same
    games, move for move (the openings too: same move numbers, same symmetries).
    Depth-limited: a node budget stops the two searches at different places,
    since their move ordering differs in detail (killers, history ageing)."""
    out = {}
    for game in ("isolation", "pyisolation"):
        games = tmp_path / f"{game}.jsonl"
        engine = tmp_path / f"{game}.toml"
        engine.write_text(f'game = "{game}"\nheuristic = "improved"\n[search]\ndepth = 4\n')
        code, text, _ = cli(capsys, "match", str(engine), f"{game}:random",
                            "--pairs", "4", "--seed", "5", "--jobs", "2", "--json",
                            "--games", str(games))
        assert code == 0
        out[game] = ([(r["moves"], r["termination"]) for r in map(
            json.loads, games.read_text().splitlines())], json.loads(text)["score"])
    assert out["isolation"] == out["pyisolation"]


@pytest.mark.slow
def test_connect4_commands(tmp_path: Path, capsys: Any) -> None:
    games = tmp_path / "c4.jsonl"
    code, text, _ = cli(capsys, "match", "connect4:baseline", "connect4:random", "--pairs", "2",
                        "--seed", "1", "--jobs", "2", "--json", "--games", str(games))
    assert code == 0 and json.loads(text)["score"] > 0.5
    code, text, _ = cli(capsys, "replay", str(games), "--game", "1")
    assert code == 0 and "R" in text
    code, text, _ = cli(capsys, "list", "connect4")
    assert code == 0 and "plain Python" in text and "connect4:baseline" in text
    code, text, _ = cli(capsys, "bench", "connect4", "--positions", "2", "--depth", "3")
    assert code == 0 and "nodes/s" in text


@pytest.mark.parametrize("argv,message", [
    (("match", "connect4:nope", "connect4:random", "--pairs", "1"), "unknown preset 'connect4:nope'"),
    (("perft", "connect5", "2"), "unknown game 'connect5'"),
    (("match", "connect4:baseline", "isolation:random", "--pairs", "1"), "different games"),
])
def test_plugin_mistakes_are_one_line(capsys: Any, argv: tuple[str, ...], message: str) -> None:
    code, _out, err = cli(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
