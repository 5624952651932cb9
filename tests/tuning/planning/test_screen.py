"""heurtune screen: the points, the verdicts (with a runner whose scores we set),
the PNG, and the command line on a real tiny study."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from heurtune.engine.params import CategoricalParam, FloatParam, IntParam
from heurtune.match.play import PairResult
from heurtune.match.runner import MatchResult, MatchSpec
from heurtune.match.stats import paired_difference
from heurtune.tuning.planning.screen import save_png, screen, screen_games, screen_points
from heurtune.tuning.studyfile import load_study_file
from tests.helpers import cli
from tests.tuning.planning.test_calibrate import tiny_study

MORRIS = """
[study]
name = "m"
game = "morris"
opponent = "morris:seed"
trials = 5
pairs = 4
seed = 9
[engine]
heuristic = "seed"
[engine.search]
depth = 2
"""
PAIRS = 20
# a pair score as the two games' scores of the first engine
GAMES = {0.0: (0.0, 0.0), 0.25: (0.5, 0.0), 0.5: (1.0, 0.0), 0.75: (1.0, 0.5), 1.0: (1.0, 1.0)}


class FakeRunner:
    """Plays no game: a point's pair scores are ``effect(params)``, one per opening."""

    def __init__(self, effect: Callable[[dict[str, Any]], Sequence[float]]) -> None:
        self.effect = effect
        self.calls: list[tuple[MatchSpec, list[tuple[int, ...]]]] = []

    def run(self, spec: MatchSpec, on_pair: Any = None, openings: Any = None) -> MatchResult:
        self.calls.append((spec, list(openings)))
        scores = self.effect(dict(spec.a.params))
        pairs = [PairResult(i, op, GAMES[s], (40, 41)) for i, (op, s) in
                 enumerate(zip(openings, scores, strict=False))]
        for p in pairs:
            if on_pair is not None:
                on_pair(p)
        return MatchResult(spec, pairs)


