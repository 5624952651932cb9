"""UCI engines as they are (docs/engine-protocol.md, "UCI"): option lines with
spaces and every UCI type, nothing sent outside UCI, fixed options, ``position
fen``, the clock, a limit the engine ignores, faults, and adjudication on the
engines' own scores."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from heurtune.engine import Engine, EngineConfig
from heurtune.engine.params import CategoricalParam, IntParam
from heurtune.engine.process import (
    MATE_CP,
    Clock,
    OtherOption,
    TimeControl,
    _info,
    parse_uci_option,
)
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.openings import Opening
from heurtune.match.play import Adjudication, play_game

FAKE = Path(__file__).parent / "data" / "fake_uci.py"
FEN = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def uci(mode: str = "ok", score: str = "0", log: Path | None = None, search: Any = None,
        rules: Any = None, params: Any = None, **process: Any) -> EngineConfig:
    command = [sys.executable, str(FAKE), mode, score] + ([str(log)] if log else [])
    return EngineConfig.from_dict({
        "game": "chess", "name": f"fake-{mode}", "process": {"command": command, **process},
        "search": search or {"depth": 1}, "rules": rules or {}, "params": params or {}})


def test_option_lines_as_uci_engines_write_them() -> None:
    assert parse_uci_option("option name Piece Activity type spin default 100 min 0 max 400") \
        == IntParam("Piece Activity", 0, 400, 100)
    assert parse_uci_option("option name Own Book type check default false") == \
        CategoricalParam("Own Book", (False, True), False)
    assert parse_uci_option("option name NullMove Pruning type combo default Fail High var "
                            "Always var Fail High var Never") == CategoricalParam(
        "NullMove Pruning", ("Always", "Fail High", "Never"), "Fail High")
    assert parse_uci_option("option name Bitbases Path type string default /usr/share/egbb/") \
        == OtherOption("Bitbases Path", "string", "/usr/share/egbb/")
    assert parse_uci_option("option name Clear Hash type button") == OtherOption(
        "Clear Hash", "button")
    odd = parse_uci_option("option name Broken type spin default 9 min 0 max 1")
    assert isinstance(odd, OtherOption) and "out of bounds" in odd.reason
    with pytest.raises(ValueError):
        parse_uci_option("option type spin default 1")


def test_the_handshake_reads_a_uci_engine() -> None:
    cfg = uci(options={"Hash": 8, "OwnBook": False})
    space = cfg.heuristic_obj.space
    # the fixed options are no parameters; strings and buttons are read and left alone
    assert space.names == ["Piece Activity", "King Safety", "Style", "UCI_Chess960"]
    assert cfg.heuristic == "Fake UCI"
    with pytest.raises(HeurtuneError, match="'Hash'"):
        cfg.with_params({"Hash": 32}).__post_init__()


def test_nothing_outside_uci_is_sent(tmp_path: Path) -> None:
    log = tmp_path / "received.txt"
    cfg = uci(log=log, options={"Hash": 8, "OwnBook": False},
              params={"King Safety": 150, "Piece Activity": 100})
    record = play_game(get_game("chess"), {}, (Engine(cfg), Engine(cfg)),
                       Opening([], FEN, "book.epd:1"), seed=1,
                       adjudication=Adjudication(max_plies=8))
    assert record.termination == "adjudicated draw: 8 plies, the maximum"
    lines = log.read_text().splitlines()
    assert "setoption name Hash value 8" in lines
    assert "setoption name OwnBook value false" in lines
    assert "setoption name King Safety value 150" in lines
    # an option left at the engine's own default is not sent
    assert not any("Piece Activity" in line for line in lines)
    assert "ucinewgame" in lines  # no rule words after it
    assert any(line == f"position fen {FEN} moves" or line == f"position fen {FEN}"
               for line in lines)
    assert any(line.startswith(f"position fen {FEN} moves ") for line in lines)
    gos = [line for line in lines if line.startswith("go")]
    assert gos and all(line == "go depth 1" for line in gos)  # no seed
    assert not any("seed" in line for line in lines)


def test_chess960_needs_the_engine_to_say_it_plays_it(tmp_path: Path) -> None:
    log = tmp_path / "received.txt"
    cfg = uci(log=log, rules={"chess960": 1})
    record = play_game(get_game("chess"), {"chess960": 1}, (Engine(cfg), Engine(cfg)), (),
                       seed=1, adjudication=Adjudication(max_plies=4))
    assert record.termination.startswith("adjudicated")
    assert "setoption name UCI_Chess960 value true" in log.read_text().splitlines()


def test_an_engine_that_ignores_nodes_is_stopped_at_the_deadline() -> None:
    cfg = uci("ignore-nodes", search={"nodes": 100}, timeout_ms=300)
    engines = (Engine(cfg), Engine(uci()))
    record = play_game(get_game("chess"), {}, engines, (), seed=1)
    assert record.termination == ("fake-ignore-nodes timed out (no move in 300 ms after 'go "
                                  "nodes 100'); it answered 'stop'")
    assert record.fault == "timeout" and record.first_score == 0.0
    assert engines[0].player is not None and engines[0].player.proc is not None  # in step
    deaf = uci("deaf", search={"nodes": 100}, timeout_ms=200)
    record = play_game(get_game("chess"), {}, (Engine(deaf), Engine(uci())), (), seed=1)
    assert record.termination.endswith("; killed") and record.fault == "timeout"


def test_a_clock_sends_wtime_btime_and_a_slow_engine_loses_on_time(tmp_path: Path) -> None:
    log = tmp_path / "received.txt"
    fast = uci(log=log, search={"tc": "2+0.5"})
    slow = uci("slow", search={"tc": "0.5+0", "time_margin_ms": 20})
    record = play_game(get_game("chess"), {}, (Engine(fast), Engine(slow)), (), seed=1)
    assert record.fault == "time" and record.first_score == 1.0
    assert record.termination.startswith("fake-slow lost on time (no move within")
    gos = [line for line in log.read_text().splitlines() if line.startswith("go")]
    assert gos[0] == "go wtime 2000 btime 500 winc 500 binc 0"
    # White's clock ran down by its (short) thinking and gained its increment, Black's
    # by its 300 ms
    words = gos[1].split()
    assert words[1::2] == ["wtime", "btime", "winc", "binc"]
    assert 2000 < int(words[2]) <= 2500 and 150 < int(words[4]) <= 200


def test_time_controls_and_clocks() -> None:
    assert TimeControl.parse("40/60+0.5") == TimeControl(60000.0, 500.0, 40)
    assert TimeControl.parse("10+0.1").text() == "10+0.1"
    for bad in ("", "ten", "10+", "-5", "0"):
        with pytest.raises(HeurtuneError, match="tc"):
            TimeControl.parse(bad)
    clock = Clock((TimeControl(1000.0, 100.0, 2), None))
    assert clock.go_words(0) == "wtime 1000 btime 1000 winc 100 binc 100 movestogo 2"
    clock.spend(0, 300.0)
    assert clock.left[0] == 800.0 and clock.moves_to_go(0) == 1
    clock.spend(0, 2000.0)  # within the margin: never below 0, then a new period
    assert clock.left[0] == 1100.0
    with pytest.raises(HeurtuneError, match="clock"):
        EngineConfig.from_dict({"game": "chess", "heuristic": "material",
                                "search": {"tc": "1+0"}})


@pytest.mark.parametrize("mode,kind,reason", [
    ("illegal", "illegal", "fake-illegal played an illegal move 'a1a1'"),
    ("garbage", "garbage", "fake-garbage sent garbage: 'bestmove'"),
    ("crash", "crash", "fake-crash crashed (exit code 3)"),
])
def test_faults_lose_the_game_with_their_kind(mode: str, kind: str, reason: str) -> None:
    record = play_game(get_game("chess"), {}, (Engine(uci()), Engine(uci(mode))), (), seed=1)
    assert record.termination == reason and record.fault == kind
    assert record.first_score == 1.0


def test_scores_from_info_lines() -> None:
    assert _info("info depth 7 seldepth 9 score cp -31 nodes 900 pv e2e4".split(), 0, 0,
                 None) == (7, 900, -31)
    assert _info("info score mate 2 depth 5".split(), 0, 0, None)[2] == MATE_CP - 3
    assert _info("info score mate -1 depth 5".split(), 0, 0, None)[2] == -(MATE_CP - 2)
    assert _info("info string score cp oops".split(), 3, 4, 5) == (3, 4, 5)


@pytest.mark.parametrize("scores,first,reason", [
    (("0", "0"), 0.5, "adjudicated draw: both engines' scores within \u00b110 cp for 3 moves "
                      "each after move 4"),
    (("-900", "900"), 0.0, "adjudicated: White resigned (its engine's score at or below "
                           "-500 cp for 2 moves)"),
    (("mate3", "-20"), 1.0, "adjudicated: Black resigned (its engine's score at or below "
                            "-500 cp for 2 moves)"),
])
def test_adjudication_on_the_engines_own_scores(scores: tuple[str, str], first: float,
                                                reason: str) -> None:
    rules = Adjudication(draw_after=4, draw_moves=3, draw_score=10, resign_moves=2,
                         resign_score=500)
    engines = (Engine(uci(score=scores[0])), Engine(uci(score=scores[1])))
    if scores == ("mate3", "-20"):
        engines = (Engine(uci(score="mate3")), Engine(uci(score="-900")))
    record = play_game(get_game("chess"), {}, engines, (), seed=1, adjudication=rules)
    assert record.termination == reason and record.first_score == first
    assert record.scores and len(record.scores) == len(record.moves)


def test_adjudication_is_checked() -> None:
    with pytest.raises(HeurtuneError, match="resign_score"):
        Adjudication(resign_moves=3)
    with pytest.raises(HeurtuneError, match="draw_moves"):
        Adjudication(draw_moves=-1)


def test_an_engine_that_cannot_play_chess960_is_one_line(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    w = line.split()\n"
                      "    if w and w[0] == 'uci': print('id name plain\\nuciok', flush=True)\n"
                      "    elif w and w[0] == 'isready': print('readyok', flush=True)\n"
                      "    elif w and w[0] == 'quit': break\n")
    with pytest.raises(HeurtuneError, match="declares no option 'UCI_Chess960'"):
        EngineConfig.from_dict({"game": "chess", "process": {
            "command": [sys.executable, str(script)]}, "rules": {"chess960": 1},
            "search": {"depth": 1}})


def test_setup_mistakes_are_one_line_when_the_file_is_read() -> None:
    # a fixed option the engine does not declare, whatever its case; none of its
    # names are case sensitive, as UCI says
    with pytest.raises(HeurtuneError, match="declares no option 'Hahs'"):
        uci(options={"Hahs": 8})
    assert uci(options={"hash": 8}).process is not None
    # no limit on a move: every move would time out
    with pytest.raises(HeurtuneError, match="needs a limit on each move"):
        EngineConfig.from_dict({"game": "chess", "process": {
            "command": [sys.executable, str(FAKE), "ok"]}})


def test_the_engine_is_sent_its_own_spelling(tmp_path: Path) -> None:
    log = tmp_path / "received.txt"
    play_game(get_game("chess"), {}, (Engine(uci(log=log, options={"hash": 8})),
                                      Engine(uci())), (), seed=1,
              adjudication=Adjudication(max_plies=2))
    assert "setoption name Hash value 8" in log.read_text().splitlines()
