"""What ships loads and reads as a product: every study file and engine configuration under
studies/ validates, and no file names the work steps it was made in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heurtune.engine.config import resolve_engine
from heurtune.games import game_names
from heurtune.tuning.studyfile import load_study_file

STUDIES = Path(__file__).resolve().parent.parent / "studies"


@pytest.mark.parametrize("path", sorted([*STUDIES.glob("*.toml"), *STUDIES.glob("quick/*.toml")]),
                         ids=lambda p: str(p.relative_to(STUDIES)))
def test_study_files_load(path: Path) -> None:
    sf = load_study_file(path)
    assert sf.base.game in game_names()
    assert sf.match_spec().openings()  # its openings can be drawn


@pytest.mark.parametrize(
    "path", sorted([*STUDIES.glob("exported/*.toml"), *STUDIES.glob("engines/*.toml")]),
    ids=lambda p: p.name,
)
def test_engine_files_load(path: Path) -> None:
    config = resolve_engine(str(path))
    space = config.heuristic_obj.space
    space.validate(dict(config.params))  # every weight in bounds, every name known
    assert set(config.params) <= set(space.names)


def test_polish_study_starts_from_the_refined_engine() -> None:
    sf = load_study_file(STUDIES / "isolation-polish.toml")
    refined = resolve_engine(str(STUDIES / "exported" / "isolation-refine.toml"))
    assert all(sf.start_params[k] == refined.params[k] for k in sf.start_params)


@pytest.mark.parametrize("name", ["isolation.toml", "isolation-refine.toml"])
def test_recorded_isolation_studies_keep_their_search_space(name: str) -> None:
    """The family grew after these studies ran; their files pin what they searched."""
    sf = load_study_file(STUDIES / name)
    searched = {p.name: (p.low, p.high) for p in sf.space.searched}
    assert "contested" not in searched and "resolution" not in searched
    if name == "isolation.toml":
        assert searched["own_start"] == (0.0, 3.0) and searched["centrality"] == (-1.0, 1.0)


# -- words about how the project was made ------------------------------------------------
# The product names a change by its version or its date, never by the work step or the
# sitting it was made in ("research/" holds the record of that). The words are put together
# here so that this file does not match itself.
_STEP, _SITTING = "st" + "op", "sess" + "ion"
PROCESS_WORDS = re.compile(
    rf"\b(?:{_STEP}|{_SITTING})s?[\s-]+\d+(?![.\d])"  # a numbered one (in a link's anchor too)
    rf"|\bthis\s+(?:{_STEP}|{_SITTING})\b"  # the unnumbered form, "this <step>"
    rf"|\bwork\s+{_SITTING}\b",
    re.IGNORECASE,
)
ROOT = STUDIES.parent
SCANNED = ("README.md", "CHANGELOG.md", "src", "tests", "docs", "examples", "benchmarks")
SKIPPED_DIRS = {"__pycache__", "build", "dist", "node_modules"}


def _shipped_text_files() -> list[Path]:
    """The text files under SCANNED (build outputs, caches and binaries left out)."""
    files: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in candidates:
            parts = path.relative_to(ROOT).parts
            if (not path.is_file() or any(p.startswith(".") or p in SKIPPED_DIRS
                                          or p.endswith(".egg-info") for p in parts)
                    or path.stat().st_size > 4_000_000):
                continue
            data = path.read_bytes()
            if b"\0" in data[:8192]:
                continue
            files.append(path)
    return files


def test_no_words_about_how_the_project_was_made() -> None:
    """No numbered work steps or sittings in the product, its docs and tests: a change is
    named by its version (the CHANGELOG) or its date. Fails naming every file:line."""
    hits = []
    for path in _shipped_text_files():
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for m in PROCESS_WORDS.finditer(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {m.group(0)!r}")
    assert not hits, "words about how the project was made:\n" + "\n".join(hits)


@pytest.mark.parametrize("text", ["since st" + "op 49", "(St" + "ops 47 to 50)",
                                  "in this st" + "op", "a work sess" + "ion",
                                  "Sess" + "ion 3", "optimisers.md#the-rule-st" + "op-45"])
def test_the_process_words_are_caught(text: str) -> None:
    assert PROCESS_WORDS.search(text)


@pytest.mark.parametrize("text", ["corrected for the stop: Elo +64.5",
                                  "it stops 2.5 to 4 Elo short",
                                  'scope="session"', "stop_sd = 2"])
def test_ordinary_uses_pass(text: str) -> None:
    assert not PROCESS_WORDS.search(text)
