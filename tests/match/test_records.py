"""Game records: every game's records replay move by move (all four games), the
kernels' text boards and termination reasons, ``match --games`` identical for
any ``--jobs``, and bad record files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from heurtune.engine.config import resolve_engine
from heurtune.games import ONGOING, get_game
from heurtune.games.base import NO_CELL, UNFINISHED
from heurtune.match.html import board_figure, cell_place
from heurtune.match.records import pair_records, read_records, replay_positions, write_records
from heurtune.match.runner import MatchRunner, MatchSpec
from tests.helpers import builtin_games, cli

# cheap engines per game: depth 1 (Halma with a short ply limit: adjudicated)
ENGINES = {"morris": ("morris:seed-ab", "morris:seed-ab"), "isolation": ("isolation:ab_open",
                                                                           "isolation:random"),
           "gomoku": ("gomoku:seed", "gomoku:random"), "halma": ("halma:distance", "halma:random"),
           "chess": ("chess:material", "chess:random")}
RULES = {"halma": {"max_plies": 120}}


def _shallow(spec: str, game: str):
    cfg = resolve_engine(spec)
    search = replace(cfg.search, depth=1, nodes=0) if cfg.search.depth > 1 else cfg.search
    return replace(cfg, search=search, rules=RULES.get(game, {}))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Path]:
    """Two pairs of every game, written as game record files."""
    d = tmp_path_factory.mktemp("records")
    files = {}
    with MatchRunner(1) as runner:
        for game in builtin_games():
            a, b = (_shallow(s, game) for s in ENGINES[game])
            spec = MatchSpec(a, b, 2, seed=5)
            result = runner.run(spec, keep_games=True)
            files[game] = d / f"{game}.jsonl"
            write_records(files[game], pair_records(spec, result.pairs))
    return files


def test_every_game_has_replay_hooks() -> None:
    for game in builtin_games():
        kernel = get_game(game)
        assert kernel.board_rows is not None and kernel.board_legend, game
        rows = kernel.board_rows(kernel.new_state())
        assert len({len(r) for r in rows}) == 1
        assert set("".join(rows)) <= set(kernel.board_legend) | {" "}, game
        text = kernel.board_text(kernel.new_state())
        assert text.splitlines()[0].startswith(str(len(rows)))  # top rank first
        assert "a b c" in text and f"{kernel.side_names[0]} to move" in text
        for end in (cell for line in kernel.board_lines for cell in line):  # cells all
            file, rank = cell_place(end)
            assert rows[len(rows) - 1 - rank][file] != NO_CELL, (game, end)


def test_a_board_picture_draws_the_lines_its_game_declares() -> None:
    """Morris: its three squares and the four lines joining them, under the
    points; Gomoku declares none (a grid of points). The legend sits at the
    bottom right, clear of the toolbar at the top."""
    morris = get_game("morris")
    fig = board_figure(morris, morris.board_rows(morris.new_state()))
    lines = {((s.x0, s.y0), (s.x1, s.y1)) for s in fig.layout.shapes}
    assert all(s.type == "line" and s.layer == "below" for s in fig.layout.shapes)
    squares = {((k, k), (k, 6 - k)) for k in range(3)} | {((k, k), (6 - k, k)) for k in range(3)}
    squares |= {((6 - k, k), (6 - k, 6 - k)) for k in range(3)}
    squares |= {((k, 6 - k), (6 - k, 6 - k)) for k in range(3)}
    joins = {((3, 0), (3, 2)), ((3, 4), (3, 6)), ((0, 3), (2, 3)), ((4, 3), (6, 3))}
    assert lines == squares | joins and len(lines) == 16
    gomoku = get_game("gomoku")
    assert gomoku.board_lines == ()
    assert board_figure(gomoku, gomoku.board_rows(gomoku.new_state())).layout.shapes == ()
    assert fig.layout.legend.yanchor == "bottom" and fig.layout.legend.y == 0


@pytest.mark.parametrize("game", ["morris", "isolation", "gomoku", "halma"])
def test_records_replay_every_game(recorded, game: str, capsys) -> None:
    records = read_records(recorded[game])
    assert len(records) == 4
    assert [(r["pair"], r["round"]) for r in records] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    kernel = get_game(game)
    for number, record in enumerate(records):
        assert record["players"][0] != record["players"][1] or game == "morris"
        assert len(record["nodes"]) == len(record["moves"])
        assert record["result"] == {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[record["score"]]
        _, positions = replay_positions(record)
        final = positions[-1].state
        assert kernel.outcome(final) != ONGOING  # the record ends where the game ended
        assert record["termination"] == kernel.termination_reason(final) != UNFINISHED
        code, out, err = cli(capsys, "replay", str(recorded[game]), "--game", str(number))
        assert code == 0 and err == ""
        plies = len(record["opening"]) + len(record["moves"])
        assert out.count("\nply ") == plies
        assert out.rstrip().endswith(f"result {record['result']}: {record['termination']}")
        assert kernel.board_text(final) in out  # the last board is the final position


def test_terminations_say_why() -> None:
    """Each game's own reasons (not the generic "won") on games played to the end."""
    expected = {"morris": ("fewer than 3 stones", "no legal move", "draw:"),
                "isolation": ("no legal move",), "gomoku": ("five in a row", "board is full"),
                "halma": ("target camp", "adjudicated", "draw:", "no legal move"),
                "chess": ("won by checkmate", "draw by ")}
    rng = np.random.default_rng(3)
    for game in builtin_games():
        kernel = get_game(game)
        for _ in range(3):
            state = kernel.new_state(RULES.get(game, {}))
            while kernel.outcome(state) == ONGOING:
                moves = kernel.legal_moves(state)
                kernel.make_move(state, moves[int(rng.integers(len(moves)))])
            reason = kernel.termination_reason(state)
            assert any(e in reason for e in expected[game]), (game, reason)


