"""Position sets: positions of played games, each labelled with the game's result.

The data of Texel-style tuning (heurtune.tuning.positions): games are played
once, positions are sampled from them, and each is labelled with the final
result from the point of view of the side to move there (1 a win, 0.5 a draw,
0 a loss). A fit then asks the evaluation to predict those results.

A set is stored as the *games* it came from, not as state arrays: the moves of
every game (its opening included), which plies of which game are positions,
and, for ``quiet`` sets, the moves of the principal variation that leads from
the sampled position to the evaluated one. A kernel's state can be large
(Gomoku's is 7,740 integers, 62 KB with its undo stack: 50,000 positions would
be 3 GB), while its moves are a few hundred bytes per game, and replaying them
costs less than evaluating (:class:`heurtune.engine.batch.PositionEvaluator`
replays and evaluates in one numba pass). The file is a compressed numpy
``.npz``: fixed-type integer and float arrays are what it stores natively, it
loads without pickles or a new dependency (Parquet would need pyarrow, whose
columns would hold the same arrays), and numpy reads it in milliseconds. Its
arrays:

``moves`` (int64), ``game_start`` (int64, games + 1)
    every game's moves from the start, game ``g`` at
    ``moves[game_start[g]:game_start[g + 1]]``;
``game_score`` (float64), ``game_opening`` (int64)
    the first player's score in each game and its opening's length in plies;
``pos_game``, ``pos_ply`` (int64)
    each position's game and the plies played to reach it, sorted by game and
    ply;
``extra``, ``extra_start`` (int64, positions + 1)
    each position's quiet line (empty without ``quiet``);
``label`` (float64)
    the game's result for the side to move in the evaluated position (after
    its quiet line);
``meta``
    a JSON text: format and version, game, rules, and the provenance (engines,
    seeds, counts, sampling options).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, GameKernel, PythonKernel, get_game
from heurtune.games.specialise import specialise
from heurtune.match.foreground import compiling, interruptible
from heurtune.match.play import mix_seed
from heurtune.tomlio import write_atomic

FORMAT = "heurtune-positions"
VERSION = 1
ARRAYS = ("moves", "game_start", "game_score", "game_opening", "pos_game", "pos_ply",
          "extra", "extra_start", "label")
DEFAULT_QUIET_DEPTH = 2
# The deepest --quiet search. A quiet line is what a shallow search sees beyond
# the position (2 plies by default), and its searches are full width with no node
# or time limit: their cost grows as the branching factor to the power of the
# depth. Measured on a mid-game position, one line took 0.7 s at depth 4 and 18 s
# at 5 in Gomoku, 3 s at 6 and 59 s at 7 in Halma, 1 s at 12 in Morris: beyond 8
# plies a set of thousands of positions would take days in every game but the
# smallest, and the line would be a forecast, not the position the search evaluates.
MAX_QUIET_DEPTH = 8


@dataclass(frozen=True)
class GameLine:
    """One finished game: its moves from the start (the opening's included),
    the first player's score (1, 0.5 or 0) and its opening's length."""

    moves: tuple[int, ...]
    first_score: float
    opening: int = 0


@dataclass(frozen=True)
class PositionSet:
    """Positions of played games and their labels (see the module)."""

    game: str
    rules: Mapping[str, int]
    moves: np.ndarray
    game_start: np.ndarray
    game_score: np.ndarray
    game_opening: np.ndarray
    pos_game: np.ndarray
    pos_ply: np.ndarray
    extra: np.ndarray
    extra_start: np.ndarray
    label: np.ndarray
    provenance: Mapping[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """The number of positions."""
        return int(self.label.shape[0])

    @property
    def games(self) -> int:
        return int(self.game_score.shape[0])

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ARRAYS}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the set as a compressed ``.npz``, atomically."""
        meta = {"format": FORMAT, "version": VERSION, "game": self.game,
                "rules": dict(self.rules), "provenance": dict(self.provenance)}
        buffer = io.BytesIO()
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **self.arrays()}
        np.savez_compressed(buffer, **arrays)
        write_atomic(path, buffer.getvalue())

    def state(self, index: int) -> Any:
        """The evaluated position ``index`` as a state (a kernel's array, or a
        plain-Python game's box; for tests and pictures: the fit replays in numba)."""
        kernel = get_game(self.game)
        state = kernel.new_state(self.rules)
        g = int(self.pos_game[index])
        start = int(self.game_start[g])
        for m in self.moves[start:start + int(self.pos_ply[index])]:
            kernel.make_move(state, int(m))
        for m in self.extra[self.extra_start[index]:self.extra_start[index + 1]]:
            kernel.make_move(state, int(m))
        return state


