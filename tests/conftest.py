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

    if config.getoption("--all") and config.getoption("--rest"):
        raise pytest.UsageError("--all and --rest: give one (--rest is what --all adds)")
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# What the quick run (the README's `pytest`) leaves out: `pytest --rest` runs just
# these (CI runs them after the quick run), `pytest --all` everything.
LEFT_OUT = ("slow", "postgres", "browser", "toga")


def _quick(config: pytest.Config) -> bool:
    """Whether this is the quick run: none of --all, --rest and -m given, and no
    test named by its id (``FILE::TEST``: a test asked for by name runs, whatever
    its marks)."""
    return not (config.getoption("--all") or config.getoption("--rest")
                or config.option.markexpr or any("::" in arg for arg in config.args))


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.getoption("--rest"):
        return f"the rest: only the tests marked {', '.join(LEFT_OUT)}"
    if _quick(config):
        return (f"the quick run: tests marked {', '.join(LEFT_OUT)} are left out "
                "(pytest --all runs everything)")
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The quick run leaves out the tests marked slow, postgres, browser or toga, and
    ``--rest`` runs only those (CI runs the quick run, then ``--rest``).

    Tests marked ``last`` run after the others (pytest-xdist hands tests out in
    this order): the cache-reload test plays every heuristic's search in fresh
    processes, and there it finds them compiled by the tests before it, not
    compiling them all itself (on two cores from a fresh clone: 115 s run among
    the first, 11 s run last)."""
    rest = config.getoption("--rest")
    if rest or _quick(config):
        left = {item for item in items if any(item.get_closest_marker(m) for m in LEFT_OUT)}
        gone = [item for item in items if (item in left) != rest]
        if gone:
            config.hook.pytest_deselected(items=gone)
            items[:] = [item for item in items if (item in left) == rest]
    items.sort(key=lambda item: item.get_closest_marker("last") is not None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--all", action="store_true",
                     help="run every test, also those the quick run leaves out (marked "
                          f"{', '.join(LEFT_OUT)})")
    parser.addoption("--rest", action="store_true",
                     help="run only the tests the quick run leaves out (CI runs them "
                          "after it)")
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
