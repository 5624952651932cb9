"""Every study file and engine configuration shipped under studies/ loads and validates."""

from __future__ import annotations

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
