"""Game records: the games of a match as a JSON Lines file, and their replay.

One line per game, in pair order (A moving first, then B, for each opening),
so a match's file is the same for every ``jobs``::

    {"game": "isolation", "rules": {}, "players": ["isolation:ab_improved",
     "isolation:ab_open"], "pair": 0, "round": 0, "seed": 1,
     "opening": ["d4", "c2"], "moves": ["e6", "b4", ...], "nodes": [3987, 4001, ...],
     "result": "1-0", "score": 1.0, "termination": "player 2 has no legal move"}

``players`` are the engines of the side moving first and of the other side;
``moves`` are the engines' moves after the opening in the game's notation,
``nodes`` the nodes searched for each of them; ``score`` is the first
player's (1, 0.5 or 0) and ``result`` says the same as ``1-0``, ``1/2-1/2`` or
``0-1``; ``termination`` is why the game ended (the kernel's hook, a fault, or
an adjudication). Three keys appear only where they apply: ``start``, the
position the opening starts from as text (a FEN from an opening book; absent:
the game's own start), ``scores``, the engines' own scores of their moves in
centipawns for the side that moved (``null`` where one sent none), and
``fault``, the kind of engine fault that ended the game (``illegal``,
``garbage``, ``timeout``, ``time``, ``crash``).

A replay (:func:`replay_positions`) plays the moves again on the kernel (each
must be legal) and shows every position as the kernel's text board.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from heurtune.errors import HeurtuneError
from heurtune.games import GameKernel, get_game
from heurtune.match.openings import play_notation, start_of
from heurtune.match.play import PairResult
from heurtune.match.runner import MatchSpec
from heurtune.tomlio import read_text, write_atomic

RESULTS = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}  # the first player's score as a result
# every record's keys and their JSON types
FIELDS: Mapping[str, type | tuple[type, ...]] = {
    "game": str, "rules": dict, "players": list, "pair": int, "round": int, "seed": int,
    "opening": list, "moves": list, "nodes": list, "result": str, "score": (int, float),
    "termination": str,
}
# keys a record holds only where they apply, and their JSON types
OPTIONAL: Mapping[str, type | tuple[type, ...]] = {"start": str, "scores": list, "fault": str}


def pair_records(spec: MatchSpec, pairs: Sequence[PairResult]) -> list[dict[str, Any]]:
    """The games of ``pairs`` (played with ``keep_games``) as records, in pair order."""
    kernel = get_game(spec.a.game)
    rules = kernel.resolve_rules(spec.a.rules)
    out = []
    for pair in sorted(pairs, key=lambda p: p.index):
        if len(pair.games) != 2:
            raise ValueError("pair_records needs pairs played with keep_games=True")
        for rnd, game in enumerate(pair.games):
            first, second = (spec.a, spec.b) if rnd == 0 else (spec.b, spec.a)
            after = game.moves[len(pair.opening):]
            out.append({
                "game": kernel.name, "rules": rules, "players": [first.label, second.label],
                "pair": pair.index, "round": rnd, "seed": spec.seed,
                "opening": [kernel.move_to_str(m) for m in pair.opening],
                "moves": [kernel.move_to_str(m) for m in after],
                "nodes": list(game.move_nodes),
                "result": RESULTS[game.first_score], "score": game.first_score,
                "termination": game.termination,
                **({"start": start_of(pair.opening)} if start_of(pair.opening) else {}),
                **({"scores": list(game.scores)} if game.scores else {}),
                **({"fault": game.fault} if game.fault else {}),
            })
    return out


def write_records(path: str | os.PathLike[str], records: Sequence[Mapping[str, Any]]) -> None:
    """Write ``records`` as JSON Lines, atomically."""
    write_atomic(path, "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a JSON Lines file; a missing, unreadable, empty or
    malformed file (a line that is no record) is a :class:`HeurtuneError`."""
    p = Path(path)
    text = read_text(p, kind="game record file")
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise HeurtuneError(f"{p} line {number}: not JSON ({exc.msg})") from None
        records.append(_checked(record, f"{p} line {number}"))
    if not records:
        raise HeurtuneError(f"{p}: no game records")
    return records


