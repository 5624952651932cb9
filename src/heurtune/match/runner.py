"""Running a match: pairs of games, in parallel worker processes.

Every pair is reproducible on its own: its opening comes from the match seed,
each engine starts every game with an empty table, and each move's tie-break
seed is derived from (match seed, pair, game, ply). So a match gives the same
result whatever ``jobs`` is and in whatever order the pairs finish.
"""

from __future__ import annotations

import ctypes
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Collection, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from heurtune.engine.config import EngineConfig
from heurtune.engine.player import Engine
from heurtune.engine.process import release_idle
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.games.registry import GameEntry, restore_games, runtime_games
from heurtune.match.books import Book
from heurtune.match.foreground import compiling, interruptible, log, signals_held
from heurtune.match.openings import opening_classes, random_openings
from heurtune.match.play import Adjudication, PairResult, play_pair
from heurtune.match.stats import MatchStats, Sprt, SprtEstimate, count_faults, pair_outcome

MAX_PAIRS = 1_000_000
MAX_CHUNK = 8  # pairs per task sent to a worker process
SEED_MAX = 2**32 - 1
MAX_OPENING_PLIES = 64
# which pairs carry their games: all (True), none (False) or the pairs of these indices
KeepGames = bool | Collection[int]


@dataclass(frozen=True)
class MatchSpec:
    """Who plays whom, how many opening pairs, from which seed."""

    a: EngineConfig
    b: EngineConfig
    pairs: int
    seed: int = 0
    opening_plies: int | None = None
    exclude: tuple[tuple[int, ...], ...] = ()
    # openings distinct up to the board's symmetries (False: as positions only,
    # how studies recorded before symmetry-aware openings drew theirs)
    by_symmetry: bool = True
    # play one opening of every symmetry class (in generation order) instead of
    # random ones; ``pairs`` is then how many of them (see opening_classes)
    every_class: bool = False
    # ``pairs`` is a cap (the SPRT's): a game with fewer distinct openings plays those
    fewer_ok: bool = False
    # draw the openings from this book (its order shuffled by ``seed``) instead
    # of playing random ones
    book: Book | None = None
    # when the referee ends a game early (engines' scores, a maximum length)
    adjudication: Adjudication | None = None

    def __post_init__(self) -> None:
        if self.a.game != self.b.game:
            raise HeurtuneError(
                f"engines play different games: {self.a.label} is {self.a.game}, "
                f"{self.b.label} is {self.b.game}"
            )
        if dict(self.a.rules) != dict(self.b.rules):
            raise HeurtuneError(f"{self.a.label} and {self.b.label} use different rules")
        if not 1 <= self.pairs <= MAX_PAIRS:
            raise HeurtuneError(f"pairs must be in [1, {MAX_PAIRS:,}], got {self.pairs}")
        if not 0 <= self.seed <= SEED_MAX:
            raise HeurtuneError(f"seed must be in [0, {SEED_MAX}], got {self.seed}")
        if self.opening_plies is not None and not 0 <= self.opening_plies <= MAX_OPENING_PLIES:
            raise HeurtuneError(
                f"opening plies must be in [0, {MAX_OPENING_PLIES}], got {self.opening_plies}")
        if self.book is not None:
            if self.book.game != self.a.game:
                raise HeurtuneError(f"opening book {self.book.name} is a {self.book.game} "
                                    f"book, not {self.a.game}")
            if self.every_class:
                raise HeurtuneError("an opening book and one opening of every class "
                                    "(pairs = \"all\") do not go together")

    @property
    def plies(self) -> int:
        if self.opening_plies is not None:
            return self.opening_plies
        return get_game(self.a.game).opening_plies

    def openings(self) -> list[tuple[int, ...]]:
        if self.book is not None:
            return list(self.book.draw(self.a.rules, self.pairs, self.seed, self.exclude,
                                       self.by_symmetry, self.fewer_ok))
        kernel = get_game(self.a.game)
        if self.every_class:
            ops = opening_classes(kernel, self.a.rules, self.plies, self.exclude)
            if self.pairs > len(ops):
                raise HeurtuneError(f"{kernel.name} has {len(ops)} classes of {self.plies}-ply "
                                    f"openings left, fewer than {self.pairs} pairs")
            return ops[:self.pairs]
        return random_openings(kernel, self.a.rules, self.pairs, self.plies, self.seed,
                               self.exclude, self.by_symmetry, self.fewer_ok)


