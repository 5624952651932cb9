import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.helpers import SMALL_STUDY


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C as a terminal sends it, even where the suite was started in the
    background: a shell's background job (``(pytest &)``) inherits SIGINT
    ignored, and so would every process the tests start, so the tests of what
    Ctrl-C does would wait for a signal that never lands. A Python handler is
    not inherited across exec, so the processes they start get the default too."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``last`` run after the others (pytest-xdist hands tests out in
    this order): the cache-reload test plays every heuristic's search in fresh
    processes, and there it finds them compiled by the tests before it, not
    compiling them all itself (on two cores from a fresh clone: 115 s run among
    the first, 11 s run last)."""
    items.sort(key=lambda item: item.get_closest_marker("last") is not None)


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
                     "iso-tuned.toml", "--force"]) == 0  # (a tiny study: no gain shown)
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


StudyFileFactory = Callable[..., Path]


@pytest.fixture
def study_file(tmp_path: Path) -> StudyFileFactory:
    """A study-file factory: ``study_file(name, study={...}, engine={...}, ...)``
    writes ``NAME.toml`` in the test's folder and returns its path. Each keyword
    is a section (``search`` and ``rules`` are ``[engine.search]`` and
    ``[engine.rules]``); ``study`` keys are added to a ``name`` and ``game``
    default (Isolation), ``engine`` keys to ``heuristic = "weighted"``; a key
    given as None is left out."""
    import tomli_w

    def write(name: str = "s", *, study: dict[str, Any] | None = None,
              engine: dict[str, Any] | None = None, search: dict[str, Any] | None = None,
              rules: dict[str, Any] | None = None, **sections: dict[str, Any]) -> Path:
        data: dict[str, Any] = {"study": {"name": name, "game": "isolation", **(study or {})}}
        eng: dict[str, Any] = {"heuristic": "weighted", **(engine or {})}
        if search:
            eng["search"] = search
        if rules:
            eng["rules"] = rules
        data["engine"] = eng
        data.update(sections)
        clean = {k: {kk: vv for kk, vv in v.items() if vv is not None} if isinstance(v, dict)
                 else v for k, v in data.items()}
        path = tmp_path / f"{name}.toml"
        path.write_text(tomli_w.dumps(clean))
        return path

    return write
