"""Every sampler a study file can name: its options and where its factory lives.

A sampler's settings are its options, every one of which a study records; a study
file sets all but its constants (``duels``' research settings, which a record of
heurtune 0.2.0 may hold at other values: :meth:`SamplerSpec.resuming` says which a
resumed study goes on with), and a setting whose default has changed has its former
defaults, by heurtune version (:class:`Former`).

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
from heurtune.tuning.samplers import duels_constants as dc
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
    # a constant of the sampler: a study file does not set it (one line refuses it), a
    # study records it like every option, and a record's value (an older study's) and
    # research code (``SamplerSpec.parse(..., internal=True)``) still set it
    constant: bool = False

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
class Former:
    """An option's former default under one heurtune version (:attr:`SamplerKind.former_defaults`).

    ``missing``: the value a study ran with whose record lacks the option (its record
    held only the options its file set, or the option did not exist yet); ``recorded``:
    the values a record that holds every option may hold as a default of its day, which
    a study resumed by a file that does not set the option goes on with."""

    missing: Any
    recorded: tuple[Any, ...] = ()


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
    ``options``: every setting a study records, the constants among them
    (:attr:`Option.constant`; a study file sets only the others, :attr:`file_options`);
    ``constants_doc``: where the constants are documented, for the line that refuses one;
    ``former_defaults``: the options whose default has changed, by the heurtune version
    whose studies ran with the former one (:class:`Former`, the oldest version first).
    A study resumed by a file that does not set such an option goes on with the value it
    began with where that was a default of its day (:meth:`SamplerSpec.resuming`)."""

    name: str
    options: Mapping[str, Option]
    factory: str
    duels: bool = False
    own_stream: bool = False
    requires: tuple[str, str] | None = None
    # it needs objective = "positions" (a deterministic loss; heurtune.tuning.positions)
    positions_only: bool = False
    constants_doc: str = ""
    former_defaults: Mapping[str, Mapping[str, Former]] = field(default_factory=dict)

    @property
    def file_options(self) -> tuple[str, ...]:
        """The options a study file may set (the others are constants)."""
        return tuple(name for name, opt in self.options.items() if not opt.constant)

    @property
    def constants(self) -> tuple[str, ...]:
        """The settings a study file may not set: the sampler's constants."""
        return tuple(name for name, opt in self.options.items() if opt.constant)

    @property
    def missing_defaults(self) -> dict[str, Any]:
        """Per option whose default has changed: the value a study whose record lacks it
        ran with (the oldest version's, :attr:`former_defaults`)."""
        out: dict[str, Any] = {}
        for by_option in self.former_defaults.values():
            for name, former in by_option.items():
                out.setdefault(name, former.missing)
        return out

    @property
    def past_defaults(self) -> dict[str, tuple[Any, ...]]:
        """Per option whose default has changed: the values a record that holds every
        option may hold as a default of its day (every version's)."""
        out: dict[str, tuple[Any, ...]] = {}
        for by_option in self.former_defaults.values():
            for name, former in by_option.items():
                out[name] = out.get(name, ()) + former.recorded
        return out

    def load_factory(self) -> Factory:
        module, _, attr = self.factory.partition(":")
        made: Factory = getattr(importlib.import_module(module), attr)
        return made

    def check_requirements(self, where: str) -> None:
        """One clear line when the optional package it needs is missing."""
        if self.requires is not None and importlib.util.find_spec(self.requires[0]) is None:
            raise HeurtuneError(f"{where}sampler {self.name!r} {self.requires[1]}")


