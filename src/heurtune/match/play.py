"""Playing one game, and one pair of games with colours swapped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from heurtune.engine.player import Engine
from heurtune.engine.process import Clock, EngineFault
from heurtune.games import ONGOING, GameKernel
from heurtune.match.openings import start_of

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
class Adjudication:
    """When the referee ends a game early, as cutechess and fishtest do, from the
    engines' own scores (``info score cp|mate``, in centipawns for the side that
    moved; engines that send none are never adjudicated on scores):

    * a **draw** once both engines' scores have stayed within ``draw_score``
      centipawns of 0 for ``draw_moves`` moves each in a row, from move
      ``draw_after`` on (moves counted from the game's start, the opening's
      included; ``draw_moves = 0``: never);
    * a **resignation** once one engine's own score has stayed at or below
      ``-resign_score`` for ``resign_moves`` of its moves in a row (0: never);
    * a **draw** at ``max_plies`` plies (0: no maximum).

    Every adjudicated game's termination says which rule ended it."""

    draw_after: int = 0
    draw_moves: int = 0
    draw_score: int = 0
    resign_moves: int = 0
    resign_score: int = 0
    max_plies: int = 0

    def __post_init__(self) -> None:
        from heurtune.errors import HeurtuneError

        for name in ("draw_after", "draw_moves", "draw_score", "resign_moves", "resign_score",
                     "max_plies"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not \
                    0 <= value <= 1_000_000:
                raise HeurtuneError(f"adjudication: {name} must be an integer in [0, 1000000], "
                                    f"got {value!r}")
        if self.resign_moves and not self.resign_score:
            raise HeurtuneError("adjudication: resign_moves needs a resign_score above 0")

    @property
    def active(self) -> bool:
        return bool(self.draw_moves or self.resign_moves or self.max_plies)

    def to_dict(self) -> dict[str, int]:
        """The rules in force (those left at 0 left out)."""
        return {k: v for k, v in vars(self).items() if v}


class _Referee:
    """The running counts of one game's adjudication."""

    def __init__(self, rules: Adjudication) -> None:
        self.rules = rules
        self.calm = 0  # plies in a row with the mover's score within the draw window
        self.lost = [0, 0]  # each side's moves in a row at or below -resign_score

    def after(self, side: int, score: int | None, plies: int,
              names: tuple[str, str]) -> tuple[float, str] | None:
        """The first player's score and the reason once a rule ends the game after
        ``side`` moved (``plies`` played from the start), else None."""
        rules = self.rules
        if rules.draw_moves:
            self.calm = self.calm + 1 if score is not None and \
                abs(score) <= rules.draw_score else 0
            if self.calm >= 2 * rules.draw_moves and plies >= 2 * rules.draw_after:
                return 0.5, (f"adjudicated draw: both engines' scores within "
                             f"\u00b1{rules.draw_score} cp for {rules.draw_moves} moves each"
                             + (f" after move {rules.draw_after}" if rules.draw_after else ""))
        if rules.resign_moves:
            self.lost[side] = self.lost[side] + 1 if score is not None and \
                score <= -rules.resign_score else 0
            if self.lost[side] >= rules.resign_moves:
                return (0.0 if side == 0 else 1.0), (
                    f"adjudicated: {names[side]} resigned (its engine's score at or below "
                    f"-{rules.resign_score} cp for {rules.resign_moves} moves)")
        if rules.max_plies and plies >= rules.max_plies:
            return 0.5, f"adjudicated draw: {rules.max_plies} plies, the maximum"
        return None


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
    # the kind of fault that ended the game (EngineFault.kind: illegal, garbage,
    # timeout, time, crash), "" when none did, and the side whose engine faulted
    fault: str = ""
    # the engines' scores after each move after the opening, in centipawns for the
    # side that moved (None: it sent none); kept only where an engine sends them
    scores: tuple[int | None, ...] = ()
    fault_side: int = -1


def play_game(
    kernel: GameKernel,
    rules: Mapping[str, Any],
    engines: Sequence[Engine],
    opening: Sequence[int],
    seed: int,
    adjudication: Adjudication | None = None,
) -> GameRecord:
    """Play ``opening`` (from its start position) then let ``engines[side]`` move
    until the game ends, or ``adjudication`` ends it, each engine on its clock
    where it plays on one (``search.tc``).

    An external engine's fault (:class:`~heurtune.engine.process.EngineFault`:
    an illegal move, a timeout, a lost clock, a crash) ends the game there: that
    engine loses, and the fault is the game's termination."""
    start = start_of(opening)
    state = kernel.new_state(rules, start)
    moves = list(opening)
    for m in opening:
        kernel.make_move(state, m)
    nodes = [0, 0]
    seconds = [0.0, 0.0]
    searches = [0, 0]
    move_nodes: list[int] = []
    scores: list[int | None] = []
    fault, kind = "", ""
    faulty = -1
    controls = (engines[0].time_control, engines[1].time_control)
    clock = Clock(controls) if controls != (None, None) else None
    referee = _Referee(adjudication) if adjudication is not None and adjudication.active \
        else None
    ended: tuple[float, str] | None = None
    for side, e in enumerate(engines):
        try:
            e.new_game()
        except EngineFault as exc:
            fault, kind, faulty = exc.reason, exc.kind, side
            break
    while not fault and ended is None:
        res = kernel.outcome(state)
        if res != ONGOING:
            break
        side = int(kernel.side_to_move(state))
        try:
            found = engines[side].choose(state, seed=mix_seed(seed, len(moves)), moves=moves,
                                         start=start, clock=clock, side=side)
        except EngineFault as exc:
            fault, kind, faulty = exc.reason, exc.kind, side
            break
        if clock is not None:
            clock.spend(side, found.seconds * 1000.0)
        nodes[side] += found.nodes
        seconds[side] += found.seconds
        searches[side] += 1
        move_nodes.append(int(found.nodes))
        score = engines[side].last_score
        scores.append(score)
        kernel.make_move(state, found.move)
        moves.append(found.move)
        if referee is not None and kernel.outcome(state) == ONGOING:
            ended = referee.after(side, score, len(moves), kernel.side_names)
    kept = tuple(scores) if any(s is not None for s in scores) else ()
    if fault:
        first = 0.0 if faulty == 0 else 1.0
        reason = fault
    elif ended is not None:
        first, reason = ended
    else:
        side = int(kernel.side_to_move(state))
        if res == 0:
            first = 0.5
        else:
            mover_wins = res > 0
            first = 1.0 if mover_wins == (side == 0) else 0.0
        reason = kernel.termination_reason(state)
    return GameRecord(first, tuple(moves), (nodes[0], nodes[1]), tuple(move_nodes),
                      reason, (seconds[0], seconds[1]), (searches[0], searches[1]), kind, kept,
                      faulty)


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
    # the kinds of engine fault that lost A (then B) a game of the pair
    a_faults: tuple[str, ...] = ()
    b_faults: tuple[str, ...] = ()

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
    adjudication: Adjudication | None = None,
) -> PairResult:
    """A plays first from ``opening``, then B does.

    Both games use the same tie-break seeds, so the pair differs only by who
    plays which colour: two identical engines score exactly 0.5 per pair, and
    what remains of a pair's score is the engines' difference.
    """
    game_seed = mix_seed(seed, index)
    g0 = play_game(kernel, rules, (a, b), opening, game_seed, adjudication)
    g1 = play_game(kernel, rules, (b, a), opening, game_seed, adjudication)
    # A is side 0 of the first game and side 1 of the second
    faults = [(g.fault, g.fault_side == a_side) for g, a_side in ((g0, 0), (g1, 1)) if g.fault]
    return PairResult(
        index, opening if isinstance(opening, tuple) else tuple(opening),
        (g0.first_score, 1.0 - g1.first_score),
        (len(g0.moves), len(g1.moves)), (g0, g1) if keep_games else (),
        g0.seconds[0] + g1.seconds[1], g0.searches[0] + g1.searches[1],
        tuple(kind for kind, by_a in faults if by_a),
        tuple(kind for kind, by_a in faults if not by_a),
    )
