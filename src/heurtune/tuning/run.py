"""``tune``: create or resume a study and run its trials (the objective lives here).

Every trial plays the same openings (drawn once from the study seed), so trial
scores are directly comparable and a running trial can be compared with the
best one opening by opening. The default ``checkpoint`` pruner does so at a few
fixed fractions of the pairs with an error-controlled threshold
(heurtune.tuning.pruners); each trial plays the openings in its own seeded
order, reports its running score (the learning curve the dashboard shows, and
what Optuna's TPE ranks pruned trials by), and a completed trial keeps its pair
scores by opening (user attribute ``pair_scores``) for later comparisons.
Optuna's ``wilcoxon`` pruner gets each opening pair's score at the step
numbered by the opening instead; ``median`` gets the running score.

The baseline (the heuristic's defaults, i.e. the seed weights) is enqueued as
the first trial, so the study always answers "is the tuned engine better than
where we started?".

Many workers may run the same command on one study (one machine or several):

* the worker that creates the study sets it up and enqueues the baseline; the
  others load it (creation races on a new database are retried), so the
  baseline is enqueued exactly once;
* with ``sampler_seeding = "per-trial"`` (the default) each trial samples from
  its own stream, the study seed mixed with the trial number (recorded as the
  trial's ``sampler_seed``), so workers never repeat each other's draws and one
  uninterrupted worker still reproduces;
* a worker starts a trial only while finished plus running trials are below the
  target, and a trial that finds the target already taken by lower-numbered
  trials of other workers steps aside (marked failed, ``surplus``), so the
  study ends with exactly the trials asked for;
* every start first fails the trials whose worker stopped sending heartbeats
  (killed, powered off) and enqueues their retries, which it then runs, even
  when the target was otherwise reached.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import FrameType
from typing import Any, Literal, Protocol

import optuna
from optuna.trial import FrozenTrial, TrialState

from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match import MatchRunner, MatchSpec, PairResult, check_jobs, stats_of
from heurtune.match.books import SHIPPED_PREFIX, book_path
from heurtune.match.pgn import append_pgn
from heurtune.match.positions import load_positions
from heurtune.match.runner import KeepGames, PoolPair
from heurtune.match.stats import FAULT_WORDS
from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.after.answers import Answer, default_answer, recorded_sampler
from heurtune.tuning.after.confirm import needs_confirmation
from heurtune.tuning.positions import PositionsFit
from heurtune.tuning.pruners import CheckpointPruner, make_pruner, trial_order
from heurtune.tuning.samplers import SamplerSpec, TrialSeededSampler, make_sampler, suggest
from heurtune.tuning.study import (
    FINISHED,
    StudySetup,
    Verdict,
    best_match_trial,
    duel_seed,
    flush_trial,
    is_baseline,
    load_study,
    open_storage,
    schema,
    storage_failure,
    trial_score,
)
from heurtune.tuning.study.environment import differences, digest, environment
from heurtune.tuning.studyfile import STUDY_PREFIX, ConfirmOptions, StudyFile

log = logging.getLogger("heurtune")

# the score; the cost (multi-objective studies)
DIRECTIONS: list[Literal["minimize", "maximize"]] = ["maximize", "minimize"]
COST_NAME = "ms per move (the tuned engine)"


class TuneObserver(Protocol):
    """What ``tune`` tells as it goes (optuna-dashboard's notes and artifacts are
    one: :class:`heurtune.tuning.views.Dashboard`). ``sample_pairs``: the openings
    (by index) whose games a trial's match keeps for the observer; ``duel``: a duel
    trial's record (:data:`heurtune.tuning.study.schema.DUEL`: its other side under
    ``minus``, and whether it is a held-out duel of the answer against the baseline)."""

    @property
    def sample_pairs(self) -> tuple[int, ...]: ...

    def study_started(self, study: optuna.Study, sf: StudyFile, target: int) -> None: ...

    def trial_finished(self, trial: optuna.Trial, config: EngineConfig, sf: StudyFile,
                       pairs: Sequence[Any], pruned: bool,
                       duel: dict[str, Any] | None = None, pgn: str = "",
                       failed: str = "") -> None: ...

    def refresh(self, study: optuna.Study) -> None: ...


@dataclass(frozen=True)
class TuneSummary:
    study_name: str
    storage: str
    finished: int  # trials that count toward the target: finished, or failed for faults
    ran: int
    best_number: int | None
    best_value: float | None
    best_params: dict[str, Any]
    answer: Answer | None = None  # what export writes unconfirmed, when not the best trial
    # the study file's [confirm] section, due now (the target reached, no confirmation
    # or one older than the latest trial); confirmed_already: due but done before
    confirm: ConfirmOptions | None = None
    confirmed_already: bool = False
    faulted: int = 0  # of ``finished``: trials failed for their engine's faults


TrialCallback = Callable[[optuna.trial.FrozenTrial], None]


class SurplusTrial(Exception):
    """A trial started after other workers' trials had already taken the target."""


class EngineFaulted(Exception):
    """A trial's engine lost more than the study's ``fault_share`` of its games by
    its own faults: the trial fails, with the reason (user attribute
    :data:`~heurtune.tuning.study.schema.FAULTED`), and counts toward the target."""