@dataclass
class MatchResult:
    """The pairs of a match (in index order) and their statistics."""

    spec: MatchSpec
    pairs: list[PairResult] = field(default_factory=list)

    @property
    def stats(self) -> MatchStats:
        return stats_of(self.pairs)

    @property
    def first_player_score(self) -> float:
        """The score of the side that moves first in the game (side 0: White in
        Morris, Black in Gomoku) over all games: the first-move advantage, which
        paired openings cancel out of the engines' score."""
        games = [s for p in self.pairs for s in (p.a_scores[0], 1.0 - p.a_scores[1])]
        return sum(games) / len(games) if games else 0.5

    def to_dict(self) -> dict[str, Any]:
        out = self.stats.to_dict()
        out.update(a=self.spec.a.label, b=self.spec.b.label, pairs=len(self.pairs),
                   seed=self.spec.seed, first_player_score=self.first_player_score)
        return out


@dataclass(frozen=True)
class SprtOutcome:
    """Where an SPRT stopped: its verdict ("H0", "H1", or None at the pair cap),
    the log-likelihood ratio then, after how many pairs, and the five pair
    outcome counts it rests on (empty if not recorded: then there is no
    corrected estimate and no forecast)."""

    sprt: Sprt
    verdict: str | None
    llr: float
    pairs: int
    counts: tuple[int, ...] = ()

    def estimate(self) -> SprtEstimate | None:
        """The strength the outcome points to, corrected for the stop (see
        :meth:`Sprt.estimate`); None without counts."""
        return self.sprt.estimate(self.counts) if sum(self.counts) > 0 else None

    def more_pairs(self) -> tuple[float, float] | None:
        """Without a verdict: the further pairs a verdict would likely take (expected,
        and within which 95% of such tests decide) if the pairs to come score like
        these; None with a verdict or without counts."""
        if self.verdict is not None or sum(self.counts) <= 0:
            return None
        return self.sprt.pairs_to_verdict(self.counts)

    def summary(self) -> str:
        lower, upper = self.sprt.bounds
        where = f"LLR {self.llr:.2f} [{lower:.2f}, {upper:.2f}]"
        if self.verdict is None:
            line = f"SPRT: no verdict after {self.pairs} pairs (the cap), {where}"
            more = self.more_pairs()
            if more is not None:
                expected, likely = more
                line += (f": a verdict would take about {expected:.0f} more pairs (within "
                         f"{likely:.0f} more 95% of the time) if the pairs to come score like "
                         "these; raise the pair cap to get one")
            return line
        line = f"SPRT: {self.verdict} accepted after {self.pairs} pairs, {where}"
        estimate = self.estimate()
        if estimate is not None and estimate.corrected:
            if self.sprt.model == "normalized":
                unit, value, (lo, hi) = "nElo", estimate.nelo, estimate.nelo_ci
            else:
                unit, value, (lo, hi) = "Elo", estimate.elo, estimate.elo_ci
            line += (f"; corrected for the stop: {unit} {value + 0.0:+.1f} "
                     f"[{lo + 0.0:+.1f}, {hi + 0.0:+.1f}]")
        return line

    def to_dict(self) -> dict[str, Any]:
        """The test's figures; ``*_corrected``: the estimate corrected for the stop
        (median-unbiased, with its 95% interval; None without counts), and
        ``stop_corrected`` False where the pairs scored so far beyond the bounds
        that those are the plain figures (see :class:`SprtEstimate`);
        ``more_pairs_expected`` / ``more_pairs_95``: without a verdict, the further
        pairs one would likely take (None otherwise)."""
        out: dict[str, Any] = {
            "elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "model": self.sprt.model,
            "alpha": self.sprt.alpha,
            "beta": self.sprt.beta, "bounds": list(self.sprt.bounds), "llr": self.llr,
            "verdict": self.verdict, "pairs": self.pairs}
        estimate = self.estimate()
        for key in ("elo", "score", "nelo"):
            out[f"{key}_corrected"] = None if estimate is None else getattr(estimate, key)
            out[f"{key}_corrected_ci"] = (None if estimate is None
                                          else list(getattr(estimate, f"{key}_ci")))
        out["stop_corrected"] = None if estimate is None else estimate.corrected
        more = self.more_pairs()
        out["more_pairs_expected"], out["more_pairs_95"] = (
            (None, None) if more is None
            else [x if math.isfinite(x) else None for x in more])  # JSON has no infinity
        return out


