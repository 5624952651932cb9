"""What a study recommends: its best trial, and answers that are better bets.

The best of many noisy trials is mostly the luckiest (one trial of 100 pairs
measures Elo with a spread of about 15 Elo, more than a fine-tuning landscape
spans), so a study offers these candidates, all of which ``heurtune confirm``
re-plays on fresh openings beside the baseline:

``best``
    the completed trial with the best score against the opponent;
``top-mean``
    the mean of the five best completed trials' weights (geometric for
    log-scale parameters, the commonest choice for categorical ones);
``model``
    the answer of a Bayesian quadratic model fitted to every finished match
    trial, pruned ones included (heurtune.tuning.samplers.quadratic): the point with the
    highest lower bound on its gain over the baseline;
``spsa`` / ``duels``
    a duel sampler's own answer: SPSA's iterate, the duels model's point.

An answer's ``detail`` says what is known of it. A model's gain over the
baseline is *model-based*, a prediction of the quadratic model (``model_gain``
and its sd ``model_gain_sd``, Elo; ``is_baseline``: the answer is the baseline
itself): on a landscape no quadratic fits it can be far off, and its sd with
it. The ``duels`` answer adds its *measured* gain, from held-out duels of the
answer against the baseline that the model never saw (``measured_gain``,
``measured_gain_ci``: a 95% interval, Elo, None until one played near the
answer; ``measured_duels``, ``measured_games``; see
heurtune.tuning.samplers.duels). Both model answers name the parameters whose
best may lie beyond the searched box (``beyond_bounds``: name to ``"upper"`` or
``"lower"``): the model's maximum sits on that bound and its gain still rises
through it, the slope above zero by two sd. Widen those ranges and tune again.

A study file's ``answer`` says which one ``export`` writes when the study is
not confirmed (``auto``: the duel sampler's own, else the best trial).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import optuna
from optuna.distributions import FloatDistribution, IntDistribution
from optuna.trial import FrozenTrial, TrialState

from heurtune.engine import CategoricalParam, EngineConfig, ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers import (
    GUARDED,
    DuelSampler,
    Observation,
    QuadraticModel,
    SamplerSpec,
    UnitBox,
    beyond_bounds,
    make_sampler,
)
from heurtune.tuning.study import (
    is_baseline,
    match_trials,
    minimises,
    ranked,
    schema,
    trial_score,
)

TOP_MEAN = 5  # trials averaged by the top-mean answer
MODEL_Z = 1.0  # the model answer's lower bound: mean - MODEL_Z sd


@dataclass(frozen=True)
class Answer:
    """One candidate: its name, its searched parameters, the trial it is (if any)."""

    name: str
    params: Mapping[str, Value]
    trial: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"trial {self.trial}" if self.name == "best" else f"answer {self.name}"


def study_space(base: EngineConfig, trials: Sequence[FrozenTrial]) -> ParamSpace:
    """The space the study searched: the heuristic's, narrowed to the bounds its
    trials were sampled in, the parameters it never sampled fixed at the base's."""
    space = base.heuristic_obj.space
    sampled = next((t.distributions for t in trials if t.distributions), {})
    spec: dict[str, Any] = {}
    for p in space:
        dist = sampled.get(p.name)
        if dist is None:
            spec[p.name] = base.params[p.name]
        elif isinstance(dist, (FloatDistribution, IntDistribution)):
            spec[p.name] = {"low": dist.low, "high": dist.high}
    return space.narrowed(spec)


def sampler_spec(study: optuna.Study) -> tuple[SamplerSpec, str, int]:
    """The study's sampler, its answer setting and the pairs it planned
    (:func:`recorded_sampler` of its record)."""
    return recorded_sampler(study.user_attrs.get(schema.SAMPLER) or {},
                            f"study {study.study_name!r}")


def recorded_sampler(record: Mapping[str, Any], where: str) -> tuple[SamplerSpec, str, int]:
    """A study's sampler record read: the sampler (options as
    :meth:`~heurtune.tuning.samplers.SamplerSpec.from_record` reads them), its answer
    setting and the pairs it planned (studies recorded before samplers had options:
    TPE, ``auto``). One clear :class:`HeurtuneError` where the record cannot be read."""
    options = record.get("options", {})
    spec = SamplerSpec.from_record(record.get("kind", "tpe"),
                                   options if isinstance(options, Mapping) else {}, where)
    return spec, record.get("answer", "auto"), int(record.get("planned_pairs", 0))


def _top_mean(space: ParamSpace, ranked: Sequence[FrozenTrial]) -> dict[str, Value]:
    top = ranked[:TOP_MEAN]
    out: dict[str, Value] = {}
    for p in space.searched:
        values = [t.params[p.name] for t in top if p.name in t.params]
        if isinstance(p, CategoricalParam):
            counts = Counter(values)
            out[p.name] = max(values, key=lambda v: (counts[v], -values.index(v)))
            continue
        if p.log:
            mean = math.exp(sum(math.log(v) for v in values) / len(values))
        else:
            mean = sum(values) / len(values)
        out[p.name] = p.validate(int(round(mean)) if isinstance(values[0], int) else mean)
    return out


