"""What a newcomer meets first: the commands that a hint names run as printed
(``--storage`` included where the storage is not the default), a message about
a storage names it (its password hidden), a storage URL no database could
answer is refused before any work, and every argument has a help text."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest

from heurtune.cli import build_parser
from heurtune.errors import HeurtuneError
from heurtune.tuning.study import (
    DEFAULT_STORAGE,
    check_storage_url,
    storage_option_text,
    storage_text,
    study_command,
)
from tests.helpers import SMALL_STUDY, cli


def _hinted(line: str) -> list[str]:
    """The arguments of the ``heurtune ...`` command between backticks in ``line``."""
    found = re.search(r"`heurtune ([^`]+)`", line)
    assert found is not None, line
    return shlex.split(found.group(1))


def test_the_hints_of_tune_name_the_storage_and_run_as_printed(tmp_path, capsys) -> None:
    """The quick-study flow: tune with --storage, then the command tune's last line
    names (export), then the other commands on the study, each with that storage."""
    url = f"sqlite:///{tmp_path / 'quick' / 'q.db'}"
    study = tmp_path / "iso.toml"
    study.write_text(SMALL_STUDY.replace("trials = 5", "trials = 3"))
    code, out, err = cli(capsys, "tune", str(study), "--storage", url)
    assert code == 0, err
    last = out.splitlines()[-1]
    assert f"`heurtune export iso --storage {url}`" in last, last
    exported = tmp_path / "e.toml"
    code, out, err = cli(capsys, *_hinted(last), "--out", str(exported), "--force")
    assert code == 0 and exported.exists(), err
    # resumed at its target: the next command is a fresh confirmation
    code, out, _ = cli(capsys, "tune", str(study), "--storage", url)
    assert code == 0 and f"`heurtune confirm iso --storage {url}` confirms it again" in out
    code, out, err = cli(capsys, *_hinted(out.splitlines()[-1]), "--pairs", "2", "--top", "1")
    assert code == 0, err


def test_tune_without_a_confirm_section_names_the_next_command(tmp_path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'q.db'}"
    study = tmp_path / "iso.toml"
    study.write_text(SMALL_STUDY.replace("trials = 5", "trials = 2").split("[confirm]")[0])
    code, out, err = cli(capsys, "tune", str(study), "--storage", url)
    assert code == 0, err
    last = out.splitlines()[-1]
    assert last.startswith(f"next: `heurtune confirm iso --storage {url}` re-plays"), last
    code, out, err = cli(capsys, *_hinted(last), "--pairs", "2", "--top", "1")
    assert code == 0, err


def test_the_default_storage_is_left_out_of_hints_and_a_password_is_hidden() -> None:
    assert storage_option_text(DEFAULT_STORAGE) == ""
    assert study_command("export", "s", DEFAULT_STORAGE) == "heurtune export s"
    assert study_command("export", "s", "sqlite:////tmp/q.db", "--pareto") == \
        "heurtune export s --pareto --storage sqlite:////tmp/q.db"
    assert storage_text("postgresql://ann:s3cret@db.example:5432/studies") == \
        "postgresql://ann:***@db.example:5432/studies"
    assert storage_text("postgresql://ann@db/studies") == "postgresql://ann@db/studies"
    assert study_command("report", "s", "postgresql://ann:p@w0rd@db/s") == \
        "heurtune report s --storage 'postgresql://ann:***@db/s'"


@pytest.mark.parametrize("command", [["trials"], ["export"], ["report"], ["confirm"]])
def test_no_study_names_the_storage(small_study, capsys, command) -> None:
    code, out, err = cli(capsys, *command, "nope", "--storage", small_study.storage)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"no study named 'nope' in {small_study.storage} (studies: iso)" in err


def test_no_study_in_the_default_storage_says_so(small_study, capsys, monkeypatch) -> None:
    monkeypatch.chdir(small_study.dir)
    (small_study.dir / "studies").mkdir(exist_ok=True)
    (small_study.dir / "studies" / "heurtune.db").write_bytes(small_study.db.read_bytes())
    code, _, err = cli(capsys, "export", "quick-gomoku")
    assert code == 2 and err.count("\n") == 1
    assert (f"no study named 'quick-gomoku' in {DEFAULT_STORAGE} (the default storage; give "
            "the --storage the study was tuned with) (studies: iso)") in err


@pytest.mark.parametrize("url,message", [
    ("postgres://ann:s3cret@localhost/db",
     "storage 'postgres://ann:***@localhost/db': write postgresql:// instead of postgres://"),
    ("postgres+psycopg://localhost/db", "write postgresql+psycopg:// instead of postgres+"),
    ("nosuchdb://x/y", "SQLAlchemy has no database 'nosuchdb'"),
    ("not a url", "storage 'not a url' is not a database URL"),
])
@pytest.mark.parametrize("command", [["tune", "STUDY"], ["trials", "iso"], ["export", "iso"],
                                     ["report", "iso"], ["confirm", "iso"], ["dashboard"],
                                     ["storage-proxy"]])
def test_a_storage_url_no_database_answers_is_refused_up_front(tmp_path, capsys, url, message,
                                                                command) -> None:
    study = tmp_path / "iso.toml"
    study.write_text(SMALL_STUDY)
    argv = [str(study) if a == "STUDY" else a for a in command]
    code, out, err = cli(capsys, *argv, "--storage", url)
    assert code == 2 and out == "", out  # no plan line, nothing done
    assert err.startswith("heurtune: error: ") and err.count("\n") == 1, err
    assert message in err and "s3cret" not in err, err


def test_the_library_refuses_it_too() -> None:
    with pytest.raises(HeurtuneError, match="write postgresql://"):
        check_storage_url("postgres://localhost/db")
    for fine in ("sqlite:///studies/heurtune.db", "postgresql://localhost/db",
                 "grpc://127.0.0.1:13000", "memory:x"):
        check_storage_url(fine)


def _actions(parser: argparse.ArgumentParser, path: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield f"{path} {choice.dest}", choice
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        else:
            yield f"{path} {'/'.join(action.option_strings) or action.dest}", action


def test_every_argument_of_every_command_has_a_help_text() -> None:
    actions = list(_actions(build_parser(), "heurtune"))
    assert len(actions) > 100  # every command's arguments are seen
    bare = [where for where, action in actions
            if not action.help or action.help == argparse.SUPPRESS or not action.help.strip()]
    assert bare == []
