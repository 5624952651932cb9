"""The samplers a study file can choose, their options, and heurtune's own two.

Optuna's: ``tpe``, ``multivariate-tpe``, ``random``, ``qmc``, ``cmaes`` (with the
``cmaes`` package), ``gp`` (needs PyTorch: ``pip install 'heurtune[gp]'``).
Every trial of theirs plays the study's match: its weights against the opponent.

heurtune's duel samplers play a trial's weights against *other weights* instead
(the sampler picks both; the trial's parameters are the first, the system
attribute :data:`DUEL_ATTR` holds the second), because a head-to-head game pair
measures a difference of strength with a quarter of the games that two matches
against a fixed opponent need:

``spsa``
    fishtest's SPSA: theta+ = theta + c * delta against theta- = theta - c * delta
    (Rademacher delta), theta moved by ``R c (wins - losses) delta`` after each
    trial. "Autoselect" (the default schedule): constant c = ``c_ratio`` times
    the range and constant ``r = precision / (C chi2 (1 - draw_ratio) / 8)``
    (C = 800 / ln 10, chi2 the ``confidence`` quantile with one degree of freedom
    per parameter), fishtest's formula; ``schedule = "classic"`` decays them
    (a, c, A, alpha, gamma). Its answer is the iterate theta.
``duels``
    heurtune's method: duels between points a trust radius apart around the
    current estimate of the optimum, a Bayesian quadratic model of the landscape
    fitted to all of them (heurtune.tuning.quadratic), and as its answer the
    point whose lower confidence bound on the gain over the baseline is highest
    (the baseline itself until one is positive).

Both rebuild their state from the study's finished trials, so any number of
workers on any machine share one run, and both draw each trial's randomness
from the study seed mixed with the trial number.
"""

from __future__ import annotations

import importlib.util
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial, TrialState
from scipy.stats import chi2

from heurtune.engine.params import ParamSpace, Value
from heurtune.errors import HeurtuneError
from heurtune.match.play import mix_seed
from heurtune.tuning import experimental_ok
from heurtune.tuning.distributions import to_optuna
from heurtune.tuning.quadratic import Observation, QuadraticModel, UnitBox

SAMPLERS = ("tpe", "multivariate-tpe", "random", "qmc", "cmaes", "gp", "spsa", "duels")
DUEL_SAMPLERS = ("spsa", "duels")
DUEL_ATTR = "heurtune:duel"  # system attribute of a duel trial: its other side
SAMPLER_ATTR = "sampler"  # study attribute: kind, options given, answer setting, planned pairs
FISHTEST_C = 800.0 / math.log(10.0)  # fishtest's constant C (347.4...)
SEED_MASK = 0xFFFFFFFF
REFIT_GROWTH = 1.02  # the duels model is refitted once its duels grew by 2%


@dataclass(frozen=True)
class Option:
    """One sampler option: its type, bounds (numbers) or choices (strings), default."""

    kind: type
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""

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
            raise HeurtuneError(f"{where}: {name} must be {'an integer' if self.kind is int else 'a number'}"
                                f", got {value!r}")
        value = self.kind(value)
        if not math.isfinite(value) or (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high):
            raise HeurtuneError(f"{where}: {name} must be in [{self.low}, {self.high}], got {value}")
        return value


