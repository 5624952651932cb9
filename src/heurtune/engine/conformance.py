"""The conformance check every game passes, for a plugin's own tests.

heurtune's four games pass it, and so must a plugin game before its studies
mean anything: one call from the plugin's test suite::

    from heurtune.engine.conformance import check_game

    def test_connect4_conforms():
        check_game("connect4", rules=({}, {"columns": 5, "rows": 4}))

It plays seeded random games under each rule variant and checks, at every
ply, the promises the search, the matches and the records rely on. A broken
one is a :class:`ConformanceError` (an :class:`AssertionError`) whose message
is one sentence that names the game, the rules, the game and ply, says what
is wrong and what to fix, and ends with the promise's name; the promises, in
the order they are checked (those of one position before those of the next):

``heuristics-and-presets``
    every heuristic and every preset builds an engine.
``result-values``
    ``result()`` returns ONGOING, WIN, DRAW or LOSS.
``side-to-move``
    ``to_move()`` returns 0 or 1.
``fixed-move-order``
    ``legal_moves`` lists the same moves in the same order for the same
    position: asked again, after a move played and taken back, and on a copy
    (searches and paired games rely on the order; a shuffled list is reported
    as such, never as a broken undo).
``distinct-moves``
    no legal move is listed twice (a numba kernel: nor more than ``max_moves``).
``key-equal-positions``
    the key is the same for the same position: asked again, on a copy, after
    a move played and taken back, and (where the state's own ``__eq__`` says
    two positions are equal) for a position reached by another move order.
``hash-from-scratch``
    a numba kernel's incremental hash equals ``hash_from_scratch``.
``symmetries-include-position``
    a position's symmetric images include the position itself.
``termination-reason``
    a finished game says why it ended.
``moves-while-ongoing``
    a game that goes on has a legal move.
``distinct-notation``
    the legal moves of a position have distinct notations, one word each.
``copy-independent``
    a copy is independent of the original (a move played on the copy leaves
    the original alone), and a game without ``undo`` is restored from it.
``notation-round-trip``
    ``parse_move(move_to_str(move))`` gives the move back.
``undo-restores``
    playing then taking back a move restores the position (a numba kernel:
    the live part of its state array; a plain-Python game: its key, side to
    move, result and legal moves).
``position-text-round-trip``
    where the game reads positions as text, ``position_text`` is read back as
    the same position, with the same key.
``search-runs``, ``search-leaves-position``, ``search-legal-move``
    a search with every heuristic, and with every preset's engine, runs, leaves
    the position as it was and returns a legal move (at the first plies of the
    first game).
``game-length``
    no game outlasts ``max_game_plies`` where declared (else 10,000 plies).
``result-sign``
    ``result()`` is from the side to move's view: a depth-1 search (every
    move of every position of the random games, the game's own ``result``)
    finds the moves that end a game at once while other moves would not; when
    every decisive one leaves the side then to move a WIN and none a LOSS,
    the sign is reversed (a game whose mover loses by ending it, a misère
    game, skips this promise).
``loads-in-fresh-process``, ``key-across-processes``
    a fresh Python process (as a match's workers are) loads the game by its
    name, and computes the same keys for the positions of a seeded game as
    this process does (Python's ``hash()`` of a ``str`` or ``bytes`` is not:
    it changes from one process to the next).

``skip`` names promises a game deliberately does not keep (a misère game:
``skip=("result-sign",)``); skipping ``key-across-processes`` also starts no
process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from heurtune.engine.config import EngineConfig, SearchSettings, presets
from heurtune.engine.heuristic import heuristics
from heurtune.engine.player import Engine
from heurtune.errors import HeurtuneError
from heurtune.games import DRAW, LOSS, ONGOING, WIN, PyState, PythonKernel, get_game
from heurtune.games.base import GameKernel
from heurtune.games.python import has_undo
from heurtune.games.registry import runtime_games

LONGEST = 10_000  # plies, for a game that declares no bound
KEY_PLIES = 16  # plies of each rule variant's first game whose keys a fresh process recomputes
CHILD_TIMEOUT = 300.0  # seconds a fresh process may take to load the game and replay
RESULT_NAMES = {ONGOING: "ONGOING", WIN: "WIN", DRAW: "DRAW", LOSS: "LOSS"}

#: every promise the check keeps, by name, in the order they are checked
PROMISES: dict[str, str] = {
    "heuristics-and-presets": "every heuristic and every preset builds an engine",
    "result-values": "result() returns ONGOING, WIN, DRAW or LOSS",
    "side-to-move": "to_move() returns 0 or 1",
    "fixed-move-order": "legal_moves lists the same moves in the same order for the same "
                        "position (asked again, after a move played and taken back, on a copy)",
    "distinct-moves": "no legal move is listed twice (a numba kernel: nor more than max_moves)",
    "key-equal-positions": "the key is the same for the same position (asked again, on a copy, "
                           "after a move played and taken back, by another move order)",
    "hash-from-scratch": "a numba kernel's incremental hash equals hash_from_scratch",
    "symmetries-include-position": "a position's symmetric images include the position itself",
    "termination-reason": "a finished game says why it ended",
    "moves-while-ongoing": "a game that goes on has a legal move",
    "distinct-notation": "the legal moves of a position have distinct notations, one word each",
    "copy-independent": "a copy is independent of the original",
    "notation-round-trip": "parse_move(move_to_str(move)) gives the move back",
    "undo-restores": "playing then taking back a move restores the position",
    "position-text-round-trip": "position_text is read back as the same position",
    "search-runs": "a search with every heuristic and preset runs",
    "search-leaves-position": "a search leaves the position as it was",
    "search-legal-move": "a search returns a legal move",
    "game-length": "no game outlasts max_game_plies (else 10,000 plies)",
    "result-sign": "result() is from the side to move's view (a move that ends the game at "
                   "once leaves the side then to move a LOSS, not a WIN)",
    "loads-in-fresh-process": "a fresh Python process loads the game by its name",
    "key-across-processes": "a fresh process computes the same keys for the same positions",
}


class ConformanceError(AssertionError):
    """A promise a game does not keep: one sentence that says what to fix.

    An :class:`AssertionError`, so that ``pytest.raises(AssertionError)`` still
    catches it. ``promise`` is its name (a key of :data:`PROMISES`); ``game``,
    ``rules``, ``game_number`` and ``ply`` say where (None where the promise is
    not about one position); ``sentence`` is the message without the place."""

    def __init__(self, promise: str, sentence: str, game: str,
                 rules: Mapping[str, Any] | None = None, game_number: int | None = None,
                 ply: int | None = None) -> None:
        self.promise = promise
        self.sentence = sentence
        self.game = game
        self.rules = None if rules is None else dict(rules)
        self.game_number = game_number
        self.ply = ply
        where = game
        if rules is not None:
            where += f" {dict(rules)}"
        if game_number is not None:
            where += f" game {game_number}"
        if ply is not None:
            where += f" ply {ply}"
        super().__init__(f"{where}: {sentence} (promise: {promise})")


def _hide_frames(excinfo: Any) -> bool:
    """pytest shows a broken promise at the caller's ``check_game`` line, without
    the frames of this module (any other error keeps its whole traceback)."""
    return bool(excinfo.errisinstance(ConformanceError))


__tracebackhide__ = _hide_frames


@dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_game` played: games, plies, searches."""

    game: str
    games: int
    plies: int
    searches: int


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


