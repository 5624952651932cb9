"""The simulated oracle: games decided by a known function of the parameters.

:class:`OracleRunner` stands in for :class:`~heurtune.match.runner.MatchRunner`:
it plays no game, but draws each pair's two results from the engines' Elo
under one of the cases in ``heurtune.engine.heuristics.oracle`` (each game a
win, draw or loss with the case's draw ratio, like fishtest's simulator: the
expected score is the logistic curve of the Elo difference, the draws take
``draw_ratio`` out of the middle). An optional opening bias (the RMS of the
openings' first-move advantage, in Elo) makes the two games of a pair
anti-correlated, as real paired openings are. Everything else, the study file,
the samplers, the pruner, confirm and export, is heurtune's own, so the
benchmark measures heurtune as users run it.

Use :func:`oracle_game` (a context manager) to register the stand-in game
``oracle`` while the oracle is in use.
"""

from __future__ import annotations

import contextlib
import hashlib
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from heurtune.engine.config import EngineConfig
from heurtune.games import register_game, unregister_game
from heurtune.match.play import PairResult, mix_seed
from heurtune.match.runner import KeepGames, MatchRunner, MatchSpec

if TYPE_CHECKING:
    from heurtune.engine.heuristics.oracle import OracleCase

GAME = "oracle"


@contextlib.contextmanager
def oracle_game() -> Iterator[None]:
    """Register the oracle's stand-in game for the duration of the block."""
    register_game(GAME, "heurtune.games.oracle")
    try:
        yield
    finally:
        unregister_game(GAME)


def _params_key(params: Mapping[str, object]) -> int:
    """A stable 64-bit key of a parameter set (Python's hash() is salted per process)."""
    digest = hashlib.blake2b(digest_size=8)
    for name in sorted(params):
        digest.update(name.encode())
        digest.update(struct.pack("<d", float(params[name])))  # type: ignore[arg-type]
    return int.from_bytes(digest.digest(), "little")


def game_scores(rng: np.random.Generator, elo_diff: np.ndarray, draw_ratio: float) -> np.ndarray:
    """One game per entry: 1, 0.5 or 0 for the side whose Elo advantage is given."""
    expected = 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))
    win = np.clip(expected - draw_ratio / 2.0, 0.0, 1.0)
    loss = np.clip(1.0 - expected - draw_ratio / 2.0, 0.0, 1.0)
    u = rng.random(elo_diff.shape)
    return np.where(u < win, 1.0, np.where(u < 1.0 - loss, 0.5, 0.0))


class OracleRunner(MatchRunner):
    """Plays pairs from the case's Elo function instead of games (any ``jobs``:
    it needs no process). Every pair is reproducible from the runner's seed, the
    match seed, the opening's index and both parameter sets."""

    def __init__(self, seed: int = 0, opening_bias: float = 0.0) -> None:
        super().__init__(1)
        self.seed = seed
        self.opening_bias = opening_bias
        self.games = 0  # games played so far (the benchmark's budget)

    def _case(self, config: EngineConfig) -> OracleCase:
        from heurtune.engine.heuristics.oracle import CASES

        return CASES[config.heuristic]

    def elo(self, config: EngineConfig) -> float:
        case = self._case(config)
        return case.elo(np.array([float(config.params[f"x{i + 1}"]) for i in range(case.dim)]))

    def _iter_many(
        self, specs: Sequence[MatchSpec], ops: list[tuple[int, ...]], numbers: list[int],
        keep_games: KeepGames,
    ) -> Iterator[tuple[int, PairResult]]:
        """Every spec's pairs, drawn instead of played (nothing to keep of games)."""
        for k, spec in enumerate(specs):
            for pair in self._draw(spec, ops, numbers):
                yield k, pair

    def _draw(self, spec: MatchSpec, ops: list[tuple[int, ...]],
              numbers: list[int]) -> Iterator[PairResult]:
        case = self._case(spec.a)
        diff = self.elo(spec.a) - self.elo(spec.b)
        key = mix_seed(self.seed, spec.seed, _params_key(spec.a.params),
                       _params_key(spec.b.params))
        # drawn for the openings in index order, so that an opening played in
        # another order (a trial's shuffle) gets the same result
        ranked = sorted(numbers)
        rng = np.random.default_rng(key)
        bias = (rng.normal(0.0, self.opening_bias, len(ranked)) if self.opening_bias > 0
                else np.zeros(len(ranked)))
        scores = game_scores(rng, np.stack([diff + bias, diff - bias], axis=1), case.draw_ratio)
        where = {i: k for k, i in enumerate(ranked)}
        for i, op in zip(numbers, ops, strict=True):
            first, second = scores[where[i]]
            self.games += 2
            yield PairResult(i, tuple(op), (float(first), float(second)), (1, 1))
