"""The command line: outputs, and one clear line plus exit 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import cli


def test_perft_morris_4(capsys) -> None:
    # a first run on a cold cache says on stderr that it compiles the perft kernel:
    # compile it first, so that the count is all the run prints
    assert cli(capsys, "perft", "morris", "1")[:2] == (0, "24\n")
    assert cli(capsys, "perft", "morris", "4") == (0, "255024\n", "")


@pytest.mark.slow
def test_console_script_perft() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "heurtune", "perft", "morris", "3"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0 and proc.stdout == "12144\n"


def test_starting_the_cli_imports_no_scipy_model_code(tmp_path) -> None:
    """Importing scipy.optimize and scipy.stats took most of every command's start
    (``heurtune --help``: 1.48 s with them, 0.51 s without, benchmarks/cli_start.py).
    The samplers import them where they use them, so the commands that never fit
    a model (help, export, trials...) start without them. numba imports scipy's
    top level itself (12 ms)."""
    probe = ("import sys; from heurtune.cli import main; "
             "code = main(['export', 'nope', '--storage', 'sqlite:///missing.db']); "
             "print(code, [m for m in ('scipy.optimize', 'scipy.stats') if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines()[-1] == "2 []"
    assert "does not exist" in proc.stderr and not (tmp_path / "missing.db").exists()


def test_match_json(capsys) -> None:
    code, out, _ = cli(capsys, "match", "morris:seed-ab", "morris:seed", "--pairs", "2",
                       "--seed", "1", "--json")
    data = json.loads(out)
    assert code == 0 and data["games"] == 4
    for key in ("wins", "draws", "losses", "games", "score", "score_ci", "elo", "elo_ci"):
        assert key in data


def test_match_text(capsys) -> None:
    code, out, _ = cli(capsys, "match", "morris:ab", "morris:seed", "--pairs", "2")
    assert code == 0 and "score" in out and "Elo" in out


def test_bench_json(capsys) -> None:
    code, out, _ = cli(capsys, "bench", "morris", "--depth", "3", "--positions", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["nodes"] > 0 and data["nodes_per_second"] > 0


def test_list(capsys) -> None:
    code, out, _ = cli(capsys, "list")
    assert code == 0 and "possible_mills" in out and "morris:seed" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["perft", "xiangqi", "2"], "unknown game 'xiangqi'"),
        (["perft", "morris", "x"], "invalid int value"),
        (["perft", "morris", "2", "--rule", "gravity=1"], "unknown rule 'gravity'"),
        (["match", "morris:nope", "morris:seed", "--pairs", "1"], "unknown preset 'morris:nope'"),
        (["match", "missing.toml", "morris:seed", "--pairs", "1"], "missing.toml: no such file"),
        (["match", "morris:seed", "morris:seed", "--pairs", "0"], "--pairs must be at least 1"),
        (["match", "morris:seed", "morris:seed", "--pairs", "x"], "--pairs takes a number or 'all'"),
        (["match", "morris:seed", "morris:seed"], "match needs --pairs N"),
        (["match", "morris:seed", "morris:seed", "--sprt", "5,5"], "SPRT needs elo0 < elo1"),
        (["match", "morris:seed", "morris:seed", "--sprt", "10,0"], "SPRT needs elo0 < elo1"),
        (["match", "morris:seed", "morris:seed", "--sprt", "1"], "--sprt takes ELO0,ELO1"),
        (["match", "morris:seed", "morris:seed", "--sprt", "0,nan"], "--sprt bounds must be finite"),
        (["match", "morris:seed", "morris:seed", "--sprt", "0,5", "--pairs", "3"],
         "give --max-pairs, not --pairs"),
        (["match", "morris:seed", "morris:seed", "--sprt", "0,5", "--max-pairs", "0"],
         "--max-pairs must be at least 1"),
        (["match", "morris:seed", "morris:seed", "--pairs", "3", "--max-pairs", "5"],
         "--max-pairs must be at least 1, with --sprt"),
        (["match", "morris:seed", "morris:seed", "--pairs", "1000000000"], "pairs must be in"),
        (["match", "morris:seed", "morris:seed", "--pairs", "1", "--seed", "-1"],
         "seed must be in [0, 4294967295]"),
        (["match", "morris:seed", "morris:seed", "--pairs", "1", "--seed", "4294967296"],
         "seed must be in"),
        (["match", "morris:seed", "morris:seed", "--pairs", "1", "--opening-plies", "-1"],
         "opening plies must be in"),
        (["tournament", "morris:seed", "--opponents", "morris:ab", "--pairs", "1",
          "--csv", "/etc/hostname/t.csv"], "is not a directory"),
        (["perft", "morris", "99"], "perft depth must be in [0, 12]"),
        (["bench", "morris", "--positions", "0"], "bench positions must be in"),
        (["bench", "morris", "--depth", "0"], "bench depth must be in"),
        (["dashboard", "--port", "-1"], "--port must be in"),
        (["dashboard", "--host", "0.0.0.0"], "--allow-remote"),
        (["export", "nope", "--out", "/tmp"], "is a directory"),
        (["export", "nope", "--out", "/etc/hostname/x.toml"], "is not a directory"),
        (["trials", "nope", "--csv", "/etc/hostname/x.csv"], "is not a directory"),
        (["tune", "missing.toml"], "missing.toml: no such file"),
        (["bench", "xiangqi"], "unknown game 'xiangqi'"),
        (["bench", "morris", "--heuristic", "nope"], "unknown heuristic 'nope'"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message) -> None:
    code, _, err = cli(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("heurtune: error: ")
    assert message in err


def test_output_piped_into_a_closed_reader_ends_quietly() -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as usual
    proc = subprocess.Popen([sys.executable, "-m", "heurtune", "list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head` exiting before heurtune writes
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err, err
