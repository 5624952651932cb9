"""Tournaments, Bradley-Terry ratings, fresh-opening exclusion, the random mover."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from heurtune.cli import main
from heurtune.engine.config import preset
from heurtune.engine.player import Engine
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.openings import opening_hash, random_openings
from heurtune.match.runner import MatchSpec
from heurtune.match.stats import ELO_PER_LOGIT, bradley_terry, pair_variance
from heurtune.match.tournament import run_tournament


def test_bradley_terry_recovers_a_known_difference() -> None:
    # A scores 75% against B over many games: 400*log10(3) = 190.8 Elo apart
    r = bradley_terry(["A", "B"], [(0, 1, 750.0, 1000)])
    diff = r[0].elo - r[1].elo
    assert diff == pytest.approx(190.8, abs=2.0)  # the weak prior pulls in a little
    assert r[0].elo == pytest.approx(-r[1].elo)  # centred
    lo, hi = r[0].elo_ci
    assert lo < r[0].elo < hi and hi - lo < 60


def test_bradley_terry_equal_players_and_perfect_records() -> None:
    r = bradley_terry(["A", "B", "C"], [(0, 1, 50.0, 100), (1, 2, 50.0, 100), (0, 2, 50.0, 100)])
    assert all(abs(x.elo) < 1e-6 for x in r)
    perfect = bradley_terry(["A", "B"], [(0, 1, 10.0, 10)])
    assert math.isfinite(perfect[0].elo) and perfect[0].elo > perfect[1].elo
    assert perfect[0].elo_ci[1] - perfect[0].elo_ci[0] > 200  # ten games say little


def test_bradley_terry_transitivity() -> None:
    # A beats B 75%, B beats C 75%: A is about 2 * 190.8 above C
    r = bradley_terry(["A", "B", "C"], [(0, 1, 750.0, 1000), (1, 2, 750.0, 1000)])
    assert r[0].elo - r[2].elo == pytest.approx(2 * 400 * math.log10(3), abs=8)
    assert ELO_PER_LOGIT == pytest.approx(173.72, abs=0.01)


def test_agent_intervals_account_for_shared_openings_and_self_cells_are_exact() -> None:
    from heurtune.match.play import PairResult
    from heurtune.match.tournament import TournamentResult

    agents = [preset("isolation:ab_improved"), preset("isolation:ab_open")]
    opponents = [preset("isolation:ab_improved"), preset("isolation:random")]
    result = TournamentResult(agents, opponents, pairs=6, seed=0)

    def cell(scores):
        return [PairResult(index=i, opening=(), a_scores=(s, s), plies=(0, 0))
                for i, s in enumerate(scores)]

    result.cells[(0, 1)] = cell([1.0, 1.0, 0.5, 1.0, 0.5, 1.0])
    result.cells[(1, 0)] = cell([0.5, 0.0, 0.5, 0.0, 0.5, 0.0])
    result.cells[(1, 1)] = cell([1.0, 0.5, 1.0, 0.5, 1.0, 0.5])
    assert result.is_self(0, 0) and not result.is_self(1, 0)
    # agent 0: exactly 0.5 against itself, so its per-opening scores are (0.5 + x) / 2
    assert result.opening_scores(0) == [0.75, 0.75, 0.5, 0.75, 0.5, 0.75]
    score, lo, hi = result.agent_score(0)
    per = np.array(result.opening_scores(0))
    # the openings' spread, floored by the cells' pentanomial variance (as if independent)
    floor = pair_variance([1.0, 1.0, 0.5, 1.0, 0.5, 1.0]) / 4
    half = stats.t.ppf(0.975, 5) * math.sqrt(max(per.var(ddof=1), floor) / 6)
    assert score == pytest.approx(per.mean()) and (lo, hi) == pytest.approx(
        (per.mean() - half, per.mean() + half))
    # agent 1's two cells cancel opening by opening: its per-opening score is 0.5 every
    # time, so only the pseudo-count floor keeps its interval open
    assert result.opening_scores(1) == [0.75, 0.25, 0.75, 0.25, 0.75, 0.25]
    # the paired difference uses the opponents both played (here: random only)
    d, dlo, dhi, los = result.difference(0, 1)
    diffs = np.array([0.0, 0.5, -0.5, 0.5, -0.5, 0.5])
    assert d == pytest.approx(diffs.mean()) and dlo < d < dhi and 0.5 < los < 1.0
    assert "(itself)" in result.to_table() and "Paired differences" in result.to_table()


def test_perfect_records_are_flagged() -> None:
    agents = [preset("isolation:ab_improved")]
    opponents = [preset("isolation:random")]
    result = run_tournament(agents, opponents, pairs=4, seed=1, jobs=1)
    assert result.perfect_records() == ["isolation:ab_improved", "isolation:random"]
    assert "perfect record" in result.to_table()
    assert all(r["perfect_record"] for r in result.to_dict()["ratings"])


@pytest.mark.slow
def test_tournament_table_csv_json_and_reproducibility() -> None:
    agents = [preset("isolation:ab_improved"), preset("isolation:ab_custom")]
    opponents = [preset("isolation:random"), preset("isolation:mm_improved")]
    one = run_tournament(agents, opponents, pairs=3, seed=4, jobs=1)
    two = run_tournament(agents, opponents, pairs=3, seed=4, jobs=2)
    assert one.to_dict() == two.to_dict()
    table = one.to_table()
    assert "Won | Lost" in table and "Win Rate:" in table and "random" in table
    assert "Ratings (Bradley-Terry Elo" in table
    lines = one.to_csv().strip().splitlines()
    assert len(lines) == 1 + 4 and lines[0].startswith("agent,opponent,wins")
    d = one.to_dict()
    assert {c["games"] for c in d["cells"]} == {6}
    assert {r["name"] for r in d["ratings"]} == {
        "isolation:ab_improved", "isolation:ab_custom", "isolation:random",
        "isolation:mm_improved",
    }
    # every agent beats the random mover in every game
    for c in d["cells"]:
        if c["opponent"] == "isolation:random":
            assert c["wins"] == 6


def test_tournament_rejects_mixed_games() -> None:
    with pytest.raises(HeurtuneError, match="same game"):
        run_tournament([preset("isolation:random")], [preset("morris:seed")], pairs=1)


def test_tournament_cli(capsys, tmp_path) -> None:
    csv_path = tmp_path / "t.csv"
    code = main(["tournament", "isolation:ab_improved", "--opponents", "isolation:random",
                 "--pairs", "2", "--csv", str(csv_path), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["cells"][0]["games"] == 4
    assert csv_path.read_text().count("\n") == 2
    code = main(["tournament", "isolation:nope", "--opponents", "isolation:random",
                 "--pairs", "2"])
    _, err = capsys.readouterr()
    assert code == 2 and "unknown preset 'isolation:nope'" in err and err.count("\n") == 1


def test_excluded_openings_are_never_drawn() -> None:
    k = get_game("isolation")
    rules = k.resolve_rules()
    tuning = random_openings(k, rules, 300, 3, seed=1)
    fresh = random_openings(k, rules, 500, 3, seed=2, exclude=tuning)
    used = {opening_hash(k, rules, o) for o in tuning}
    assert not used & {opening_hash(k, rules, o) for o in fresh}
    spec = MatchSpec(preset("isolation:random"), preset("isolation:random"), 50, 2,
                     opening_plies=3, exclude=tuple(tuning))
    assert not used & {opening_hash(k, rules, o) for o in spec.openings()}


def test_match_exclude_study(capsys, study_file) -> None:
    study = study_file("s", study={"name": None, "opponent": "isolation:ab_improved",
                                   "pairs": 20, "seed": 3}, engine={"heuristic": "improved"})
    code = main(["match", "isolation:random", "isolation:random", "--pairs", "3",
                 "--exclude-study", str(study)])
    out, _ = capsys.readouterr()
    assert code == 0 and "none of the 20 openings" in out


def test_match_exclude_study_leaves_out_its_confirmation_too(capsys, study_file) -> None:
    """A study file's [confirm] section plays openings of its own (the selection, the
    check): a later match on "fresh" openings leaves those out as well."""
    from heurtune.tuning import load_study_file
    from heurtune.tuning.after.confirm import study_file_openings

    study = study_file("c", study={"name": None, "opponent": "isolation:ab_improved",
                                   "pairs": 20, "seed": 3}, engine={"heuristic": "improved"},
                       confirm={"pairs": 5, "check_pairs": 7})
    sf = load_study_file(study)
    left_out = study_file_openings(sf)
    assert len(left_out) == 32 and left_out[:20] == tuple(sf.match_spec().openings())
    code = main(["match", "isolation:random", "isolation:random", "--pairs", "3",
                 "--exclude-study", str(study)])
    out, _ = capsys.readouterr()
    assert code == 0 and "none of the 32 openings" in out


def test_random_mover_is_legal_and_seeded() -> None:
    k = get_game("isolation")
    e = Engine(preset("isolation:random"))
    state = k.new_state()
    picks = {e.choose(state, seed).move for seed in range(30)}
    assert len(picks) > 10 and picks <= set(k.legal_moves(state))
    assert e.choose(state, 5).move == e.choose(state, 5).move


def test_perft_isolation_cli(capsys) -> None:
    assert main(["perft", "isolation", "4"]) == 0
    assert capsys.readouterr().out == "52672\n"


def test_bradley_terry_sandwich_intervals_group_the_games_of_an_opening() -> None:
    """Two players, 400 pairs, each pair split (one win each) or a sweep: grouped by
    pair, the interval reflects the pairs' spread; games as independent overstate it.
    For one pair of players the sandwich is the pair-score interval mapped to Elo."""
    rng = np.random.default_rng(3)
    pair_points = rng.choice([1.0, 2.0, 2.0, 1.0, 1.0, 0.0, 1.0, 1.0], size=400)  # many splits
    records = [(0, 1, float(x), 2) for x in pair_points]
    plain = bradley_terry(["A", "B"], records)
    grouped = bradley_terry(["A", "B"], records, groups=list(range(400)))
    assert plain[0].elo == pytest.approx(grouped[0].elo)
    width = grouped[0].elo_ci[1] - grouped[0].elo_ci[0]
    assert width < plain[0].elo_ci[1] - plain[0].elo_ci[0]
    # delta method: Elo = 400 log10(s / (1 - s)) over the pair score s = x / 2;
    # a rating difference of d has each centred rating at +-d/2
    s = pair_points.mean() / 2
    se_s = (pair_points / 2).std(ddof=0) / math.sqrt(400)
    se_diff = ELO_PER_LOGIT * se_s / (s * (1 - s))
    assert width / 2 == pytest.approx(1.959964 * se_diff / 2, rel=0.02)
