"""Every sampler a study file can name: its options and where its factory lives.

This module imports no Optuna (the study-file parser reads it to validate a
``[sampler]`` section); a sampler's factory is imported only when a study is
built. Adding a sampler: write its factory (a module of this package, see
:mod:`heurtune.tuning.samplers.optuna_samplers`, ``spsa``, ``duels``) and add
one :class:`SamplerKind` line to :data:`KINDS`.

Optuna's: ``tpe``, ``multivariate-tpe``, ``random``, ``qmc``, ``cmaes`` (with the
``cmaes`` package), ``gp`` (needs PyTorch: ``pip install 'heurtune[gp]'``).
Every trial of theirs plays the study's match: its weights against the opponent.
heurtune's duel samplers ``spsa`` and ``duels`` play a trial's weights against
*other weights* instead (:mod:`heurtune.tuning.samplers.spsa`,
:mod:`heurtune.tuning.samplers.duels`).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from heurtune.engine.params import ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers.quadratic import UnitBox

if TYPE_CHECKING:
    from optuna.samplers import BaseSampler


@dataclass(frozen=True)
class Option:
    """One sampler option: its type, bounds (numbers) or choices (strings), default."""

    kind: type
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    # numbers accepted outside [low, high] (a setting's "automatic" value, say)
    special: tuple[float, ...] = ()

    def validate(self, name: str, value: Any, where: str) -> Any:
        if self.kind is bool:
            if not isinstance(value, bool):
                raise HeurtuneError(f"{where}: {name} must be true or false, got {value!r}")
            return value
        if self.kind is str:
            if value not in self.choices:
                raise HeurtuneError(f"{where}: {name} must be one of {', '.join(self.choices)}, "
                                    f"got {value!r}")
            return value
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.kind is int:
            ok = ok and float(value).is_integer()
        if not ok:
            what = "an integer" if self.kind is int else "a number"
            raise HeurtuneError(f"{where}: {name} must be {what}"
                                f", got {value!r}")
        value = self.kind(value)
        if value in self.special:
            return value
        if not math.isfinite(value) or (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high):
            either = "".join(f"{v:g} or " for v in self.special)
            raise HeurtuneError(f"{where}: {name} must be {either}in [{self.low}, {self.high}], "
                                f"got {value}")
        return value


@dataclass(frozen=True)
class SamplerContext:
    """What a factory may need besides the options and the seed: the searched
    space, where the search starts (the baseline's weights) and the pairs the
    study plans to play (SPSA's classic schedule decays over them)."""

    space: ParamSpace | None = None
    baseline: Mapping[str, Value] | None = None
    planned_pairs: int = 0


Factory = Callable[["SamplerSpec", int, SamplerContext], "BaseSampler"]


@dataclass(frozen=True)
class SamplerKind:
    """One sampler a study file can name.

    ``factory`` is ``"module:function"`` (imported when a study is built, so that
    this registry imports no Optuna); ``duels``: its trials play weights against
    weights (the sampler picks both; categorical parameters are refused);
    ``own_stream``: it keeps one random stream for the whole study (QMC: its
    points are numbered by the study itself) instead of one per trial;
    ``requires``: an optional package, and the line that says how to install it;
    ``former_defaults``: options whose default has changed, with the value in effect
    for studies recorded before a study's record held every option (those recorded
    only the options given, so a missing option there means this value);
    ``past_defaults``: for such options, the values that were their default on some
    day since records held every option. A study resumed by a file that does not set
    such an option goes on with the value it began with where that was a default of
    its day (:meth:`SamplerSpec.resuming`)."""

    name: str
    options: Mapping[str, Option]
    factory: str
    duels: bool = False
    own_stream: bool = False
    requires: tuple[str, str] | None = None
    # it needs objective = "positions" (a deterministic loss; heurtune.tuning.positions)
    positions_only: bool = False
    former_defaults: Mapping[str, Any] = field(default_factory=dict)
    past_defaults: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def load_factory(self) -> Factory:
        module, _, attr = self.factory.partition(":")
        made: Factory = getattr(importlib.import_module(module), attr)
        return made

    def check_requirements(self, where: str) -> None:
        """One clear line when the optional package it needs is missing."""
        if self.requires is not None and importlib.util.find_spec(self.requires[0]) is None:
            raise HeurtuneError(f"{where}sampler {self.name!r} {self.requires[1]}")


_STARTUP = Option(int, 10, 0, 10_000, help="trials sampled at random before the model")
_OPTUNA = "heurtune.tuning.samplers.optuna_samplers"
KINDS: tuple[SamplerKind, ...] = (
    SamplerKind("tpe", {
        "n_startup_trials": _STARTUP,
        "n_ei_candidates": Option(int, 24, 1, 10_000, help="candidates scored per trial")},
        f"{_OPTUNA}:tpe"),
    SamplerKind("multivariate-tpe", {
        "n_startup_trials": _STARTUP,
        "n_ei_candidates": Option(int, 24, 1, 10_000)},
        f"{_OPTUNA}:multivariate_tpe"),
    SamplerKind("random", {}, f"{_OPTUNA}:random"),
    SamplerKind("qmc", {
        "qmc_type": Option(str, "sobol", choices=("sobol", "halton")),
        "scramble": Option(bool, False)},
        f"{_OPTUNA}:qmc", own_stream=True),
    SamplerKind("cmaes", {
        "sigma0": Option(float, 0.0, 0.0, 1e9, help="initial step (0: a sixth of the range)"),
        "n_startup_trials": Option(int, 1, 0, 10_000),
        "popsize": Option(int, 0, 0, 10_000, help="population (0: CMA-ES's default)"),
        "from_baseline": Option(bool, True, help="start at the baseline's weights")},
        f"{_OPTUNA}:cmaes"),
    SamplerKind("gp", {"n_startup_trials": _STARTUP}, f"{_OPTUNA}:gp",
                requires=("torch", "(Optuna's GPSampler) needs PyTorch: "
                                   "pip install 'heurtune[gp]'")),
    SamplerKind("spsa", {
        "schedule": Option(str, "autoselect", choices=("autoselect", "classic")),
        "precision": Option(float, 0.5, 1e-3, 100.0, help="Elo from the optimum aimed at"),
        "confidence": Option(float, 0.95, 0.5, 0.999),
        "draw_ratio": Option(float, 0.61, 0.0, 0.99, help="(virtual) draw ratio of the games"),
        "elo_per_range": Option(float, 2.0, 1e-3, 1e4,
                                help="guessed Elo lost half a range from the optimum"),
        "c_ratio": Option(float, 1.0 / 6.0, 1e-4, 0.5, help="perturbation, in ranges"),
        "lambda_ratio": Option(float, 3.0, 0.1, 100.0),
        "alpha": Option(float, 0.602, 0.0, 2.0, help="classic: decay of the step"),
        "gamma": Option(float, 0.101, 0.0, 2.0, help="classic: decay of the perturbation"),
        "A": Option(float, -1.0, -1.0, 1e12, help="classic: stability (-1: 10% of the pairs)")},
        "heurtune.tuning.samplers.spsa:make", duels=True),
    SamplerKind("duels", {
        "elo_per_range": Option(float, 2.0, 1e-3, 1e4,
                                help="prior: Elo lost half a range from the optimum (the "
                                     "data scale it up, 1 to 256 times)"),
        "start_elo": Option(float, 2.0, 1e-3, 1e4, help="prior: how far below the optimum "
                                                          "the baseline is, in Elo (the data "
                                                          "scale it up on their own)"),
        "edge_prior": Option(float, -1.0, 1.0, 1e4, special=(-1.0, 0.0),
                             help="prior: the gradient's prior variance this many times "
                                  "wider along coordinates whose fitted maximum lies at the "
                                  "box's edge, curved (1: the prior as it is; -1: 4, below 8 "
                                  "searched parameters only once edge_prior_after = 8 and "
                                  "edge_prior_slope_z = 1 allow, where those are left at 0; "
                                  "0: as on 2026-11-27, 4 from 8 parameters on, else 1)"),
        "edge_prior_after": Option(float, 0.0, 0.0, 1e4,
                                   help="prior: widened at the edge only once the model holds "
                                        "this many duels per coefficient (0: at once, or 8 "
                                        "below 8 parameters with edge_prior = -1)"),
        "edge_prior_slope_z": Option(float, 0.0, 0.0, 10.0,
                                     help="prior: widened at the edge only along parameters "
                                          "whose plain fit's slope at the baseline toward the "
                                          "edge lies this many sd above zero (0: wherever, or "
                                          "1 below 8 parameters with edge_prior = -1)"),
        "z": Option(float, 1.0, 0.0, 10.0, help="answer: lower bound at mean - z sd"),
        "step_sd": Option(float, 0.8, 0.0, 10.0,
                          help="answer: then step toward the model's maximum, as far as the "
                               "mean gain rises, the lower bound stays positive and the step's "
                               "own mean gain lies this many sd above zero (in 4 parameters; "
                               "sqrt(d / 4) times that in d); 0: no step"),
        "reach": Option(float, -1.0, 0.0, 100.0, special=(-1.0,),
                        help="answer: then, where the model's maximum lies this many times "
                             "the prior's distance from the baseline or farther (and the "
                             "model holds 8 duels per coefficient and its curvature's "
                             "scale is at most 4), move half way toward the point of "
                             "highest mean gain that keeps 3/4 of the highest lower bound "
                             "(0: off; -1: 1.75 below 8 parameters, off from 8 on)"),
        "edge_answer": Option(str, "curved", choices=("curved", "always", "off"),
                              help="answer: where the model's maximum lies at the box's "
                                   "edge, move toward it (curved: only where the fitted "
                                   "curvature is at least the prior's; off: the lower "
                                   "bound's point as it is)"),
        "edge_move_sd": Option(float, 0.3, 0.0, 10.0,
                               help="answer: the move toward the edge made only where the "
                                    "model's mean gain of the move itself lies this many sd "
                                    "above zero (0: wherever its lower bound stays positive)"),
        "radius": Option(float, 1.0, 0.01, 2.0, help="duel points this far from the centre, "
                                                       "in half ranges"),
        "narrow": Option(float, 0.5, 0.0, 1.0,
                         help="the radius times this (once) where the held-out duels measure "
                              "the answer's gain narrow_z sd or more above the model's: the "
                              "landscape is not the bowl the model fits at that radius "
                              "(0: never)"),
        "narrow_z": Option(float, 5.0, 0.0, 100.0,
                           help="narrow: the disagreement, in sd, at which the radius narrows "
                                "(from the first held-out duel where narrow_from is 0, else "
                                "where the rising bar reaches it)"),
        "narrow_from": Option(float, 3.0, 0.0, 100.0,
                              help="narrow: the bar at the first held-out duel, in sd, rising "
                                   "by one sd at the tenth and every tenfold after, up to "
                                   "narrow_z (0: narrow_z from the first)"),
        "narrow_below": Option(float, 0.0, 0.0, 100.0,
                               help="narrow: also where the held-out duels measure the "
                                    "answer at or below the baseline and this many sd or "
                                    "more below the model's gain, the guard's test (a cliff "
                                    "beside the answer that duels a radius wide span; 0: "
                                    "never)"),
        "guard_z": Option(float, 3.0, 0.0, 100.0,
                          help="answer: the baseline instead where the held-out duels "
                               "measure the model's answer at or below the baseline and "
                               "guard_z sd or more below the model's gain (0: never)"),
        "guard_record": Option(float, 0.5, 0.0, 1.0,
                               help="answer: where no held-out duel has measured the "
                                    "model's answer yet, the guard's test on this share "
                                    "of the latest held-out duels against the gains the "
                                    "model predicted for the answers they played (0: "
                                    "never)"),
        "curvature_share": Option(float, 0.2, 0.0, 1.0,
                                  help="share of coordinates duelled centre vs edge (curvature)"),
        "holdout_every": Option(int, 10, 0, 1_000_000,
                                help="every Nth trial plays the answer against the baseline, left "
                                     "out of the model: the answer's measured gain (0: none)")},
        "heurtune.tuning.samplers.duels:make", duels=True,
        # edge_prior: 1 (off) in every number of parameters until 2026-11-27 (stop 45),
        # whose studies were the first to record every option (0 that day); narrow: 0
        # (off) until stop 48, and no study recorded it before that stop; narrow_from: 0
        # (the bar narrow_z from the first held-out duel) until stop 49; guard_z: 0 (no
        # guard) until stop 50; guard_record: 0 (no guard on the record) until stop 56;
        # reach: 0 (no move toward a far maximum) until stop 61
        former_defaults={"edge_prior": 1.0, "narrow": 0.0, "narrow_from": 0.0, "guard_z": 0.0,
                         "guard_record": 0.0, "reach": 0.0},
        past_defaults={"edge_prior": (0.0,), "narrow": (0.0,), "narrow_from": (0.0,),
                       "guard_z": (0.0,), "guard_record": (0.0,), "reach": (0.0,)}),
    # objective = "positions" only: scipy's L-BFGS-B on the loss (heurtune.tuning.positions),
    # every point it evaluates a trial (enqueued: the Optuna sampler itself draws nothing)
    SamplerKind("lbfgs", {
        "gradient": Option(str, "auto", choices=("auto", "analytic", "finite"),
                           help="analytic where the evaluation is linear in the weights "
                                "(auto checks), else forward differences")},
        f"{_OPTUNA}:random", positions_only=True),
)
SAMPLERS: dict[str, SamplerKind] = {k.name: k for k in KINDS}
SAMPLER_NAMES = tuple(SAMPLERS)
DUEL_SAMPLERS = tuple(k.name for k in KINDS if k.duels)


@dataclass(frozen=True)
class SamplerSpec:
    """A study's sampler and its options (validated, defaults filled in)."""

    kind: str = "tpe"
    options: Mapping[str, Any] = field(default_factory=dict)
    # the options its study file (or record) set; the rest are defaults
    given_names: frozenset[str] = field(default=frozenset(), compare=False)

    @classmethod
    def parse(cls, kind: str, options: Mapping[str, Any], where: str) -> SamplerSpec:
        if kind not in SAMPLERS:
            raise HeurtuneError(f"{where}: unknown sampler {kind!r} (known: {', '.join(SAMPLERS)})")
        table = SAMPLERS[kind].options
        unknown = sorted(set(options) - set(table))
        if unknown:
            raise HeurtuneError(f"{where}: sampler {kind!r} has no option(s) {unknown} "
                                f"(options: {', '.join(sorted(table)) or 'none'})")
        values = {name: opt.default for name, opt in table.items()}
        for name, value in options.items():
            values[name] = table[name].validate(name, value, where)
        return cls(kind, values, frozenset(options))

    @property
    def positions_only(self) -> bool:
        """Whether it needs objective = "positions" (lbfgs)."""
        return SAMPLERS[self.kind].positions_only

    @property
    def duels(self) -> bool:
        """Whether its trials are duels (weights against weights)."""
        return SAMPLERS[self.kind].duels

    def given(self) -> dict[str, Any]:
        """The options that differ from their defaults."""
        table = SAMPLERS[self.kind].options
        return {k: v for k, v in self.options.items() if v != table[k].default}

    def recorded(self) -> dict[str, Any]:
        """Every option (what a study records: a default changed later does not
        change what the study ran with; see :meth:`from_record`)."""
        return dict(self.options)

    @classmethod
    def from_record(cls, kind: str, options: Mapping[str, Any], where: str) -> SamplerSpec:
        """The sampler a study recorded: its options, and for an option missing
        from the record its former default where it has one (a study recorded
        before records held every option ran with it), else its default."""
        former = SAMPLERS[kind].former_defaults if kind in SAMPLERS else {}
        return cls.parse(kind, {**former, **options}, where)

    def resuming(self, options: Mapping[str, Any]) -> SamplerSpec:
        """This study file's sampler for a study of the same kind that recorded
        ``options``: an option whose default has changed and that this file does not
        set goes on with the value the study began with where that was a default in
        its day: the former default where the record lacks the option (recorded
        before records held every option), the record's value where it is one of the
        option's past defaults; else this spec as it is (a value the study set and
        this file no longer does is a change, which the study records)."""
        kind = SAMPLERS[self.kind]
        kept: dict[str, Any] = {}
        for name, former in kind.former_defaults.items():
            if name in self.given_names:
                continue
            if name not in options:
                value = former
            elif options[name] in kind.past_defaults.get(name, ()):
                value = kind.options[name].validate(name, options[name], "the study's record")
            else:
                continue
            if value != self.options[name]:
                kept[name] = value
        return replace(self, options={**self.options, **kept}) if kept else self


def check_space(spec: SamplerSpec, space: ParamSpace, where: str) -> None:
    """Refuse a space the sampler cannot search (categorical parameters for the duel
    samplers), or a sampler whose optional extra is missing."""
    if spec.duels:
        UnitBox(space, f"{where}: sampler {spec.kind!r}")
    SAMPLERS[spec.kind].check_requirements(f"{where}: ")