def _model(space: ParamSpace, baseline: Mapping[str, Value],
           trials: Sequence[FrozenTrial]) -> Answer | None:
    """The quadratic model's answer over the finished match trials (None where the
    space has categorical parameters or too few trials were played)."""
    try:
        box = UnitBox(space)
    except HeurtuneError:
        return None
    played = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)
              and int(t.user_attrs.get(schema.GAMES, 0)) > 0
              and all(p in t.params for p in box.names)]
    if len(played) < 3:
        return None
    u0 = box.to_unit(dict(baseline))
    # against a pool, every opponent's score is an observation with an offset of its own
    opponents = max(len(t.user_attrs.get(schema.OPPONENTS) or [None]) for t in played)
    model = QuadraticModel(box.dim, offsets=opponents)
    for t in played:
        d = box.to_unit(t.params) - u0
        members = t.user_attrs.get(schema.OPPONENTS)
        if members:
            for k, m in enumerate(members):
                model.add(Observation(d, None, float(m["score"]), int(m["games"]), opponent=k))
        else:
            model.add(Observation(d, None, float(t.user_attrs[schema.SCORE]),
                                  int(t.user_attrs[schema.GAMES]),
                                  t.user_attrs.get(schema.PAIR_SCORES, ())))
    model.fit()
    low, high = -1.0 - u0, 1.0 - u0
    point, gain, sd = model.recommend(low, high, MODEL_Z)
    params = ({n: baseline[n] for n in box.names} if not point.any()
              else box.from_unit(u0 + point))
    return Answer("model", params,
                  detail={"is_baseline": not point.any(), "model_gain": gain,
                          "model_gain_sd": sd, "trials": len(played),
                          "prior_scale": model.scale, "prior_start_scale": model.start_scale,
                          "beyond_bounds": beyond_bounds(model, box, low, high)})


def study_answers(study: optuna.Study, base: EngineConfig,
                  trials: Sequence[FrozenTrial] | None = None,
                  repeated: bool = False) -> list[Answer]:
    """Every answer the study offers (best trial first), none repeated (an answer
    whose parameters an earlier one already holds is left out, unless ``repeated``);
    from ``trials`` only where given (what the study knew at some earlier point)."""
    if trials is None:
        trials = study.get_trials(deepcopy=False)
    space = study_space(base, trials)
    spec, _setting, planned = sampler_spec(study)
    matches = match_trials(trials)
    complete = [t for t in matches if t.state == TrialState.COMPLETE]
    best_first = ranked(study, complete)
    baseline_trial = next((t for t in matches if is_baseline(t)), None)
    baseline = ({**base.params, **baseline_trial.params} if baseline_trial is not None
                else dict(base.params))
    out: list[Answer] = []
    if best_first:
        best = best_first[0]
        out.append(Answer("best", {k: best.params[k] for k in best.params}, best.number,
                          {"score": trial_score(best)}))
    if spec.duels:
        sampler = make_sampler(spec, 0, space=space, baseline=baseline, planned_pairs=planned)
        assert isinstance(sampler, DuelSampler)
        found = sampler.answer(trials)
        out.append(Answer(spec.kind, found.pop("params"), detail=found))
    else:
        if len(best_first) >= 2:
            out.append(Answer("top-mean", _top_mean(space, best_first),
                              detail={"trials": [t.number for t in best_first[:TOP_MEAN]]}))
        # the quadratic model reads scores as Elo: a positions study's loss is none
        model = None if minimises(study) else _model(space, baseline, matches)
        if model is not None:
            out.append(model)
    return out if repeated else _unique(out)


def _unique(answers: Sequence[Answer]) -> list[Answer]:
    """``answers`` less each one whose parameters an earlier one already holds."""
    unique: list[Answer] = []
    for a in answers:
        if not any(dict(a.params) == dict(u.params) for u in unique):
            unique.append(a)
    return unique


def default_answer(study: optuna.Study, base: EngineConfig,
                   trials: Sequence[FrozenTrial] | None = None) -> Answer:
    """What ``export`` writes for an unconfirmed study: the study's answer setting
    (from ``trials`` only where given, as :func:`study_answers`)."""
    spec, setting, _planned = sampler_spec(study)
    every = study_answers(study, base, trials, repeated=True)
    answers = _unique(every)
    wanted = setting
    if setting in ("auto", "sampler"):
        wanted = spec.kind if spec.duels else ("best" if setting == "auto" else "model")
    found = next((a for a in answers if a.name == wanted), None)
    if found is None and spec.duels:
        # the sampler's answer the baseline, which is a duels study's best trial too:
        # where it withdrew the model's answer (``guard_z``) its detail says why, so
        # that answer is the one written
        own = next((a for a in every if a.name == wanted), None)
        if own is not None and GUARDED in own.detail:
            found = own
    if found is None:  # e.g. no model with categorical parameters: the best trial
        found = next((a for a in answers if a.name == "best"), None) or (
            answers[0] if answers else None)
    if found is None:
        raise HeurtuneError(f"study {study.study_name!r} has nothing to export yet")
    return found