@dataclass(frozen=True)
class PoolPair:
    """One opening against every opponent of a pool: the pairs (in pool order)
    and the opponents' weights; its score is the weighted mean of theirs."""

    index: int
    pairs: tuple[PairResult, ...]
    weights: tuple[float, ...]

    @property
    def score(self) -> float:
        return (sum(w * p.score for w, p in zip(self.weights, self.pairs, strict=False))
                / sum(self.weights))


    @property
    def games(self) -> Any:
        """The games kept of the first opponent's pair (what a sample shows)."""
        return self.pairs[0].games


@dataclass(frozen=True)
class PoolStats(MatchStats):
    """A pool's figures: wins, draws and losses over all its games, the score the
    weighted mean of the opponents' (the mean of the weighted pair scores, since
    every opening is played against every opponent), and each opponent's own."""

    members: tuple[tuple[str, float, MatchStats], ...] = ()

    @property
    def score(self) -> float:
        return sum(self.pair_scores) / len(self.pair_scores) if self.pair_scores else 0.5

    def to_dict(self) -> dict[str, object]:
        out = super().to_dict()
        out["opponents"] = [{"opponent": label, "weight": weight, **stats.to_dict()}
                            for label, weight, stats in self.members]
        return out


def stats_of(pairs: Sequence[PairResult | PoolPair],
             labels: Sequence[str] = ()) -> MatchStats:
    """The figures of a match's pairs; of a pool's (with its opponents' ``labels``),
    a :class:`PoolStats`."""
    if pairs and isinstance(pairs[0], PoolPair):
        pool = [p for p in pairs if isinstance(p, PoolPair)]
        members = tuple(
            (labels[k] if k < len(labels) else f"opponent {k}", pool[0].weights[k],
             stats_of([p.pairs[k] for p in pool]))
            for k in range(len(pool[0].pairs)))
        every = [q for p in pool for q in p.pairs]
        return PoolStats(wins=sum(m.wins for _l, _w, m in members),
                         draws=sum(m.draws for _l, _w, m in members),
                         losses=sum(m.losses for _l, _w, m in members),
                         pair_scores=tuple(p.score for p in pool), members=members,
                         faults=count_faults([k for q in every for k in q.a_faults]),
                         opponent_faults=count_faults([k for q in every for k in q.b_faults]))
    plain = [p for p in pairs if not isinstance(p, PoolPair)]
    scores = [s for p in plain for s in p.a_scores]
    return MatchStats(
        wins=sum(1 for s in scores if s == 1.0),
        draws=sum(1 for s in scores if s == 0.5),
        losses=sum(1 for s in scores if s == 0.0),
        pair_scores=tuple(p.score for p in plain),
        faults=count_faults([k for p in plain for k in p.a_faults]),
        opponent_faults=count_faults([k for p in plain for k in p.b_faults]),
    )


