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
from heurtune.engine.process import ProcessPlayer
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
        if config.process is not None:
            self.params = dict(config.params)
            self.player = ProcessPlayer(config.process, config.game, self.params,
                                        dict(config.rules), config.label)
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

    def choose(self, state: Any, seed: int = 0, moves: Sequence[int] = ()) -> SearchResult:
        """The move to play in ``state``, reached by ``moves`` from the start
        (an external engine is sent them; the others search ``state``)."""
        if self.player is None:
            assert self.searcher is not None
            return self.searcher.search(state, self.params, seed=seed,
                                        **self.config.search.search_kwargs())
        t0 = time.perf_counter()  # the whole exchange, notation and checks included
        kernel = self.kernel
        legal = kernel.legal_moves(state)
        notation = {kernel.move_to_str(m): m for m in legal}
        settings = self.config.search
        # the default depth is "no depth limit": sent only when an engine file sets one
        depth = settings.depth if settings.depth < SearchSettings.depth else 0
        text, found = self.player.choose(
            [kernel.move_to_str(m) for m in moves], list(notation), seed, depth,
            settings.nodes, settings.time_ms)
        return SearchResult(notation[text], found.value, found.depth, found.nodes,
                            time.perf_counter() - t0, found.legal_moves)

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
