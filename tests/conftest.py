import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--screenshots", default=None, metavar="DIR",
                     help="also save the browser tests' screenshots in DIR (docs/img: the "
                          "README's)")


@pytest.fixture(scope="session")
def small_study(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The tiny study, tuned (with its [confirm] section) and exported, with its
    dashboard artifacts beside the database."""
    from heurtune.cli import main

    d = tmp_path_factory.mktemp("small-study")
    (d / "iso.toml").write_text(SMALL_STUDY)
    here = os.getcwd()
    os.chdir(d)  # relative paths, as a user in the study's folder types them
    try:
        assert main(["tune", "iso.toml", "--storage", "sqlite:///h.db"]) == 0
        assert main(["export", "iso", "--storage", "sqlite:///h.db", "--out",
                     "iso-tuned.toml"]) == 0
    finally:
        os.chdir(here)
    return SimpleNamespace(dir=d, study_file=d / "iso.toml", storage=f"sqlite:///{d / 'h.db'}",
                           db=d / "h.db", artifacts=d / "h-artifacts",
                           exported=d / "iso-tuned.toml")


@pytest.fixture
def screenshots(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Where a browser test saves a screenshot: a path in its temporary folder,
    copied to ``--screenshots DIR`` after the test when that option is given."""
    saved: list[Path] = []

    def path(name: str) -> Path:
        p = tmp_path / "screenshots" / name
        saved.append(p)
        return p

    yield path
    target = request.config.getoption("--screenshots")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for p in saved:
            if p.exists():
                shutil.copy(p, Path(target) / p.name)