def fault_reason(stats: Any, planned_games: int, share: float) -> str | None:
    """Why a trial fails for its engine's faults (None: it does not): more of its
    games lost by its own faults than ``share`` of the games it plays
    (``planned_games``; a trial that has passed that bar fails at once)."""
    if stats.faulted <= share * planned_games:
        return None
    kinds = ", ".join(f"{FAULT_WORDS.get(k, k)} {n}" for k, n in stats.faults)
    return (f"its engine lost {stats.faulted} of {stats.games} games by its own faults "
            f"({kinds}), more than the study's fault_share {share:g} of {planned_games} games")


def _step_aside_if_surplus(trial: optuna.Trial, target: int) -> None:
    """Finished trials plus the running ones numbered below this one reach the
    target: this trial is one too many (two workers started trials at once).
    Only sampled trials are checked: enqueued ones (the baseline, retries of
    failed trials) always run."""
    ahead = sum(1 for t in trial.study.get_trials(deepcopy=False)
                if counts(t) or (t.state == TrialState.RUNNING and t.number < trial.number))
    if ahead >= target:
        trial.set_user_attr(schema.SURPLUS, True)
        raise SurplusTrial(f"trial {trial.number}: the target of {target} trials is taken")


class _InterruptsInObjective:
    """Ctrl-C and SIGTERM take effect only while the objective waits for its next
    pair (Optuna then marks the running trial failed), or between trials. One
    that arrives while Optuna creates a trial (already RUNNING in the storage,
    the objective not yet called), while a result is written, or while the
    trial is told, is held until then: an interrupt inside the storage's own
    code could leave a trial RUNNING or a connection half-used. Signals the
    process ignores stay ignored; off the main thread nothing changes."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.inside = False
        self.pending: tuple[int, FrameType | None] | None = None
        self._saved: dict[int, Callable[[int, FrameType | None], Any]] = {}

    def __enter__(self) -> _InterruptsInObjective:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                handler = signal.getsignal(sig)
                if callable(handler):  # a Python handler that raises (Ctrl-C, the CLI's SIGTERM)
                    self._saved[sig] = handler
                    signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.inside:
            self._saved[signum](signum, frame)
        elif self.pending is None:
            self.pending = (signum, frame)

    def enter(self) -> None:
        """The objective waits for a pair: raise a held interrupt now, inside it."""
        self.inside = True
        self._fire()

    def leave(self) -> None:
        self.inside = False

    def check(self) -> None:
        """Between trials: raise a held interrupt (no trial of ours is running)."""
        self._fire()

    def _fire(self) -> None:
        if self.pending is not None:
            signum, frame = self.pending
            self.pending = None
            self._saved[signum](signum, frame)

    def __exit__(self, kind: type | None, *_: object) -> None:
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)
        if kind is None:
            self._fire()  # the trial is told: now stop
        self._saved = {}


def trial_pgn(study_name: str, number: int, specs: Sequence[MatchSpec],
              pairs: Sequence[Any]) -> str:
    """A trial's games (its pairs played with their games kept) as PGN: against the
    opponent, every opponent of a pool, or a duel's other weights."""
    from heurtune.match.pgn import match_pgn

    event = f"heurtune study {study_name} trial {number}"
    texts = []
    for k, spec in enumerate(specs):
        own = [p.pairs[k] if isinstance(p, PoolPair) else p for p in pairs]
        kept = [p for p in own if len(p.games) == 2]
        if kept:
            texts.append(match_pgn(spec, kept, event=event))
    return "\n".join(texts)


