"""Study files: what to tune, against whom, with how much evidence per trial.

Example (``studies/morris.toml``)::

    [study]
    name = "morris"           # default study name in the storage
    game = "morris"
    opponent = "morris:seed"  # preset or engine configuration file
    # opponents = [{ engine = "morris:seed", weight = 2.0 }, "morris:ab"]  # a pool instead
    # budget = "time"         # equal time per move for every engine (time_ms), not the
    # time_ms = 50            # engines' own limits (nodes, depth); not reproducible
    # objectives = ["score", "cost"]  # also minimise the tuned engine's ms per move
    trials = 12               # total finished trials the study should reach
    pairs = 8                 # opening pairs (2 games each) per trial ("all": one
    #                         # opening of every symmetry class, where they are few)
    seed = 42                 # openings, sampler and tie-breaks
    # search = "fine"         # the defaults of sampler, pairs and answer: fine (duels,
    #                         # 16, its own answer) | broad (spsa, 32, its iterate)
    sampler = "tpe"           # tpe | multivariate-tpe | random | qmc | cmaes | gp | spsa | duels
    # answer = "auto"         # what export writes unconfirmed: auto | best | top-mean | model | sampler
    # sampler_seeding = "per-trial"  # each trial its own stream (per-study: the old way)
    # distinct_openings = "symmetry" # no two openings mirror images (position: the old way)
    jobs = 2                  # worker processes per match
    # opening_plies = 4       # default: the game's
    # start_from = "exported/earlier.toml"  # first trial: that engine's weights
    #                         # (default: the heuristic's defaults, the baseline)

    [engine]                  # the engine being tuned
    heuristic = "seed"
    [engine.search]
    algorithm = "alphabeta"
    depth = 3
    # [engine.rules]          # rule options, shared with the opponent

    [params]                  # optional: narrow bounds or pin values
    stash = { low = 0.0, high = 5.0 }
    stones = 1.0              # fixed: not searched

    [pruner]                  # checkpoint (default) | wilcoxon | median | none
    kind = "checkpoint"
    alpha = 0.05              # false-prune rate against a fixed best, over all looks
    margin = 0.0              # prune when (trial - best) < -margin for sure
    checkpoints = [0.25, 0.5, 0.75]   # fractions of the pairs where it looks

    # [sampler]               # instead of [study] sampler: the sampler with options
    # kind = "spsa"
    # precision = 0.5         # see heurtune.tuning.samplers.OPTIONS
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from heurtune.engine.config import EngineConfig, SearchSettings, resolve_engine
from heurtune.engine.search import MAX_PLY
from heurtune.engine.params import ParamSpace
from heurtune.errors import HeurtuneError
from heurtune.match.runner import MatchSpec
from heurtune.games import get_game
from heurtune.tomlio import read_toml
from heurtune.tuning.samplers import SamplerSpec, check_space

# what ``export`` writes for an unconfirmed study (confirm plays all of them):
# the best trial, the mean of the best trials' weights, the quadratic model's
# answer, the sampler's own answer (SPSA's iterate, the duels model's), or
# ``auto``: the sampler's own answer for spsa and duels, else the best trial
ANSWERS = ("auto", "best", "top-mean", "model", "sampler")
BUDGETS = ("nodes", "time")  # the engines' own limits, or the same time per move for all
# ``[study] search``: the defaults of sampler, pairs per trial and answer, chosen by the
# simulated-oracle benchmark (docs/results/optimisers.md): fine-tuning near the
# optimum (the default), or a broad first search far from it
SEARCH_DEFAULTS: dict[str, dict[str, Any]] = {
    "fine": {"sampler": "duels", "pairs": 16, "answer": "auto"},
    "broad": {"sampler": "spsa", "pairs": 32, "answer": "auto"},
}
# per-trial: each trial samples from its own stream (the study seed mixed with the
# trial number), so parallel and resumed workers never repeat each other's draws;
# per-study: one stream per worker process seeded with the study seed (how the
# studies recorded before this option ran; parallel workers then repeat draws)
SAMPLER_SEEDINGS = ("per-trial", "per-study")
DISTINCT_OPENINGS = ("symmetry", "position")
SEED_MAX = 2**32 - 1
NAME_MAX = 512  # Optuna's study name column
PRUNERS = ("checkpoint", "wilcoxon", "median", "none")

_SECTIONS = {"study", "engine", "params", "pruner", "confirm", "sampler"}
_CONFIRM_KEYS = {"top", "pairs", "sprt", "max_pairs", "seed", "opening_plies"}
_STUDY_KEYS = {
    "name", "game", "opponent", "opponents", "trials", "pairs", "seed", "sampler", "jobs",
    "opening_plies", "budget", "time_ms", "objectives", "search",
    "start_from", "sampler_seeding", "distinct_openings", "answer",
}
_ENGINE_KEYS = {"heuristic", "search", "rules"}
_PRUNER_KEYS = {"kind", "p_threshold", "n_startup_steps", "n_warmup_steps", "alpha", "margin",
                "checkpoints"}


@dataclass(frozen=True)
class PrunerSpec:
    """How trials are stopped early. ``checkpoint`` (the default; see
    heurtune.tuning.checkpoints): a paired comparison with the best trial at a
    few fixed fractions of the pairs, at an overall false-prune rate ``alpha``
    against a fixed best, pruning when the difference's upper bound is below
    ``-margin``. ``wilcoxon`` and ``median`` are Optuna's pruners (kept for
    studies recorded with them), ``none`` never prunes."""

    kind: str = "checkpoint"
    p_threshold: float = 0.1
    n_startup_steps: int = 4
    n_warmup_steps: int = 4
    alpha: float = 0.05
    margin: float = 0.0
    checkpoints: tuple[float, ...] = (0.25, 0.5, 0.75)


DEFAULT_TOP = 3
DEFAULT_PAIRS = 200
DEFAULT_MAX_PAIRS = 2000


@dataclass(frozen=True)
class ConfirmOptions:
    """How to confirm: how many of the best trials, how many fresh pairs each,
    an optional SPRT for the winner, the seed of the fresh openings (default:
    the study's seed + 1) and their length (default: the study's; longer
    openings where the study used up most of a small opening space)."""

    top: int = DEFAULT_TOP
    pairs: int = DEFAULT_PAIRS
    sprt: tuple[float, float] | None = None
    max_pairs: int = DEFAULT_MAX_PAIRS
    seed: int | None = None
    jobs: int = 1
    opening_plies: int | None = None  # default: the study's

    def __post_init__(self) -> None:
        if self.top < 1:
            raise HeurtuneError(f"confirm: top must be at least 1, got {self.top}")
        if self.pairs < 1:
            raise HeurtuneError(f"confirm: pairs must be at least 1, got {self.pairs}")
        if self.max_pairs < 1:
            raise HeurtuneError(f"confirm: max_pairs must be at least 1, got {self.max_pairs}")
        if self.jobs < 1:
            raise HeurtuneError(f"jobs must be at least 1, got {self.jobs}")
        if self.seed is not None and not 0 <= self.seed <= SEED_MAX:
            raise HeurtuneError(f"seed must be in [0, {SEED_MAX}], got {self.seed}")
        if self.sprt is not None:
            from heurtune.match.stats import Sprt

            Sprt(*self.sprt)  # checks elo0 < elo1


@dataclass(frozen=True)
class PoolMember:
    """One opponent of a study: its engine, how the study file named it, its weight."""

    engine: EngineConfig
    spec: str
    weight: float = 1.0


@dataclass(frozen=True)
class StudyFile:
    """A validated study file."""

    path: str
    name: str
    base: EngineConfig
    space: ParamSpace
    opponent: EngineConfig
    opponent_spec: str
    trials: int
    pairs: int
    seed: int
    sampler: SamplerSpec
    jobs: int
    opening_plies: int
    pruner: PrunerSpec = field(default_factory=PrunerSpec)
    start_from: str = ""
    start_params: Mapping[str, Any] = field(default_factory=dict)
    sampler_seeding: str = "per-trial"
    distinct_openings: str = "symmetry"
    confirm: ConfirmOptions | None = None  # the [confirm] section: confirm at the end of tune
    every_class: bool = False  # pairs = "all": one opening of every symmetry class
    answer: str = "auto"  # what export writes unconfirmed (see ANSWERS)
    # the opponents, each with its weight (one: ``opponent``; several: a pool whose
    # weighted mean score is the objective); ``opponent`` is the first
    pool: tuple[PoolMember, ...] = ()
    # ("score",), or ("score", "cost"): a multi-objective study (cost: the tuned
    # engine's milliseconds per move, minimised), whose answer is its Pareto front
    objectives: tuple[str, ...] = ("score",)
    budget: str = "nodes"  # "time": every engine searches ``time_ms`` per move

    @property
    def multi_objective(self) -> bool:
        return len(self.objectives) > 1

    def __post_init__(self) -> None:
        if not self.pool:
            object.__setattr__(self, "pool", (PoolMember(self.opponent, self.opponent_spec),))

    def match_spec(self, engine: EngineConfig | None = None) -> MatchSpec:
        """The match each trial plays (``engine``: the trial's; default the baseline).
        Its openings are the study's: the same for every trial, and what
        ``match --exclude-study`` leaves out."""
        return self.match_specs(engine)[0]

    def match_specs(self, engine: EngineConfig | None = None) -> list[MatchSpec]:
        """The trial's match against every opponent of the pool, on the same openings."""
        return [MatchSpec(engine or self.base, m.engine, self.pairs, self.seed,
                          self.opening_plies, by_symmetry=self.distinct_openings == "symmetry",
                          every_class=self.every_class) for m in self.pool]

    @property
    def weights(self) -> list[float]:
        return [m.weight for m in self.pool]

    @property
    def opponents_text(self) -> str:
        """The opponent, or the pool with its weights."""
        if len(self.pool) == 1:
            return self.opponent.label
        return "pool (" + ", ".join(f"{m.engine.label} x{m.weight:g}" for m in self.pool) + ")"

    @property
    def objective_name(self) -> str:
        versus = ("weighted score vs " if len(self.pool) > 1 else "score vs ") + self.opponents_text
        if self.sampler.duels:  # trial 0 plays the opponent, the others duel
            return f"{versus} (trial 0; duels: + vs - weights)"
        return versus

    def setup(self) -> dict[str, Any]:
        """What a resumed study must agree on (stored in the study's user attributes)."""
        return {
            "engine": self.base.to_dict(),
            "opponent": self.opponent.to_dict(),
            "opponent_spec": self.opponent_spec,
            **({"pool": [{"opponent": m.engine.to_dict(), "spec": m.spec, "weight": m.weight}
                         for m in self.pool]} if len(self.pool) > 1 else {}),
            **({"objectives": list(self.objectives)} if self.multi_objective else {}),
            **({"budget": self.budget} if self.budget != "nodes" else {}),
            "pairs": self.pairs,
            "seed": self.seed,
            "opening_plies": self.opening_plies,
            # absent from the studies recorded before the option existed
            **({"sampler_seeding": self.sampler_seeding}
               if self.sampler_seeding != "per-study" else {}),
            **({"distinct_openings": self.distinct_openings}
               if self.distinct_openings != "position" else {}),
            **({"openings": "all"} if self.every_class else {}),
            # duel trials mean something else: a study is one or the other
            **({"sampler": self.sampler.kind} if self.sampler.duels else {}),
        }

    @property
    def planned_pairs(self) -> int:
        """The pairs the study plans to play (SPSA's classic schedule decays over them)."""
        return self.trials * self.pairs

    @property
    def baseline_params(self) -> dict[str, Any]:
        """Where the search starts: the start_from engine's weights, else the defaults."""
        return {p.name: self.start_params.get(p.name, self.base.params[p.name])
                for p in self.space.searched}


def _need(table: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in table:
        raise HeurtuneError(f"{where}: missing {key!r}")
    return _typed(table[key], kind, f"{where}: {key}")


def _typed(value: Any, kind: type, what: str) -> Any:
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise HeurtuneError(f"{what} must be {kind.__name__}, got {value!r}")
    return value


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise HeurtuneError(f"{where}: [{key}] must be a table")
    return value


def _check_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise HeurtuneError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})")