@pytest.mark.slow
def test_match_games_are_the_same_for_any_jobs(tmp_path, capsys) -> None:
    files = []
    for jobs in (1, 2):
        path = tmp_path / f"g{jobs}.jsonl"
        code, out, _ = cli(capsys, "match", "isolation:ab_improved", "isolation:ab_open",
                           "--pairs", "3", "--seed", "4", "--jobs", str(jobs),
                           "--games", str(path))
        assert code == 0 and f"wrote 6 games to {path}" in out
        files.append(path.read_bytes())
    assert files[0] == files[1]
    first = json.loads(files[0].splitlines()[0])
    assert first["players"] == ["isolation:ab_improved", "isolation:ab_open"]
    assert first["seed"] == 4 and len(first["opening"]) == 2


def test_match_games_with_sprt_and_json(tmp_path, capsys) -> None:
    path = tmp_path / "s.jsonl"
    code, out, _ = cli(capsys, "match", "isolation:ab_improved", "isolation:random",
                       "--sprt", "0,400", "--max-pairs", "6", "--seed", "2", "--json",
                       "--games", str(path))
    assert code == 0
    result = json.loads(out)  # --json: standard output stays one object
    assert len(read_records(path)) == 2 * result["sprt"]["pairs"]


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return path


def test_bad_record_files_are_one_error_line(recorded, tmp_path, capsys) -> None:
    good = read_records(recorded["isolation"])[0]
    illegal = dict(good, moves=["a1"] + good["moves"][1:])
    cases = {
        str(tmp_path / "missing.jsonl"): "no such file",
        str(tmp_path): "is a directory",
        str(_write(tmp_path / "empty.jsonl", [])): "no game records",
        str(_write(tmp_path / "junk.jsonl", ["{not json"])): "line 1: not JSON",
        str(_write(tmp_path / "list.jsonl", [[1, 2]])): "line 1: a game record is a JSON object",
        str(_write(tmp_path / "nokey.jsonl", [good, {k: v for k, v in good.items()
                                                      if k != "moves"}])): "line 2: no 'moves'",
        str(_write(tmp_path / "game.jsonl", [dict(good, game="xiangqi")])): "unknown game "
                                                                             "'xiangqi'",
        str(_write(tmp_path / "nodes.jsonl", [dict(good, nodes=[1])])): "one whole number per move",
        str(_write(tmp_path / "illegal.jsonl", [illegal])): "game 0: ply 3 'a1' is not a legal",
    }
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    cases[str(binary)] = "cannot read"
    for path, message in cases.items():
        code, out, err = cli(capsys, "replay", path)
        assert code == 2 and out == "", path
        assert err.count("\n") == 1 and err.startswith("heurtune: error: ") and message in err, err
    for number in ("4", "-1"):
        code, out, err = cli(capsys, "replay", str(recorded["isolation"]), "--game", number)
        assert code == 2 and out == "" and "has 4 games (0 to 3)" in err


def test_match_games_to_an_unwritable_place_fails_first(tmp_path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, out, err = cli(capsys, "match", "isolation:ab_open", "isolation:random", "--pairs",
                         "2", "--games", str(blocker / "g.jsonl"))
    assert code == 2 and out == "" and err.startswith("heurtune: error: ")
    assert "not a directory" in err
