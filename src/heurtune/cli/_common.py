"""What every command shares: the command contract, the parser, argument helpers."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, NoReturn

from heurtune.errors import HeurtuneError

STUDY_NAME_HELP = ("the study's name: its study file's [study] name, or tune's --study-name "
                   "(in the storage that --storage names)")
STUDY_FILE_HELP = ("the study file (TOML): the game, the engine and the parameters it searches, "
                   "the opponent, the budget (docs/study-file.md)")
GAME_HELP = "a game's name (`heurtune list` shows them)"
OPENING_PLIES_HELP = ("random plies that start every opening, the same for both games of a "
                      "pair (default: the game's)")
ARTIFACTS_HELP = ("the dashboard's artifact folder (default: beside a SQLite database, "
                  "studies/heurtune-artifacts for studies/heurtune.db; other storages: none)")


class Command:
    """One ``heurtune`` command: its name and help, its arguments beside its action.

    :meth:`run` only calls the library and prints; a user error is a
    :class:`HeurtuneError` (one line, exit 2). ``resumable``: an interrupted run
    leaves finished work stored and the same command resumes (said on Ctrl-C)."""

    name: ClassVar[str]
    help: ClassVar[str]
    resumable: ClassVar[bool] = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Declare the command's arguments."""

    def run(self, args: argparse.Namespace) -> int:
        """Do it; the exit code."""
        raise NotImplementedError


class Parser(argparse.ArgumentParser):
    """argparse with heurtune's one-line errors (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"heurtune: error: {message} (see {self.prog} --help)\n")


def rules(items: Sequence[str] | None) -> dict[str, str]:
    """``--rule KEY=VALUE`` options as a dict."""
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise HeurtuneError(f"--rule expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def elo_pair(text: str) -> tuple[float, float]:
    """``ELO0,ELO1`` as two numbers."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        elo0, elo1 = float(parts[0]), float(parts[1])
    except ValueError:
        raise HeurtuneError(f"--sprt takes ELO0,ELO1 (two numbers), got {text!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise HeurtuneError(f"--sprt bounds must be finite, got {text!r}")
    return elo0, elo1


def pairs_arg(text: str | None) -> int | Literal["all"] | None:
    """``--pairs``: a positive count, or ``all`` (every symmetry class of opening)."""
    if text is None:
        return None
    if text == "all":
        return "all"
    try:
        value = int(text)
    except ValueError:
        raise HeurtuneError(f"--pairs takes a number or 'all', got {text!r}") from None
    if value < 1:
        raise HeurtuneError(f"--pairs must be at least 1, got {value}")
    return value


def storage_option(parser: argparse.ArgumentParser) -> None:
    """``--storage URL``, the default storage unless given; ``memory:NAME`` (a
    storage inside one process, for the library's tests and simulations) is
    refused here, since nothing would be kept when the command ends, and so is a
    URL that no database could answer (``postgres://``, an unknown scheme, a
    missing driver): before the command does anything."""
    from heurtune.tuning import DEFAULT_STORAGE

    def url(text: str) -> str:
        from heurtune.tuning.study import check_storage_url

        if text.startswith("memory:"):
            raise argparse.ArgumentTypeError(
                f"{text!r} is a storage inside one process: nothing would be kept when the "
                "command ends (give a database URL, e.g. sqlite:///studies/heurtune.db)")
        try:
            check_storage_url(text)
        except HeurtuneError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    parser.add_argument("--storage", type=url, default=DEFAULT_STORAGE, metavar="URL",
                        help="the database that holds the studies: sqlite:///FILE, "
                             "postgresql://USER@HOST/DB, or grpc://HOST:PORT (a storage "
                             "proxy); every command on a study needs the --storage it was "
                             f"tuned with (default {DEFAULT_STORAGE})")


def jobs_value(text: str) -> int:
    """``--jobs N``: worker processes, in [1, MAX_JOBS] (checked before anything runs)."""
    from heurtune.match import check_jobs

    try:
        return check_jobs(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number, got {text!r}") from None
    except HeurtuneError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def path_value(text: str) -> str:
    """A file or folder option (``--out``, ``--games``, ``--pgn``, ``--artifacts``):
    an empty one names nothing, and would otherwise read as the option left out
    (the default path, or no file at all)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return text


def count(value: int, option: str) -> int:
    """A count option that must be at least 1."""
    if value < 1:
        raise HeurtuneError(f"{option} must be at least 1, got {value}")
    return value


def progress(total: int | None, desc: str) -> Any:
    """A progress bar on stderr (off when stderr is no terminal)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="pair", file=sys.stderr, disable=None, leave=False)


def openings_option(parser: argparse.ArgumentParser, what: str = "the match") -> None:
    """``--openings FILE``: an opening book to draw from instead of random openings."""
    parser.add_argument(
        "--openings", default=None, metavar="FILE",
        help=f"an opening book {what} draws its openings from instead of random ones: EPD "
             "or PGN (chess), or a line of moves per opening in the game's notation; "
             "heurtune:chess-balanced is the chess book heurtune ships")


def adjudication_options(parser: argparse.ArgumentParser) -> None:
    """``--draw``, ``--resign``, ``--max-plies``: when the referee ends a game early."""
    parser.add_argument(
        "--draw", default=None, metavar="MOVE,MOVES,CP",
        help="adjudicate a draw once both engines' own scores have stayed within +-CP "
             "centipawns for MOVES moves each, from move MOVE on (cutechess's -draw "
             "movenumber=MOVE movecount=MOVES score=CP; fishtest: 34,8,20)")
    parser.add_argument(
        "--resign", default=None, metavar="MOVES,CP",
        help="adjudicate a loss once an engine's own score has stayed at or below -CP "
             "centipawns for MOVES of its moves (cutechess's -resign; fishtest: 3,400)")
    parser.add_argument("--max-plies", type=int, default=0, metavar="N",
                        help="adjudicate a draw after N plies (default: no maximum)")


def _ints(text: str, count: int, option: str, names: str) -> list[int]:
    parts = text.split(",")
    try:
        if len(parts) != count:
            raise ValueError
        values = [int(x) for x in parts]
    except ValueError:
        raise HeurtuneError(f"{option} takes {names} (whole numbers), got {text!r}") from None
    if any(v < 0 for v in values):
        raise HeurtuneError(f"{option}: the numbers must not be negative, got {text!r}")
    return values


def adjudication(args: argparse.Namespace) -> Any:
    """The :class:`~heurtune.match.play.Adjudication` the options ask for (None: none)."""
    from heurtune.match.play import Adjudication

    if not (args.draw or args.resign or args.max_plies):
        return None
    draw = _ints(args.draw, 3, "--draw", "MOVE,MOVES,CP") if args.draw else [0, 0, 0]
    resign = _ints(args.resign, 2, "--resign", "MOVES,CP") if args.resign else [0, 0]
    if args.max_plies < 0:
        raise HeurtuneError(f"--max-plies must not be negative, got {args.max_plies}")
    return Adjudication(draw_after=draw[0], draw_moves=draw[1], draw_score=draw[2],
                        resign_moves=resign[0], resign_score=resign[1],
                        max_plies=args.max_plies)


def warn(message: str) -> None:
    print(f"heurtune: warning: {message}", file=sys.stderr)