_STARTUP = Option(int, 10, 0, 10_000, help="trials sampled at random before the model")
OPTIONS: dict[str, dict[str, Option]] = {
    "tpe": {"n_startup_trials": _STARTUP,
            "n_ei_candidates": Option(int, 24, 1, 10_000, help="candidates scored per trial")},
    "multivariate-tpe": {"n_startup_trials": _STARTUP,
                         "n_ei_candidates": Option(int, 24, 1, 10_000)},
    "random": {},
    "qmc": {"qmc_type": Option(str, "sobol", choices=("sobol", "halton")),
            "scramble": Option(bool, False)},
    "cmaes": {"sigma0": Option(float, 0.0, 0.0, 1e9, help="initial step (0: a sixth of the range)"),
              "n_startup_trials": Option(int, 1, 0, 10_000),
              "popsize": Option(int, 0, 0, 10_000, help="population (0: CMA-ES's default)"),
              "from_baseline": Option(bool, True, help="start at the baseline's weights")},
    "gp": {"n_startup_trials": _STARTUP},
    "spsa": {
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
        "A": Option(float, -1.0, -1.0, 1e12, help="classic: stability (-1: 10% of the pairs)"),
    },
    "duels": {
        "elo_per_range": Option(float, 2.0, 1e-3, 1e4,
                                help="prior: Elo lost half a range from the optimum"),
        "start_elo": Option(float, 2.0, 1e-3, 1e4, help="prior: how far below the optimum "
                                                          "the baseline is, in Elo"),
        "z": Option(float, 1.0, 0.0, 10.0, help="answer: lower bound at mean - z sd"),
        "radius": Option(float, 1.0, 0.01, 2.0, help="duel points this far from the centre, "
                                                       "in half ranges"),
        "curvature_share": Option(float, 0.2, 0.0, 1.0,
                                  help="share of coordinates duelled centre vs edge (curvature)"),
    },
}


@dataclass(frozen=True)
class SamplerSpec:
    """A study's sampler and its options (validated, defaults filled in)."""

    kind: str = "tpe"
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, kind: str, options: Mapping[str, Any], where: str) -> SamplerSpec:
        if kind not in SAMPLERS:
            raise HeurtuneError(f"{where}: unknown sampler {kind!r} (known: {', '.join(SAMPLERS)})")
        table = OPTIONS[kind]
        unknown = sorted(set(options) - set(table))
        if unknown:
            raise HeurtuneError(f"{where}: sampler {kind!r} has no option(s) {unknown} "
                                f"(options: {', '.join(sorted(table)) or 'none'})")
        values = {name: opt.default for name, opt in table.items()}
        for name, value in options.items():
            values[name] = table[name].validate(name, value, where)
        return cls(kind, values)

    @property
    def duels(self) -> bool:
        """Whether its trials are duels (weights against weights)."""
        return self.kind in DUEL_SAMPLERS

    def given(self) -> dict[str, Any]:
        """The options that differ from their defaults (what a study records)."""
        table = OPTIONS[self.kind]
        return {k: v for k, v in self.options.items() if v != table[k].default}


def _require_torch(where: str) -> None:
    """Sampler ``gp`` needs PyTorch, an optional extra: one clear line without it."""
    if importlib.util.find_spec("torch") is None:
        raise HeurtuneError(f"{where}sampler 'gp' (Optuna's GPSampler) needs PyTorch: "
                            "pip install 'heurtune[gp]'")


def check_space(spec: SamplerSpec, space: ParamSpace, where: str) -> None:
    """Refuse a space the sampler cannot search (categorical parameters for the duel
    samplers), or a sampler whose optional extra is missing."""
    if spec.duels:
        UnitBox(space, f"{where}: sampler {spec.kind!r}")
    if spec.kind == "gp":
        _require_torch(f"{where}: ")


class TrialSeededSampler(BaseSampler):
    """A sampler whose every trial draws from its own stream: a fresh inner
    sampler seeded with the study seed mixed with the trial number. The
    samplers wrapped keep no state besides their random stream (CMA-ES keeps
    its own in the study's trials); what they learn, they read from the study."""

    def __init__(self, make: Callable[[int], BaseSampler], seed: int) -> None:
        self._make = make
        self._seed = seed
        self._inner = make(seed)

    @staticmethod
    def trial_seed(seed: int, number: int) -> int:
        return mix_seed(seed, number) & SEED_MASK

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        self._inner = self._make(self.trial_seed(self._seed, trial.number))
        self._inner.before_trial(study, trial)

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        return self._inner.infer_relative_search_space(study, trial)

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        return self._inner.sample_relative(study, trial, search_space)

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self._inner.sample_independent(study, trial, param_name, param_distribution)

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        self._inner.after_trial(study, trial, state, values)