# -- worker side ------------------------------------------------------------
_ENGINES: dict[str, Engine] = {}


def _key(config: EngineConfig) -> str:
    return json.dumps(config.to_dict(), sort_keys=True, default=str)


def _engine(config: EngineConfig, keep: Sequence[str] = ()) -> Engine:
    """The worker's engine for ``config``, made once. A new engine in another
    process closes the cached ones in other processes but those named in
    ``keep`` (a study's trials each start their engine: one process per worker
    and side, not one per trial); at most 17 engines are kept in all."""
    key = _key(config)
    engine = _ENGINES.get(key)
    if engine is None:
        if len(_ENGINES) > 16:
            for old in _ENGINES.values():
                old.close()
            _ENGINES.clear()
        if config.process is not None:
            for k in [k for k, e in _ENGINES.items()
                      if e.config.process is not None and k not in keep]:
                _ENGINES.pop(k).close()
        engine = _ENGINES[key] = Engine(config)
    return engine


def _pair_task(
    a: EngineConfig, b: EngineConfig, index: int, opening: tuple[int, ...], seed: int,
    keep_games: bool = False, adjudication: Adjudication | None = None,
) -> PairResult:
    kernel = get_game(a.game)
    keep = (_key(a), _key(b))
    return play_pair(kernel, a.rules, _engine(a, keep), _engine(b, keep), index, opening, seed,
                     keep_games, adjudication)


MAX_JOBS = 1024  # worker processes per match
PR_SET_PDEATHSIG = 1  # prctl option, <linux/prctl.h>
PARENT_POLL_S = 0.5  # how often the watchdog thread looks for its parent


def _parent_death_signal(sig: int) -> bool:
    """Ask Linux to send this process ``sig`` when its parent dies; False where
    that cannot be had (another system, no libc, prctl refused)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the interpreter's own symbols, libc's
        return int(libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _parent_gone(parent: int) -> bool:
    """Whether the driver (process ``parent``) is gone: this process has another
    parent now. Windows keeps the dead parent's pid: there, multiprocessing's
    handle on the parent tells."""
    if sys.platform == "win32":
        proc = multiprocessing.parent_process()
        return proc is not None and not proc.is_alive()
    return os.getppid() != parent


def _watch_parent(parent: int) -> None:
    """Poll for the parent (a daemon thread's loop); once it is gone, leave at
    once, without cleanup."""
    while not _parent_gone(parent):
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def _die_with_parent(parent: int, pdeathsig: bool) -> None:
    """End this worker when its driver (process ``parent``) dies, however it
    dies: a driver killed by SIGKILL runs no cleanup, and its workers, blocked
    on their task queue, would otherwise live on (and with them multiprocessing's
    resource tracker, which exits once every holder of its pipe is gone).

    On Linux (``pdeathsig``) the kernel sends SIGKILL when the parent dies;
    the parent pid is then checked once, since the parent may have died before
    prctl ran. Linux ties that signal to the parent *thread* that started the
    process, so the driver asks for it only for workers started from its main
    thread, which lives as long as the process (see :class:`_FromMainThread`).
    Elsewhere (another system, workers started from another thread, prctl
    failed), a daemon thread polls for the parent every :data:`PARENT_POLL_S`
    seconds; it gets to run during a search, since the compiled searches
    release the GIL."""
    if pdeathsig and _parent_death_signal(signal.SIGKILL):
        if os.getppid() != parent:
            os._exit(1)
        return
    if _parent_gone(parent):
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="heurtune-parent-watch",
                     daemon=True).start()


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}  # what the driver handles for its workers


@contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """Ctrl-C and SIGTERM blocked in this thread for the block: a process started
    inside starts with them blocked (the mask is inherited across fork and exec),
    and one that arrives meanwhile waits for the block's end here (or goes to
    another thread)."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class _QuietStartProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that starts with Ctrl-C and SIGTERM blocked. A Ctrl-C at
    a terminal goes to every process of the foreground group (and so may a
    SIGTERM): a worker still importing (before :func:`_init_worker` ignores
    them) died printing a ``KeyboardInterrupt`` traceback, a screenful for each
    worker, and a worker that dies of SIGTERM breaks the pool while the driver
    cancels its tasks (the pool's manager thread then fails them again: an
    ``InvalidStateError`` traceback). Blocked from its first instruction, a
    signal waits until the initializer ignores it, which discards it: the
    driver alone handles it, and kills its workers (CPython starts its resource
    tracker the same way)."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        with _stop_signals_blocked():
            return multiprocessing.context.SpawnProcess._Popen(process_obj)


