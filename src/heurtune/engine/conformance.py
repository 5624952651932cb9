"""The conformance check every game passes, for a plugin's own tests.

heurtune's four games pass it, and so must a plugin game before its studies
mean anything: one call from the plugin's test suite::

    from heurtune.engine.conformance import check_game

    def test_connect4_conforms():
        check_game("connect4", rules=({}, {"columns": 5, "rows": 4}))

It plays seeded random games under each rule variant and checks, at every
ply, what the search, the matches and the records rely on:

* the legal moves are distinct, their notations distinct and read back by
  ``parse_move``, and a game that goes on has at least one;
* playing then taking back a move restores the position (a numba kernel: the
  live part of its state array; a plain-Python game: its key, side to move,
  result and legal moves);
* the incremental hash equals ``hash_from_scratch`` where the kernel declares
  one, and a position's symmetric images include itself;
* no game outlasts ``max_game_plies`` where declared (else 10,000 plies), and
  every one ends with a termination reason;
* a search with every heuristic of the game leaves the position as it was and
  returns a legal move, and every preset builds an engine that does.

A failure is an :class:`AssertionError` that names the game, the rules and
the ply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from heurtune.engine.config import EngineConfig, SearchSettings, presets
from heurtune.engine.heuristic import heuristics
from heurtune.engine.player import Engine
from heurtune.games import DRAW, LOSS, ONGOING, WIN, PythonKernel, get_game
from heurtune.games.base import GameKernel

LONGEST = 10_000  # plies, for a game that declares no bound


@dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_game` played: games, plies, searches."""

    game: str
    games: int
    plies: int
    searches: int


def _snapshot(kernel: GameKernel, state: Any) -> Any:
    """What must come back after a move is taken back."""
    if isinstance(kernel, PythonKernel):
        return (kernel.position_hash(state), int(kernel.side_to_move(state)),
                int(kernel.outcome(state)), kernel.legal_moves(state), list(state.moves))
    live = kernel.live_length(state) if kernel.live_length is not None else len(state)
    return state[:live].copy()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


def check_game(name: str, rules: Sequence[Mapping[str, Any]] = ({},), games: int = 20,
               seed: int = 20261124, search_plies: int = 12) -> ConformanceReport:
    """Check the game registered as ``name`` (see the module docstring) under each
    rule variant in ``rules``; ``games`` random games per variant; searches at the
    positions of the first ``search_plies`` plies of the first game."""
    kernel = get_game(name)
    rng = np.random.default_rng(seed)
    table = heuristics(name)
    engines = [Engine(EngineConfig(name, h, search=SearchSettings(depth=3, nodes=500)))
               for h in table]
    for preset_name, data in presets(name).items():
        cfg = EngineConfig.from_dict({"game": name, **data}, source=f"{name}:{preset_name}")
        engines.append(Engine(cfg))
    played = plies_total = searches = 0
    for variant in rules:
        resolved = kernel.resolve_rules(variant)
        longest = LONGEST
        if kernel.max_game_plies is not None:
            longest = int(kernel.max_game_plies(resolved))
        for g in range(games):
            state = kernel.new_state(resolved)
            ply = 0
            while True:
                where = f"{name} {dict(variant)} game {g} ply {ply}"
                result = int(kernel.outcome(state))
                assert result in (ONGOING, WIN, DRAW, LOSS), f"{where}: outcome {result}"
                legal = kernel.legal_moves(state)
                assert len(set(legal)) == len(legal), f"{where}: a legal move twice"
                if kernel.max_moves > 0:
                    assert len(legal) <= kernel.max_moves, f"{where}: more than max_moves"
                if kernel.hash_from_scratch is not None:
                    assert int(kernel.position_hash(state)) == kernel.hash_from_scratch(state), \
                        f"{where}: incremental hash differs from hash_from_scratch"
                if kernel.symmetry_hashes is not None and ply % 5 == 0:
                    assert int(kernel.position_hash(state)) in kernel.image_hashes(state), \
                        f"{where}: the symmetric images leave out the position itself"
                if result != ONGOING:
                    assert kernel.termination_reason(state), f"{where}: no termination reason"
                    break
                assert legal, f"{where}: the game goes on but there is no legal move"
                notations = [kernel.move_to_str(m) for m in legal]
                assert len(set(notations)) == len(notations), f"{where}: two moves, one name"
                for m, text in list(zip(legal, notations, strict=True))[:: max(1, len(legal) // 6)]:
                    assert kernel.parse_move(state, text) == m, f"{where}: {text!r} reads back"
                    before = _snapshot(kernel, state)
                    kernel.make_move(state, m)
                    kernel.unmake_move(state, m)
                    assert _same(_snapshot(kernel, state), before), \
                        f"{where}: taking back {text} does not restore the position"
                if g == 0 and ply < search_plies:
                    before = _snapshot(kernel, state)
                    for engine in engines:
                        engine.new_game()
                        found = engine.choose(state, seed=ply)
                        assert _same(_snapshot(kernel, state), before), \
                            f"{where}: {engine.config.label} changed the position"
                        assert found.move in legal, \
                            f"{where}: {engine.config.label} chose an illegal move"
                        searches += 1
                kernel.make_move(state, legal[int(rng.integers(len(legal)))])
                ply += 1
                assert ply <= longest, f"{where}: longer than max_game_plies ({longest})"
            played += 1
            plies_total += ply
    return ConformanceReport(name, played, plies_total, searches)