def load_positions(path: str | os.PathLike[str], game: str | None = None) -> PositionSet:
    """A position file, checked (a missing, unreadable or malformed file, or one
    of another game than ``game``, is a :class:`HeurtuneError`)."""
    p = Path(path)
    if p.is_dir():
        raise HeurtuneError(f"{p}: is a directory, not a position file")
    try:
        with np.load(p, allow_pickle=False) as data:
            missing = [k for k in ("meta", *ARRAYS) if k not in data.files]
            if missing:
                raise HeurtuneError(f"{p}: not a heurtune position file (no "
                                    f"{', '.join(missing)})")
            arrays = {k: np.ascontiguousarray(data[k]) for k in ARRAYS}
            meta = json.loads(str(data["meta"]))
    except FileNotFoundError:
        raise HeurtuneError(f"{p}: no such file") from None
    except HeurtuneError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, json.JSONDecodeError, EOFError) as exc:
        raise HeurtuneError(f"{p}: not a heurtune position file ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise HeurtuneError(f"{p}: not a heurtune position file")
    if meta.get("version") != VERSION:
        raise HeurtuneError(f"{p}: position file version {meta.get('version')!r}; this "
                            f"heurtune reads version {VERSION}")
    name = meta.get("game")
    if game is not None and name != game:
        raise HeurtuneError(f"{p}: positions of {name}, not {game}")
    kernel = get_game(str(name))
    try:
        rules = kernel.resolve_rules(meta.get("rules") or {})
    except HeurtuneError as exc:
        raise HeurtuneError(f"{p}: {exc}") from None
    out = PositionSet(str(name), rules, provenance=meta.get("provenance") or {}, **arrays)
    _check_arrays(out, str(p))
    _check_moves(kernel, out, str(p))
    return out


def _check_arrays(s: PositionSet, where: str) -> None:
    """The arrays agree with each other (a file edited or cut short does not)."""
    def bad(what: str) -> HeurtuneError:
        return HeurtuneError(f"{where}: malformed position file ({what})")

    for name, arr in s.arrays().items():
        want = np.float64 if name in ("game_score", "label") else np.int64
        if arr.ndim != 1 or arr.dtype != want:
            raise bad(f"{name} must be a 1-D {np.dtype(want)} array")
    g, n = s.game_score.shape[0], s.label.shape[0]
    if n == 0:
        raise bad("no positions")
    if s.game_start.shape[0] != g + 1 or s.game_opening.shape[0] != g:
        raise bad("game arrays of different lengths")
    if s.game_start[0] != 0 or s.game_start[-1] != s.moves.shape[0] or np.any(
            np.diff(s.game_start) < 0):
        raise bad("game_start")
    if s.pos_game.shape[0] != n or s.pos_ply.shape[0] != n or s.extra_start.shape[0] != n + 1:
        raise bad("position arrays of different lengths")
    if np.any(s.pos_game < 0) or np.any(s.pos_game >= g):
        raise bad("pos_game")
    order = s.pos_game * (1 << 20) + s.pos_ply
    if np.any(np.diff(order) <= 0):
        raise bad("positions not sorted by game and ply")
    lengths = np.diff(s.game_start)
    if np.any(s.pos_ply < 0) or np.any(s.pos_ply >= lengths[s.pos_game]):
        raise bad("pos_ply")
    if s.extra_start[0] != 0 or s.extra_start[-1] != s.extra.shape[0] or np.any(
            np.diff(s.extra_start) < 0):
        raise bad("extra_start")
    for name in ("label", "game_score"):
        if not np.all(np.isin(getattr(s, name), (0.0, 0.5, 1.0))):
            raise bad(f"{name} values must be 0, 0.5 or 1")
    if np.any(s.game_opening < 0) or np.any(s.game_opening > lengths):
        raise bad("game_opening")


# Free names bound per game by :func:`specialise` (Any to mypy: numba dispatchers).
gen_moves: Any = None
make_move: Any = None
unmake_move: Any = None
outcome: Any = None


def _allowed(state: Any, move: Any, buf: Any) -> Any:
    """Whether ``move`` is legal in ``state`` (none is once the game is over)."""
    if outcome(state) != ONGOING:
        return False
    count = gen_moves(state, buf, 0)
    for k in range(count):
        if buf[0, k] == move:
            return True
    return False


def _first_illegal(init, moves, game_start, pos_game, pos_ply, extra, extra_start, buf):  # type: ignore[no-untyped-def]
    """The first stored move that is not legal where it stands, as (game, ply,
    position, step): ``position`` -1 for the game's own move at ``ply`` (0 the
    first), else the position at ``ply`` whose quiet line holds the move as its
    ``step``-th (0 the first); (-1, -1, -1, -1) where all are legal. Each game is
    replayed from ``init``; a move is only made once it is known legal, so a
    move out of any range never reaches the kernel's tables."""
    state = init.copy()
    i = 0
    n = pos_game.shape[0]
    for g in range(game_start.shape[0] - 1):
        state[:] = init
        start = game_start[g]
        for ply in range(game_start[g + 1] - start):
            while i < n and pos_game[i] == g and pos_ply[i] == ply:
                made = 0
                for j in range(extra_start[i], extra_start[i + 1]):
                    if not _allowed(state, extra[j], buf):
                        return g, ply, i, j - extra_start[i]
                    make_move(state, extra[j])
                    made += 1
                for j in range(extra_start[i] + made - 1, extra_start[i] - 1, -1):
                    unmake_move(state, extra[j])
                i += 1
            if not _allowed(state, moves[start + ply], buf):
                return g, ply, -1, 0
            make_move(state, moves[start + ply])
    return -1, -1, -1, -1


def _first_illegal_python(kernel: GameKernel, s: PositionSet) -> tuple[int, int, int, int]:
    """:func:`_first_illegal` for a plain-Python game (its states are Python objects)."""
    i = 0
    for g in range(s.games):
        state = kernel.new_state(s.rules)
        start = int(s.game_start[g])
        for ply in range(int(s.game_start[g + 1]) - start):
            while i < s.size and s.pos_game[i] == g and s.pos_ply[i] == ply:
                line = [int(m) for m in s.extra[s.extra_start[i]:s.extra_start[i + 1]]]
                for step, m in enumerate(line):
                    if kernel.outcome(state) != ONGOING or m not in kernel.legal_moves(state):
                        return g, ply, i, step
                    kernel.make_move(state, m)
                for m in reversed(line):
                    kernel.unmake_move(state, m)
                i += 1
            move = int(s.moves[start + ply])
            if kernel.outcome(state) != ONGOING or move not in kernel.legal_moves(state):
                return g, ply, -1, 0
            kernel.make_move(state, move)
    return -1, -1, -1, -1


def _check_moves(kernel: GameKernel, s: PositionSet, where: str) -> None:
    """Every move of the set is legal where it stands: each game's from its
    start, and each position's quiet line from the position. A file edited, or
    written by something else, would otherwise be replayed by the evaluation
    with moves the kernel never checks (it trusts its callers: a move out of
    range reads and writes outside its tables)."""
    if isinstance(kernel, PythonKernel):
        found = _first_illegal_python(kernel, s)
    else:
        fn = specialise([_allowed, _first_illegal],
                        {"gen_moves": kernel.gen_moves, "make_move": kernel.make_move,
                         "unmake_move": kernel.unmake_move, "outcome": kernel.outcome},
                        f"check_{kernel.name}")["_first_illegal"]
        init = np.ascontiguousarray(kernel.new_state(s.rules), dtype=np.int64)
        buf = np.empty((1, kernel.max_moves), dtype=np.int64)
        with compiling(f"the {kernel.name} position-file check"):
            g, ply, position, step = (int(x) for x in interruptible(
                fn, init, s.moves, s.game_start, s.pos_game, s.pos_ply, s.extra,
                s.extra_start, buf))
        found = (g, ply, position, step)
    g, ply, position, step = found
    if g < 0:
        return
    if position < 0:
        move = int(s.moves[int(s.game_start[g]) + ply])
        raise HeurtuneError(f"{where}: {kernel.name} game {g}, ply {ply + 1}: move {move} "
                            f"is not a legal {kernel.name} move there (a damaged or edited "
                            "position file)")
    move = int(s.extra[int(s.extra_start[position]) + step])
    raise HeurtuneError(f"{where}: {kernel.name} game {g}, position after ply {ply}: move "
                        f"{step + 1} of its quiet line, {move}, is not a legal "
                        f"{kernel.name} move there (a damaged or edited position file)")


class QuietSearch:
    """The quiet line of a position: from it, the principal variation of a
    ``depth``-ply search with ``engine``'s heuristic and weights, followed by
    searches one ply shallower at each step (each search's best move is the
    next move of the line), stopping before a move that ends the game. The
    searches are full-width alpha-beta to that depth with the table on and
    nothing else of the engine's settings (no node or time limit, no candidate
    moves), so a line depends on the position, weights and seed only."""

    def __init__(self, engine: EngineConfig, depth: int = DEFAULT_QUIET_DEPTH) -> None:
        from heurtune.engine.player import Engine

        if engine.process is not None:
            raise HeurtuneError(f"--quiet searches with the engine's own heuristic: "
                                f"{engine.label} runs in another process")
        if not 1 <= depth <= MAX_QUIET_DEPTH:
            raise HeurtuneError(f"--quiet-depth must be in [1, {MAX_QUIET_DEPTH}] (a full-width "
                                f"search per position and ply; beyond {MAX_QUIET_DEPTH} plies "
                                f"a set takes days), got {depth}")
        self.engine = Engine(engine)
        self.depth = depth

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the search, saying so when it
        takes a while; Ctrl-C stops it."""
        from heurtune.match.runner import warm_up

        warm_up(self.engine.config)

    def line(self, state: np.ndarray, seed: int) -> list[int]:
        """The quiet line from ``state`` (left unchanged)."""
        engine = self.engine
        kernel = engine.kernel
        searcher: Any = engine.searcher  # a Searcher, or a plain-Python game's PySearcher
        assert searcher is not None  # an engine in another process is refused in __init__
        out: list[int] = []
        for depth in range(self.depth, 0, -1):
            if kernel.outcome(state) != ONGOING:
                break
            found = searcher.search(state, engine.params, algorithm="alphabeta", depth=depth,
                                    seed=seed)
            kernel.make_move(state, found.move)
            if kernel.outcome(state) != ONGOING:
                kernel.unmake_move(state, found.move)
                break
            out.append(found.move)
        for m in reversed(out):
            kernel.unmake_move(state, m)
        return out


def sample_positions(
    game: str,
    rules: Mapping[str, Any],
    lines: Sequence[GameLine],
    *,
    seed: int = 0,
    skip_plies: int = 0,
    per_game: int = 0,
    quiet: QuietSearch | None = None,
    provenance: Mapping[str, Any] | None = None,
    on_game: Callable[[], None] | None = None,
) -> PositionSet:
    """Positions of ``lines``: in each game, every position from ``skip_plies``
    plies after its opening on where the game goes on (or ``per_game`` of them,
    drawn with a seeded generator per game; 0: all), each through its quiet line
    with ``quiet``, labelled with the game's result for the side to move."""
    kernel = get_game(game)
    if skip_plies < 0 or per_game < 0:
        raise HeurtuneError("--skip-plies and --per-game must not be negative")
    rules = kernel.resolve_rules(rules)
    moves: list[int] = []
    game_start, game_score, game_opening = [0], [], []
    pos_game, pos_ply, extra, extra_start, label = [], [], [], [0], []

    def sample(g: int, line: GameLine) -> None:
        state = kernel.new_state(rules)
        plies = len(line.moves)
        first = line.opening + skip_plies
        wanted = list(range(first, plies))  # the position after the last move is over
        if per_game and len(wanted) > per_game:
            rng = np.random.default_rng(mix_seed(seed, g))
            wanted = sorted(int(x) for x in rng.choice(wanted, per_game, replace=False))
        chosen = set(wanted)
        for ply in range(plies):
            if ply in chosen and kernel.outcome(state) == ONGOING:
                pv = quiet.line(state, mix_seed(seed, g, ply)) if quiet is not None else []
                for m in pv:
                    kernel.make_move(state, m)
                mover = int(kernel.side_to_move(state))
                for m in reversed(pv):
                    kernel.unmake_move(state, m)
                pos_game.append(g)
                pos_ply.append(ply)
                extra.extend(pv)
                extra_start.append(len(extra))
                label.append(line.first_score if mover == 0 else 1.0 - line.first_score)
            kernel.make_move(state, line.moves[ply])

    if quiet is not None:
        quiet.warm_up()
    for g, line in enumerate(lines):
        if quiet is not None:  # compiled searches: Ctrl-C and SIGTERM stop the wait
            interruptible(sample, g, line)
        else:
            sample(g, line)
        moves.extend(line.moves)
        game_start.append(len(moves))
        game_score.append(line.first_score)
        game_opening.append(line.opening)
        if on_game is not None:
            on_game()
    if not label:
        raise HeurtuneError(f"no position to sample: {len(lines)} games, none longer than "
                            f"its opening plus {skip_plies} plies")
    meta = {"games": len(lines), "positions": len(label), "seed": seed,
            "skip_plies": skip_plies, "per_game": per_game,
            "quiet": ({"engine": quiet.engine.config.label, "depth": quiet.depth}
                      if quiet is not None else None),
            **(provenance or {})}

    def i64(xs: Sequence[int]) -> np.ndarray:
        return np.asarray(xs, dtype=np.int64)

    def f64(xs: Sequence[float]) -> np.ndarray:
        return np.asarray(xs, dtype=np.float64)

    return PositionSet(game, rules, i64(moves), i64(game_start), f64(game_score),
                       i64(game_opening), i64(pos_game), i64(pos_ply), i64(extra),
                       i64(extra_start), f64(label), meta)


def lines_from_records(records: Sequence[Mapping[str, Any]], source: str = "records"
                       ) -> tuple[str, dict[str, int], list[GameLine]]:
    """The games of game records (``match --games``) as lines: one game and rule
    set for all of them, every move legal where it stands."""
    from heurtune.match.records import replay_moves

    games = {r["game"] for r in records}
    if len(games) != 1:
        raise HeurtuneError(f"{source}: games of {', '.join(sorted(games))}: a position set "
                            "holds one game's positions")
    game = games.pop()
    kernel = get_game(game)
    rules = kernel.resolve_rules(records[0]["rules"])
    out = []
    for number, record in enumerate(records):
        if kernel.resolve_rules(record["rules"]) != rules:
            raise HeurtuneError(f"{source} game {number}: other rules than game 0's")
        if record.get("start"):  # the file keeps moves, replayed from the game's start
            raise HeurtuneError(f"{source} game {number}: starts from {record['start']!r}; a "
                                f"position set holds games from {game}'s own start")
        moves = replay_moves(record, f"{source} game {number}")
        out.append(GameLine(tuple(moves), float(record["score"]), len(record["opening"])))
    return game, rules, out


def split_by_game(s: PositionSet, held_out: float, seed: int) -> np.ndarray:
    """Which positions are held out (a boolean mask): whole games, about
    ``held_out`` of them, drawn with ``seed``; never a game split between the
    two sides, and at least one game on each side where there are two."""
    if not 0.0 <= held_out < 1.0:
        raise HeurtuneError(f"held_out must be in [0, 1), got {held_out}")
    games = s.games
    count = int(round(held_out * games))
    if held_out > 0 and games >= 2:
        count = min(max(count, 1), games - 1)
    rng = np.random.default_rng(mix_seed(seed, 0x4E1D))
    out_games = np.zeros(games, dtype=bool)
    out_games[rng.permutation(games)[:count]] = True
    mask: np.ndarray = out_games[s.pos_game]
    return mask
