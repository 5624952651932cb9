"""Engines in other processes (docs/engine-protocol.md): the handshake, the options as
a parameter space, and every fault recorded as a lost game with its reason."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from heurtune.engine import Engine, EngineConfig, preset
from heurtune.engine.params import CategoricalParam, FloatParam, IntParam
from heurtune.engine.process import parse_option
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.play import play_game, play_pair
from tests.helpers import cli

FAKE = Path(__file__).parent / "data" / "fake_engine.py"


def fake(mode: str = "ok", **process: Any) -> EngineConfig:
    return EngineConfig.from_dict({
        "game": "isolation", "name": f"fake-{mode}",
        "process": {"command": [sys.executable, str(FAKE), mode], **process},
        "search": {"nodes": 100}})


def test_handshake_declares_the_space() -> None:
    cfg = fake()
    space = cfg.heuristic_obj.space
    assert cfg.heuristic == "fake" and cfg.heuristic_obj.kind == "process"
    assert space.params == (FloatParam("weight", 0.0, 2.0, 1.0), IntParam("depth", 1, 5, 2),
                            CategoricalParam("style", ("calm", "wild"), "calm"))
    assert cfg.with_params({"weight": 1.5}).params["weight"] == 1.5
    with pytest.raises(HeurtuneError, match="weight"):
        cfg.with_params({"weight": 3.0}).__post_init__()


def test_option_lines() -> None:
    assert parse_option("option name w type spin default 3 min 0 max 9") == IntParam("w", 0, 9, 3)
    assert parse_option("option name b type check default true") == CategoricalParam(
        "b", (False, True), True)
    for bad in ("option name w type float default 1", "option type float default 1 min 0 max 2",
                "option name w type float default 5 min 0 max 2",
                "option name w type colour default red", "option name w type spin default 1.5 "
                "min 0 max 3"):
        with pytest.raises(ValueError):
            parse_option(bad)


def _game(cfg: EngineConfig, first: bool = True) -> Any:
    kernel = get_game("isolation")
    engines = (Engine(cfg), Engine(preset("isolation:random")))
    if not first:
        engines = engines[::-1]
    return play_game(kernel, {}, engines, (24, 10), seed=1), engines


def test_a_healthy_engine_plays_whole_games() -> None:
    record, _ = _game(fake())
    assert record.termination.endswith("has no legal move") and len(record.moves) > 4
    kernel = get_game("isolation")
    pair = play_pair(kernel, {}, Engine(fake()), Engine(preset("isolation:random")), 0,
                     (24, 10), seed=3, keep_games=True)
    assert len(pair.games) == 2


@pytest.mark.parametrize("mode,reason", [
    ("illegal", r"fake-illegal played an illegal move '[a-g][1-7]'"),
    ("garbage", r"fake-garbage sent garbage: 'hello there'"),
    ("crash", r"fake-crash crashed \(exit code 3\)"),
])
@pytest.mark.parametrize("first", [True, False])
def test_faults_lose_the_game_with_the_reason(mode: str, reason: str, first: bool) -> None:
    record, engines = _game(fake(mode), first)
    assert re.fullmatch(reason, record.termination)
    assert record.first_score == (0.0 if first else 1.0)
    # the next game starts again (a crashed or garbled process is restarted)
    again = play_game(get_game("isolation"), {}, engines, (24, 10), seed=1)
    assert re.fullmatch(reason, again.termination)


def test_timeout_kills_and_restarts() -> None:
    cfg = fake("timeout", timeout_ms=300)
    record, engines = _game(cfg)
    assert record.termination == ("fake-timeout timed out (no move in 300 ms after 'go nodes "
                                  "100'); killed")
    assert record.first_score == 0.0
    player = engines[0].player
    assert player is not None and player.proc is None  # killed
    record2 = play_game(get_game("isolation"), {}, engines, (24, 10), seed=2)
    assert record2.termination.startswith("fake-timeout timed out")


def test_a_crash_after_one_move_then_a_fresh_process() -> None:
    kernel = get_game("isolation")
    engines = (Engine(fake("crash")), Engine(preset("isolation:random")))
    first = play_game(kernel, {}, engines, (24, 10), seed=1)
    second = play_game(kernel, {}, engines, (24, 10), seed=1)
    assert first.termination == second.termination == "fake-crash crashed (exit code 3)"
    assert len(first.moves) == len(second.moves) == 4  # one good move each time, then the crash


def test_engines_that_cannot_start_are_one_line_errors(tmp_path: Path, capsys: Any) -> None:
    with pytest.raises(HeurtuneError, match="did not answer 'uci' with 'uciok' within 300 ms"):
        fake("silent", start_timeout_ms=300)
    with pytest.raises(HeurtuneError, match="cannot read 'option name broken"):
        fake("badoption")
    with pytest.raises(HeurtuneError, match="cannot be started"):
        EngineConfig.from_dict({"game": "isolation",
                                "process": {"command": ["./no-such-engine"]}})
    with pytest.raises(HeurtuneError, match="plays isolation, not morris"):
        EngineConfig.from_dict({"game": "morris", "process": {
            "command": [sys.executable, str(FAKE)]}})
    with pytest.raises(HeurtuneError, match="command must be"):
        EngineConfig.from_dict({"game": "isolation", "process": {"command": []}})
    engine_file = tmp_path / "never.toml"
    engine_file.write_text('game = "isolation"\n[process]\ncommand = ["./never-built"]\n')
    code, _out, err = cli(capsys, "match", str(engine_file), "isolation:random", "--pairs", "1")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "cannot be started" in err and "Traceback" not in err


def test_engine_file_round_trip(tmp_path: Path) -> None:
    cfg = fake().with_params({"weight": 0.5, "style": "wild"})
    path = tmp_path / "sub" / "e.toml"
    path.parent.mkdir()
    cfg.save(path)
    again = EngineConfig.load(path)
    assert again.process == cfg.process and dict(again.params) == dict(cfg.params)


@pytest.mark.slow
def test_a_match_in_worker_processes_records_faults(tmp_path: Path, capsys: Any) -> None:
    engine_file = tmp_path / "illegal.toml"
    fake("illegal").save(engine_file)
    games = tmp_path / "games.jsonl"
    code, out, _err = cli(capsys, "match", str(engine_file), "isolation:random", "--pairs", "3",
                          "--jobs", "2", "--seed", "1", "--json", "--games", str(games))
    assert code == 0
    assert json.loads(out)["losses"] == 6
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(records) == 6
    assert all("played an illegal move" in r["termination"] for r in records)


def test_protocol_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "proto.log"
    monkeypatch.setenv("HEURTUNE_PROTOCOL_LOG", str(log))
    record, _ = _game(fake("illegal"))
    lines = [line.split(" ", 1)[1] for line in log.read_text().splitlines()]
    assert "> uci" in lines and "< uciok" in lines and "> isready" in lines
    assert any(line.startswith("> position startpos moves d4 d2") for line in lines)
    assert f"< bestmove {record.termination.split()[-1].strip(chr(39))}" in lines


STUBBORN = """import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin:
    if line.startswith("uci"):
        print("id name stubborn", flush=True)
        print("uciok", flush=True)