class _QuietStartContext(multiprocessing.context.SpawnContext):
    """The spawn start method, with :class:`_QuietStartProcess` workers."""

    Process = _QuietStartProcess


class _FromMainThread:
    """Pickles as whether it is pickled in the main thread: a worker's
    ``pdeathsig``. The pool starts a worker (and pickles its initializer's
    arguments) in whichever thread submits a task when no worker is idle, and
    Linux's parent-death signal follows that thread, not the process: a worker
    started from a thread that then ends would be killed with it."""

    def __reduce__(self) -> tuple[type[bool], tuple[bool]]:
        return bool, (threading.current_thread() is threading.main_thread(),)


def _left_to_the_driver(_signum: int, _frame: object) -> None:
    """A worker's SIGTERM handler: nothing (the driver stops its workers). A
    handler, not an ignored signal: the processes a worker starts (external
    engines) get the default action back, as an ignored signal would not."""


def _init_worker(games: tuple[GameEntry, ...] = (), parent: int | None = None,
                 pdeathsig: bool | _FromMainThread = True) -> None:
    """Workers leave Ctrl-C and SIGTERM to the driver, which stops them (no
    traceback from each: blocked from their start, see
    :class:`_QuietStartProcess`), know the games the driver registered at run
    time (plugins declared by entry points they find themselves), and die with
    the driver (process ``parent``; see :func:`_die_with_parent`).
    ``pdeathsig`` arrives as a bool (see :class:`_FromMainThread`)."""
    if parent is not None:
        _die_with_parent(parent, pdeathsig is True)
    signal.signal(signal.SIGTERM, _left_to_the_driver)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # after: tests take it for "ready"
    if hasattr(signal, "pthread_sigmask"):  # blocked since the start (_QuietStartProcess);
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # those pending are gone
    restore_games(games)


def _keeps(keep_games: KeepGames, index: int) -> bool:
    return keep_games if isinstance(keep_games, bool) else index in keep_games


def _pairs_task(a: EngineConfig, b: EngineConfig, chunk: Sequence[tuple[int, tuple[int, ...]]],
                seed: int, keep_games: KeepGames = False,
                adjudication: Adjudication | None = None) -> list[PairResult]:
    return [_pair_task(a, b, i, op, seed, _keeps(keep_games, i), adjudication)
            for i, op in chunk]


_WARM: set[tuple[str, str]] = set()


def warm_up(config: EngineConfig) -> None:
    """Compile (or load from numba's cache) the engine's search in this process,
    so worker processes find it cached instead of compiling it each. Once per
    game and heuristic: other weights reuse the same compiled search."""
    key = (config.game, config.heuristic)
    if key in _WARM:
        return
    engine = _engine(config)
    with compiling(f"the {config.game} search with heuristic {config.heuristic!r}"):
        interruptible(engine.warm_up)
    _WARM.add(key)


# -- driver side ------------------------------------------------------------
def check_jobs(jobs: int) -> int:
    """``jobs``, worker processes per match, checked to lie in [1, :data:`MAX_JOBS`]."""
    if not 1 <= jobs <= MAX_JOBS:
        raise HeurtuneError(f"jobs must be in [1, {MAX_JOBS}], got {jobs}")
    return jobs