def _objective(sf: StudyFile, runner: MatchRunner, openings: list[tuple[int, ...]],
               on_pair: Callable[[int, PairResult], None] | None,
               target: int, guard: _InterruptsInObjective | None = None,
               observer: TuneObserver | None = None, pgn: str | None = None,
               ) -> Callable[[optuna.Trial], float | tuple[float, float]]:
    per_opening = sf.pruner.kind == "wilcoxon"
    checkpoint = sf.pruner.kind == "checkpoint"

    def waiting(stream: Iterator[Any]) -> Iterator[Any]:
        """The pairs as they come; an interrupt lands only while waiting for the
        next one (never in the middle of a storage write)."""
        while True:
            if guard is not None:
                guard.enter()
            try:
                pair = next(stream)
            except StopIteration:
                return
            finally:
                if guard is not None:
                    guard.leave()
            yield pair

    labels = [m.engine.label for m in sf.pool]

    def _planned(duel: dict[str, Any] | None) -> int:
        """A trial's games: 2 per pair and opponent; a duel's 2 per pair (one opponent,
        the sampler's other weights)."""
        return 2 * sf.pairs * (1 if duel is not None else len(sf.pool))

    def _fail_for_faults(trial: optuna.Trial, config: EngineConfig, specs: Sequence[MatchSpec],
                         pairs: list[Any], duel: dict[str, Any] | None) -> None:
        reason = fault_reason(stats_of(sorted(pairs, key=lambda p: p.index), labels),
                              _planned(duel), sf.fault_share)
        if reason is not None:
            _record(trial, pairs, labels)
            trial.set_user_attr(schema.FAULTED, reason)
            games = _games(trial, specs, pairs)
            if observer is not None:
                observer.trial_finished(trial, config, sf, pairs, pruned=False, duel=duel,
                                        pgn=games, failed=reason)
            raise EngineFaulted(reason)

    def _games(trial: optuna.Trial, specs: Sequence[MatchSpec], pairs: Sequence[Any]) -> str:
        """The trial's games as PGN where they are kept (appended to ``pgn``), else ""."""
        if not (pgn or sf.pgn):
            return ""
        text = trial_pgn(trial.study.study_name, trial.number, specs, pairs)
        if pgn:
            append_pgn(pgn, text)
        return text

    def objective(trial: optuna.Trial) -> float | tuple[float, float]:
        pruner = trial.study.pruner
        attrs = _claim(trial, sf, target)
        params = suggest(trial, sf.space)
        flush_trial(trial)  # stored now: a dead worker's retry plays the same weights
        config = sf.base.with_params(params, name=f"trial-{trial.number}")
        duel = attrs.get(schema.DUEL)
        pairs: list[Any] = []  # PairResult, or PoolPair against a pool
        # the games the observer shows (every game where they are kept as PGN)
        keep: KeepGames = observer.sample_pairs if observer is not None else ()
        if pgn or sf.pgn:
            keep = True
        pool = len(sf.pool) > 1 and duel is None
        stream: Generator[Any, None, None]
        specs = sf.match_specs(config)
        if duel is not None:  # the sampler's other weights, on openings of this trial's own
            other = sf.base.with_params(duel["minus"], name=f"trial-{trial.number}-minus")
            spec = replace(specs[0], b=other, seed=duel_seed(sf.seed, trial.number),
                           every_class=False)
            specs = [spec]
            stream = runner.iter_pairs(spec, spec.openings(), keep_games=keep)
        else:
            # each trial its own order of the same openings, for the checkpoint pruner
            order = (trial_order(len(openings), sf.seed, trial.number) if checkpoint
                     else list(range(len(openings))))
            ordered = [openings[i] for i in order]
            if pool:  # an opening counts once every opponent has played it
                stream = runner.iter_pool(specs, sf.weights, ordered, order, keep_games=keep)
            else:
                stream = runner.iter_pairs(specs[0], ordered, order, keep_games=keep)
        running = 0.0
        faulted = 0
        planned = _planned(duel)
        try:
            for pair in waiting(stream):
                pairs.append(pair)
                running += pair.score
                if on_pair is not None:
                    on_pair(trial.number, pair)
                faulted += len(pair.a_faults) if isinstance(pair, PairResult) else sum(
                    len(p.a_faults) for p in pair.pairs)
                if faulted > sf.fault_share * planned:  # broken: no need to play on
                    _fail_for_faults(trial, config, specs, pairs, duel)
                if sf.multi_objective:  # Optuna neither records nor prunes these steps
                    continue
                if per_opening and duel is None:
                    trial.report(pair.score, step=pair.index)
                else:  # the running score: what the sampler ranks a pruned trial by
                    trial.report(running / len(pairs), step=len(pairs))
                if len(pairs) >= sf.pairs or duel is not None:
                    continue
                if isinstance(pruner, CheckpointPruner):  # it compares opening by opening
                    pruner.observe(trial.number, pair.index, pair.score)
                if trial.should_prune():
                    _record(trial, pairs, labels)
                    games = _games(trial, specs, pairs)
                    if observer is not None:  # notes and artifacts while the trial runs
                        observer.trial_finished(trial, config, sf, pairs, pruned=True,
                                                pgn=games)
                    raise optuna.TrialPruned(f"pruned after {len(pairs)} of {sf.pairs} pairs")
        finally:
            stream.close()
            if isinstance(pruner, CheckpointPruner):
                pruner.forget(trial.number)
        score = _record(trial, pairs, labels, keep_pairs=checkpoint or duel is not None)
        _fail_for_faults(trial, config, specs, pairs, duel)
        games = _games(trial, specs, pairs)
        if observer is not None:
            observer.trial_finished(trial, config, sf, pairs, pruned=False, duel=duel,
                                    pgn=games)
        if sf.multi_objective:
            return score, _cost(trial, pairs)
        return score

    return objective


def _claim(trial: optuna.Trial, sf: StudyFile, target: int) -> dict[str, Any]:
    """A trial's system attributes, once it is sure to run: a sampled trial
    steps aside when the target is taken and records its sampler seed."""
    attrs: dict[str, Any] = trial.study._storage.get_trial_system_attrs(trial._trial_id)
    if schema.FIXED_PARAMS not in attrs and schema.FAILED_TRIAL not in attrs:  # sampled here
        _step_aside_if_surplus(trial, target)
        if (sf.sampler_seeding == "per-trial" and sf.sampler.kind != "qmc"
                and not sf.sampler.duels):
            trial.set_user_attr(schema.SAMPLER_SEED,
                                TrialSeededSampler.trial_seed(sf.seed, trial.number))
    return attrs


def _positions_objective(sf: StudyFile, fit: PositionsFit, target: int
                         ) -> Callable[[optuna.Trial], float]:
    """A positions trial: the loss of its weights on the training positions (its
    held-out loss and sign agreement as user attributes)."""
    def objective(trial: optuna.Trial) -> float:
        _claim(trial, sf, target)
        params = suggest(trial, sf.space)
        flush_trial(trial)
        found = fit.losses(params)
        for key, value in found.to_attrs().items():
            trial.set_user_attr(key, value)
        return found.train

    return objective


