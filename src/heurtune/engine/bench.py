"""``heurtune bench``: search speed on a fixed, seeded set of positions."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from heurtune.engine.config import TABLE_SETTINGS, SearchSettings
from heurtune.engine.heuristic import get_heuristic, heuristics, heuristics_module
from heurtune.engine.pysearch import PySearcher
from heurtune.engine.search import MAX_PLY, Searcher
from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, GameKernel, PythonKernel, get_game


def _playout(kernel: GameKernel, plies: int, rng: np.random.Generator) -> Any:
    state = kernel.new_state()
    for _ in range(plies):
        if kernel.outcome(state) != ONGOING:
            return None
        moves = kernel.legal_moves(state)
        kernel.make_move(state, moves[int(rng.integers(len(moves)))])
    return state if kernel.outcome(state) == ONGOING else None


def bench_positions(
    kernel: GameKernel, count: int = 8, seed: int = 2024, max_plies: int = 40
) -> list[Any]:
    """``count`` positions from seeded random playouts, spread over plies 0 to
    ``max_plies`` (a target that random games rarely reach alive moves down)."""
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    # one position: the middle one (the start position may need no search at all)
    targets = np.linspace(0, max_plies, count) if count > 1 else [max_plies // 2]
    for target in (int(x) for x in targets):
        state = None
        while state is None:
            for _ in range(100):
                state = _playout(kernel, target, rng)
                if state is not None:
                    break
            target -= 1
        out.append(state)
    return out


@dataclass(frozen=True)
class BenchResult:
    """One bench run. ``seconds`` is the time to ``depth`` summed over the
    positions (the fastest pass); ``nodes`` counts every iteration of iterative
    deepening, ``last_iteration_nodes`` only the deepest one, so that searches
    that count differently can be compared by time to depth."""

    game: str
    heuristic: str
    algorithm: str
    depth: int
    positions: int
    nodes: int
    seconds: float
    last_iteration_nodes: int = 0
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "game": self.game, "heuristic": self.heuristic, "algorithm": self.algorithm,
            "depth": self.depth, "positions": self.positions, "nodes": self.nodes,
            "last_iteration_nodes": self.last_iteration_nodes,
            "seconds": self.seconds, "time_to_depth": self.seconds,
            "nodes_per_second": self.nodes_per_second, "settings": dict(self.settings),
        }


def bench_defaults(game: str) -> dict[str, object]:
    """The game's bench settings (``BENCH`` in its heuristics module; a game
    without one: its first heuristic, depth 6, positions up to ply 20)."""
    declared = getattr(heuristics_module(game), "BENCH", None)
    if declared is None:
        return {"heuristic": next(iter(heuristics(game))), "depth": 6, "max_plies": 20}
    return dict(declared)


def bench(
    game: str, heuristic: str | None = None, depth: int | None = None,
    algorithm: str = "alphabeta", positions: int = 8, seed: int = 2024, repeat: int = 3,
    **settings: object,
) -> BenchResult:
    """Search every bench position to ``depth`` with an empty table (the engines'
    default size); time only the searches. ``settings`` override the game's
    table settings (``table``, ``tt_min_depth``, ``leaf_order``, ``tt_bits``,
    ``candidates``) and set ``root_ties`` (default ``first``). The node count
    is the same on every pass; the time is the fastest of ``repeat`` passes, the
    usual way to read through the noise of a shared machine."""
    defaults = bench_defaults(game)
    heuristic = heuristic or str(defaults["heuristic"])
    depth = int(defaults["depth"]) if depth is None else depth  # type: ignore[call-overload]
    if not 1 <= depth <= MAX_PLY - 2:
        raise HeurtuneError(f"bench depth must be in [1, {MAX_PLY - 2}], got {depth}")
    if not 1 <= positions <= 10_000:
        raise HeurtuneError(f"bench positions must be in [1, 10000], got {positions}")
    kernel = get_game(game)
    h = get_heuristic(game, heuristic)
    # checked like an engine file's [search], unset ones from the game's defaults
    resolved = SearchSettings.from_dict(settings).resolved(game)
    table = {k: getattr(resolved, k) for k in TABLE_SETTINGS if k != "tt_bits"}
    table["root_ties"] = resolved.root_ties
    tt_bits = int(resolved.tt_bits)  # type: ignore[arg-type]
    searcher: Any  # Searcher (params: an array) or PySearcher (params: by name)
    params: Any
    if isinstance(kernel, PythonKernel):
        searcher, params = PySearcher(kernel, h, tt_bits), h.space.defaults()
    else:
        searcher, params = Searcher(kernel, h, tt_bits), h.to_array()
    states = bench_positions(kernel, positions, seed, int(defaults["max_plies"]))  # type: ignore[call-overload]
    searcher.search(states[0].copy(), params, algorithm=algorithm, depth=1)  # compile / load
    best = float("inf")
    nodes = last = 0
    for _ in range(max(1, repeat)):
        nodes = last = 0
        seconds = 0.0
        for state in states:
            searcher.clear()
            t0 = time.perf_counter()
            r = searcher.search(state, params, algorithm=algorithm, depth=depth, seed=seed,
                                **table)
            seconds += time.perf_counter() - t0
            nodes += r.nodes
            last += r.last_iteration_nodes
        best = min(best, seconds)
    if nodes == 0:
        raise HeurtuneError(f"bench {game}: the {len(states)} positions needed no search "
                            "(each had one candidate move): take more --positions")
    return BenchResult(game, heuristic, algorithm, depth, len(states), nodes, best, last,
                       {**table, "tt_bits": tt_bits})