def make_sampler(spec: SamplerSpec, seed: int, seeding: str = "per-study",
                 space: ParamSpace | None = None, baseline: Mapping[str, Value] | None = None,
                 planned_pairs: int = 0) -> BaseSampler:
    """The study's sampler. ``seeding = "per-trial"`` gives every trial its own
    stream (QMC keeps one: its points are numbered by the study itself; the duel
    samplers always seed each trial themselves). ``space`` and ``baseline`` are
    the searched space and where the search starts (needed by cmaes, spsa and
    duels); ``planned_pairs`` is what the study plans to play (SPSA's classic
    schedule decays over it)."""
    if spec.duels:
        if space is None or baseline is None:
            raise ValueError(f"sampler {spec.kind!r} needs the space and the baseline")
        cls = SpsaSampler if spec.kind == "spsa" else DuelsSampler
        return cls(space, baseline, dict(spec.options), seed, planned_pairs)
    if seeding == "per-trial" and spec.kind != "qmc":
        return TrialSeededSampler(
            lambda s: make_sampler(spec, s, "per-study", space, baseline), seed)
    o = spec.options
    with experimental_ok():
        if spec.kind in ("tpe", "multivariate-tpe"):
            return optuna.samplers.TPESampler(
                seed=seed, multivariate=spec.kind == "multivariate-tpe",
                n_startup_trials=o.get("n_startup_trials", 10),
                n_ei_candidates=o.get("n_ei_candidates", 24))
        if spec.kind == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if spec.kind == "qmc":
            return optuna.samplers.QMCSampler(seed=seed, qmc_type=o.get("qmc_type", "sobol"),
                                              scramble=o.get("scramble", False))
        if spec.kind == "cmaes":
            x0 = None
            if o.get("from_baseline", True) and baseline is not None and space is not None:
                x0 = {p.name: baseline[p.name] for p in space.searched}
            with warnings.catch_warnings():  # x0 is deprecated (Optuna 4.9) but kept in 5
                warnings.simplefilter("ignore", FutureWarning)
                return optuna.samplers.CmaEsSampler(
                    seed=seed, x0=x0, sigma0=o.get("sigma0") or None,
                    n_startup_trials=o.get("n_startup_trials", 1),
                    popsize=o.get("popsize") or None, consider_pruned_trials=False,
                    warn_independent_sampling=False)
        if spec.kind == "gp":
            _require_torch("")
            return optuna.samplers.GPSampler(seed=seed,
                                             n_startup_trials=o.get("n_startup_trials", 10))
    raise HeurtuneError(f"unknown sampler {spec.kind!r}")


# -- duel trials --------------------------------------------------------------
def match_trials(trials: Sequence[FrozenTrial]) -> list[FrozenTrial]:
    """The trials that played the study's match (not duels between weights)."""
    return [t for t in trials if DUEL_ATTR not in t.system_attrs]


def trial_score(trial: FrozenTrial) -> float:
    """A completed trial's score (its first objective in a multi-objective study)."""
    return float(trial.values[0])