def positions_fit(sf: StudyFile, study: optuna.Study) -> PositionsFit:
    """The study's positions, split and ``K`` (fitted at the first trial's weights
    and stored with the study's baseline losses when ``study`` has none yet;
    read back when it has)."""
    assert sf.positions is not None
    spec = sf.positions
    stored = study.user_attrs.get(schema.POSITIONS)
    scale = float(stored["k"]) if isinstance(stored, dict) and "k" in stored else None
    base = sf.base.with_params({**sf.base.params, **sf.baseline_params})
    fit = PositionsFit(load_positions(spec.file, sf.base.game), base, sf.space,
                       loss=spec.loss, held_out=spec.held_out, seed=sf.seed, scale=scale,
                       threads=spec.threads or None, perspective=spec.perspective)
    if scale is None:
        first = fit.losses(fit.base_values)
        held = int(fit.held_mask.sum())
        study.set_user_attr(schema.POSITIONS, {
            "file": spec.file, "k": fit.scale, "loss": spec.loss, "held_out": spec.held_out,
            "perspective": spec.perspective,
            "positions": fit.positions.size, "games": fit.positions.games,
            "held_out_positions": held, "split_seed": sf.seed,
            "held_out_games": int(len(set(fit.positions.pos_game[fit.held_mask].tolist()))),
            "baseline_loss": first.train, "baseline_held_out_loss": first.held_out,
            "provenance": dict(fit.positions.provenance)})
    return fit


class _Enough(Exception):
    """The local optimiser is stopped: the target is reached, or ``until`` said so."""