def _beside(study_path: str | os.PathLike[str], ref: str) -> str:
    """A file named in a study file: as given if it exists, else next to the study file."""
    if os.path.isabs(ref) or Path(ref).is_file():
        return ref
    candidate = Path(study_path).parent / ref
    return str(candidate) if candidate.is_file() else ref


def load_study_file(path: str | os.PathLike[str]) -> StudyFile:
    """Parse and validate a study file; every error names the file."""
    where = str(path)
    data = read_toml(path)
    _check_keys(data, _SECTIONS, where)
    study = _table(data, "study", where)
    if not study:
        raise HeurtuneError(f"{where}: missing [study] table")
    _check_keys(study, _STUDY_KEYS, f"{where} [study]")
    w = f"{where} [study]"
    game = _need(study, "game", str, w)
    kernel = get_game(game)
    engine = _table(data, "engine", where)
    _check_keys(engine, _ENGINE_KEYS, f"{where} [engine]")
    heuristic = _need(engine, "heuristic", str, f"{where} [engine]")
    try:
        search = SearchSettings.from_dict(_table(engine, "search", f"{where} [engine]"))
        base = EngineConfig(
            game=game,
            heuristic=heuristic,
            search=search,
            rules=dict(_table(engine, "rules", f"{where} [engine]")),
            name="tuned",
        )
        space = base.heuristic_obj.space.narrowed(_table(data, "params", where))
    except HeurtuneError as exc:
        raise HeurtuneError(f"{where}: {exc}") from None
    base = base.with_params(space.defaults())
    pool = _pool(study, path, w, game, base)
    budget = _typed(study.get("budget", "nodes"), str, f"{w}: budget")
    if budget not in BUDGETS:
        raise HeurtuneError(f"{w}: budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
    if budget == "time":  # every engine the same time per move, no other limit
        time_ms = _typed(study.get("time_ms", 0), float, f"{w}: time_ms")
        if not 0.05 <= time_ms <= 600_000:
            raise HeurtuneError(f"{w}: budget = \"time\" needs time_ms in [0.05, 600000], "
                                f"got {time_ms:g}")
        try:
            base = _timed(base, time_ms)
            pool = [PoolMember(_timed(m.engine, time_ms), m.spec, m.weight) for m in pool]
        except HeurtuneError as exc:
            raise HeurtuneError(f"{w}: {exc}") from None
    elif "time_ms" in study:
        raise HeurtuneError(f"{w}: time_ms goes with budget = \"time\"")
    opponent, opponent_spec = pool[0].engine, pool[0].spec
    objectives = tuple(_typed(study.get("objectives", ["score"]), list, f"{w}: objectives"))
    if objectives not in (("score",), ("score", "cost")):
        raise HeurtuneError(f"{w}: objectives must be [\"score\"] or [\"score\", \"cost\"], "
                            f"got {list(objectives)!r}")
    trials = _typed(study.get("trials", 20), int, f"{w}: trials")
    every_class = study.get("pairs") == "all"
    search = _typed(study.get("search", "fine"), str, f"{w}: search")
    if search not in SEARCH_DEFAULTS:
        raise HeurtuneError(f"{w}: search must be one of {', '.join(SEARCH_DEFAULTS)}, "
                            f"got {search!r}")
    defaults = SEARCH_DEFAULTS[search]
    pairs = 1 if every_class else _typed(study.get("pairs", defaults["pairs"]), int, f"{w}: pairs")
    jobs = _typed(study.get("jobs", 1), int, f"{w}: jobs")
    plies = _typed(study.get("opening_plies", kernel.opening_plies), int, f"{w}: opening_plies")
    for key, value, low in (("trials", trials, 1), ("pairs", pairs, 1), ("jobs", jobs, 1),
                            ("opening_plies", plies, 0)):
        if value < low:
            raise HeurtuneError(f"{w}: {key} must be at least {low}, got {value}")
    if every_class:  # one opening of every symmetry class, each trial all of them
        from heurtune.match.openings import opening_classes

        if plies > 64:
            raise HeurtuneError(f"{w}: opening_plies must be at most 64, got {plies}")
        try:
            pairs = len(opening_classes(kernel, base.rules, plies))
        except HeurtuneError as exc:
            raise HeurtuneError(f"{w}: pairs = \"all\": {exc}") from None
        if pairs == 0:
            raise HeurtuneError(f"{w}: pairs = \"all\": no {plies}-ply opening to play")
    sampler = _sampler_section(data, study, where, defaults["sampler"])
    seeding = _typed(study.get("sampler_seeding", "per-trial"), str, f"{w}: sampler_seeding")
    if seeding not in SAMPLER_SEEDINGS:
        raise HeurtuneError(f"{w}: sampler_seeding must be one of {', '.join(SAMPLER_SEEDINGS)}, "
                            f"got {seeding!r}")
    distinct = _typed(study.get("distinct_openings", "symmetry"), str, f"{w}: distinct_openings")
    if distinct not in DISTINCT_OPENINGS:
        raise HeurtuneError(f"{w}: distinct_openings must be one of "
                            f"{', '.join(DISTINCT_OPENINGS)}, got {distinct!r}")
    seed = _typed(study.get("seed", 0), int, f"{w}: seed")
    if not 0 <= seed <= SEED_MAX:
        raise HeurtuneError(f"{w}: seed must be in [0, {SEED_MAX}], got {seed}")
    confirm = _confirm_section(data, where, jobs) if "confirm" in data else None
    pr = _table(data, "pruner", where)
    _check_keys(pr, _PRUNER_KEYS, f"{where} [pruner]")
    # Optuna prunes no multi-objective trial
    kind = _typed(pr.get("kind", "none" if len(objectives) > 1 else "checkpoint"), str,
                  f"{where} [pruner]: kind")
    if len(objectives) > 1 and kind != "none":
        raise HeurtuneError(f"{where} [pruner]: a multi-objective study cannot prune "
                            f"(kind = \"none\"), got {kind!r}")
    if kind not in PRUNERS:
        raise HeurtuneError(f"{where} [pruner]: unknown kind {kind!r} (known: {', '.join(PRUNERS)})")
    pruner = PrunerSpec(
        kind=kind,
        p_threshold=_typed(pr.get("p_threshold", 0.1), float, f"{where} [pruner]: p_threshold"),
        n_startup_steps=_typed(pr.get("n_startup_steps", 4), int, f"{where} [pruner]: n_startup_steps"),
        n_warmup_steps=_typed(pr.get("n_warmup_steps", 4), int, f"{where} [pruner]: n_warmup_steps"),
        alpha=_typed(pr.get("alpha", 0.05), float, f"{where} [pruner]: alpha"),
        margin=_typed(pr.get("margin", 0.0), float, f"{where} [pruner]: margin"),
        checkpoints=_checkpoints(pr.get("checkpoints", [0.25, 0.5, 0.75]), f"{where} [pruner]"),
    )
    if not 0.0 < pruner.alpha < 0.5:
        raise HeurtuneError(f"{where} [pruner]: alpha must be in (0, 0.5), got {pruner.alpha}")
    if not 0.0 <= pruner.margin <= 1.0:
        raise HeurtuneError(f"{where} [pruner]: margin must be in [0, 1], got {pruner.margin}")
    if not 0.0 <= pruner.p_threshold <= 1.0:
        raise HeurtuneError(f"{where} [pruner]: p_threshold must be in [0, 1]")
    if pruner.n_startup_steps < 0 or pruner.n_warmup_steps < 0:
        raise HeurtuneError(f"{where} [pruner]: step counts must be non-negative")
    start_from = _typed(study.get("start_from", ""), str, f"{w}: start_from")
    start_params: dict[str, Any] = {}
    if start_from:
        start_from = _beside(path, start_from)
        start = EngineConfig.load(start_from)
        if (start.game, start.heuristic) != (game, heuristic):
            raise HeurtuneError(
                f"{w}: start_from {start_from} is a {start.game}:{start.heuristic} engine, "
                f"not {game}:{heuristic}"
            )
        try:
            start_params = space.validate(
                {p.name: start.params[p.name] for p in space.searched}
            )
        except HeurtuneError as exc:
            raise HeurtuneError(f"{w}: start_from {start_from}: {exc}") from None
        start_params = {p.name: start_params[p.name] for p in space.searched}
    name = _typed(study.get("name", Path(path).stem), str, f"{w}: name")
    check_study_name(name, w)
    check_space(sampler, space, where)
    if sampler.duels and len(objectives) > 1:
        raise HeurtuneError(f"{w}: sampler {sampler.kind!r} duels weights against weights; a "
                            "multi-objective study needs a sampler that plays the opponent")
    answer = _typed(study.get("answer", defaults["answer"]), str, f"{w}: answer")
    if answer not in ANSWERS:
        raise HeurtuneError(f"{w}: answer must be one of {', '.join(ANSWERS)}, got {answer!r}")
    return StudyFile(
        path=where, name=name, base=base, space=space, opponent=opponent,
        opponent_spec=opponent_spec, pool=tuple(pool), objectives=objectives, budget=budget,
        trials=trials, pairs=pairs,
        seed=seed, sampler=sampler, jobs=jobs,
        opening_plies=plies, pruner=pruner, start_from=start_from, start_params=start_params,
        sampler_seeding=seeding, distinct_openings=distinct, confirm=confirm,
        every_class=every_class, answer=answer,
    )


def _timed(engine: EngineConfig, time_ms: float) -> EngineConfig:
    """The engine searching ``time_ms`` per move, as deep as that allows (alpha-beta
    only: minimax has no time limit; a random mover needs none)."""
    if engine.search.algorithm == "minimax":
        raise HeurtuneError(f"budget = \"time\" needs alpha-beta engines: {engine.label} "
                            "searches with minimax, which has no time limit")
    return replace(engine, search=replace(engine.search, time_ms=time_ms, nodes=0,
                                          depth=MAX_PLY - 2))


def _pool(study: Mapping[str, Any], path: str | os.PathLike[str], w: str, game: str,
          base: EngineConfig) -> list[PoolMember]:
    """``opponent = SPEC``, or ``opponents``: a list of specs or of
    ``{engine = SPEC, weight = W}`` tables (weights default to 1, must be positive)."""
    if "opponents" in study:
        if "opponent" in study:
            raise HeurtuneError(f"{w}: give opponent or opponents, not both")
        items = study["opponents"]
        if not isinstance(items, list) or not items:
            raise HeurtuneError(f"{w}: opponents must be a non-empty list of engines, got "
                                f"{items!r}")
    else:
        items = [study.get("opponent", f"{game}:seed")]
    pool = []
    for k, item in enumerate(items):
        where = f"{w}: opponent" if "opponents" not in study else f"{w}: opponents[{k}]"
        weight = 1.0
        if isinstance(item, Mapping):
            _check_keys(item, {"engine", "weight"}, where)
            weight = _typed(item.get("weight", 1.0), float, f"{where}: weight")
            if not (weight > 0 and math.isfinite(weight)):
                raise HeurtuneError(f"{where}: weight must be positive, got {weight}")
            item = _need(item, "engine", str, where)
        spec = _typed(item, str, where)
        if spec.endswith(".toml"):
            spec = _beside(path, spec)
        try:
            engine = resolve_engine(spec)
        except HeurtuneError as exc:
            raise HeurtuneError(f"{where}: {exc}") from None
        if engine.game != game:
            raise HeurtuneError(f"{where}: {engine.label} plays {engine.game}, not {game}")
        if dict(engine.rules) != dict(base.rules):
            raise HeurtuneError(f"{where}: {engine.label} and [engine.rules] disagree on the rules")
        pool.append(PoolMember(engine, spec, weight))
    return pool


def _sampler_section(data: Mapping[str, Any], study: Mapping[str, Any],
                     where: str, default: str) -> SamplerSpec:
    """``[study] sampler = "kind"``, or a ``[sampler]`` table: ``kind`` and its options."""
    table = dict(_table(data, "sampler", where))
    named = study.get("sampler")
    if named is not None:
        named = _typed(named, str, f"{where} [study]: sampler")
    kind = table.pop("kind", None)
    if kind is not None:
        kind = _typed(kind, str, f"{where} [sampler]: kind")
        if named is not None and named != kind:
            raise HeurtuneError(f"{where}: [study] sampler = {named!r} but [sampler] kind = "
                                f"{kind!r}: name it once")
    elif table and named is None:
        raise HeurtuneError(f"{where} [sampler]: missing 'kind'")
    return SamplerSpec.parse(kind or named or default, table, f"{where} [sampler]")


def _checkpoints(value: Any, where: str) -> tuple[float, ...]:
    """Checkpoint fractions: an increasing list of numbers strictly between 0 and 1."""
    ok = (isinstance(value, list) and 1 <= len(value) <= 10
          and all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < 1
                  for x in value)
          and all(a < b for a, b in zip(value, value[1:])))
    if not ok:
        raise HeurtuneError(f"{where}: checkpoints must be an increasing list of fractions "
                            f"in (0, 1), got {value!r}")
    return tuple(float(x) for x in value)


