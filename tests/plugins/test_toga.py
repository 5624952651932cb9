"""A real engine nobody here wrote, tuned: Debian's Toga II 3.0 (``toga2``) through
UCI, as it ships, the whole loop a chess engine author runs (list its options,
tune two of its evaluation weights on the shipped book, confirm, export as UCI,
play the export on fresh openings with PGN out), small enough for CI.

Needs ``toga2`` (``apt-get install toga2``; ``.ci/run`` installs it): these tests
fail, never skip, without it."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from tests.helpers import cli

pytestmark = pytest.mark.toga


def _toga() -> str:
    found = shutil.which("toga2", path=os.environ.get("PATH", "") + os.pathsep + "/usr/games")
    assert found, "Debian's toga2 is not installed (apt-get install toga2)"
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("toga")
    engine = f"""game = "chess"
name = "toga2"
[process]
command = [{_toga()!r}]
options = {{ OwnBook = false, Hash = 8 }}
[search]
depth = 2
"""
    (d / "toga2.toml").write_text(engine)
    (d / "study.toml").write_text(f"""[study]
name = "toga-ci"
game = "chess"
opponent = "toga2.toml"
openings = "heurtune:chess-balanced"
trials = 3
pairs = 3
seed = 11
sampler = "random"
jobs = 2

[engine.process]
command = [{_toga()!r}]
options = {{ OwnBook = false, Hash = 8 }}

[engine.search]
depth = 2

[params]
Material = {{ low = 80, high = 160 }}
"King Safety" = {{ low = 50, high = 200 }}

[adjudication]
resign_moves = 3
resign_score = 500
max_plies = 200

[confirm]
top = 1
pairs = 3
check_pairs = 3
""")
    return d


def test_list_shows_toga_options(folder: Path, capsys: Any) -> None:
    code, out, err = cli(capsys, "list", str(folder / "toga2.toml"))
    assert code == 0, err
    assert "protocol: uci" in out and "Piece Activity" in out and "[0, 400]" in out
    assert "BookFile" in out and "string" in out  # read and left alone
    assert "OwnBook = false" in out


def test_tune_confirm_export_and_play(folder: Path, capsys: Any) -> None:
    storage = f"sqlite:///{folder / 't.db'}"
    code, out, err = cli(capsys, "tune", str(folder / "study.toml"), "--storage", storage,
                         "--pgn", str(folder / "study.pgn"))
    assert code == 0, err
    assert "3 finished trials" in out and "confirming study 'toga-ci'" in out
    games = _read_pgn(folder / "study.pgn")
    assert len(games) >= 3 * 3 * 2  # every trial's games and the confirmation's
    assert all(g.headers["White"] and g.headers["FEN"] for g in games)
    exported = folder / "toga-ci.uci"
    code, out, err = cli(capsys, "export", "toga-ci", "--storage", storage, "--format", "uci",
                         "--out", str(exported), "--force")
    assert code == 0, err
    lines = exported.read_text().splitlines()
    assert lines[:2] == ["setoption name OwnBook value false", "setoption name Hash value 8"]
    assert all(line.startswith("setoption name ") for line in lines)
    engine_file = folder / "toga-ci.provenance.toml"
    code, out, err = cli(capsys, "match", str(engine_file), str(folder / "toga2.toml"),
                         "--pairs", "2", "--seed", "5", "--openings", "heurtune:chess-balanced",
                         "--exclude-study", str(folder / "study.toml"), "--resign", "3,500",
                         "--pgn", str(folder / "match.pgn"), "--json")
    assert code == 0, err
    assert json.loads(out)["games"] == 4
    played = _read_pgn(folder / "match.pgn")
    assert len(played) == 4 and all(not g.errors for g in played)
    assert {g.headers["Termination"] for g in played} <= {"normal", "adjudication"}


def test_toga_ignores_go_nodes_and_is_stopped(folder: Path, capsys: Any) -> None:
    engine = folder / "nodes.toml"
    engine.write_text((folder / "toga2.toml").read_text().replace(
        "depth = 2", "nodes = 500").replace("[process]", "[process]\ntimeout_ms = 300"))
    code, out, err = cli(capsys, "match", str(engine), str(folder / "toga2.toml"), "--pairs",
                         "1", "--openings", "heurtune:chess-balanced", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["faults"] == {"timeout": 2}  # each game: stopped at its first move


def _read_pgn(path: Path) -> list[chess.pgn.Game]:
    handle = io.StringIO(path.read_text())
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games
