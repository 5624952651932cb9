"""Game records as PGN, the format chess tools read (and other games' viewers too).

:func:`pgn_text` writes game records (:mod:`heurtune.match.records`) in PGN
export format: the seven-tag roster (``Event``, ``Site``, ``Date``, ``Round``,
``White``, ``Black``, ``Result``), ``Termination`` in PGN's words
(``normal``, ``adjudication``, ``time forfeit``, ``rules infraction``,
``abandoned``), the start position (``SetUp``/``FEN``) and the game's own tags
(its kernel's ``record_tags`` hook: chess says ``Variant "Chess960"``), and
heurtune's own: each player's option values (``WhiteParams``,
``BlackParams``), the opening's source (``Opening`` is left to ECO names), the
reason in words (``TerminationDetails``). Moves are written as the game writes
them for records (chess: SAN), the last opening move followed by ``{book}``,
each engine move by its own score where it sent one (``{+0.31}``, in pawns, as
cutechess writes it), and the game by its termination's reason as a comment.

Chess records read back with python-chess (``chess.pgn.read_game``); the tests
do exactly that.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.play import PairResult
from heurtune.match.records import pair_records, record_start
from heurtune.match.runner import MatchSpec
from heurtune.tomlio import write_atomic

LINE = 79  # PGN export format's longest line
FAULT_TERMINATION = {"illegal": "rules infraction", "garbage": "rules infraction",
                     "timeout": "time forfeit", "time": "time forfeit", "crash": "abandoned"}


def _tag(name: str, value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _params(values: Mapping[str, Any] | None) -> str:
    if not values:
        return ""
    return "; ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in values.items())


def termination_tag(record: Mapping[str, Any]) -> str:
    """PGN's ``Termination`` value of a record: why it ended, in PGN's words."""
    if record.get("fault"):
        return FAULT_TERMINATION.get(str(record["fault"]), "abandoned")
    if str(record.get("termination", "")).startswith("adjudicated"):
        return "adjudication"
    return "normal"


def _wrap(tokens: Iterable[str]) -> list[str]:
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return lines


def game_pgn(record: Mapping[str, Any], event: str = "heurtune match", site: str = "heurtune",
             date: str | None = None, params: Sequence[Mapping[str, Any] | None] = (None, None),
             source: str = "") -> str:
    """One record as a PGN game. ``params``: the first and second player's option
    values (tags ``WhiteParams``/``BlackParams``, or the side names' for other
    games); ``source``: where its opening came from."""
    kernel = get_game(record["game"])
    where = f"{record['players'][0]} vs {record['players'][1]}"
    state = record_start(kernel, record, where)
    start = str(record.get("start", ""))
    white, black = kernel.side_names
    tags = {
        "Event": event, "Site": site,
        "Date": date or datetime.date.today().strftime("%Y.%m.%d"),
        "Round": f"{int(record['pair']) + 1}.{int(record['round']) + 1}",
        "White": record["players"][0], "Black": record["players"][1],
        "Result": record["result"],
        **kernel.pgn_tags(record["rules"], start),
        "Termination": termination_tag(record),
        "TerminationDetails": record["termination"],
    }
    for name, values in zip((white, black), params, strict=True):
        listed = _params(values)
        if listed:
            tags[f"{name.replace(' ', '')}Params"] = listed
    if source:
        tags["OpeningSource"] = source
    opening = list(record["opening"])
    texts = opening + list(record["moves"])
    scores = list(record.get("scores", ()))
    tokens: list[str] = []
    number = 1  # move numbers count from 1 at the start position, White's moves first
    for ply, text in enumerate(texts):
        try:
            move = kernel.parse_move(state, text)
        except HeurtuneError:
            raise HeurtuneError(f"{where}: ply {ply + 1} {text!r} is not a legal "
                                f"{kernel.name} move there") from None
        side = int(kernel.side_to_move(state))
        if side == 0:
            if ply > 0:
                number += 1
            tokens.append(f"{number}.")
        elif ply == 0:
            tokens.append(f"{number}...")
        tokens.append(kernel.record_text(state, move))
        kernel.make_move(state, move)
        if ply == len(opening) - 1:
            tokens.append("{book}")
        elif ply >= len(opening):
            k = ply - len(opening)
            if k < len(scores) and scores[k] is not None:
                tokens.append(f"{{{scores[k] / 100:+.2f}}}")
    tokens.append("{" + str(record["termination"]).replace("}", ")") + "}")
    tokens.append(record["result"])
    head = [_tag(k, v) for k, v in tags.items()]
    return "\n".join(head) + "\n\n" + "\n".join(_wrap(tokens)) + "\n"


def pgn_text(records: Sequence[Mapping[str, Any]], event: str = "heurtune match",
             params: Mapping[str, Mapping[str, Any]] | None = None,
             sources: Mapping[int, str] | None = None, date: str | None = None) -> str:
    """Every record as a PGN game, in order. ``params`` maps a player's label to
    its option values; ``sources`` a pair's index to its opening's source."""
    params = params or {}
    sources = sources or {}
    games = []
    for record in records:
        players = record["players"]
        games.append(game_pgn(record, event, date=date,
                              params=(params.get(players[0]), params.get(players[1])),
                              source=sources.get(int(record["pair"]), "")))
    return "\n".join(games)


def match_pgn(spec: MatchSpec, pairs: Sequence[PairResult],
              records: Sequence[Mapping[str, Any]] | None = None,
              event: str = "heurtune match") -> str:
    """The games of a match's pairs (played with ``keep_games``) as PGN, each
    player's options where they differ from its engine's defaults."""
    if records is None:
        records = pair_records(spec, pairs)
    params = {cfg.label: changed_params(cfg) for cfg in (spec.b, spec.a)}
    sources = {p.index: getattr(p.opening, "source", "") for p in pairs}
    return pgn_text(records, event, params, sources)


def changed_params(config: EngineConfig) -> dict[str, Any]:
    """``config``'s parameters that differ from its heuristic's (or engine's) defaults."""
    defaults = config.heuristic_obj.space.defaults()
    return {k: v for k, v in config.params.items() if defaults.get(k) != v}


def write_pgn(path: str | os.PathLike[str], text: str) -> None:
    """Write a PGN file atomically."""
    write_atomic(path, text)


def append_pgn(path: str | os.PathLike[str], text: str) -> None:
    """Add games to a PGN file (one write: a PGN file is a sequence of games, so
    writers that append whole texts interleave only whole games)."""
    if not text:
        return
    try:
        with open(path, "a", encoding="utf-8") as out:
            out.write(text if text.endswith("\n\n") else text + "\n")
    except OSError as exc:
        raise HeurtuneError(f"cannot write {path}: {exc.strerror or exc}") from None


__all__ = ["append_pgn", "changed_params", "game_pgn", "match_pgn", "pgn_text",
           "termination_tag", "write_pgn"]
