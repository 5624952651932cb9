"""Matches: distinct openings, colour swapping, reproducibility across jobs."""

from __future__ import annotations

import pytest

from heurtune.engine.config import EngineConfig, preset, resolve_engine
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.openings import random_openings
from heurtune.match.runner import MatchRunner, MatchSpec


def test_openings_are_distinct_and_reproducible() -> None:
    k = get_game("morris")
    rules = k.resolve_rules()
    a = random_openings(k, rules, 50, 4, seed=3)
    assert a == random_openings(k, rules, 50, 4, seed=3)
    assert a != random_openings(k, rules, 50, 4, seed=4)
    assert len(set(a)) == 50 and all(len(o) == 4 for o in a)


def test_same_engine_scores_half_and_colours_swap() -> None:
    cfg = preset("morris:seed-ab")
    with MatchRunner(1) as runner:
        result = runner.run(MatchSpec(cfg, cfg, pairs=6, seed=2))
    # identical engines and tie-break seeds: each pair's two games mirror each other
    assert all(p.a_scores[0] + p.a_scores[1] == 1.0 for p in result.pairs)
    assert result.stats.score == 0.5


def test_seed_ab_plays_the_seeds_games() -> None:
    """Alpha-beta drawing among equal root moves as minimax does plays the seed's
    moves: both colours of a pair play the same game. (A pair may still part ways
    once the no-removal draw comes within the horizon: both tables are keyed on
    the position without the counter, and keep what earlier moves stored.)"""
    a, b = preset("morris:seed-ab"), preset("morris:seed")
    with MatchRunner(1) as runner:
        result = runner.run(MatchSpec(a, b, pairs=10, seed=11), keep_games=True)
    same = sum(p.games[0].moves == p.games[1].moves for p in result.pairs)
    assert same >= 8 and result.stats.score == 0.5


@pytest.mark.slow
def test_match_reproduces_whatever_the_number_of_jobs() -> None:
    a, b = preset("morris:ab"), preset("morris:seed")
    spec = MatchSpec(a, b, pairs=4, seed=11)
    with MatchRunner(1) as r1:
        one = r1.run(spec)
    with MatchRunner(2) as r2:
        two = r2.run(spec)
    assert one.pairs == two.pairs
    assert one.to_dict() == two.to_dict()


@pytest.mark.slow
def test_chunked_pairs_reproduce_too() -> None:
    """With enough pairs, workers get several per task; the results stay the same."""
    a = preset("isolation:ab_improved")
    b = preset("isolation:ab_center")
    spec = MatchSpec(a, b, pairs=100, seed=3)
    with MatchRunner(1) as r1:
        one = r1.run(spec)
    with MatchRunner(2) as r2:
        two = r2.run(spec)
    assert [p.index for p in two.pairs] == list(range(100))
    assert one.pairs == two.pairs


def test_mismatched_engines_are_rejected() -> None:
    a = preset("morris:seed")
    b = EngineConfig(game="morris", heuristic="seed", rules={"flying": 0})
    with pytest.raises(HeurtuneError, match="different rules"):
        MatchSpec(a, b, pairs=1)
    with pytest.raises(HeurtuneError, match=r"pairs must be in \[1, "):
        MatchSpec(a, a, pairs=0)


def test_config_toml_round_trip(tmp_path) -> None:
    cfg = preset("morris:phased").with_params({"move_mobility": 0.5}, name="x")
    path = tmp_path / "x.toml"
    cfg.save(path)
    back = resolve_engine(str(path))
    assert back.to_dict() == cfg.to_dict()


def test_config_errors(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "morris"\nheuristic = "seed"\n[params]\nmills = 99\n')
    with pytest.raises(HeurtuneError, match=r"mills=99 is out of bounds"):
        resolve_engine(str(bad))
    bad.write_text('game = "morris"\nheuristic = "seed"\n[search]\nalgorithm = "mcts"\n')
    with pytest.raises(HeurtuneError, match="unknown search algorithm 'mcts'"):
        resolve_engine(str(bad))
    bad.write_text("game = \n")
    with pytest.raises(HeurtuneError, match="malformed TOML"):
        resolve_engine(str(bad))


def _match_json(capsys, *argv: str) -> dict:
    import json

    from heurtune.cli import main

    assert main(["match", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_sprt_match_decides_on_pairs_in_opening_order_for_any_jobs(capsys) -> None:
    args = ("isolation:ab_improved", "isolation:random", "--sprt", "0,100", "--seed", "2",
            "--opening-plies", "3", "--max-pairs", "200")
    one = _match_json(capsys, *args, "--jobs", "1")
    two = _match_json(capsys, *args, "--jobs", "2")
    assert one == two
    sprt = one["sprt"]
    assert sprt["verdict"] == "H1" and sprt["llr"] >= sprt["bounds"][1]
    assert sprt["pairs"] == one["pairs"] < 200 and one["games"] == 2 * one["pairs"]
    # replaying the decisive pairs' outcomes through the test gives the same LLR
    from heurtune.match.stats import Sprt

    assert Sprt(0, 100).llr(one["pentanomial"]) == pytest.approx(sprt["llr"])


def test_sprt_stops_at_the_cap_without_a_verdict(capsys) -> None:
    out = _match_json(capsys, "isolation:random", "isolation:random", "--sprt=-10,10",
                      "--max-pairs", "4", "--opening-plies", "3")
    assert out["sprt"]["verdict"] is None and out["pairs"] == 4


@pytest.mark.slow
def test_every_opening_class_once(capsys) -> None:
    out = _match_json(capsys, "isolation:random", "isolation:mm_center", "--pairs", "all")
    assert out["pairs"] == 315
    from heurtune.cli import main

    assert main(["match", "isolation:random", "isolation:mm_center", "--pairs", "all"]) == 0
    assert "every opening class: 315 opening pairs" in capsys.readouterr().out