def _checked(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise HeurtuneError(f"{where}: a game record is a JSON object")
    for key, kind in FIELDS.items():
        value = record.get(key)
        if value is None:
            raise HeurtuneError(f"{where}: no {key!r}")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise HeurtuneError(f"{where}: {key!r} has the wrong type")
    for key, kind in OPTIONAL.items():
        if key in record and (not isinstance(record[key], kind) or isinstance(record[key], bool)):
            raise HeurtuneError(f"{where}: {key!r} has the wrong type")
    for key in ("players", "opening", "moves"):
        if not all(isinstance(x, str) for x in record[key]):
            raise HeurtuneError(f"{where}: {key!r} must be a list of strings")
    if len(record["players"]) != 2:
        raise HeurtuneError(f"{where}: 'players' must name two engines")
    if len(record["nodes"]) != len(record["moves"]) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in record["nodes"]):
        raise HeurtuneError(f"{where}: 'nodes' must hold one whole number per move")
    try:
        get_game(record["game"]).resolve_rules(record["rules"])
    except HeurtuneError as exc:
        raise HeurtuneError(f"{where}: {exc}") from None
    return record


@dataclass(frozen=True)
class Position:
    """One position of a replayed game: after ``ply`` plies, reached by ``move``
    (None at the start) of ``side``, which searched ``nodes`` nodes for it
    (None for an opening move)."""

    ply: int
    move: str | None
    side: int | None
    nodes: int | None
    state: np.ndarray

    def move_text(self, kernel: GameKernel) -> str:
        """Who played which move, and how many nodes it searched for it."""
        how = "opening" if self.nodes is None else f"{self.nodes:,} nodes"
        who = kernel.side_names[self.side] if self.side is not None else ""
        return f"{who} {self.move} ({how})"


def record_start(kernel: GameKernel, record: Mapping[str, Any], where: str) -> Any:
    """The position a recorded game starts from (its ``start``, else the game's)."""
    try:
        return kernel.new_state(record["rules"], record.get("start", ""))
    except HeurtuneError as exc:
        raise HeurtuneError(f"{where}: {exc}") from None


def replay_moves(record: Mapping[str, Any], where: str = "game record") -> list[int]:
    """A recorded game's moves from the start (its opening's included) as the
    kernel's moves; a move that is not legal where it stands (none is once the
    game is over) is a :class:`HeurtuneError` naming ``where``."""
    kernel = get_game(record["game"])
    state = record_start(kernel, record, where)
    return play_notation(kernel, state, list(record["opening"]) + list(record["moves"]), where)


def replay_positions(record: Mapping[str, Any], where: str = "game record"
                     ) -> tuple[GameKernel, list[Position]]:
    """Every position of a recorded game from the start; a move that is not legal
    where it stands is a :class:`HeurtuneError` naming ``where``."""
    kernel = get_game(record["game"])
    state = record_start(kernel, record, where)
    positions = [Position(0, None, None, None, state.copy())]
    opening = len(record["opening"])
    texts = list(record["opening"]) + list(record["moves"])
    for ply, move in enumerate(replay_moves(record, where), start=1):
        side = int(kernel.side_to_move(state))
        kernel.make_move(state, move)
        nodes = record["nodes"][ply - 1 - opening] if ply > opening else None
        positions.append(Position(ply, texts[ply - 1], side, nodes, state.copy()))
    return kernel, positions


def describe(record: Mapping[str, Any]) -> str:
    """Who played which side, from which opening, and how the game ended."""
    kernel = get_game(record["game"])
    first, second = record["players"]
    opening = " ".join(record["opening"]) or "none"
    if record.get("start"):
        opening = f"{opening} from {record['start']}"
    return (f"{first} ({kernel.side_names[0]}) vs {second} ({kernel.side_names[1]}), "
            f"pair {record['pair']}, seed {record['seed']}, opening {opening}; "
            f"{record['result']} after {len(record['opening']) + len(record['moves'])} plies: "
            f"{record['termination']}")


def replay_text(records: Sequence[Mapping[str, Any]], number: int, source: str) -> str:
    """Game ``number`` (0 is the first) of the file ``source`` move by move, as
    text boards."""
    if not 0 <= number < len(records):
        raise HeurtuneError(f"--game {number}: {source} has {len(records)} games "
                            f"(0 to {len(records) - 1})")
    record = records[number]
    kernel, positions = replay_positions(record, f"{source} game {number}")
    lines = [f"game {number} of {len(records)}: {describe(record)}", "", "start",
             kernel.board_text(positions[0].state)]
    for pos in positions[1:]:
        lines += ["", f"ply {pos.ply}: {pos.move_text(kernel)}", kernel.board_text(pos.state)]
    lines += ["", f"result {record['result']}: {record['termination']}"]
    return "\n".join(lines)
