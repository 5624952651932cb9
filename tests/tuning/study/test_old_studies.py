"""A study recorded before the 0.2 restructuring (tests/data/study-before-0.2.db:
the tiny Isolation study tuned, confirmed and exported by heurtune 0.1.0) reads
back the same: its trials table, its export, its verdict and setup, and a resume."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import optuna

import heurtune
from heurtune.tuning import StudySetup, Verdict
from heurtune.tuning.views import confirmation_line
from tests.helpers import ROOT, SMALL_STUDY, cli

DATA = ROOT / "tests" / "data"


def _copy(tmp_path: Path) -> str:
    db = tmp_path / "old.db"
    shutil.copy(DATA / "study-before-0.2.db", db)
    return f"sqlite:///{db}"


def test_the_old_trials_table_is_unchanged(tmp_path, capsys) -> None:
    code, out, _ = cli(capsys, "trials", "iso", "--storage", _copy(tmp_path))
    assert code == 0 and out == (DATA / "study-before-0.2.trials.txt").read_text()


def test_the_old_study_exports_the_same_engine(tmp_path, capsys) -> None:
    out = tmp_path / "again.toml"
    # its confirmation (6 pairs) showed no gain over the baseline: refused, then forced
    storage = _copy(tmp_path)
    code, _, err = cli(capsys, "export", "iso", "--storage", storage, "--out", str(out),
                       "--artifacts", str(tmp_path / "art"))
    assert code == 2 and "found no gain" in err and not out.exists()
    code, _, _ = cli(capsys, "export", "iso", "--storage", storage, "--out", str(out),
                     "--artifacts", str(tmp_path / "art"), "--force")
    assert code == 0
    assert without_versions(out.read_text()) == (
        DATA / "study-before-0.2.exported.toml").read_text()


# An export stamps [provenance] with what made it: the versions installed here and
# the day. The golden file leaves them out (a fresh install gets today's Optuna);
# each is required once, with this machine's value, and the rest compared byte for
# byte (the confirmation's own date, stored in the study, included).
INSTALLED = {"heurtune_version": heurtune.__version__, "optuna_version": optuna.__version__}
TODAY = re.compile(r'date = "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"\n')


def without_versions(text: str) -> str:
    kept, stamps, section = [], [], ""
    for line in text.splitlines(keepends=True):
        key = line.split(" = ", 1)[0]
        if line.startswith("["):
            section = line.strip()
        if section == "[provenance]" and key in INSTALLED:
            assert line == f'{key} = "{INSTALLED[key]}"\n', line
            stamps.append(key)
        elif section == "[provenance]" and key == "date":
            assert TODAY.fullmatch(line), line
            stamps.append(key)
        elif not line.startswith("# Play it:"):  # names the file where it was written
            kept.append(line)
    assert sorted(stamps) == ["date", *sorted(INSTALLED)], stamps
    return "".join(kept)


def test_the_old_verdict_and_setup_read_through_the_schema(tmp_path) -> None:
    study = optuna.load_study(study_name="iso", storage=_copy(tmp_path))
    verdict = Verdict.of(study.user_attrs)
    assert verdict is not None and verdict.winner.label in {c.label for c in verdict.candidates}
    assert verdict.completed_trials == 5 and verdict.winner.games == 2 * verdict.pairs
    setup = StudySetup.of(study.user_attrs, "iso")
    assert (setup.pairs, setup.seed, setup.by_symmetry, setup.every_class) == (4, 3, True, False)
    assert confirmation_line(study, "iso", 5).startswith(f"winner {verdict.winner.label}")


def test_the_old_study_resumes(tmp_path, capsys) -> None:
    sf = tmp_path / "iso.toml"
    sf.write_text(SMALL_STUDY)
    code, out, _ = cli(capsys, "tune", str(sf), "--storage", _copy(tmp_path),
                       "--artifacts", str(tmp_path / "art"))
    assert code == 0 and "study 'iso' already has 5 finished trials" in out
    assert "is confirmed already" in out