# duels' former defaults, by the heurtune version whose studies ran with them: every
# default changed so far was in effect under heurtune 0.2.0 (and its development builds)
DUELS_FORMER_DEFAULTS: dict[str, dict[str, Former]] = {
    "0.2.0": {
        # 1 (off) until the first records that held every option, which hold 0 (the rule
        # of that day: 4 from 8 parameters on, off below)
        "edge_prior": Former(1.0, (0.0,)),
        "narrow": Former(0.0, (0.0,)),  # never narrowed
        "narrow_from": Former(0.0, (0.0,)),  # the flat bar, narrow_z from the first
        "guard_z": Former(0.0, (0.0,)),  # no guard
        "guard_record": Former(0.0, (0.0,)),  # no guard on the model's record
        "reach": Former(0.0, (0.0,)),  # no move toward a far maximum
    },
}

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
    # duels: the options a study file sets are the priors, the edge prior and the radius
    # (docs/duels.md, "Options": when to change each); the others are constants
    # (heurtune.tuning.samplers.duels_constants; docs/duels.md, "Constants")
    SamplerKind("duels", {
        "elo_per_range": Option(float, 2.0, 1e-3, 1e4,
                                help="prior: Elo lost half a range from the optimum (the "
                                     "data scale it up, 1 to 256 times); change it where "
                                     "you know the scale"),
        "start_elo": Option(float, 2.0, 1e-3, 1e4,
                            help="prior: how far below the optimum the baseline is, in Elo "
                                 "(the data scale it up, 1 to 256 times); 8 where the "
                                 "optimum may lie at the box's edge, in few parameters"),
        "edge_prior": Option(float, dc.AUTO, 1.0, 1e4, special=(dc.AUTO, 0.0),
                             help="prior: the gradient's prior this many times wider along "
                                  "parameters whose fitted maximum lies at the box's edge, "
                                  "curved (-1: 4, below 8 searched parameters once 8 duels "
                                  "per coefficient and a slope 1 sd sure allow; 1: off; 0: "
                                  "the rule of 2026-11-27, 4 from 8 parameters on, else 1); "
                                  "4 with edge_prior_after = 8 where a bound the best may lie "
                                  "beyond is a hard limit"),
        "edge_prior_after": Option(float, 0.0, 0.0, 1e4,
                                   help="prior: widened at the edge only once the model holds "
                                        "this many duels per coefficient (0: at once, or 8 "
                                        "below 8 parameters with edge_prior = -1)"),
        "edge_prior_slope_z": Option(float, dc.EDGE_PRIOR_SLOPE_Z, 0.0, 10.0, constant=True,
                                     help="prior: widened at the edge only along parameters "
                                          "whose plain fit's slope toward the edge lies this "
                                          "many sd above zero (0: wherever, or 1 below 8 "
                                          "parameters with edge_prior = -1)"),
        "z": Option(float, dc.Z, 0.0, 10.0, constant=True,
                    help="answer: lower bound at mean - z sd"),
        "step_sd": Option(float, dc.STEP_SD, 0.0, 10.0, constant=True,
                          help="answer: the step toward the model's maximum this many sd "
                               "sure (in 4 parameters; 0: no step)"),
        "reach": Option(float, dc.REACH, 0.0, 100.0, special=(dc.AUTO,), constant=True,
                        help="answer: the move toward a maximum this many times the prior's "
                             "distance from the baseline or farther (0: off; -1: 1.75 below 8 "
                             "parameters, off from 8 on)"),
        "edge_answer": Option(str, dc.EDGE_ANSWER, choices=("curved", "always", "off"),
                              constant=True, help="answer: the move toward a maximum at the "
                                                  "box's edge"),
        "edge_move_sd": Option(float, dc.EDGE_MOVE_SD, 0.0, 10.0, constant=True,
                               help="answer: the move toward the edge this many sd sure "
                                    "(0: wherever its lower bound stays positive)"),
        "radius": Option(float, 1.0, 0.01, 2.0,
                         help="duel points this far from the centre, in half ranges; 0.5 "
                              "where `heurtune screen` names a weight lopsided"),
        "narrow": Option(float, dc.NARROW, 0.0, 1.0, constant=True,
                         help="the radius times this, once, where the held-out duels measure "
                              "the answer narrow_z sd or more above the model (0: never)"),
        "narrow_z": Option(float, dc.NARROW_Z, 0.0, 100.0, constant=True,
                           help="narrow: the disagreement, in sd, at which the radius narrows"),
        "narrow_from": Option(float, dc.NARROW_FROM, 0.0, 100.0, constant=True,
                              help="narrow: the bar at the first held-out duel, rising to "
                                   "narrow_z (0: narrow_z from the first)"),
        "narrow_below": Option(float, dc.NARROW_BELOW, 0.0, 100.0, constant=True,
                               help="narrow: also on the guard's test at this many sd (0: "
                                    "never)"),
        "guard_z": Option(float, dc.GUARD_Z, 0.0, 100.0, constant=True,
                          help="answer: the baseline instead where the held-out duels "
                               "measure the answer at or below it and this many sd below "
                               "the model (0: never)"),
        "guard_record": Option(float, dc.GUARD_RECORD, 0.0, 1.0, constant=True,
                               help="answer: the guard's test on this share of the latest "
                                    "held-out duels where none measured the answer (0: "
                                    "never)"),
        "curvature_share": Option(float, dc.CURVATURE_SHARE, 0.0, 1.0, constant=True,
                                  help="share of coordinates duelled centre vs edge"),
        "holdout_every": Option(int, dc.HOLDOUT_EVERY, 0, 1_000_000, constant=True,
                                help="every Nth trial plays the answer against the baseline, "
                                     "left out of the model (0: none)")},
        "heurtune.tuning.samplers.duels:make", duels=True,
        constants_doc='docs/duels.md, "Constants"',
        former_defaults=DUELS_FORMER_DEFAULTS),
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
    def parse(cls, kind: str, options: Mapping[str, Any], where: str,
              internal: bool = False) -> SamplerSpec:
        """The sampler ``kind`` with ``options`` validated and the others at their
        defaults. ``options`` are a study file's: a constant of the sampler
        (:attr:`Option.constant`) is refused in one line, unless ``internal`` (a study's
        record, :meth:`from_record`; research code that varies a constant)."""
        if kind not in SAMPLERS:
            raise HeurtuneError(f"{where}: unknown sampler {kind!r} (known: {', '.join(SAMPLERS)})")
        sampler = SAMPLERS[kind]
        table = sampler.options
        unknown = sorted(set(options) - set(table))
        if unknown:
            raise HeurtuneError(f"{where}: sampler {kind!r} has no option(s) {unknown} "
                                f"(options: {', '.join(sorted(sampler.file_options)) or 'none'})")
        fixed = [] if internal else [name for name in sampler.constants if name in options]
        if fixed:
            one = len(fixed) == 1
            names = ", ".join(fixed[:-1]) + ("" if one else " and ") + fixed[-1]
            defaults = ", ".join(repr(table[name].default) for name in fixed)
            what = "is a fixed constant" if one else "are fixed constants"
            doc = f" ({sampler.constants_doc}, says why)" if sampler.constants_doc else ""
            raise HeurtuneError(f"{where}: {names} {what} of sampler {kind!r} now ({defaults}), "
                                f"not {'an option' if one else 'options'}: remove "
                                f"{'it' if one else 'them'} from the study file{doc}")
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
        """The sampler a study recorded: its options, the sampler's constants among
        them, and for an option missing from the record its former default where it
        has one (:attr:`SamplerKind.missing_defaults`: a study recorded before records
        held every option, or before the option existed, ran with it), else its
        default."""
        former = SAMPLERS[kind].missing_defaults if kind in SAMPLERS else {}
        return cls.parse(kind, {**former, **options}, where, internal=True)

    def resuming(self, options: Mapping[str, Any]) -> SamplerSpec:
        """This study file's sampler for a study of the same kind that recorded
        ``options``: an option whose default has changed and that this file does not
        set goes on with the value the study began with where that was a default in
        its day: the former default where the record lacks the option (recorded
        before records held every option, or before the option existed), the record's
        value where it is one of the option's past defaults; else this spec as it is
        (a value the study set and this file no longer does, or a constant's value set
        by a study file of heurtune 0.2.0, is a change, which the study records)."""
        kind = SAMPLERS[self.kind]
        past = kind.past_defaults
        kept: dict[str, Any] = {}
        for name, former in kind.missing_defaults.items():
            if name in self.given_names:
                continue
            if name not in options:
                value = former
            elif options[name] in past.get(name, ()):
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