def _confirm_section(data: Mapping[str, Any], where: str, jobs: int) -> ConfirmOptions:
    """The ``[confirm]`` section: ``heurtune confirm``'s options, run at the end of tune."""
    table = _table(data, "confirm", where)
    w = f"{where} [confirm]"
    _check_keys(table, _CONFIRM_KEYS, w)
    sprt = table.get("sprt")
    if sprt is not None:
        if (not isinstance(sprt, list) or len(sprt) != 2
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in sprt)):
            raise HeurtuneError(f"{w}: sprt must be [elo0, elo1], got {sprt!r}")
        sprt = (float(sprt[0]), float(sprt[1]))
    seed = table.get("seed")
    plies = table.get("opening_plies")
    if plies is not None and not 0 <= _typed(plies, int, f"{w}: opening_plies") <= 64:
        raise HeurtuneError(f"{w}: opening_plies must be in [0, 64], got {plies}")
    values = dict(
        top=_typed(table.get("top", DEFAULT_TOP), int, f"{w}: top"),
        pairs=_typed(table.get("pairs", DEFAULT_PAIRS), int, f"{w}: pairs"),
        sprt=sprt,
        max_pairs=_typed(table.get("max_pairs", DEFAULT_MAX_PAIRS), int, f"{w}: max_pairs"),
        seed=None if seed is None else _typed(seed, int, f"{w}: seed"),
        jobs=jobs,
        opening_plies=None if plies is None else _typed(plies, int, f"{w}: opening_plies"),
    )
    try:
        return ConfirmOptions(**values)
    except HeurtuneError as exc:  # name the file
        raise HeurtuneError(f"{where}: {exc}") from None


def check_study_name(name: str, where: str = "study name") -> None:
    """A name every storage can hold: not empty, at most NAME_MAX characters."""
    if not name.strip():
        raise HeurtuneError(f"{where}: name must not be empty")
    if len(name) > NAME_MAX:
        raise HeurtuneError(f"{where}: name is {len(name)} characters long (at most {NAME_MAX})")