while True:  # deaf to the end of its input
    time.sleep(1)
"""

HOLDER = """import sys, time
from heurtune.engine.process import EngineProcess, ProcessSpec, handshake
proc = EngineProcess(ProcessSpec((sys.executable, sys.argv[1])))
handshake(proc)
open(sys.argv[2], "w").write(str(proc.proc.pid))
time.sleep(3600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
def test_an_engine_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    """A worker killed by SIGKILL runs no cleanup; its engine, deaf to the end of
    its input, must not outlive it."""
    import os
    import signal
    import subprocess
    import time

    engine = tmp_path / "stubborn.py"
    engine.write_text(STUBBORN)
    holder = tmp_path / "holder.py"
    holder.write_text(HOLDER)
    pid_file = tmp_path / "engine.pid"
    worker = subprocess.Popen([sys.executable, str(holder), str(engine), str(pid_file)])
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()):
            assert worker.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        assert _alive(pid)
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid)
    finally:
        worker.kill()


def test_one_process_per_engine_reads_its_options_and_plays(tmp_path: Path) -> None:
    """The engine started to read its options is the one that then plays."""
    from heurtune.engine import process

    cfg = fake()
    kernel = get_game("isolation")
    engine = Engine(cfg)
    idle = process._IDLE.get((cfg.process, "isolation"))
    engine.new_game()
    assert engine.player is not None and engine.player.proc is not None
    if idle is not None:  # this process described it first: the same process plays
        assert engine.player.proc is idle
    assert (cfg.process, "isolation") not in process._IDLE
    record = play_game(kernel, {}, (engine, Engine(preset("isolation:random"))), (24, 10), 1)
    assert len(record.moves) > 2


def test_the_protocol_log_names_the_process_of_every_line(tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "noisy.py"
    script.write_text(FAKE.read_text().replace(
        'print("id name fake")', 'print("id name fake")\n            '
        'print("a warning on stderr", file=sys.stderr, flush=True)'))
    log = tmp_path / "proto.log"
    monkeypatch.setenv("HEURTUNE_PROTOCOL_LOG", str(log))
    cfg = EngineConfig.from_dict({"game": "isolation", "name": "noisy", "process": {
        "command": [sys.executable, str(script)]}, "search": {"nodes": 10}})
    record, _ = _game(cfg)
    assert len(record.moves) > 2
    import time

    deadline = time.monotonic() + 10
    while "a warning on stderr" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = log.read_text().splitlines()
    assert all(line.split()[0].isdigit() and line.split()[1] in "<>!" for line in lines)
    warning = next(line for line in lines if "a warning on stderr" in line)
    assert warning.split()[1] == "!"


def test_a_match_worker_keeps_one_process_per_side_across_trials() -> None:
    """A study's trials each bring new weights, so a new engine: the worker closes
    the process of the trial before instead of keeping one per trial."""
    from heurtune.engine import process
    from heurtune.match import runner

    for engine in runner._ENGINES.values():
        engine.close()
    runner._ENGINES.clear()
    opponent = fake().with_params({"weight": 0.25})
    try:
        for weight in (0.5, 1.0, 1.5, 0.75):
            result = runner._pair_task(fake().with_params({"weight": weight}), opponent, 0,
                                       (24, 10), seed=1)
            assert len(result.a_scores) == 2
            live = [e for e in runner._ENGINES.values() if e.config.process is not None]
            assert len(live) == 2  # this trial's engine and the opponent
            assert sum(not p._closed for p in process._LIVE) <= 2
    finally:
        for engine in runner._ENGINES.values():
            engine.close()
        runner._ENGINES.clear()