def _local_search(study: optuna.Study, sf: StudyFile, fit: PositionsFit,
                  objective: Callable[[optuna.Trial], Any], target: int,
                  callbacks: list[Any], guard: _InterruptsInObjective,
                  until: Callable[[optuna.Study], bool] | None) -> None:
    """``sampler = "lbfgs"``: L-BFGS-B from the best trial so far (the baseline on
    a new study), every new point it evaluates an enqueued trial, until the
    target or its convergence. A resumed study starts it again from its best."""
    def run_one() -> None:
        guard.check()
        with _quiet_interrupts(), _as_heurtune_errors():
            study.optimize(objective, n_trials=1, callbacks=callbacks)

    while any(t.state == TrialState.WAITING for t in study.get_trials(deepcopy=False)):
        run_one()  # the baseline first, and retries of failed trials
    best = best_match_trial(study)
    start = dict(best.params) if best is not None else dict(sf.baseline_params)
    def key(values: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """Values as a set key, reals to 9 significant digits (the unit box's
        round trip moves the last bits of a trial's own weights)."""
        return tuple(sorted((k, float(f"{v:.9g}") if isinstance(v, float) else v)
                            for k, v in values.items()))

    seen = {key(t.params) for t in study.get_trials(deepcopy=False) if t.state in FINISHED}

    def on_point(values: dict[str, Any], _losses: Any) -> None:
        if not _wanted(study, target) or (until is not None and until(study)):
            raise _Enough()
        if key(values) in seen:
            return
        seen.add(key(values))
        study.enqueue_trial(values)
        run_one()

    try:
        fit.minimize(start, max_evals=10 * target, on_point=on_point,
                     gradient=str(sf.sampler.options.get("gradient", "auto")))
    except _Enough:
        return
    # converged before the target: the study is done (confirmation need not wait)
    done = sum(map(counts, study.get_trials(deepcopy=False)))
    study.set_user_attr(schema.LOCAL_SEARCH, {"converged": True, "trials": done})


def _cost(trial: optuna.Trial, pairs: list[Any]) -> float:
    """The tuned engine's milliseconds per move over the trial's games (the cost
    objective), kept as the user attribute ``ms_per_move``."""
    games = [p for pool in pairs for p in getattr(pool, "pairs", (pool,))]
    moves = sum(p.a_moves for p in games)
    cost = 1000.0 * sum(p.a_seconds for p in games) / moves if moves else 0.0
    trial.set_user_attr(schema.MS_PER_MOVE, cost)
    return cost


def _record(trial: optuna.Trial, pairs: list[Any], labels: Sequence[str] = (),
            keep_pairs: bool = False) -> float:
    ordered = sorted(pairs, key=lambda p: p.index)
    stats = stats_of(ordered, labels)
    for key, value in stats.to_dict().items():
        trial.set_user_attr(key, value)
    if keep_pairs:  # what later trials' checkpoints compare with, opening by opening
        trial.set_user_attr(schema.PAIR_SCORES, [p.score for p in ordered])
    return stats.score


def _warn_of_environment(study: optuna.Study, name: str) -> None:
    """Warn (logger ``heurtune``) when this worker's libraries or OpenBLAS kernel
    differ from those the study was created with (:mod:`heurtune.tuning.study.environment`):
    its trials may then differ from the creator's for the same seed. The study keeps
    this worker's environment (:data:`~heurtune.tuning.study.schema.JOINED_ENVIRONMENT`)."""
    attrs = study.user_attrs
    recorded = attrs.get(schema.ENVIRONMENT)
    if not isinstance(recorded, dict):  # created by an older heurtune
        return
    here = environment()
    found = differences(recorded, here)
    if found:
        # kept in the study, one attribute per environment (no read-modify-write
        # between workers), so its facts say so after this worker's stderr is gone
        key = schema.JOINED_ENVIRONMENT + digest(here)
        if key not in attrs:
            try:
                study.set_user_attr(key, {**here, "differs": found})
            except Exception as exc:  # a note, not a trial: the storage's error waits
                failure = storage_failure(exc)  # for the trials' own writes
                if failure is None:
                    raise
                log.warning("could not record this worker's environment: %s", failure)
        log.warning("study %r was created in another environment (%s): this worker's "
                    "trials may differ from the creator's for the same seed; pin the "
                    "kernel with OPENBLAS_CORETYPE and install the same versions to "
                    "reproduce (docs/scale.md)", name, "; ".join(found))


def tune(
    sf: StudyFile,
    *,
    storage_url: str,
    study_name: str | None = None,
    trials: int | None = None,
    jobs: int | None = None,
    on_trial: TrialCallback | None = None,
    on_pair: Callable[[int, PairResult], None] | None = None,
    runner: MatchRunner | None = None,
    until: Callable[[optuna.Study], bool] | None = None,
    observer: TuneObserver | None = None,
    pgn: str | None = None,
) -> TuneSummary:
    """Create or resume the study and run trials until it has ``trials`` finished ones.

    ``runner`` plays the pairs (default: a :class:`MatchRunner` of ``jobs``
    processes; the simulated-oracle benchmark passes its own); ``until``, called
    between trials, stops the run early when it returns true; ``observer`` is
    told of the study and every trial as it goes (optuna-dashboard's notes and
    artifacts: :class:`heurtune.tuning.views.Dashboard`); ``pgn``: a file every
    trial's games are appended to as PGN."""
    name = study_name or sf.name
    target = trials if trials is not None else sf.trials
    if target < 1:
        raise HeurtuneError(f"trials must be at least 1, got {target}")
    workers = jobs if jobs is not None else sf.jobs
    check_jobs(workers)
    if not sf.space.searched:  # every trial would play the same engine
        what = ("pins every parameter of" if len(sf.space) else "has no parameter in")
        raise HeurtuneError(f"{sf.path}: the study {what} heuristic {sf.base.heuristic!r}: "
                            "there is nothing to tune (`heurtune match` measures an engine "
                            "as it is)")
    # validates the openings before storage is touched (a positions study's file was
    # checked when the study file was read)
    openings = sf.match_spec().openings() if sf.positions is None else []
    storage = open_storage(storage_url, create=True, batched=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if sf.start_from.startswith(STUDY_PREFIX):
        sf = _start_from_study(sf, storage, storage_url)
    study, created = _create_or_load(name, storage, sf)
    setup = sf.setup()
    stored = study.user_attrs.get(schema.SETUP)
    if created:
        study.set_user_attr(schema.OBJECTIVE, sf.objective_name)
        study.set_user_attr(schema.ENVIRONMENT, environment())
        study.set_user_attr(schema.SAMPLER, {"kind": sf.sampler.kind,
                                             "options": sf.sampler.recorded(),
                                             "answer": sf.answer,
                                             "planned_pairs": sf.planned_pairs})
        with experimental_ok():
            study.set_metric_names([sf.objective_name, COST_NAME][:len(sf.objectives)])
        _enqueue_baseline(study, sf)
        # last: other workers wait for the setup, so the baseline is trial 0 for them too
        study.set_user_attr(schema.SETUP, setup)
    else:
        stored = _wait_for_setup(study, stored)
        if stored is None:  # its creator died before setting it up: adopt it, enqueue nothing
            study.set_user_attr(schema.SETUP, setup)
        else:
            # (studies stored before the space was part of the setup do not check it)
            diff = sorted(k for k in set(stored) | set(setup) if stored.get(k) != setup.get(k)
                          and not (k == "space" and k not in stored))
            if diff:
                raise HeurtuneError(
                    f"study {name!r} was created with a different setup ({', '.join(diff)} "
                    "differ); use another --study-name")
        sf = _resumed_sampler(study, sf)
    if sf.book is not None:  # where confirm finds the book (the setup holds its digest)
        study.set_user_attr(schema.BOOK_PATH, _book_reference(sf.book.name))
    # trials of workers that died (no heartbeat for the grace period): failed now,
    # and their retries enqueued, so that this run plays them
    with experimental_ok():
        optuna.storages.fail_stale_trials(study)
    if not created and not _has_baseline(study):  # interrupted while it played: again
        _enqueue_baseline(study, sf)
    # K: fitted once (at the first trial's weights, start_from's included) and stored,
    # or the stored one
    fit = positions_fit(sf, study) if sf.positions is not None else None
    wanted = _wanted(study, target)
    if wanted and not created:  # before the study's note is written
        _warn_of_environment(study, name)
        _record_sampler_changes(study, sf)
    if wanted and created:
        _warn_of_baseline(sf, name)
    if observer is not None:
        observer.study_started(study, sf, target)
    ran = 0
    before = sum(map(counts, study.get_trials(deepcopy=False)))
    if wanted:
        mine: list[FrozenTrial] = []
        callbacks: list[Any] = [lambda _s, t: mine.append(t)]
        if on_trial is not None:
            callbacks.append(
                lambda _s, t: None if t.user_attrs.get(schema.SURPLUS) else on_trial(t))
        note = _StudyNote(observer)
        if observer is not None:
            callbacks.append(lambda s, _t: note.trial_finished(s))
        own_runner = runner is None and sf.positions is None  # a positions study plays nothing
        with (MatchRunner(workers) if own_runner else contextlib.nullcontext(runner)) as play, \
                _InterruptsInObjective() as guard:
            objective: Callable[[optuna.Trial], Any]
            if fit is not None:
                objective = _positions_objective(sf, fit, target)
            else:
                assert play is not None  # a match study has its runner
                objective = _objective(sf, play, openings, on_pair, target, guard, observer,
                                       pgn)
            if fit is not None and sf.sampler.kind == "lbfgs":
                _local_search(study, sf, fit, objective, target, callbacks, guard, until)
            while (_wanted(study, target) and not (until is not None and until(study))
                   and sf.sampler.kind != "lbfgs"):
                guard.check()
                with _quiet_interrupts(), _as_heurtune_errors():
                    study.optimize(objective, n_trials=1, callbacks=callbacks,
                                   catch=(SurplusTrial, EngineFaulted))
                if mine and mine[-1].user_attrs.get(schema.SURPLUS):
                    break
                if mine and is_baseline(mine[-1]) and schema.FAULTED in mine[-1].user_attrs:
                    raise HeurtuneError(
                        f"study {name!r}: at its baseline weights (trial {mine[-1].number}) "
                        f"{mine[-1].user_attrs[schema.FAULTED]}: every trial would fail; fix "
                        "the engine or its limits (timeout_ms, the clock) and tune again")
                ran += bool(mine) and counts(mine[-1])
        note.run_ended(study)
    if sf.sampler.kind == "lbfgs":  # its trials are counted here (no loop above)
        ran = sum(map(counts, study.get_trials(deepcopy=False))) - before
    best = best_match_trial(study)
    answer = None
    if best is not None and not sf.multi_objective:
        found = default_answer(study, sf.base)
        answer = found if found.name != "best" else None
    all_trials = study.get_trials(deepcopy=False)
    finished = sum(map(counts, all_trials))
    confirm, confirmed_already = None, False
    converged = (study.user_attrs.get(schema.LOCAL_SEARCH) or {}).get("trials") == finished
    if sf.confirm is not None and best is not None and (finished >= target or converged):
        if needs_confirmation(study):  # the study in hand: no second storage round trip
            confirm = sf.confirm if jobs is None else replace(sf.confirm, jobs=jobs)
        else:
            confirmed_already = True
    return TuneSummary(
        study_name=name,
        storage=storage_url,
        finished=finished,
        ran=ran,
        best_number=best.number if best else None,
        best_value=trial_score(best) if best else None,
        best_params=dict(best.params) if best else {},
        answer=answer,
        faulted=sum(map(faulted, all_trials)),
        confirm=confirm,
        confirmed_already=confirmed_already,
    )


NOTE_SECONDS = 30.0


class _StudyNote:
    """The observer's study note, rewritten after a finished trial at most every
    :data:`NOTE_SECONDS` by each worker (a rewrite reads the study and writes the
    note in about 20 storage round trips, which many workers would otherwise pay
    for every trial) and once more when the worker's run ends."""

    def __init__(self, observer: TuneObserver | None) -> None:
        self.observer = observer
        self.last = -float("inf")
        self.behind = False  # a trial finished since the last rewrite

    def trial_finished(self, study: optuna.Study) -> None:
        self.behind = True
        if time.monotonic() - self.last >= NOTE_SECONDS:
            self._write(study)

    def run_ended(self, study: optuna.Study) -> None:
        if self.behind:
            self._write(study)

    def _write(self, study: optuna.Study) -> None:
        if self.observer is not None:
            self.observer.refresh(study)
        self.last, self.behind = time.monotonic(), False


def _start_from_study(sf: StudyFile, storage: Any, storage_url: str) -> StudyFile:
    """``start_from = "study:NAME"``: the first trial plays that study's answer (its
    confirmed winner, else what ``export`` would write), the study tuning the same
    game and heuristic in the same storage; its weights must lie in this study's
    bounds."""
    other = sf.start_from[len(STUDY_PREFIX):].strip()
    where = f"{sf.path}: start_from {sf.start_from!r}"
    try:
        study = load_study(storage, other, storage_url)
        setup = StudySetup.of(study.user_attrs, other)
        engine = EngineConfig.from_dict(setup.engine, source=f"study {other!r}")
    except HeurtuneError as exc:
        raise HeurtuneError(f"{where}: {exc}") from None
    if (engine.game, engine.heuristic) != (sf.base.game, sf.base.heuristic):
        raise HeurtuneError(f"{where}: that study tunes {engine.game}:{engine.heuristic}, not "
                            f"{sf.base.game}:{sf.base.heuristic}")
    verdict = Verdict.of(study.user_attrs)
    if verdict is not None and verdict.winner_params is not None:
        found: dict[str, Any] = {**engine.params, **verdict.winner_params}
    else:
        if best_match_trial(study) is None:
            raise HeurtuneError(f"{where}: that study has no completed trial yet")
        found = {**engine.params, **default_answer(study, engine).params}
    try:
        params = sf.space.validate({p.name: found.get(p.name, sf.base.params[p.name])
                                    for p in sf.space.searched})
    except HeurtuneError as exc:
        raise HeurtuneError(f"{where}: {exc} (widen [params] or start elsewhere)") from None
    return replace(sf, start_params={p.name: params[p.name] for p in sf.space.searched})


def _warn_of_baseline(sf: StudyFile, name: str) -> None:
    """A warning where the study's baseline is the heuristic's defaults but its opponent
    is the same heuristic at other weights inside ``[params]``
    (:meth:`StudyFile.baseline_apart_from_opponent`): most likely a fine-tuning study
    of the opponent that forgot ``start_from``."""
    apart = sf.baseline_apart_from_opponent()
    if not apart:
        return
    shown = list(apart.items())[:4]
    more = f" and {len(apart) - len(shown)} more" if len(apart) > len(shown) else ""

    def text(side: int) -> str:
        return ", ".join(f"{k} {v[side]:g}" if isinstance(v[side], float) else f"{k} {v[side]}"
                         for k, v in shown)

    ours, theirs = text(0), text(1)
    start = (" (where the duels start)" if sf.sampler.duels else "")
    spec = sf.opponent_spec
    with contextlib.suppress(ValueError):  # an engine file: as the study file would name it
        if os.path.isfile(spec):
            spec = os.path.relpath(spec, os.path.dirname(os.path.abspath(sf.path)))
    log.warning("study %r: its baseline, trial 0%s and what its answers are measured "
                "against, is the heuristic's defaults within [params] (%s%s), not the "
                "opponent's weights (%s%s); to fine-tune the opponent, set start_from = \"%s\"",
                name, start, ours, more, theirs, more, spec)


def _enqueue_baseline(study: optuna.Study, sf: StudyFile) -> None:
    """The first trial: the defaults (or the start_from engine's weights)."""
    if sf.start_params:  # warm start from an earlier engine (e.g. a broad study's best)
        study.enqueue_trial(dict(sf.start_params), user_attrs={schema.START_FROM: sf.start_from})
    else:
        study.enqueue_trial({p.name: sf.base.params[p.name] for p in sf.space.searched},
                            user_attrs={schema.BASELINE: True})


def _has_baseline(study: optuna.Study) -> bool:
    """Whether the baseline has played, plays or waits to (not only failed: a run
    interrupted during the baseline leaves it failed, and a resumed study plays
    it again so that confirmation has its reference)."""
    alive = (*FINISHED, TrialState.RUNNING, TrialState.WAITING)
    return any(is_baseline(t) and t.state in alive for t in study.get_trials(deepcopy=False))


def _create_or_load(name: str, storage: Any, sf: StudyFile) -> tuple[optuna.Study, bool]:
    """The study and whether this worker created it. Workers starting together on
    a new storage race to create it: the loser of the race loads it instead."""
    sampler = make_sampler(sf.sampler, sf.seed, sf.sampler_seeding, sf.space,
                           sf.baseline_params, sf.planned_pairs)
    last: Exception | None = None
    for attempt in range(20):
        try:
            directions: list[Literal["minimize", "maximize"]] = (
                DIRECTIONS[:len(sf.objectives)] if sf.positions is None
                else ["minimize"])  # a positions study: its loss
            study = optuna.create_study(study_name=name, storage=storage,
                                        directions=directions,
                                        sampler=sampler, pruner=make_pruner(sf.pruner, sf.pairs))
            return study, True
        except optuna.exceptions.DuplicatedStudyError:
            pass
        except Exception as exc:  # an integrity error from a concurrent insert
            last = exc
        try:
            return optuna.load_study(study_name=name, storage=storage, sampler=sampler,
                                     pruner=make_pruner(sf.pruner, sf.pairs)), False
        except KeyError as exc:  # created by nobody yet after all: try again
            last = exc
        time.sleep(0.05 * (attempt + 1))
    raise HeurtuneError(f"cannot create or load study {name!r}: {last}")


def _resumed_sampler(study: optuna.Study, sf: StudyFile) -> StudyFile:
    """``sf`` with the sampler a resumed study goes on with: where the study file
    does not set an option whose default has changed since the study began, the
    value it began with (:meth:`~heurtune.tuning.samplers.SamplerSpec.resuming`),
    and the study samples with that spec from here on."""
    record = study.user_attrs.get(schema.SAMPLER)
    if not isinstance(record, dict) or record.get("kind", "tpe") != sf.sampler.kind:
        return sf
    options = record.get("options")
    spec = sf.sampler.resuming(options if isinstance(options, dict) else {})
    if spec is sf.sampler:
        return sf
    study.sampler = make_sampler(spec, sf.seed, sf.sampler_seeding, sf.space,
                                 sf.baseline_params, sf.planned_pairs)
    return replace(sf, sampler=spec)


def _record_sampler_changes(study: optuna.Study, sf: StudyFile) -> None:
    """Where this worker goes on with other sampler settings (kind, options, answer)
    than the study recorded, record them: the record becomes this file's, the one it
    replaces moves to the record's ``earlier`` list with the trial number it held
    until, and the answers (``export``, ``report``) use the new settings, as the
    sampler now does; a warning (logger ``heurtune``) names what changed. Called only
    when this worker will play trials: a finished study is answered as it ran."""
    record = study.user_attrs.get(schema.SAMPLER)
    if not isinstance(record, dict):  # recorded by an older heurtune: nothing to compare
        return
    changed = _sampler_changes(record, sf.sampler, sf.answer)
    if not changed:
        return
    since = len(study.get_trials(deepcopy=False))
    earlier = record.get("earlier")
    earlier = [e for e in earlier if isinstance(e, dict)] if isinstance(earlier, list) else []
    earlier.append({k: v for k, v in record.items() if k != "earlier"} | {"until_trial": since})
    study.set_user_attr(schema.SAMPLER, {**record, "kind": sf.sampler.kind,
                                         "options": sf.sampler.recorded(), "answer": sf.answer,
                                         "planned_pairs": sf.planned_pairs, "earlier": earlier})
    log.warning("study %r goes on with other sampler settings than it recorded (%s): "
                "recorded from trial %d on, and its answers use them",
                study.study_name, "; ".join(changed), since)


def _sampler_changes(record: dict[str, Any], spec: SamplerSpec, answer: str) -> list[str]:
    """What ``spec`` and ``answer`` change in a study's sampler ``record`` (read as
    the answers read it: :func:`~heurtune.tuning.after.answers.recorded_sampler`), one
    ``name old -> new`` per setting."""
    before_answer = record.get("answer", "auto")
    try:
        before, before_answer, _planned = recorded_sampler(record, "record")
    except (HeurtuneError, TypeError, ValueError):  # a record this heurtune cannot read
        changed = ["options (a record this heurtune cannot read) replaced"]
    else:
        changed = ([f"kind {before.kind} -> {spec.kind}"] if before.kind != spec.kind else
                   [f"{k} {before.options.get(k)} -> {v}" for k, v in spec.options.items()
                    if before.options.get(k) != v])
    if before_answer != answer:
        changed.append(f"answer {before_answer} -> {answer}")
    return changed


def _book_reference(name: str) -> str:
    """A book's reference as another command finds it: a shipped book's name, or
    the file's absolute path."""
    if name.startswith(SHIPPED_PREFIX):
        return name
    return str(book_path(name).resolve())


def _wait_for_setup(study: optuna.Study, stored: Any, seconds: float = 10.0) -> Any:
    """The setup its creator stores right after creating the study (a worker that
    lost the creation race may look a moment too early)."""
    deadline = time.monotonic() + seconds
    while stored is None and time.monotonic() < deadline:
        time.sleep(0.1)
        stored = study.user_attrs.get(schema.SETUP)
    return stored


def faulted(trial: FrozenTrial) -> bool:
    """Whether a trial failed for its engine's faults (it counts toward the target:
    its weights would fault again)."""
    return trial.state == TrialState.FAIL and schema.FAULTED in trial.user_attrs


def counts(trial: FrozenTrial) -> bool:
    """Whether a trial counts toward the study's target: finished (complete or
    pruned), or failed for its engine's faults."""
    return trial.state in FINISHED or faulted(trial)


def _wanted(study: optuna.Study, target: int) -> bool:
    """Whether to start another trial: enqueued ones are waiting (the baseline,
    retries of trials whose worker died: played even once the target is
    reached), or finished plus running trials are below the target."""
    trials = study.get_trials(deepcopy=False)
    if any(t.state == TrialState.WAITING for t in trials):
        return True
    busy = sum(1 for t in trials if counts(t) or t.state == TrialState.RUNNING)
    return busy < target


class _DropInterrupts(logging.Filter):
    """Optuna logs a trial stopped by Ctrl-C / SIGTERM with a 20-line traceback
    and a "failed with value None" line; heurtune says it in one line instead
    (and a surplus trial is no failure). Other failures keep their log."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, (KeyboardInterrupt, SurplusTrial, EngineFaulted)):
            return False
        if "EngineFaulted" in record.getMessage():  # told by tune's own trial line
            return False
        return "failed with value None" not in record.getMessage()


class _as_heurtune_errors:
    """Failures of the machinery around a trial (a match worker process killed,
    the storage gone or locked past its timeout) as one error line: the trial is
    already marked failed and the same command resumes."""

    def __enter__(self) -> None:
        pass

    def __exit__(self, kind: type | None, exc: BaseException | None,
                 _tb: object) -> Literal[False]:
        if exc is None or isinstance(exc, (HeurtuneError, KeyboardInterrupt)):
            return False
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(exc, BrokenProcessPool):
            raise HeurtuneError("a match worker process died (out of memory?); the trial is "
                                "marked failed and the same command resumes") from None
        line = storage_failure(exc)
        if line is not None or isinstance(exc, optuna.exceptions.UpdateFinishedTrialError):
            raise HeurtuneError(f"{line or 'storage error: ' + str(exc)}; finished trials are "
                                "stored and the same command resumes") from None
        return False


class _quiet_interrupts:
    def __enter__(self) -> None:
        self._filter = _DropInterrupts()
        logging.getLogger("optuna").addFilter(self._filter)
        for handler in logging.getLogger("optuna").handlers:
            handler.addFilter(self._filter)

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("optuna").removeFilter(self._filter)
        for handler in logging.getLogger("optuna").handlers:
            handler.removeFilter(self._filter)