def _own_eq(state: Any) -> bool:
    """Whether the game's state says itself when two positions are equal (an
    ``__eq__`` of its own, not object identity)."""
    own: object = type(state).__eq__
    return own is not object.__eq__ and not isinstance(state, np.ndarray)


@dataclass
class _Line:
    """The first game of a rule variant: its first moves and the keys along them
    (which a fresh process computes again)."""

    variant: dict[str, Any]
    resolved: dict[str, int]
    moves: list[int]
    keys: list[int]


@dataclass
class _Ending:
    """A move found by the depth-1 search that ends the game decisively at once
    (while another move of the same position would not)."""

    rules: dict[str, int]
    game_number: int
    ply: int
    mover: int
    move: int
    result: int


class _Checker:
    """The state of one :func:`check_game` call: where it is, what it skips."""

    def __init__(self, name: str, kernel: GameKernel, skip: Collection[str]) -> None:
        self.name = name
        self.kernel = kernel
        self.skip = frozenset(skip)
        self.game = kernel.game if isinstance(kernel, PythonKernel) else None
        self.undo = self.game is not None and has_undo(self.game)
        self.rules: dict[str, Any] | None = None
        self.resolved: dict[str, int] | None = None  # the rules, every option resolved
        self.game_number: int | None = None
        self.ply: int | None = None
        self.wins: list[_Ending] = []  # decisive endings at once, by result for the side to move
        self.losses = 0

    # -- reporting -----------------------------------------------------------------
    def fail(self, promise: str, sentence: str, cause: BaseException | None = None) -> None:
        """Raise the broken ``promise`` (unless skipped) at the current place."""
        if promise in self.skip:
            return
        error = ConformanceError(promise, sentence, self.name, self.rules, self.game_number,
                                 self.ply)
        raise error from cause

    def notation(self, move: int) -> str:
        try:
            return str(self.kernel.move_to_str(int(move)))
        except Exception:  # a move the game cannot write: its number
            return str(move)

    def listing(self, moves: Sequence[int], limit: int = 8) -> str:
        words = [self.notation(m) for m in moves[:limit]]
        return "[" + " ".join(words) + (" ..." if len(moves) > limit else "") + "]"

    def side(self, side: int) -> str:
        names = self.kernel.side_names
        return names[side] if side in (0, 1) else f"side {side}"

    # -- views of a position --------------------------------------------------------
    def key(self, state: Any) -> int:
        return int(self.kernel.position_hash(state))

    def copy(self, state: Any) -> Any:
        """A copy as the searches make one (a plain-Python game: its ``copy``)."""
        if self.game is not None:
            return PyState(self.game.copy(state.state), list(state.moves))
        return state.copy()

    def snapshot(self, state: Any) -> Any:
        """What must come back after a move is taken back."""
        if self.game is not None:
            return (self.key(state), int(self.kernel.side_to_move(state)),
                    int(self.kernel.outcome(state)), self.kernel.legal_moves(state),
                    list(state.moves))
        kernel = self.kernel
        live = kernel.live_length(state) if kernel.live_length is not None else len(state)
        return state[:live].copy()

    def restored(self, state: Any, before: Any, how: str, searcher: str = "") -> None:
        """Check ``state`` is ``before`` again after ``how`` (a move played and taken
        back, or a search by ``searcher``), naming the promise a difference breaks."""
        after = self.snapshot(state)
        if _same(after, before):
            return
        if self.game is None:
            differ = np.flatnonzero(np.asarray(after) != np.asarray(before))[:8].tolist()
            shown = f"state entries {differ} differ"
        else:
            key, stm, result, legal, moves = before
            key2, stm2, result2, legal2, moves2 = after
            if (key, stm, result, moves) == (key2, stm2, result2, moves2) \
                    and sorted(legal) == sorted(legal2):
                self.order(legal, legal2, f"before and after {how}")
                return
            shown = ", ".join(what for what, a, b in (
                ("key", key, key2), ("side to move", stm, stm2), ("result", result, result2),
                ("legal moves", sorted(legal), sorted(legal2)), ("moves played", moves, moves2))
                if a != b) + " differ"
        if searcher:
            self.fail("search-leaves-position",
                      f"{how} changed the position ({shown}): every move the search plays "
                      "must be taken back exactly, and a heuristic must not change the state "
                      "it evaluates")
        elif self.game is None:
            self.fail("undo-restores",
                      f"{how} does not restore the position ({shown}): unmake_move must "
                      "restore the live part of the state exactly (the entries live_length "
                      "counts)")
        elif not self.undo:
            self.fail("copy-independent",
                      f"{how} does not restore the position ({shown}; the game has no undo, "
                      "so heurtune restored the copy it made before the move): copy() must "
                      "return an independent copy (copy every list, dict or object of the "
                      "state that play changes, or keep the default, a deepcopy)")
        else:
            self.fail("undo-restores",
                      f"{how} does not restore the position ({shown}): undo must reverse "
                      "everything play changed (or leave undo out, and heurtune copies "
                      "positions instead)")

    def order(self, first: Sequence[int], again: Sequence[int], how: str) -> None:
        """Check ``legal_moves`` gave one position's moves in one order twice."""
        if list(first) == list(again):
            return
        seen = f"{how}: {self.listing(first)} then {self.listing(again)}"
        if sorted(first) == sorted(again):
            self.fail("fixed-move-order",
                      f"legal_moves lists the moves of one position in a different order each "
                      f"time ({seen}): heurtune's searches and paired games rely on a fixed "
                      "order; sort them, or don't shuffle")
        else:
            self.fail("fixed-move-order",
                      f"legal_moves lists different moves for one position each time ({seen}): "
                      "list the moves of the position alone, the same ones in the same order "
                      "every time")

    def same_key(self, key: int, other: int, sentence: str) -> None:
        if key != other:
            self.fail("key-equal-positions",
                      f"{sentence} ({key} then {other}): key() must depend on the position "
                      "alone (its pieces and the side to move), not on the object (id(), "
                      "object's own hash), caches or the moves that reached it")

    # -- the checks of one position -------------------------------------------------
    def position(self, state: Any) -> tuple[int, list[int]]:
        """The checks that need no move played; the result and the legal moves."""
        kernel = self.kernel
        result = int(kernel.outcome(state))
        if result not in RESULT_NAMES:
            self.fail("result-values",
                      f"result() returned {result!r}: return ONGOING while the game goes on, "
                      "else WIN, DRAW or LOSS for the side to move (from heurtune.games)")
        stm = int(kernel.side_to_move(state))
        if stm not in (0, 1):
            self.fail("side-to-move",
                      f"to_move() returned {stm!r}: return 0 for the side that moves first, "
                      "1 for the other")
        legal = kernel.legal_moves(state)
        # (a shuffle that keeps its order by chance here is caught on the copy, or
        # after a move taken back, as an order all the same)
        self.order(legal, kernel.legal_moves(state), "asked again")
        seen: set[int] = set()
        for m in legal:
            if m in seen:
                self.fail("distinct-moves",
                          f"legal_moves lists {self.notation(m)} ({m}) twice: list each legal "
                          "move once")
            seen.add(m)
        if kernel.max_moves > 0 and len(legal) > kernel.max_moves:
            self.fail("distinct-moves",
                      f"legal_moves gives {len(legal)} moves, more than max_moves "
                      f"({kernel.max_moves}): raise the kernel's max_moves to the most moves "
                      "a position can have")
        key = self.key(state)
        self.same_key(key, self.key(state), "key() gives two values for one position asked twice")
        if kernel.hash_from_scratch is not None:
            scratch = int(kernel.hash_from_scratch(state))
            if key != scratch:
                self.fail("hash-from-scratch",
                          f"the incremental hash ({key}) differs from hash_from_scratch "
                          f"({scratch}): make_move and unmake_move must update the Zobrist "
                          "hash for everything that decides the game's future")
        if kernel.symmetry_hashes is not None and (self.ply or 0) % 5 == 0:
            if key not in kernel.image_hashes(state):
                self.fail("symmetries-include-position",
                          "the position's symmetric images leave out the position itself: "
                          "symmetric_keys (a numba kernel: symmetry_hashes) must include "
                          "key(state) itself")
        if result != ONGOING:
            if not kernel.termination_reason(state):
                self.fail("termination-reason",
                          f"the game is over ({RESULT_NAMES.get(result, result)} for the side "
                          "to move) but termination() gives no reason: return a sentence "
                          "(\"Red connected four\"), or None and heurtune says who won")
            return result, legal
        if not legal:
            self.fail("moves-while-ongoing",
                      "result() says the game goes on but legal_moves is empty: when the side "
                      "to move cannot move, result() must end the game (LOSS or DRAW for the "
                      "side to move, as the rules say)")
        notations: dict[str, int] = {}
        for m in legal:
            text = kernel.move_to_str(m)
            if not isinstance(text, str) or not text or len(text.split()) != 1 \
                    or text.strip() != text:
                self.fail("distinct-notation",
                          f"move {m} is written {text!r}, not one word: move_to_str must give "
                          "each move a word without spaces")
            if text in notations:
                self.fail("distinct-notation",
                          f"moves {notations[text]} and {m} are both written {text!r}: "
                          "move_to_str must give each legal move of a position its own "
                          "notation")
            notations[text] = m
        return result, legal

    def copies(self, state: Any, legal: list[int]) -> None:
        """A copy lists the same moves in the same order, has the same key, and
        is independent of the original."""
        key = self.key(state)
        twin = self.copy(state)
        self.order(legal, self.kernel.legal_moves(twin), "a position and its copy")
        self.same_key(key, self.key(twin), "key() differs between a position and its copy")
        if self.game is None:
            return
        self.game.play(twin.state, legal[0])
        if self.key(state) != key or sorted(self.kernel.legal_moves(state)) != sorted(legal):
            self.fail("copy-independent",
                      f"playing {self.notation(legal[0])} on a copy changed the original "
                      "position: copy() must return an independent copy (copy every list, "
                      "dict or object of the state that play changes, or keep the default, "
                      "a deepcopy)")

    def moves(self, state: Any, legal: list[int]) -> None:
        """Notation read back and moves taken back, for a spread of the legal moves."""
        kernel = self.kernel
        for m in legal[:: max(1, len(legal) // 6)]:
            text = kernel.move_to_str(m)
            try:
                back: int | None = kernel.parse_move(state, text)
                problem = ""
            except (HeurtuneError, ValueError) as exc:
                back, problem = None, str(exc)
            if back != m:
                said = f"reads back as {back}" if back is not None else \
                    f"is not read back ({problem})"
                self.fail("notation-round-trip",
                          f"{text!r} (move {m}) {said}: parse_move(state, move_to_str(move)) "
                          "must give the move back")
            before = self.snapshot(state)
            kernel.make_move(state, m)
            kernel.unmake_move(state, m)
            if self.game is not None and self.undo and self.key(state) != before[0] \
                    and _own_eq(state.state) and state.state == self.replayed(state).state:
                self.same_key(before[0], self.key(state),
                              f"key() differs for one position before and after playing and "
                              f"taking back {text}, which the state's __eq__ calls equal")
            self.restored(state, before, f"playing and taking back {text}")

    def replayed(self, state: Any) -> Any:
        """The position of ``state`` played again from the start (a plain-Python game)."""
        again = self.kernel.new_state(self.resolved or {})
        for m in state.moves:
            self.kernel.make_move(again, m)
        return again

    def transposition(self, state: Any) -> None:
        """The last three moves played in another order (the mover's two swapped):
        where the state's own ``__eq__`` calls the two positions equal, their keys
        are equal."""
        game = self.game
        if game is None or len(state.moves) < 3 or not _own_eq(state.state):
            return
        first, second, third = state.moves[-3:]
        if self.undo:
            back = game.copy(state.state)
            for m in (third, second, first):
                game.undo(back, m)
        else:
            back = game.copy(state.copies[-3])
        for m in (third, second, first):
            if m not in game.legal_moves(back):
                return
            game.play(back, m)
        if back == state.state:
            other = PyState(back, [*state.moves[:-3], third, second, first])
            self.same_key(self.key(state), self.key(other),
                          f"key() differs for one position reached by two move orders (... "
                          f"{' '.join(self.notation(m) for m in (first, second, third))} and "
                          f"... {' '.join(self.notation(m) for m in (third, second, first))}), "
                          "which the state's __eq__ calls equal")

    def text_round_trip(self, state: Any, rules: Mapping[str, int]) -> None:
        kernel = self.kernel
        if kernel.new_state_from is None or kernel.position_text is None:
            return
        text = kernel.position_text(state)
        try:
            back = kernel.new_state(rules, start=text)
        except HeurtuneError as exc:
            self.fail("position-text-round-trip",
                      f"new_state_from cannot read position_text's own text ({exc}): "
                      "new_state_from(position_text(state)) must give the position back")
            return
        key, other = self.key(state), self.key(back)
        stm, stm2 = int(kernel.side_to_move(state)), int(kernel.side_to_move(back))
        if (key, stm) != (other, stm2):
            self.fail("position-text-round-trip",
                      f"the position read back from position_text ({text!r}) has another key "
                      f"or side to move ({key}, {stm} then {other}, {stm2}): "
                      "new_state_from(position_text(state)) must give the same position, and "
                      "key() must depend on the position alone")

    def endings(self, state: Any, legal: list[int], rules: dict[str, int]) -> None:
        """The depth-1 search: the moves that end the game decisively at once."""
        if "result-sign" in self.skip or (len(self.wins) >= 20 and not self.losses) \
                or (self.wins and self.losses) or self.losses >= 20:
            return  # enough seen to judge
        kernel = self.kernel
        ends: list[tuple[int, int]] = []
        goes_on = False
        for m in legal:
            kernel.make_move(state, m)
            result = int(kernel.outcome(state))
            kernel.unmake_move(state, m)
            if result == ONGOING:
                goes_on = True
            elif result in (WIN, LOSS):
                ends.append((m, result))
        if not goes_on:  # every move ends the game (a ply limit): nothing won by the move
            return
        mover = int(kernel.side_to_move(state))
        for m, result in ends:
            if result == LOSS:
                self.losses += 1
            else:
                self.wins.append(_Ending(dict(rules), self.game_number or 0, self.ply or 0,
                                         mover, m, result))

    def result_sign(self) -> None:
        if len(self.wins) < 3 or self.losses:
            return
        first = self.wins[0]
        self.rules, self.game_number, self.ply = first.rules, first.game_number, first.ply + 1
        mover, other = self.side(first.mover), self.side(1 - first.mover)
        self.fail("result-sign",
                  f"result() must be from the side to move's view: after {mover}'s winning "
                  f"move {self.notation(first.move)}, the side to move ({other}) has lost, so "
                  "result() must return LOSS, got WIN (every one of the "
                  f"{len(self.wins)} moves seen to end a game at once left the side then to "
                  "move a WIN; a misère game, whose mover loses by ending it, skips this "
                  "promise: skip=('result-sign',))")

    # -- another process ------------------------------------------------------------
    def fresh_process(self, lines: list[_Line]) -> None:
        """A fresh Python process loads the game by name and computes the same keys."""
        self.rules = self.game_number = self.ply = None
        computed, problem = _keys_elsewhere(self.name, [(x.resolved, x.moves) for x in lines])
        if computed is None:
            self.fail("loads-in-fresh-process",
                      f"a fresh Python process cannot load the game ({problem}): a match "
                      "plays in worker processes that load the game by its name, so its "
                      "module must be importable there (an installed package's entry point, "
                      "or register_game with a module on sys.path, not __main__)")
            return
        for line, there in zip(lines, computed, strict=True):
            for ply, (a, b) in enumerate(zip(line.keys, there, strict=False)):
                if a != b:
                    self.rules, self.game_number, self.ply = line.variant, 0, ply
                    played = " ".join(self.notation(m) for m in line.moves[:ply])
                    where = f"after {played}" if played else "the start position"
                    self.fail("key-across-processes",
                              f"key() differs between processes for one position ({where}: "
                              f"{a} here, {b} in a fresh process): worker processes "
                              "share openings and tables by key, so build it from the "
                              "position's numbers (an int, a tuple, or "
                              "heurtune.games.python.stable_hash(text) for a text), never from "
                              "Python's hash() of a str or bytes, which changes from one "
                              "process to the next (PYTHONHASHSEED)")
                    return


_CHILD = """
import json, sys
data = json.loads(sys.stdin.read())
sys.path[:] = data["path"] + [p for p in sys.path if p not in data["path"]]
from heurtune.games.registry import GameEntry, get_game, restore_games
restore_games(tuple(GameEntry(**e) for e in data["games"]))
kernel = get_game(data["name"])
out = []
for rules, moves in data["lines"]:
    state = kernel.new_state(rules)
    keys = [int(kernel.position_hash(state))]
    for m in moves:
        kernel.make_move(state, m)
        keys.append(int(kernel.position_hash(state)))
    out.append(keys)
print("\\n" + json.dumps(out))
"""


def _keys_elsewhere(name: str, lines: list[tuple[dict[str, int], list[int]]],
                    ) -> tuple[list[list[int]] | None, str]:
    """The keys of the positions along ``lines`` (rules, moves from the start) as a
    fresh Python process computes them, whose string hashes are seeded otherwise
    than this one's; None and why when it cannot."""
    cwd = os.getcwd()
    data = {"path": [os.path.abspath(p) if p else cwd for p in sys.path],
            "games": [asdict(e) for e in runtime_games()], "name": name,
            "lines": [[rules, moves] for rules, moves in lines]}
    env = dict(os.environ)
    seed = env.get("PYTHONHASHSEED", "random")
    env["PYTHONHASHSEED"] = str(int(seed) + 1) if seed.isdigit() else "random"
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(data),
                              capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env,
                              cwd=cwd, check=False)
    except subprocess.TimeoutExpired:
        return None, f"it did not finish in {CHILD_TIMEOUT:.0f} s"
    except OSError as exc:
        return None, str(exc)
    if done.returncode != 0:
        lines_err = [line for line in done.stderr.splitlines() if line.strip()]
        return None, lines_err[-1].strip() if lines_err else f"exit code {done.returncode}"
    try:
        out = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, f"it printed no keys ({done.stdout[-200:]!r})"
    return [[int(k) for k in keys] for keys in out], ""


def _engines(checker: _Checker, name: str) -> list[Engine]:
    """An engine per heuristic (depth 3, 500 nodes) and per preset."""
    try:
        table = heuristics(name)
        engines = [Engine(EngineConfig(name, h, search=SearchSettings(depth=3, nodes=500)))
                   for h in table]
    except HeurtuneError as exc:
        checker.fail("heuristics-and-presets",
                     f"the game's heuristics do not build engines ({exc}): fix HEURISTICS")
        engines = []
    for preset_name, data in presets(name).items():
        try:
            cfg = EngineConfig.from_dict({"game": name, **data}, source=f"{name}:{preset_name}")
            engines.append(Engine(cfg))
        except HeurtuneError as exc:
            checker.fail("heuristics-and-presets",
                         f"preset {name}:{preset_name} does not build an engine ({exc}): fix "
                         "its entry in PRESETS")
    return engines


def _search(checker: _Checker, engines: Sequence[Engine], state: Any, legal: list[int],
            ply: int) -> int:
    """Every engine searches ``state``: it runs, returns a legal move and leaves
    the position alone. The number of searches."""
    before = checker.snapshot(state)
    for engine in engines:
        label = engine.config.label
        engine.new_game()
        try:
            found = engine.choose(state, seed=ply)
        except Exception as exc:
            checker.fail("search-runs",
                         f"a search by {label} raised {type(exc).__name__}: {exc} (the "
                         "traceback above): every heuristic must evaluate every position a "
                         "search reaches, and the game must play and take back every move "
                         "there", cause=exc)
            continue
        checker.restored(state, before, f"a search by {label}", searcher=label)
        if found.move not in legal:
            checker.fail("search-legal-move",
                         f"{label} chose {checker.notation(found.move)}, not a legal move: the "
                         "search's table is keyed by key(), so positions that differ must "
                         "have different keys (the side to move included)")
    return len(engines)


def check_game(name: str, rules: Sequence[Mapping[str, Any]] = ({},), games: int = 20,
               seed: int = 20261124, search_plies: int = 12,
               skip: Collection[str] = ()) -> ConformanceReport:
    """Check the game registered as ``name`` (see the module docstring) under each
    rule variant in ``rules``; ``games`` random games per variant; searches at the
    positions of the first ``search_plies`` plies of the first game. ``skip``
    names promises (keys of :data:`PROMISES`) not to check. A broken promise is a
    :class:`ConformanceError`."""
    unknown = sorted(set(skip) - set(PROMISES))
    if unknown:
        raise HeurtuneError(f"check_game: unknown promise {', '.join(map(repr, unknown))} in "
                            f"skip (known: {', '.join(PROMISES)})")
    kernel = get_game(name)
    checker = _Checker(name, kernel, skip)
    rng = np.random.default_rng(seed)
    engines = _engines(checker, name)
    played = plies_total = searches = 0
    # each variant's first game: its rules, moves, and keys (for another process)
    lines: list[_Line] = []
    for variant in rules:
        resolved = kernel.resolve_rules(variant)
        longest = LONGEST
        if kernel.max_game_plies is not None:
            longest = int(kernel.max_game_plies(resolved))
        for g in range(games):
            checker.rules, checker.game_number, checker.ply = dict(variant), g, 0
            checker.resolved = resolved
            state = kernel.new_state(resolved)
            line = _Line(dict(variant), resolved, [], [])
            if g == 0:
                lines.append(line)
            ply = 0
            while True:
                checker.ply = ply
                if g == 0 and ply <= KEY_PLIES:
                    line.keys.append(checker.key(state))
                result, legal = checker.position(state)
                if result != ONGOING:
                    break
                checker.copies(state, legal)
                checker.moves(state, legal)
                if ply % 4 == 3:
                    checker.transposition(state)
                    checker.text_round_trip(state, resolved)
                if g == 0 and ply < search_plies:
                    searches += _search(checker, engines, state, legal, ply)
                checker.endings(state, legal, dict(variant))
                move = legal[int(rng.integers(len(legal)))]
                kernel.make_move(state, move)
                if g == 0 and ply < KEY_PLIES:
                    line.moves.append(move)
                ply += 1
                if ply > longest:
                    checker.ply = ply
                    declared = kernel.max_game_plies is not None
                    checker.fail("game-length",
                                 f"a random game went on past {longest} plies"
                                 + (" (max_game_plies): raise max_game_plies(rules) to the "
                                    "longest game the rules allow, or end games by then"
                                    if declared else
                                    ": the rules must end every game (a ply limit, a "
                                    "repetition rule); max_game_plies(rules) may say when"))
                    break
            played += 1
            plies_total += ply
    checker.result_sign()
    if "key-across-processes" not in checker.skip:
        checker.fresh_process(lines)
    return ConformanceReport(name, played, plies_total, searches)


__all__ = ["PROMISES", "ConformanceError", "ConformanceReport", "check_game"]
