"""Plugins that misbehave as they load, as installed packages do: whatever a
plugin's import raises (``sys.exit``, ``KeyboardInterrupt``, any exception) is
one error line naming it, while a Ctrl-C or SIGTERM that arrives meanwhile still
interrupts; and a plugin cannot take a built-in game's name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heurtune.games import registry
from tests.helpers import cli

# a whole plain-Python game (take one or two stones; who takes the last wins)
GAME = '''
from heurtune.games import LOSS, ONGOING, PythonGame


class Take(PythonGame):
    name = "{name}"
    description = "take one or two of five stones (a test plugin)"

    def new_state(self, rules):
        return [5, 0]

    def legal_moves(self, state):
        return [m for m in (1, 2) if m <= state[0]]

    def play(self, state, move):
        state[0] -= move
        state[1] ^= 1

    def undo(self, state, move):
        state[0] += move
        state[1] ^= 1

    def result(self, state):
        return LOSS if state[0] == 0 else ONGOING

    def to_move(self, state):
        return state[1]

    def key(self, state):
        return tuple(state)


GAME = Take()
HEURISTICS = ()
PRESETS = {{}}
'''


def install(folder: Path, package: str, game: str, module: str, source: str) -> Path:
    """``package`` as pip leaves an installed package: its module, and its
    metadata declaring the entry point ``game = module`` (group heurtune.games)."""
    info = folder / f"{package}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[heurtune.games]\n{game} = {module}\n")
    (folder / f"{module}.py").write_text(source)
    return folder


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Install test plugins on the path and have the registry read the entry
    points afresh (each test's own; the previous registry comes back after)."""
    monkeypatch.setattr(registry, "_FOUND", None)
    monkeypatch.setattr(registry, "_PROBLEMS", {})
    monkeypatch.setattr(registry, "_SAID", set(), raising=False)
    monkeypatch.setattr(registry, "_KERNELS", {})
    monkeypatch.syspath_prepend(str(tmp_path))

    def add(package: str, game: str, module: str, source: str) -> Path:
        return install(tmp_path, package, game, module, source)

    return add


@pytest.mark.parametrize("source,said", [
    ("import sys\nsys.exit(3)\n", "(its import called sys.exit(3))"),
    ("import sys\nsys.exit('no board')\n", "(its import called sys.exit('no board'))"),
    ("raise SystemExit\n", "(its import called sys.exit(None))"),
    ("raise KeyboardInterrupt\n", "(its import raised KeyboardInterrupt, with no Ctrl-C)"),
    ("raise GeneratorExit('odd')\n", "(its import raised GeneratorExit: odd)"),
    ("class Stop(BaseException):\n    pass\n\nraise Stop('mine')\n",
     "(its import raised Stop: mine)"),
])
def test_a_plugin_that_exits_or_interrupts_as_it_loads_is_one_error_line(
        installed: Any, capsys: Any, source: str, said: str) -> None:
    module = f"faulty_{abs(hash(source)) % 10**8}"
    installed("faulty-games", "faulty", module, source)
    code, out, err = cli(capsys, "list", "faulty")
    assert (code, out) == (2, "")
    assert err == (f"heurtune: error: game 'faulty' (entry point of faulty-games): cannot load "
                   f"{module} {said}\n")
    code, out, err = cli(capsys, "perft", "faulty", "1")
    assert code == 2 and err.count("\n") == 1 and said in err
    # `list` shows every other game, and this one as unusable
    code, out, err = cli(capsys, "list")
    assert code == 0 and err == "", err
    assert f"faulty: cannot be used: game 'faulty' (entry point of faulty-games): " \
           f"cannot load {module} {said}\n" in out
    assert "isolation: Isolation" in out


@pytest.mark.parametrize("sig,code,word", [("SIGINT", 130, "interrupted"),
                                           ("SIGTERM", 143, "terminated")])
def test_a_signal_that_arrives_while_a_plugin_loads_still_stops_the_command(
        installed: Any, capsys: Any, sig: str, code: int, word: str) -> None:
    """A signal sent while the import runs: the user's, not the plugin's."""
    module = f"slow_{sig.lower()}"
    installed("slow-games", "slow", module,
              f"import os, signal, time\nos.kill(os.getpid(), signal.{sig})\n"
              "time.sleep(5)\n" + GAME.format(name="slow"))
    got, out, err = cli(capsys, "list", "slow")
    assert (got, out) == (code, "") and err == f"heurtune: {word}\n"
    import signal

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it was


@pytest.mark.parametrize("builtin", ["chess", "gomoku", "halma", "isolation", "morris"])
def test_a_plugin_cannot_take_a_builtin_games_name(installed: Any, capsys: Any,
                                                   builtin: str) -> None:
    # "aaa" sorts before "heurtune.games.*": the order entry points came in chose it
    installed("impostor-games", builtin, f"aaa_{builtin}", GAME.format(name=builtin))
    warning = (f"package 'impostor-games' declares a game '{builtin}' (aaa_{builtin}), the "
               f"name of a game built into heurtune (package 'heurtune'): heurtune keeps its "
               f"own {builtin}; the plugin's game needs another entry point name")
    code, out, err = cli(capsys, "list", builtin)
    assert code == 0 and err == ""
    assert out.startswith(f"{builtin}: ") and "take one or two" not in out
    assert f"[{'plain Python' if builtin == 'chess' else 'numba kernel'}; entry point of " \
           f"heurtune]" in out.splitlines()[0]
    assert out.endswith(f"warning: {warning}\n")
    code, out, err = cli(capsys, "list")
    assert code == 0 and out.count(warning) == 1 and err == ""
    # on first use (as a fresh process: nothing said, nothing loaded), once
    registry._SAID.clear()
    registry._KERNELS.clear()
    perft = {"chess": "20", "gomoku": "225", "halma": "40", "isolation": "49",
             "morris": "24"}[builtin]
    for said in ([f"heurtune: warning: {warning}"], []):
        code, out, err = cli(capsys, "perft", builtin, "1")
        lines = [line for line in err.splitlines() if not line.startswith("heurtune: compil")]
        assert (code, out, lines) == (0, f"{perft}\n", said)


def test_a_plugin_that_takes_a_builtin_name_is_said_in_a_real_run(tmp_path: Path) -> None:
    """The same, installed on PYTHONPATH of a fresh ``heurtune`` process."""
    install(tmp_path, "impostor-games", "isolation", "aaa_isolation",
            GAME.format(name="isolation"))
    install(tmp_path, "exiting-games", "exits", "exits_module", "import sys\nsys.exit(0)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-m", "heurtune", "perft", "isolation", "1"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert (run.returncode, run.stdout) == (0, "49\n"), run.stderr
    assert run.stderr.startswith("heurtune: warning: package 'impostor-games' declares a game "
                                 "'isolation' (aaa_isolation)")
    run = subprocess.run([sys.executable, "-m", "heurtune", "list", "exits"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == ("heurtune: error: game 'exits' (entry point of exiting-games): "
                          "cannot load exits_module (its import called sys.exit(0))\n")
