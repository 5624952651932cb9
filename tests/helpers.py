"""What many test files share: running the command line, a file's digest (to
show stored data unchanged), loading a benchmark script as a module, and the
[params] block of a tiny Isolation study."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from heurtune.cli import main
from heurtune.games import game_entry, game_names

ROOT = Path(__file__).resolve().parents[1]  # the repository


def load_script(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` loaded as a module of that name (registered in
    ``sys.modules``, where its dataclasses look themselves up; its own folder on the
    path, for the scripts that import each other)."""
    script = ROOT / "benchmarks" / f"{name}.py"
    if str(script.parent) not in sys.path:
        sys.path.insert(0, str(script.parent))
    spec = importlib.util.spec_from_file_location(name, script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def builtin_games() -> list[str]:
    """heurtune's own games (plugins installed beside it, such as the examples
    CI installs, have their own tests: tests/plugins, and their package's)."""
    return [g for g in game_names() if game_entry(g).target.startswith("heurtune.")]

# the weighted family with every weight pinned but own_end, opp_start and opp_end:
# trials that search three numbers play quickly
ISOLATION_PINS = """[params]
own2 = 0.0
opp2 = 0.0
centrality = 0.0
distance = 0.0
region = 0.0
partition = 0.0
territory = 0.0
contested = 0.0
resolution = 0.0
own_start = 1.0
"""


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``heurtune ARGV``: its exit code, standard output and standard error."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def digest(path: Path) -> str:
    """The file's SHA-256 ("absent" where there is none)."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"


# A tiny Isolation study (the fastest game) that the dashboard, report and
# browser tests share: a few trials of a few pairs, confirmed and exported.
SMALL_STUDY = """
[study]
name = "iso"
game = "isolation"
opponent = "isolation:ab_open"
trials = 5
pairs = 4
seed = 3
jobs = 1
sampler = "tpe"

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 64
nodes = 500

[params]
own_start = { low = 0.0, high = 3.0 }
opp_start = { low = 0.0, high = 3.0 }
own_end = { low = 0.0, high = 3.0 }
opp_end = { low = 0.0, high = 3.0 }
contested = 0.0
resolution = 0.0

[pruner]
kind = "checkpoint"
alpha = 0.3

[confirm]
top = 2
pairs = 4
"""
