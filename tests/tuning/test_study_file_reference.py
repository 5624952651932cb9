"""docs/study-file.md is the one reference of the study-file format: its tables
must list exactly the keys the parser accepts, section by section, and every
sampler's options."""

from __future__ import annotations

import re
from dataclasses import fields

from heurtune.engine import SearchSettings
from heurtune.tuning.samplers import SAMPLERS
from heurtune.tuning.studyfile import SECTION_KEYS
from tests.helpers import ROOT

DOC = (ROOT / "docs" / "study-file.md").read_text()


def _tables() -> dict[str, set[str]]:
    """Heading -> the backticked first cells of the table rows below it."""
    out: dict[str, set[str]] = {}
    heading = ""
    for line in DOC.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            out.setdefault(heading, set())
            continue
        m = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if m and heading:
            out[heading].add(m.group(1))
    return out


TABLES = _tables()


def test_every_section_is_documented() -> None:
    assert {f"[{s}]" for s in SECTION_KEYS[""]} == TABLES["Sections"]


def test_every_key_is_documented_and_nothing_else() -> None:
    for section in ("study", "engine", "pruner", "confirm", "positions"):
        assert TABLES[f"`[{section}]`"] == set(SECTION_KEYS[section]), section


def test_the_search_settings_are_documented() -> None:
    assert TABLES["`[engine.search]`"] == {f.name for f in fields(SearchSettings)}


def test_every_sampler_and_its_options_are_documented() -> None:
    # the options a study file may set (a sampler's constants are not among them)
    for name, kind in SAMPLERS.items():
        assert TABLES[f'sampler = "{name}"'] == set(kind.file_options), name
    documented = {h.split('"')[1] for h in TABLES if h.startswith("sampler = ")}
    assert documented == set(SAMPLERS)