def effect(params: dict[str, Any]) -> list[float]:
    """mills: strong (every pair won above the default 4, lost below); stash: none
    at all (every point scores exactly 0.5 with some spread); stones: a little
    at 10 only (11 pairs won, 9 lost: +35 Elo, far from significant at 20 pairs);
    possible_mills: a modest, clear gain at the top (every pair 0.75)."""
    if params["mills"] != 4.0:
        return [1.0 if params["mills"] > 4.0 else 0.0] * PAIRS
    if params["stones"] == 10.0:
        return [1.0] * 11 + [0.0] * 9
    if params["possible_mills"] == 10.0:
        return [0.75] * PAIRS
    return [0.25, 0.75, 0.5, 0.5] * (PAIRS // 4)


def test_points_span_the_range_and_include_the_baseline() -> None:
    assert screen_points(FloatParam("x", 0.0, 10.0, 1.0), 5, 1.0) == [0, 1, 2.5, 5, 7.5, 10]
    logs = screen_points(FloatParam("x", 0.1, 1000.0, 1.0, log=True), 5, 1.0)
    assert logs == pytest.approx([0.1, 1.0, 10.0, 100.0, 1000.0])
    assert screen_points(IntParam("x", 0, 3, 1), 5, 1) == [0, 1, 2, 3]  # rounded, deduplicated
    assert screen_points(IntParam("x", 1, 64, 8, log=True), 3, 8) == [1, 8, 64]
    assert screen_points(FloatParam("x", 0.0, 1.0, 0.25, step=0.25), 3, 0.25) == [0, 0.25, 0.5, 1]
    assert screen_points(FloatParam("x", 0.0, 1.0, 0.3, step=0.3), 4, 0.3) == [0, 0.3, 0.6, 0.9]
    assert screen_points(CategoricalParam("x", ("a", "b", "c"), "b"), 5, "b") == ["a", "b", "c"]


def test_verdicts_with_scores_we_control(tmp_path) -> None:
    (tmp_path / "m.toml").write_text(MORRIS)
    sf = load_study_file(tmp_path / "m.toml")
    runner = FakeRunner(effect)
    seen: list[str] = []
    result = screen(sf, pairs=PAIRS, points=5, runner=runner,
                    on_param=lambda entry: seen.append(entry.name))
    by_name = {p.name: p for p in result.params}
    assert seen == ["stones", "stash", "mills", "possible_mills"]
    assert {n: p.verdict for n, p in by_name.items()} == {
        "stones": "unclear", "stash": "inert", "mills": "active", "possible_mills": "active"}
    assert result.summary() == "active: mills, possible_mills; unclear: stones; inert: stash"
    # mills is steep, but a slope (it wins above what it loses below): not lopsided
    assert all(p.lopsided is None for p in result.params) and result.advice() == ""
    # one match per point but the baseline's; each against the baseline, on one set of
    # openings, the point's parameter alone changed
    base = dict(runner.calls[0][0].b.params)
    assert base == {"stones": 1.0, "stash": 1.0, "mills": 4.0, "possible_mills": 2.0}
    assert len(runner.calls) == 4 * 5 and screen_games(sf, PAIRS) == 4 * 5 * 2 * PAIRS
    assert all(spec.b.params == base and ops == runner.calls[0][1] for spec, ops in runner.calls)
    assert all(sum(spec.a.params[k] != base[k] for k in base) == 1 for spec, _ in runner.calls)
    assert not set(runner.calls[0][1]) & set(sf.match_spec().openings())  # fresh openings
    stash = by_name["stash"]
    assert [p.value for p in stash.points] == [0.0, 1.0, 2.5, 5.0, 7.5, 10.0]
    assert [p.baseline for p in stash.points] == [False, True, False, False, False, False]
    assert stash.spread == 0.0 and all(p.elo == 0.0 for p in stash.points)
    stones = by_name["stones"]
    assert stones.spread == pytest.approx(-400 * math.log10(1 / 0.55 - 1))
    assert stones.best.value == 10.0 and not any(p.significant for p in stones.points)
    mills = by_name["mills"]
    assert mills.best.value == 5.0 and mills.worst.value == 0.0  # 5, 7.5, 10 tie: the first
    top, bottom = mills.best, mills.points[0]
    assert mills.difference == paired_difference(top.result.pairs, bottom.result.pairs)
    assert mills.difference[0] == 1.0
    pm = by_name["possible_mills"]  # best 10, worst the baseline: the point's own interval
    lo, hi = pm.best.stats.score_ci
    assert pm.worst.baseline and pm.difference == pytest.approx((0.25, lo - 0.5, hi - 0.5))
    # a higher threshold calls stones inert; none calls stash unclear
    relaxed = screen(sf, pairs=PAIRS, points=5, runner=FakeRunner(effect), inert_elo=40.0,
                     names=["stones", "stash"])
    assert [(p.name, p.verdict) for p in relaxed.params] == [("stones", "inert"),
                                                            ("stash", "inert")]
    strict = screen(sf, pairs=PAIRS, points=2, runner=FakeRunner(effect), inert_elo=0.0,
                    names=["stash"])
    assert strict.params[0].verdict == "unclear" and len(strict.params[0].points) == 3
    data = json.loads(json.dumps(result.to_dict()))
    assert [p["verdict"] for p in data["params"]] == ["unclear", "inert", "active", "active"]
    assert data["params"][1]["points"][1] == {"value": 1.0, "baseline": True, "score": 0.5,
                                              "elo": 0.0, "games": 0}
    png = tmp_path / "screen.png"
    save_png(result, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def cliff(params: dict[str, Any]) -> list[float]:
    """mills: every pair lost below the default 4, even above (a cliff on the low
    side); stones: every pair lost at 0, but its high side has no point as far out;
    possible_mills, in [0, 4] about 2: a bowl, losing 191 Elo at 0 and 35 at 3, half
    as far out (about a quadratic's quarter)."""
    even = [0.25, 0.75, 0.5, 0.5] * (PAIRS // 4)
    if params["mills"] != 4.0:
        return [0.0] * PAIRS if params["mills"] < 4.0 else even
    if params["stones"] == 0.0:
        return [0.0] * PAIRS
    if params["possible_mills"] == 0.0:
        return [0.25] * PAIRS  # -191 Elo, 2 from the baseline
    if params["possible_mills"] == 3.0:
        return [0.25] * 4 + [0.5] * (PAIRS - 4)  # -35 Elo, 1 from it: the same bowl, scaled
    return even


def test_a_lopsided_parameter_and_what_it_means_for_duels(tmp_path) -> None:
    (tmp_path / "m.toml").write_text(MORRIS + "[params]\npossible_mills = { low = 0.0, high = 4.0 }\n")
    sf = load_study_file(tmp_path / "m.toml")
    result = screen(sf, pairs=PAIRS, points=5, runner=FakeRunner(cliff))
    by_name = {p.name: p for p in result.params}
    mills = by_name["mills"].lopsided  # the points 0 and 7.5, both 3.5 to 4 away
    assert mills is not None and mills.side == "low"
    assert (mills.steep.value, mills.other.value) == (0.0, 7.5)
    assert mills.steep.elo < -100 and mills.other.elo == 0.0
    # stones' low point lost as much, but its high side has no point as far out
    assert by_name["stones"].points[0].elo < -100 and by_name["stones"].lopsided is None
    pm = by_name["possible_mills"]  # a bowl: not lopsided, though 0 loses 5 times as much
    assert [p.value for p in pm.points] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert pm.points[0].elo < 5 * pm.points[3].elo < 0 and pm.lopsided is None
    assert by_name["stash"].lopsided is None
    assert result.summary().endswith("; lopsided: mills")
    assert result.duels_radius == 1.0  # the study's default sampler: duels at radius 1
    assert result.advice().startswith("mills falls steeply on one side")
    assert 'radius = 0.5 under [sampler] or sampler = "spsa"' in result.advice()
    line = by_name["mills"].lines()[0]
    assert "; lopsided: Elo -759.1 at 0 on its low side, at worst +0.0 (at 7.5)" in line
    data = json.loads(json.dumps(result.to_dict()))
    assert data["advice"] == result.advice() and data["steep_elo"] == 30.0
    assert data["params"][2]["lopsided"] == {"side": "low", "value": 0.0,
                                             "elo": mills.steep.elo, "other_value": 7.5,
                                             "other_elo": 0.0}
    assert data["params"][3]["lopsided"] is None
    # a steeper bar calls nothing lopsided; narrower duels (or another sampler) need
    # no advice, though the summary still names the parameter
    assert "lopsided" not in screen(sf, pairs=PAIRS, points=5, runner=FakeRunner(cliff),
                                    steep_elo=800.0).summary()
    for extra in ('[sampler]\nkind = "duels"\nradius = 0.5\n', '[sampler]\nkind = "spsa"\n'):
        (tmp_path / "n.toml").write_text(MORRIS + extra)
        other = screen(load_study_file(tmp_path / "n.toml"), pairs=PAIRS, points=5,
                       runner=FakeRunner(cliff), names=["mills"])
        assert other.summary().endswith("lopsided: mills") and other.advice() == ""


@pytest.mark.slow
def test_the_command_names_a_lopsided_parameter_and_the_narrower_duels(
        tmp_path, capsys, monkeypatch) -> None:
    import heurtune.tuning.planning as planning

    (tmp_path / "m.toml").write_text(MORRIS)
    canned = screen(load_study_file(tmp_path / "m.toml"), pairs=PAIRS, points=5,
                    runner=FakeRunner(cliff))
    monkeypatch.setattr(planning, "screen", lambda *a, **k: canned)
    code, out, err = cli(capsys, "screen", str(tmp_path / "m.toml"), "--pairs", str(PAIRS))
    assert code == 0, err
    *_, summary, advice = out.strip().splitlines()
    assert summary.endswith("at 95%); lopsided: mills (one side falls 30 Elo or more, the "
                           "other gently)")
    assert advice == canned.advice() and "radius = 0.5" in advice


def test_screen_command_on_a_real_tiny_study(tmp_path, capsys) -> None:
    study = tiny_study(tmp_path)
    png = tmp_path / "s.png"
    argv = ["screen", str(study), "--pairs", "2", "--points", "2", "--param", "own_start"]
    code, out, err = cli(capsys, *argv, "--json", "--png", str(png), "--jobs", "1")
    assert code == 0, err
    data = json.loads(out)
    (entry,) = data["params"]
    assert entry["name"] == "own_start" and [p["value"] for p in entry["points"]] == [0, 1, 3]
    assert [p["games"] for p in entry["points"]] == [4, 0, 4]
    assert png.read_bytes()[:4] == b"\x89PNG"
    code, text, err = cli(capsys, *argv)
    assert code == 0, err
    assert "own_start: " in text and "baseline: Elo 0 by definition" in text
    assert "8 games" in text.splitlines()[0]


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--pairs", "0"], "--pairs must be at least 1"),
        (["--points", "1"], "--points must be in [2, 50]"),
        (["--param", "nope"], "unknown parameter 'nope' (searched: own_start, opp_start)"),
        (["--param", "own_end"], "parameter 'own_end' is fixed by the study"),
        (["--inert-elo", "-1"], "--inert-elo must be at least 0"),
        (["--steep-elo", "0"], "--steep-elo must be above 0"),
        (["--png", "/etc/hostname/s.png"], "is not a directory"),
        (["--png", "/tmp"], "is a directory"),
        (["--seed", "4294967296"], "seed must be in"),
    ],
)
def test_screen_bad_input(tmp_path, capsys, extra, message) -> None:
    study = tiny_study(tmp_path)
    code, out, err = cli(capsys, "screen", str(study), "--pairs", "1", *extra)
    assert code == 2 and err.count("\n") == 1 and err.startswith("heurtune: error: ")
    assert message in err, err
    assert out == "" and sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]
