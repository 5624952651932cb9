"""The ``heurtune`` command line: parse, call, print.

Every command is a :class:`~heurtune.cli._common.Command` (its arguments beside
its action) in a module of this package, and one line of :data:`COMMANDS`.
Every user error ends as one line ``heurtune: error: ...`` on stderr and exit
code 2; an interrupted run exits 130 (finished trials are already stored).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence

from heurtune import __version__
from heurtune.cli import games, matches, positions, results, storage, studies
from heurtune.cli._common import Command, Parser
from heurtune.errors import HeurtuneError

# the commands, in the order ``heurtune --help`` lists them
COMMANDS: tuple[type[Command], ...] = (
    games.Perft,
    matches.Match,
    matches.Replay,
    matches.Tournament,
    matches.Book,
    positions.Positions,
    studies.Tune,
    studies.Calibrate,
    studies.Screen,
    storage.StorageProxy,
    results.Confirm,
    results.Export,
    results.Report,
    results.Trials,
    results.DashboardCommand,
    games.Bench,
    games.List,
)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (the running trial is marked failed)."""


def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated()


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="heurtune", description="Tune game-AI heuristics by self-play with Optuna.")
    p.add_argument("--version", action="version", version=f"heurtune {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for kind in COMMANDS:
        command = kind()
        s = sub.add_parser(command.name, help=command.help)
        command.add_arguments(s)
        s.set_defaults(command_object=command)
    return p


class _Lines(logging.Handler):
    """The ``heurtune`` logger's records as ``heurtune: ...`` lines on stderr
    (``heurtune: warning: ...`` for warnings), written around a progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        kind = "warning: " if record.levelno >= logging.WARNING else ""
        tqdm.write(f"heurtune: {kind}{record.getMessage()}", file=sys.stderr)


def _say_progress() -> None:
    """Show the library's notices (compiling, warnings) while a command runs."""
    log = logging.getLogger("heurtune")
    if not any(isinstance(h, _Lines) for h in log.handlers):
        log.addHandler(_Lines())
    log.setLevel(logging.INFO)
    log.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stderr is None:  # started with `2>&-`: messages go nowhere
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (open for the process's life)
    if sys.stdout is None:  # started with `>&-`
        print("heurtune: error: standard output is closed", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    _say_progress()
    command: Command = args.command_object
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = int(command.run(args))
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except HeurtuneError as exc:
        print(f"heurtune: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, Terminated) else "interrupted"
        detail = (" (a running trial is marked failed; finished trials are stored; the same "
                  "command resumes)" if command.resumable else "")
        print(f"heurtune: {what}{detail}", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except BrokenPipeError:  # output piped into `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        from heurtune.tuning import storage_failure

        line = storage_failure(exc)
        if line is None:  # a bug: its traceback
            raise
        print(f"heurtune: error: {line}; what was stored before is intact", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


__all__ = ["COMMANDS", "Command", "build_parser", "main"]