def best_match_trial(study: optuna.Study) -> FrozenTrial | None:
    """The completed trial with the best score against the opponent (duel trials
    score against other weights, which is not comparable)."""
    complete = match_trials(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    if not complete:
        return None
    return max(complete, key=lambda t: (trial_score(t), -t.number))


def is_baseline(trial: FrozenTrial) -> bool:
    """The enqueued first trial: the defaults, or the start_from engine's weights."""
    return bool(trial.user_attrs.get("baseline")) or bool(trial.user_attrs.get("start_from"))


def duel_seed(study_seed: int, number: int) -> int:
    """The match seed of duel trial ``number``: its openings and tie-breaks, its own
    (confirmation regenerates the openings to leave them out)."""
    return mix_seed(study_seed, number, 0xD0E1) & SEED_MASK


def duel_of(trial: FrozenTrial) -> dict[str, Any] | None:
    """A duel trial's other side and bookkeeping (None: the trial played the match)."""
    duel = trial.system_attrs.get(DUEL_ATTR)
    return duel if isinstance(duel, dict) else None


def _result(trial: FrozenTrial) -> tuple[float, int, int, Sequence[float]]:
    """(score, games, wins - losses, pair scores) of a finished duel, for its plus side."""
    a = trial.user_attrs
    return (float(a.get("score", 0.5)), int(a.get("games", 0)),
            int(a.get("wins", 0)) - int(a.get("losses", 0)), a.get("pair_scores", ()))


class _DuelSampler(BaseSampler):
    """Shared machinery: the searched space in unit coordinates, the baseline,
    the plus side returned as relative parameters, the minus side stored on the
    trial, and per-trial random streams."""

    name = ""

    def __init__(self, space: ParamSpace, baseline: Mapping[str, Value], options: dict[str, Any],
                 seed: int, planned_pairs: int) -> None:
        self.space = space
        self.box = UnitBox(space, f"sampler {self.name!r}")
        self.distributions = to_optuna(space)
        self.baseline = {p.name: baseline[p.name] for p in self.box.params}
        self.u0 = self.box.to_unit(self.baseline)
        self.options = options
        self.seed = seed
        self.planned_pairs = planned_pairs
        self._plus: dict[int, dict[str, Value]] = {}

    def rng(self, number: int) -> np.random.Generator:
        return np.random.default_rng(mix_seed(self.seed, number, 0x5D))

    def infer_relative_search_space(self, study: optuna.Study,
                                    trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return dict(self.distributions)

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        if "fixed_params" in trial.system_attrs:  # the baseline, a retry: not a duel
            return
        finished = study.get_trials(deepcopy=False)
        plus, minus, extra = self.propose(finished, trial.number)
        plus_values, minus_values = self.box.from_unit(plus), self.box.from_unit(minus)
        self._plus[trial.number] = plus_values
        study._storage.set_trial_system_attr(
            trial._trial_id, DUEL_ATTR,
            {"sampler": self.name, "minus": minus_values, **extra})

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        plus = self._plus.pop(trial.number, None)
        return {} if plus is None else {k: plus[k] for k in search_space if k in plus}

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        raise HeurtuneError(f"sampler {self.name!r}: parameter {param_name!r} is not in the "
                            "space it was made for")

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """The plus and minus points (unit coordinates) of trial ``number``."""
        raise NotImplementedError

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        """The sampler's recommendation from these trials."""
        raise NotImplementedError


@dataclass
class SpsaState:
    """SPSA's iterate (unit coordinates) after the duels applied so far, and
    how many pairs they played (its iteration count)."""

    theta: np.ndarray
    pairs: int = 0
    applied: int = 0  # duel trials applied


class SpsaSampler(_DuelSampler):
    """fishtest's SPSA (see the module docstring) as an Optuna sampler."""

    name = "spsa"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        o, d = self.options, self.box.dim
        # in unit coordinates every range is 2 wide
        self.c = 2.0 * o["c_ratio"]
        self.r = o["precision"] / (FISHTEST_C * chi2.ppf(o["confidence"], max(d, 1))
                                   * (1.0 - o["draw_ratio"]) / 8.0)
        curvature = 2.0 * o["elo_per_range"]  # -H_ii: elo at a half range (1 unit) away
        lam = FISHTEST_C / (2.0 * self.r * self.c ** 2 * curvature)
        self.planned_games = int(round(o["lambda_ratio"] * lam))
        self._prefix: tuple[int, SpsaState] = (0, SpsaState(self.u0.copy()))

    def schedule(self, pairs_done: int) -> tuple[float, float]:
        """(c_k, R_k c_k^2): perturbation and step after ``pairs_done`` pairs."""
        o = self.options
        if o["schedule"] == "autoselect":
            return self.c, self.r * self.c ** 2
        n = max(self.planned_pairs, 1)
        big_a = o["A"] if o["A"] >= 0 else 0.1 * n
        c_k = self.c * (n / (pairs_done + 1.0)) ** o["gamma"]
        a_k = self.r * self.c ** 2 * ((big_a + n) / (big_a + pairs_done + 1.0)) ** o["alpha"]
        return c_k, a_k

    def state(self, trials: Sequence[FrozenTrial]) -> SpsaState:
        """The iterate after every completed duel, applied in trial-number order.
        The finished prefix is cached; duels completed after a still-running one
        are applied on a copy."""
        done, cached = self._prefix
        ordered = sorted((t for t in trials if t.number >= done), key=lambda t: t.number)
        state = SpsaState(cached.theta.copy(), cached.pairs, cached.applied)
        prefix_open = True
        for t in ordered:
            if t.state in (TrialState.RUNNING, TrialState.WAITING):
                if prefix_open:
                    self._prefix = (t.number, SpsaState(state.theta.copy(), state.pairs,
                                                        state.applied))
                    prefix_open = False
                continue
            duel = duel_of(t)
            if t.state == TrialState.COMPLETE and duel is not None and "flips" in duel:
                _score, games, result, _pairs = _result(t)
                flips = np.asarray(duel["flips"], dtype=float)
                state.theta = np.clip(state.theta + duel["step"] / duel["c"] * result * flips,
                                      -1.0, 1.0)
                state.pairs += games // 2
                state.applied += 1
        if prefix_open:
            last = ordered[-1].number + 1 if ordered else done
            self._prefix = (last, SpsaState(state.theta.copy(), state.pairs, state.applied))
        return state

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        state = self.state(trials)
        c_k, step = self.schedule(state.pairs)
        flips = self.rng(number).choice((-1.0, 1.0), size=self.box.dim)
        plus = np.clip(state.theta + c_k * flips, -1.0, 1.0)
        minus = np.clip(state.theta - c_k * flips, -1.0, 1.0)
        return plus, minus, {"flips": flips.tolist(), "c": c_k, "step": step,
                             "iteration": state.pairs, "theta": self.box.from_unit(state.theta)}

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        state = self.state(trials)
        return {"params": self.box.from_unit(state.theta), "duels": state.applied,
                "pairs": state.pairs}


class DuelsSampler(_DuelSampler):
    """heurtune's duels sampler (see the module docstring)."""

    name = "duels"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        o = self.options
        self.model = QuadraticModel(self.box.dim, elo_per_range=o["elo_per_range"],
                                    start_elo=o["start_elo"])
        self.low, self.high = -1.0 - self.u0, 1.0 - self.u0  # the box around the baseline
        self._seen: set[int] = set()
        self._centre = np.zeros(self.box.dim)
        self._fitted_at = 0

    def update(self, trials: Sequence[FrozenTrial], every: bool = False) -> None:
        """Add the duels completed since the last call and refit (``every``: even
        after one new duel)."""
        new = False
        for t in trials:
            if t.number in self._seen or t.state != TrialState.COMPLETE:
                continue
            self._seen.add(t.number)
            duel = duel_of(t)
            if duel is None or "plus_u" not in duel:
                continue
            score, games, _result_, pairs = _result(t)
            self.model.add(Observation(np.asarray(duel["plus_u"]), np.asarray(duel["minus_u"]),
                                       score, games, pairs))
            new = True
        # refit after every duel while they are few, then after every 2% more
        due = every or self.model.observations >= self._fitted_at * REFIT_GROWTH
        if self.model.mean is None or (new and due):
            self.model.fit()
            self._fitted_at = self.model.observations
            self._centre = self.model.argmax_mean(self.low, self.high, self._centre)

    def propose(self, trials: Sequence[FrozenTrial],
                number: int) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        self.update(trials)
        rng = self.rng(number)
        radius, share = self.options["radius"], self.options["curvature_share"]
        d = self.box.dim
        sign = rng.choice((-1.0, 1.0), size=d)
        edge_only = rng.random(d) < share  # one side at the centre: curvature
        plus_side = rng.random(d) < 0.5
        s = np.where(edge_only, np.where(plus_side, sign, 0.0), sign)
        t = np.where(edge_only, np.where(plus_side, 0.0, sign), -sign)
        a = np.clip(self._centre + radius * s, self.low, self.high)
        b = np.clip(self._centre + radius * t, self.low, self.high)
        # the model sees the points as played (integers rounded, steps snapped)
        plus = self.box.to_unit(self.box.from_unit(self.u0 + a))
        minus = self.box.to_unit(self.box.from_unit(self.u0 + b))
        return plus, minus, {"plus_u": (plus - self.u0).tolist(),
                             "minus_u": (minus - self.u0).tolist()}

    def answer(self, trials: Sequence[FrozenTrial]) -> dict[str, Any]:
        self.update(trials, every=True)
        point, mean, sd = self.model.recommend(self.low, self.high, self.options["z"],
                                               self._centre)
        params = self.baseline if not point.any() else self.box.from_unit(self.u0 + point)
        return {"params": params, "gain": mean, "gain_sd": sd,
                "duels": self.model.observations, "prior_scale": self.model.scale}
