"""An :class:`Engine` plays moves for one configuration.

Three kinds behind one interface: the compiled search over a numba kernel (the
fast path), the plain-Python search over a :class:`~heurtune.games.PythonGame`,
and an engine in another process (docs/engine-protocol.md) that heurtune only
referees. A fault of the last (an illegal move, a timeout, a crash) is an
:class:`~heurtune.engine.process.EngineFault` raised by :meth:`Engine.choose`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from heurtune.engine.config import EngineConfig, SearchSettings
from heurtune.engine.process import Clock, EngineFault, Limits, ProcessPlayer, TimeControl
from heurtune.engine.pysearch import PySearcher
from heurtune.engine.search import Searcher, SearchResult
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.games.python import PythonKernel


class Engine:
    """A configured player: ``choose(state, seed, moves)`` returns the move it plays."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.kernel = get_game(config.game)
        self.player: ProcessPlayer | None = None
        self.searcher: Searcher | PySearcher | None = None
        self.params: Any
        heuristic = config.heuristic_obj
        tt_bits = config.search.tt_bits or 16  # never None once the settings are resolved
        # the engine's score of its last move, in centipawns for the side that moved
        # (engines in other processes that send ``info score``; None otherwise)
        self.last_score: int | None = None
        self._seen: list[int] = []
        self._texts: list[str] = []
        # the search's keyword arguments, once (a move should not rebuild them)
        self._search_kwargs = config.search.search_kwargs()
        if config.process is not None:
            self.params = dict(config.params)
            rule_options = (dict(self.kernel.engine_options(config.rules))
                            if self.kernel.engine_options is not None else {})
            self.player = ProcessPlayer(config.process, config.game, self.params,
                                        dict(config.rules), config.label,
                                        rule_options=rule_options)
        elif isinstance(self.kernel, PythonKernel):
            if heuristic.kind != "python":
                raise HeurtuneError(f"{config.label}: {heuristic.name} is not a plain-Python "
                                    "heuristic")
            self.params = dict(config.params)
            self.searcher = PySearcher(self.kernel, heuristic, tt_bits)
        else:
            self.params = heuristic.to_array(config.params)
            self.searcher = Searcher(self.kernel, heuristic, tt_bits)

    def new_game(self) -> None:
        """Reset learnt state so that every game reproduces on its own (an
        external engine: ``ucinewgame``, after a restart if its process died)."""
        if self.player is not None:
            self.player.new_game()
        elif self.searcher is not None:
            self.searcher.clear()

    def choose(self, state: Any, seed: int = 0, moves: Sequence[int] = (), start: str = "",
               clock: Clock | None = None, side: int = 0) -> SearchResult:
        """The move to play in ``state``, reached by ``moves`` from ``start`` (a
        position's text, "" : the game's start). An external engine is sent them
        (with the game's ``clock`` when it plays on one: ``side`` is its side) and
        its move is checked; the others search ``state``."""
        if self.player is None:
            assert self.searcher is not None
            return self.searcher.search(state, self.params, seed=seed, **self._search_kwargs)
        t0 = time.perf_counter()  # the whole exchange, notation and checks included
        kernel = self.kernel
        settings = self.config.search
        # the default depth is "no depth limit": sent only when an engine file sets one
        depth = settings.depth if settings.depth < SearchSettings.depth else 0
        limits = Limits(settings.nodes, depth, settings.time_ms,
                        clock if settings.tc else None, side, settings.time_margin_ms)
        text, found, score = self.player.choose(self._notation(moves), limits, seed, start)
        try:
            move = kernel.parse_move(state, text)
        except HeurtuneError:
            raise EngineFault(f"{self.config.label} played an illegal move {text[:40]!r}",
                              "illegal") from None
        self.last_score = score
        return SearchResult(move, found.value, found.depth, found.nodes,
                            time.perf_counter() - t0, found.legal_moves)

    def _notation(self, moves: Sequence[int]) -> list[str]:
        """The notation of ``moves``, extending the last call's where the game
        went on from it (a game's moves are sent again at every turn)."""
        seen, texts = self._seen, self._texts
        n = len(seen)
        if len(moves) < n or list(moves[:n]) != seen:
            seen.clear()
            texts.clear()
            n = 0
        move_to_str = self.kernel.move_to_str
        for m in moves[n:]:
            seen.append(int(m))
            texts.append(move_to_str(m))
        return texts

    @property
    def time_control(self) -> TimeControl | None:
        """The clock this engine plays on (an external engine's ``search.tc``)."""
        return self.config.search.time_control if self.player is not None else None

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the search, so that the first game
        pays nothing for it. An external engine has nothing to compile: its
        process starts with its first game."""
        if self.searcher is None:
            return
        state = self.kernel.new_state(self.config.rules)
        self.searcher.search(state, self.params, algorithm=self.config.search.algorithm,
                             depth=1)

    def close(self) -> None:
        """Stop an external engine's process (the others hold none)."""
        if self.player is not None:
            self.player.close()
