"""Position sets: sampled positions replay to the right states, labels are the
game's result for the side to move, quiet lines are legal and end before the
game does, the file round-trips, the held-out split never splits a game, and
bad files are one clear error."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from heurtune.engine import resolve_engine
from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, get_game
from heurtune.match.positions import (
    GameLine,
    PositionSet,
    QuietSearch,
    lines_from_records,
    load_positions,
    sample_positions,
    split_by_game,
)


def random_lines(game: str, count: int, seed: int, opening: int = 2) -> list[GameLine]:
    """``count`` games of uniformly random moves (a plain-Python player: the
    sampler must not depend on who played), with their results."""
    kernel = get_game(game)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        state = kernel.new_state()
        moves = []
        while kernel.outcome(state) == ONGOING:
            legal = kernel.legal_moves(state)
            move = legal[int(rng.integers(len(legal)))]
            kernel.make_move(state, move)
            moves.append(move)
        result = kernel.outcome(state)  # for the side to move at the end
        mover = int(kernel.side_to_move(state))
        first = 0.5 if result == 0 else float((result == 1) == (mover == 0))
        out.append(GameLine(tuple(moves), first, opening))
    return out


@pytest.fixture(scope="module")
def isolation_set() -> PositionSet:
    return sample_positions("isolation", {}, random_lines("isolation", 12, 1), seed=3)


def test_positions_are_the_games_states_with_the_results_of_their_side_to_move(
        isolation_set: PositionSet) -> None:
    s = isolation_set
    kernel = get_game("isolation")
    lines = random_lines("isolation", 12, 1)
    assert s.games == 12 and s.size > 12
    for i in range(s.size):
        g, ply = int(s.pos_game[i]), int(s.pos_ply[i])
        state = kernel.new_state()
        for m in lines[g].moves[:ply]:
            kernel.make_move(state, m)
        assert np.array_equal(s.state(i)[:kernel.live_length(state)],
                              state[:kernel.live_length(state)])
        assert kernel.outcome(state) == ONGOING
        assert ply >= lines[g].opening
        first = lines[g].first_score
        assert s.label[i] == (first if kernel.side_to_move(state) == 0 else 1.0 - first)
    # every ongoing position after the opening is taken (no --per-game)
    expected = sum(len(line.moves) - line.opening for line in lines)
    assert s.size == expected


def test_per_game_and_skip_plies_draw_reproducibly() -> None:
    lines = random_lines("isolation", 6, 2)
    a = sample_positions("isolation", {}, lines, seed=5, per_game=3, skip_plies=2)
    b = sample_positions("isolation", {}, lines, seed=5, per_game=3, skip_plies=2)
    c = sample_positions("isolation", {}, lines, seed=6, per_game=3, skip_plies=2)
    assert np.array_equal(a.pos_ply, b.pos_ply)
    assert not np.array_equal(a.pos_ply, c.pos_ply)
    for g, line in enumerate(lines):
        plies = a.pos_ply[a.pos_game == g]
        assert len(plies) <= 3 and np.all(plies >= line.opening + 2)


def test_quiet_lines_are_legal_and_stop_before_the_game_ends() -> None:
    lines = random_lines("isolation", 4, 3)
    quiet = QuietSearch(resolve_engine("isolation:ab_improved"), depth=3)
    s = sample_positions("isolation", {}, lines, seed=1, quiet=quiet)
    kernel = get_game("isolation")
    assert s.extra.size > 0
    for i in range(s.size):
        state = kernel.new_state()
        g = int(s.pos_game[i])
        for m in lines[g].moves[:int(s.pos_ply[i])]:
            kernel.make_move(state, m)
        line = s.extra[s.extra_start[i]:s.extra_start[i + 1]]
        assert len(line) <= 3
        for m in line:
            assert int(m) in kernel.legal_moves(state)
            kernel.make_move(state, int(m))
            assert kernel.outcome(state) == ONGOING
        first = lines[g].first_score
        assert s.label[i] == (first if kernel.side_to_move(state) == 0 else 1.0 - first)
    with pytest.raises(HeurtuneError, match="quiet-depth"):
        QuietSearch(resolve_engine("isolation:ab_improved"), depth=0)


def test_a_file_round_trips(isolation_set: PositionSet, tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    isolation_set.save(path)
    back = load_positions(path, "isolation")
    for name, arr in isolation_set.arrays().items():
        assert np.array_equal(arr, getattr(back, name)), name
    assert back.provenance["games"] == 12 and back.rules == get_game("isolation").resolve_rules()


def test_the_held_out_split_keeps_games_whole(isolation_set: PositionSet) -> None:
    mask = split_by_game(isolation_set, 0.25, 7)
    assert np.array_equal(mask, split_by_game(isolation_set, 0.25, 7))
    held = set(isolation_set.pos_game[mask].tolist())
    kept = set(isolation_set.pos_game[~mask].tolist())
    assert held and kept and not held & kept
    assert len(held) == 3  # a quarter of 12 games
    assert not split_by_game(isolation_set, 0.0, 7).any()
    with pytest.raises(HeurtuneError, match="held_out"):
        split_by_game(isolation_set, 1.0, 7)


def test_records_become_lines(tmp_path: Path) -> None:
    from heurtune.match import play_match
    from heurtune.match.records import pair_records

    outcome = play_match("isolation:mm_improved", "isolation:random", pairs=2, seed=4,
                         keep_games=True)
    records = pair_records(outcome.plan.spec, outcome.result.pairs)
    game, rules, lines = lines_from_records(records, "r.jsonl")
    assert game == "isolation" and len(lines) == 4
    played = [g for p in sorted(outcome.result.pairs, key=lambda p: p.index) for g in p.games]
    assert [line.moves for line in lines] == [g.moves for g in played]
    assert [line.first_score for line in lines] == [g.first_score for g in played]
    bad = dict(records[0], moves=["zz9"] + records[0]["moves"][1:])
    with pytest.raises(HeurtuneError, match="r.jsonl game 0: ply"):
        lines_from_records([bad], "r.jsonl")


def _corrupt(path: Path, tmp_path: Path, **changes: object) -> Path:
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays.update(changes)  # type: ignore[arg-type]
    out = tmp_path / f"bad-{len(list(tmp_path.glob('bad-*')))}.npz"
    np.savez(out, **arrays)  # type: ignore[arg-type]
    return out


def test_bad_files_are_one_clear_error(isolation_set: PositionSet, tmp_path: Path) -> None:
    good = tmp_path / "p.npz"
    isolation_set.save(good)
    text = tmp_path / "t.npz"
    text.write_text("not a zip")
    cases = [
        (tmp_path / "missing.npz", "no such file"),
        (tmp_path, "is a directory"),
        (text, "not a heurtune position file"),
        (_corrupt(good, tmp_path, label=isolation_set.label[:-1]), "position arrays"),
        (_corrupt(good, tmp_path, pos_ply=isolation_set.pos_ply + 500), "pos_ply"),
        (_corrupt(good, tmp_path, label=isolation_set.label * 0 + 0.3), "label values"),
        (_corrupt(good, tmp_path, meta=np.array(json.dumps({"format": "x"}))),
         "not a heurtune position file"),
    ]
    for path, message in cases:
        with pytest.raises(HeurtuneError, match=message) as info:
            load_positions(path)
        assert "\n" not in str(info.value)
    with pytest.raises(HeurtuneError, match="positions of isolation, not morris"):
        load_positions(good, "morris")
    assert zipfile.is_zipfile(good)
