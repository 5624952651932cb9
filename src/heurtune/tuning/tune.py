"""``heurtune tune``: create or resume a study and run its trials.

Every trial plays the same openings (drawn once from the study seed), so trial
scores are directly comparable and the Wilcoxon pruner can compare a running
trial with the best one opening by opening: each opening pair's score is
reported at the step numbered by the opening. Pruners that expect a learning
curve (``median``) get the running score instead.

The baseline (the heuristic's defaults, i.e. the seed weights) is enqueued as
the first trial, so the study always answers "is the tuned engine better than
where we started?".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import optuna
from optuna.trial import TrialState

from heurtune.errors import HeurtuneError
from heurtune.match.play import PairResult
from heurtune.match.runner import MatchRunner, stats_of
from heurtune.tuning import experimental_ok
from heurtune.tuning.distributions import suggest
from heurtune.tuning.storage import open_storage
from heurtune.tuning.studyfile import PrunerSpec, StudyFile

SETUP_ATTR = "heurtune_setup"
FINISHED = (TrialState.COMPLETE, TrialState.PRUNED)


def make_sampler(kind: str, seed: int) -> optuna.samplers.BaseSampler:
    with experimental_ok():
        if kind == "tpe":
            return optuna.samplers.TPESampler(seed=seed)
        if kind == "multivariate-tpe":  # models correlated weights (early vs late, own vs opp)
            return optuna.samplers.TPESampler(seed=seed, multivariate=True)
        if kind == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if kind == "qmc":
            return optuna.samplers.QMCSampler(seed=seed)
    raise HeurtuneError(f"unknown sampler {kind!r}")


def make_pruner(spec: PrunerSpec) -> optuna.pruners.BasePruner:
    if spec.kind == "wilcoxon":
        with experimental_ok():
            return optuna.pruners.WilcoxonPruner(
                p_threshold=spec.p_threshold, n_startup_steps=spec.n_startup_steps
            )
    if spec.kind == "median":
        return optuna.pruners.MedianPruner(n_warmup_steps=spec.n_warmup_steps)
    return optuna.pruners.NopPruner()


@dataclass(frozen=True)
class TuneSummary:
    study_name: str
    storage: str
    finished: int
    ran: int
    best_number: int | None
    best_value: float | None
    best_params: dict[str, Any]


TrialCallback = Callable[[optuna.trial.FrozenTrial], None]


def _objective(sf: StudyFile, runner: MatchRunner, openings: list[tuple[int, ...]],
               on_pair: Callable[[int, PairResult], None] | None) -> Callable[[optuna.Trial], float]:
    per_opening = sf.pruner.kind == "wilcoxon"

    def objective(trial: optuna.Trial) -> float:
        params = suggest(trial, sf.space)
        config = sf.base.with_params(params, name=f"trial-{trial.number}")
        spec = sf.match_spec(config)
        pairs: list[PairResult] = []
        stream = runner.iter_pairs(spec, openings)
        try:
            for pair in stream:
                pairs.append(pair)
                if on_pair is not None:
                    on_pair(trial.number, pair)
                if per_opening:
                    trial.report(pair.score, step=pair.index)
                else:
                    trial.report(stats_of(pairs).score, step=len(pairs))
                if len(pairs) < sf.pairs and trial.should_prune():
                    _record(trial, pairs)
                    raise optuna.TrialPruned(f"pruned after {len(pairs)} of {sf.pairs} pairs")
        finally:
            stream.close()
        return _record(trial, pairs)

    return objective


def _record(trial: optuna.Trial, pairs: list[PairResult]) -> float:
    stats = stats_of(sorted(pairs, key=lambda p: p.index))
    for key, value in stats.to_dict().items():
        trial.set_user_attr(key, value)
    return stats.score


def tune(
    sf: StudyFile,
    *,
    storage_url: str,
    study_name: str | None = None,
    trials: int | None = None,
    jobs: int | None = None,
    on_trial: TrialCallback | None = None,
    on_pair: Callable[[int, PairResult], None] | None = None,
) -> TuneSummary:
    """Create or resume the study and run trials until it has ``trials`` finished ones."""
    name = study_name or sf.name
    target = trials if trials is not None else sf.trials
    if target < 1:
        raise HeurtuneError(f"trials must be at least 1, got {target}")
    workers = jobs if jobs is not None else sf.jobs
    if workers < 1:
        raise HeurtuneError(f"jobs must be at least 1, got {workers}")
    openings = sf.match_spec().openings()  # validates the openings before storage is touched
    storage = open_storage(storage_url, create=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name=name,
        storage=storage,
        direction="maximize",
        sampler=make_sampler(sf.sampler, sf.seed),
        pruner=make_pruner(sf.pruner),
        load_if_exists=True,
    )
    setup = sf.setup()
    stored = study.user_attrs.get(SETUP_ATTR)
    if stored is None:
        study.set_user_attr(SETUP_ATTR, setup)
        study.set_user_attr("objective", sf.objective_name)
        with experimental_ok():
            study.set_metric_names([sf.objective_name])
        if sf.start_params:  # warm start from an earlier engine (e.g. a broad study's best)
            study.enqueue_trial(dict(sf.start_params), user_attrs={"start_from": sf.start_from})
        else:
            study.enqueue_trial(
                {p.name: sf.base.params[p.name] for p in sf.space.searched},
                user_attrs={"baseline": True},
            )
    elif stored != setup:
        diff = sorted(k for k in set(stored) | set(setup) if stored.get(k) != setup.get(k))
        raise HeurtuneError(
            f"study {name!r} was created with a different setup ({', '.join(diff)} differ); "
            "use another --study-name"
        )
    done = sum(1 for t in study.get_trials(deepcopy=False, states=FINISHED))
    remaining = max(0, target - done)
    ran = 0
    if remaining:
        callbacks: list[Any] = [optuna.study.MaxTrialsCallback(target, states=FINISHED)]
        if on_trial is not None:
            callbacks.append(lambda _s, t: on_trial(t))
        with MatchRunner(workers) as runner:
            objective = _objective(sf, runner, openings, on_pair)
            before = len(study.get_trials(deepcopy=False))
            study.optimize(objective, n_trials=remaining, callbacks=callbacks, catch=())
            ran = len(study.get_trials(deepcopy=False)) - before
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    best = study.best_trial if complete else None
    return TuneSummary(
        study_name=name,
        storage=storage_url,
        finished=sum(1 for t in study.get_trials(deepcopy=False, states=FINISHED)),
        ran=ran,
        best_number=best.number if best else None,
        best_value=best.value if best else None,
        best_params=dict(best.params) if best else {},
    )
