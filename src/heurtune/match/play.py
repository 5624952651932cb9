"""Playing one game, and one pair of games with colours swapped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from heurtune.engine.player import Engine
from heurtune.engine.process import EngineFault
from heurtune.games import ONGOING, GameKernel

_MASK = (1 << 64) - 1


def mix_seed(*parts: int) -> int:
    """A 62-bit seed from integers (splitmix64 over the parts)."""
    x = 0x9E3779B97F4A7C15
    for p in parts:
        x = (x ^ (p & _MASK)) & _MASK
        x = (x + 0x9E3779B97F4A7C15) & _MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
        x ^= x >> 31
    return x & ((1 << 62) - 1)


@dataclass(frozen=True)
class GameRecord:
    """One finished game: the first player's score (1, 0.5 or 0), its moves (the
    opening's included), the nodes each side searched, the nodes of each move
    after the opening, and why the game ended (the kernel's termination hook)."""

    first_score: float
    moves: tuple[int, ...]
    nodes: tuple[int, int]
    move_nodes: tuple[int, ...] = ()
    termination: str = ""
    # each side's time searching (a measurement: not part of what makes two games equal)
    seconds: tuple[float, float] = field(default=(0.0, 0.0), compare=False)
    searches: tuple[int, int] = (0, 0)  # each side's moves searched


def play_game(
    kernel: GameKernel,
    rules: Mapping[str, Any],
    engines: Sequence[Engine],
    opening: Sequence[int],
    seed: int,
) -> GameRecord:
    """Play ``opening`` then let ``engines[side]`` move until the game ends.

    An external engine's fault (:class:`~heurtune.engine.process.EngineFault`:
    an illegal move, a timeout, a crash) ends the game there: that engine
    loses, and the fault is the game's termination."""
    state = kernel.new_state(rules)
    moves = list(opening)
    for m in opening:
        kernel.make_move(state, m)
    nodes = [0, 0]
    seconds = [0.0, 0.0]
    searches = [0, 0]
    move_nodes: list[int] = []
    fault = ""
    faulty = -1
    for side, e in enumerate(engines):
        try:
            e.new_game()
        except EngineFault as exc:
            fault, faulty = exc.reason, side
            break
    while not fault:
        res = kernel.outcome(state)
        if res != ONGOING:
            break
        side = int(kernel.side_to_move(state))
        try:
            found = engines[side].choose(state, seed=mix_seed(seed, len(moves)), moves=moves)
        except EngineFault as exc:
            fault, faulty = exc.reason, side
            break
        nodes[side] += found.nodes
        seconds[side] += found.seconds
        searches[side] += 1
        move_nodes.append(int(found.nodes))
        kernel.make_move(state, found.move)
        moves.append(found.move)
    if fault:
        first = 0.0 if faulty == 0 else 1.0
        reason = fault
    else:
        side = int(kernel.side_to_move(state))
        if res == 0:
            first = 0.5
        else:
            mover_wins = res > 0
            first = 1.0 if mover_wins == (side == 0) else 0.0
        reason = kernel.termination_reason(state)
    return GameRecord(first, tuple(moves), (nodes[0], nodes[1]), tuple(move_nodes),
                      reason, (seconds[0], seconds[1]), (searches[0], searches[1]))


@dataclass(frozen=True)
class PairResult:
    """Two games from one opening; scores are the first engine's (A's). The
    games themselves are kept only when asked for (``keep_games``): A moving
    first, then B."""

    index: int
    opening: tuple[int, ...]
    a_scores: tuple[float, float]
    plies: tuple[int, int]
    games: tuple[GameRecord, ...] = ()
    # A's time searching, both games (the cost objective; a measurement, not compared)
    a_seconds: float = field(default=0.0, compare=False)
    a_moves: int = 0  # A's moves searched, both games

    @property
    def score(self) -> float:
        return (self.a_scores[0] + self.a_scores[1]) / 2.0


def play_pair(
    kernel: GameKernel,
    rules: Mapping[str, Any],
    a: Engine,
    b: Engine,
    index: int,
    opening: Sequence[int],
    seed: int,
    keep_games: bool = False,
) -> PairResult:
    """A plays first from ``opening``, then B does.

    Both games use the same tie-break seeds, so the pair differs only by who
    plays which colour: two identical engines score exactly 0.5 per pair, and
    what remains of a pair's score is the engines' difference.
    """
    game_seed = mix_seed(seed, index)
    g0 = play_game(kernel, rules, (a, b), opening, game_seed)
    g1 = play_game(kernel, rules, (b, a), opening, game_seed)
    return PairResult(
        index, tuple(opening), (g0.first_score, 1.0 - g1.first_score),
        (len(g0.moves), len(g1.moves)), (g0, g1) if keep_games else (),
        g0.seconds[0] + g1.seconds[1], g0.searches[0] + g1.searches[1],
    )
