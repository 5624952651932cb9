"""An :class:`Engine` plays moves for one configuration."""

from __future__ import annotations

import numpy as np

from heurtune.engine.config import EngineConfig
from heurtune.engine.search import Searcher, SearchResult
from heurtune.games import get_game


class Engine:
    """A configured searcher: ``choose(state, seed)`` returns the move it plays."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.kernel = get_game(config.game)
        heuristic = config.heuristic_obj
        self.params = heuristic.to_array(config.params)
        # tt_bits: never None once EngineConfig has resolved its search settings
        self.searcher = Searcher(self.kernel, heuristic, config.search.tt_bits)  # type: ignore[arg-type]

    def new_game(self) -> None:
        """Reset learnt state so that every game reproduces on its own."""
        self.searcher.clear()

    def choose(self, state: np.ndarray, seed: int = 0) -> SearchResult:
        return self.searcher.search(state, self.params, seed=seed,
                                    **self.config.search.search_kwargs())