def _numbers(ops: Sequence[tuple[int, ...]], indices: Sequence[int] | None) -> list[int]:
    numbers = list(indices) if indices is not None else list(range(len(ops)))
    if len(numbers) != len(ops):
        raise ValueError("one index per opening")
    return numbers


class MatchRunner:
    """Plays pairs in ``jobs`` worker processes (``jobs == 1``: in this process).

    Keep one runner for many matches (a tuning study): the workers and their
    compiled engines are reused. Use as a context manager.
    """

    def __init__(self, jobs: int = 1) -> None:
        check_jobs(jobs)
        cpus = os.cpu_count() or 1
        if jobs > 2 * cpus:
            log.warning("%d match processes on %d CPUs: each pair takes longer, nothing "
                        "is gained (--jobs %d is enough)", jobs, cpus, cpus)
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> MatchRunner:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(stop=kind is not None)

    def close(self, stop: bool = False) -> None:
        """Shut the worker processes down: let them finish their pairs, or, with
        ``stop`` (Ctrl-C, SIGTERM, an error), kill them at once: a long search
        would otherwise hold the command until it returns."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        if not stop:
            pool.shutdown(wait=True, cancel_futures=True)
            return
        # no public way to kill the workers: the pool's processes and manager thread
        workers = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        # shut down first, kill then: the manager thread drops the cancelled tasks
        # before it sees a killed worker; the other way round it would mark them
        # failed too, and CPython 3.11 raises InvalidStateError there, a traceback
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers:
            proc.kill()
        if manager is not None:
            manager.join(timeout=10)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            release_idle()  # the workers start their engines; this process plays no game
            ctx = _QuietStartContext()
            # the workers die with this process, even one killed by SIGKILL
            self._pool = ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=ctx, initializer=_init_worker,
                initargs=(runtime_games(), os.getpid(), _FromMainThread()))
        return self._pool

    def iter_pairs(
        self, spec: MatchSpec, openings: Sequence[tuple[int, ...]] | None = None,
        indices: Sequence[int] | None = None, keep_games: KeepGames = False,
    ) -> Generator[PairResult, None, None]:
        """Yield pair results as they finish. Closing the iterator early (a pruned
        trial) cancels the pairs not started yet. ``indices`` numbers the openings
        (default 0, 1, ...): a pair's index picks its tie-break seeds, so an
        opening played in another order (a trial's shuffle) plays the same.
        ``keep_games``: the pairs carry their games (moves, nodes, termination):
        all of them, or those whose index is in the collection given."""
        ops = list(openings) if openings is not None else spec.openings()
        for _k, pair in self._iter_many([spec], ops, _numbers(ops, indices), keep_games):
            yield pair

    def iter_pool(
        self, specs: Sequence[MatchSpec], weights: Sequence[float],
        openings: Sequence[tuple[int, ...]], indices: Sequence[int] | None = None,
        keep_games: KeepGames = False,
    ) -> Generator[PoolPair, None, None]:
        """An opponent pool: every spec (the same engine against each opponent)
        on the same openings; yields an opening's :class:`PoolPair` once every
        opponent has played its pair there, as they finish."""
        waiting: dict[int, dict[int, PairResult]] = {}
        for k, pair in self._iter_many(specs, list(openings), _numbers(openings, indices),
                                       keep_games):
            got = waiting.setdefault(pair.index, {})
            got[k] = pair
            if len(got) == len(specs):
                del waiting[pair.index]
                yield PoolPair(pair.index, tuple(got[j] for j in range(len(specs))),
                               tuple(weights))

    def _iter_many(
        self, specs: Sequence[MatchSpec], ops: list[tuple[int, ...]], numbers: list[int],
        keep_games: KeepGames,
    ) -> Iterator[tuple[int, PairResult]]:
        """(spec number, pair) of every spec on every opening, as they finish."""
        for spec in specs:
            warm_up(spec.a)
            warm_up(spec.b)
        if self.jobs == 1:  # in this process, in a thread that Ctrl-C does not wait for
            for i, op in zip(numbers, ops, strict=True):
                for k, spec in enumerate(specs):
                    yield k, interruptible(_pair_task, spec.a, spec.b, i, op, spec.seed,
                                           _keeps(keep_games, i), spec.adjudication)
            return
        pool = self._executor()
        # a few pairs per task: one round trip to a worker costs about as much as a
        # short pair (Isolation), and every pair still plays from its own seed, so
        # the results do not depend on the chunking or on ``jobs``
        size = max(1, min(MAX_CHUNK, len(ops) * len(specs) // (self.jobs * 16)))
        indexed = list(zip(numbers, ops, strict=True))
        chunks = [indexed[k:k + size] for k in range(0, len(ops), size)]
        keep = keep_games if isinstance(keep_games, bool) else frozenset(keep_games)
        with signals_held():  # a worker started is one the pool knows, and kills on Ctrl-C
            pending: dict[Future[list[PairResult]], int] = {
                pool.submit(_pairs_task, spec.a, spec.b, chunk, spec.seed, keep,
                            spec.adjudication): k
                for chunk in chunks for k, spec in enumerate(specs)
            }
        order = {i: k for k, i in enumerate(numbers)}  # the given order
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                finished = [(k, p) for k, f in ((pending.pop(f), f) for f in done)
                            for p in f.result()]
                for k, pair in sorted(finished, key=lambda kp: (order[kp[1].index], kp[0])):
                    yield k, pair
        finally:
            for fut in pending:
                fut.cancel()

    def run(
        self, spec: MatchSpec, on_pair: Callable[[PairResult], None] | None = None,
        openings: Sequence[tuple[int, ...]] | None = None, keep_games: bool = False,
    ) -> MatchResult:
        """Play the whole match (on ``openings`` when given, else the spec's);
        ``on_pair`` is called as each pair finishes; ``keep_games``: the pairs
        carry their games."""
        result = MatchResult(spec)
        for pair in self.iter_pairs(spec, openings, keep_games=keep_games):
            result.pairs.append(pair)
            if on_pair is not None:
                on_pair(pair)
        result.pairs.sort(key=lambda p: p.index)
        return result

    def run_sprt(
        self, spec: MatchSpec, sprt: Sprt,
        on_pair: Callable[[PairResult, float], None] | None = None,
        openings: Sequence[tuple[int, ...]] | None = None, keep_games: bool = False,
    ) -> tuple[MatchResult, SprtOutcome]:
        """Play pairs until the SPRT decides or ``spec.pairs`` (the cap) are played
        (on ``openings`` when given, else the spec's).

        The test sees the pairs in opening order, whatever order they finish
        in, so the verdict and the pairs it rests on are the same for every
        ``jobs``; pairs that finished beyond the deciding one are dropped.
        ``on_pair(pair, llr)`` is called as the test takes each pair;
        ``keep_games``: the pairs carry their games.
        """
        result = MatchResult(spec)
        waiting: dict[int, PairResult] = {}
        counts = [0, 0, 0, 0, 0]
        llr, verdict = 0.0, None
        stream = self.iter_pairs(spec, openings, keep_games=keep_games)
        try:
            for pair in stream:
                waiting[pair.index] = pair
                while verdict is None and len(result.pairs) in waiting:
                    taken = waiting.pop(len(result.pairs))
                    result.pairs.append(taken)
                    counts[pair_outcome(taken.score)] += 1
                    llr = sprt.llr(counts)
                    verdict = sprt.verdict(llr)
                    if on_pair is not None:
                        on_pair(taken, llr)
                if verdict is not None:
                    break
        finally:
            stream.close()
        return result, SprtOutcome(sprt, verdict, llr, len(result.pairs), tuple(counts))

