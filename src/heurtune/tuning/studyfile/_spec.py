"""The validated contents of a study file (see :func:`load_study_file`).

Study files: what to tune, against whom, with how much evidence per trial.

Example (``studies/quick/morris-seed.toml``)::

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
    # answer = "auto"         # what export writes unconfirmed:
    #                         # auto | best | top-mean | model | sampler
    # sampler_seeding = "per-trial"  # each trial its own stream (per-study: the old way)
    # distinct_openings = "symmetry" # no two openings mirror images (position: the old way)
    jobs = 2                  # worker processes per match
    # opening_plies = 4       # default: the game's
    # start_from = "exported/earlier.toml"  # first trial: that engine's weights
    #                         # (default: the heuristic's defaults, the baseline)
    # start_from = "study:morris-positions"  # or another study's answer, same storage

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
    selection = true          # allow for the best being the luckiest of the trials
    checkpoints = [0.25, 0.5, 0.75]   # fractions of the pairs where it looks

    # [sampler]               # instead of [study] sampler: the sampler with options
    # kind = "spsa"
    # precision = 0.5         # see heurtune.tuning.samplers.registry
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heurtune.engine import EngineConfig, ParamSpace
from heurtune.errors import HeurtuneError
from heurtune.match import SEED_MAX, MatchSpec, Sprt, check_jobs
from heurtune.match.books import Book
from heurtune.match.play import Adjudication
from heurtune.tuning.samplers.registry import SamplerSpec

# what ``export`` writes for an unconfirmed study (confirm plays all of them):
# the best trial, the mean of the best trials' weights, the quadratic model's
# answer, the sampler's own answer (SPSA's iterate, the duels model's), or
# ``auto``: the sampler's own answer for spsa and duels, else the best trial
ANSWERS = ("auto", "best", "top-mean", "model", "sampler")
BUDGETS = ("nodes", "time")  # the engines' own limits, or the same time per move for all
# ``[study] search``: the defaults of sampler, pairs per trial and answer, chosen by the
# simulated-oracle benchmark and the real-game comparison (docs/results/optimisers.md):
# fine-tuning near the optimum (the default), or a broad first search far from it
# (multivariate TPE's best trial: on Morris's broad box it beat SPSA's iterate in 14 of
# 15 seed-budget pairs, its median by 14 to 39 Elo, though SPSA wins the oracle's
# separable ``broad`` case)
SEARCH_DEFAULTS: dict[str, dict[str, Any]] = {
    "fine": {"sampler": "duels", "pairs": 16, "answer": "auto"},
    "broad": {"sampler": "multivariate-tpe", "pairs": 250, "answer": "auto"},
}
# per-trial: each trial samples from its own stream (the study seed mixed with the
# trial number), so parallel and resumed workers never repeat each other's draws;
# per-study: one stream per worker process seeded with the study seed (how the
# studies recorded before this option ran; parallel workers then repeat draws)
SAMPLER_SEEDINGS = ("per-trial", "per-study")
DISTINCT_OPENINGS = ("symmetry", "position")
NAME_MAX = 512  # Optuna's study name column
PRUNERS = ("checkpoint", "wilcoxon", "median", "none")

# the keys of every table a study file may hold (docs/study-file.md documents each;
# a test checks the two agree); [params] takes the heuristic's parameter names and
# [sampler] ``kind`` plus the named sampler's options (its SamplerKind.options)
SECTION_KEYS: dict[str, frozenset[str]] = {
    "": frozenset({"study", "engine", "params", "pruner", "confirm", "sampler", "positions",
                   "adjudication"}),
    "study": frozenset({
        "name", "game", "opponent", "opponents", "trials", "pairs", "seed", "sampler", "jobs",
        "opening_plies", "budget", "time_ms", "objectives", "search",
        "start_from", "sampler_seeding", "distinct_openings", "answer", "objective",
        "positions", "openings", "pgn", "fault_share",
    }),
    "adjudication": frozenset({"draw_after", "draw_moves", "draw_score", "resign_moves",
                               "resign_score", "max_plies"}),
    "positions": frozenset({"loss", "held_out", "threads", "perspective"}),
    "engine": frozenset({"heuristic", "search", "rules", "process"}),
    "pruner": frozenset({"kind", "p_threshold", "n_startup_steps", "n_warmup_steps", "alpha",
                         "margin", "checkpoints", "selection"}),
    "confirm": frozenset({"top", "pairs", "sprt", "max_pairs", "seed", "opening_plies",
                          "method", "check_pairs"}),
}
DEFAULT_TRIALS = 20
# start_from = "study:NAME": the first trial plays that study's answer (same storage)
STUDY_PREFIX = "study:"
DEFAULT_POSITION_TRIALS = 100  # a positions trial costs milliseconds
# what a trial's value is: its score in a match against the opponent, or the loss
# of its evaluation on a position set (heurtune.tuning.positions)
OBJECTIVES = ("match", "positions")
# a positions study's losses, and what predicts a position's result (the first is
# the default; heurtune.tuning.positions)
POSITION_LOSSES = ("cross-entropy", "mse")
PERSPECTIVES = ("difference", "side-to-move")
DEFAULT_JOBS = 1
DEFAULT_FAULT_SHARE = 0.1
DEFAULT_SEED = 0


@dataclass(frozen=True)
class PrunerSpec:
    """How trials are stopped early. ``checkpoint`` (the default; see
    heurtune.tuning.pruners): a paired comparison with the best trial at a
    few fixed fractions of the pairs, at an overall false-prune rate ``alpha``
    against a fixed best, pruning when the difference's upper bound is below
    ``-margin``, less the best's expected luck as the best of the completed
    trials unless ``selection`` is off. ``wilcoxon`` and ``median`` are
    Optuna's pruners (kept for studies recorded with them), ``none`` never
    prunes."""

    kind: str = "checkpoint"
    p_threshold: float = 0.1
    n_startup_steps: int = 4
    n_warmup_steps: int = 4
    alpha: float = 0.05
    margin: float = 0.0
    checkpoints: tuple[float, ...] = (0.25, 0.5, 0.75)
    selection: bool = True


DEFAULT_TOP = 3  # confirm: the best trials re-played
DEFAULT_PAIRS = 200  # confirm: fresh opening pairs per candidate
# confirm's methods: the winner re-measured against the baseline on a third
# fresh set (its figures are the exported ones), or max-t intervals on the
# selection's own games (no more games, no point score)
CONFIRM_METHODS = ("two-stage", "max-t")


@dataclass(frozen=True)
class ConfirmOptions:
    """How to confirm: how many of the best trials, how many fresh pairs each
    (the selection), the method (``two-stage``: then the winner and the
    baseline on ``check_pairs`` further fresh pairs, default ``pairs``;
    ``max-t``: no further games, simultaneous intervals on the selection's),
    an optional SPRT for the winner, the seed of the fresh openings (default:
    the study's seed + 1) and their length (default: the study's; longer
    openings where the study used up most of a small opening space)."""

    top: int = DEFAULT_TOP
    pairs: int = DEFAULT_PAIRS
    sprt: tuple[float, float] | None = None
    # the SPRT's cap; None: derived from its bounds and the winner's measured pair
    # variance, so that 95% of such tests decide (heurtune.match.stats.sprt_pair_cap)
    max_pairs: int | None = None
    seed: int | None = None
    jobs: int = 1
    opening_plies: int | None = None  # default: the study's
    method: str = "two-stage"
    check_pairs: int | None = None  # default: pairs

    @property
    def check(self) -> int:
        """Pairs of the two-stage check (0 with ``max-t``)."""
        if self.method != "two-stage":
            return 0
        return self.pairs if self.check_pairs is None else self.check_pairs

    def __post_init__(self) -> None:
        if self.top < 1:
            raise HeurtuneError(f"confirm: top must be at least 1, got {self.top}")
        if self.pairs < 1:
            raise HeurtuneError(f"confirm: pairs must be at least 1, got {self.pairs}")
        if self.max_pairs is not None and self.max_pairs < 1:
            raise HeurtuneError(f"confirm: max_pairs must be at least 1, got {self.max_pairs}")
        if self.method not in CONFIRM_METHODS:
            raise HeurtuneError(f"confirm: method must be one of {', '.join(CONFIRM_METHODS)}, "
                                f"got {self.method!r}")
        if self.check_pairs is not None and self.check_pairs < 1:
            raise HeurtuneError(f"confirm: check_pairs must be at least 1, got "
                                f"{self.check_pairs}")
        check_jobs(self.jobs)
        if self.seed is not None and not 0 <= self.seed <= SEED_MAX:
            raise HeurtuneError(f"seed must be in [0, {SEED_MAX}], got {self.seed}")
        if self.sprt is not None:
            Sprt(*self.sprt)  # checks elo0 < elo1


@dataclass(frozen=True)
class PositionsSpec:
    """``objective = "positions"``: the position file (its path and the SHA-256 of
    its bytes), the loss, the share of its games held out, the threads that
    evaluate, and the match its games came from where the file says (pairs,
    seed, opening plies: confirmation leaves those openings out)."""

    file: str
    sha256: str
    loss: str = "cross-entropy"
    held_out: float = 0.2
    threads: int = 0  # 0: the machine's cores
    match: Mapping[str, Any] = field(default_factory=dict)
    perspective: str = "difference"  # or "side-to-move" (heurtune.tuning.positions)

    def setup(self) -> dict[str, Any]:
        """What a resumed study must agree on (the file by its content: a study
        resumed from another folder names it by another path; the perspective
        where it is not the side to move's, which studies recorded before the
        option used)."""
        return {"name": Path(self.file).name, "sha256": self.sha256, "loss": self.loss,
                "held_out": self.held_out,
                **({"perspective": self.perspective}
                   if self.perspective != "side-to-move" else {})}


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
    # objective = "positions": the position set whose loss the trials minimise
    positions: PositionsSpec | None = None
    # an opening book every match of the study draws from (the tuning, the
    # confirmation's selection and check, each on openings of its own)
    book: Book | None = None
    book_sha256: str = ""
    # when the referee ends a game early (engines' scores, a maximum length)
    adjudication: Adjudication | None = None
    # every trial's and the confirmation's games kept as PGN artifacts
    pgn: bool = False
    # a trial whose engine loses more than this share of its games by its own faults
    # fails, with the reason (a broken engine cannot finish a study as if it had
    # lost fairly)
    fault_share: float = DEFAULT_FAULT_SHARE

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
        """The trial's match against every opponent of the pool, on the same openings
        (a positions study's: those of its positions' games, :meth:`_openings`)."""
        pairs, seed, plies, distinct = self._openings()
        return [MatchSpec(engine or self.base, m.engine, pairs, seed, plies,
                          by_symmetry=distinct == "symmetry", every_class=self.every_class,
                          book=self.book, adjudication=self.adjudication)
                for m in self.pool]

    def _openings(self) -> tuple[int, int, int, str]:
        """Pairs, seed, opening plies and distinct openings of the study's match. A
        positions study plays no match: its openings are those of the games its
        positions came from, where the file says (what ``match --exclude-study``
        and confirmation leave out, and what its setup records)."""
        pairs, seed, plies, distinct = (self.pairs, self.seed, self.opening_plies,
                                        self.distinct_openings)
        if self.positions is not None:
            match = self.positions.match
            pairs = int(match.get("pairs", pairs))
            seed = int(match.get("seed", seed))
            plies = int(match.get("opening_plies", plies))
            distinct = str(match.get("distinct_openings", distinct))
        return pairs, seed, plies, distinct

    @property
    def weights(self) -> list[float]:
        return [m.weight for m in self.pool]

    def baseline_apart_from_opponent(self) -> dict[str, tuple[Any, Any]]:
        """The searched parameters whose baseline value (trial 0: the heuristic's defaults
        within ``[params]``) differs from the opponent's, ``{name: (baseline,
        opponent)}``, where the opponent is this study's own heuristic at other weights
        that all lie inside ``[params]``, and no ``start_from`` sets the baseline; empty
        otherwise. Such a study measures its answers against the defaults, and a duel
        sampler starts from them, where the file most likely meant to fine-tune the
        opponent (``start_from`` = its engine file)."""
        opponent = self.opponent
        if (self.start_from or len(self.pool) != 1 or self.positions is not None
                or opponent.process is not None or self.base.process is not None
                or (opponent.game, opponent.heuristic) != (self.base.game, self.base.heuristic)):
            return {}
        apart: dict[str, tuple[Any, Any]] = {}
        for p in self.space.searched:
            mine, theirs = self.base.params.get(p.name), opponent.params.get(p.name)
            if theirs is None:
                continue
            try:
                p.validate(theirs)
            except HeurtuneError:
                return {}  # the opponent lies outside the box: start_from could not take it
            if mine != theirs:
                apart[p.name] = (mine, theirs)
        return apart

    @property
    def opponents_text(self) -> str:
        """The opponent, or the pool with its weights."""
        if len(self.pool) == 1:
            return self.opponent.label
        return "pool (" + ", ".join(f"{m.engine.label} x{m.weight:g}" for m in self.pool) + ")"

    @property
    def objective_name(self) -> str:
        if self.positions is not None:
            return f"positions loss ({self.positions.loss}, {self.positions.file})"
        versus = ("weighted score vs " if len(self.pool) > 1 else "score vs ") + self.opponents_text
        if self.sampler.duels:  # trial 0 plays the opponent, the others duel
            return f"{versus} (trial 0; duels: + vs - weights)"
        return versus

    def setup(self) -> dict[str, Any]:
        """What a resumed study must agree on (stored in the study's user attributes).
        A positions study records the match its positions came from as its pairs,
        seed and openings, so that confirmation plays none of those openings."""
        pairs, seed, plies, distinct = self._openings()
        return {
            "engine": self.base.to_dict(),
            "opponent": self.opponent.to_dict(),
            "opponent_spec": self.opponent_spec,
            **({"pool": [{"opponent": m.engine.to_dict(), "spec": m.spec, "weight": m.weight}
                         for m in self.pool]} if len(self.pool) > 1 else {}),
            **({"objectives": list(self.objectives)} if self.multi_objective else {}),
            **({"budget": self.budget} if self.budget != "nodes" else {}),
            "pairs": pairs,
            "seed": seed,
            "opening_plies": plies,
            # what is searched, within which bounds (a resumed study must search the same)
            "space": [{k: v for k, v in row.items() if k != "help"}
                      for row in self.space.describe()],
            # absent from the studies recorded before the option existed
            **({"sampler_seeding": self.sampler_seeding}
               if self.sampler_seeding != "per-study" else {}),
            **({"distinct_openings": distinct} if distinct != "position" else {}),
            **({"openings": "all"} if self.every_class else {}),
            **({"book": {"name": Path(self.book.name).name, "sha256": self.book_sha256}}
               if self.book is not None else {}),
            **({"adjudication": self.adjudication.to_dict()}
               if self.adjudication is not None and self.adjudication.active else {}),
            # duel trials mean something else: a study is one or the other
            **({"sampler": self.sampler.kind} if self.sampler.duels else {}),
            **({"objective": "positions", "positions": self.positions.setup()}
               if self.positions is not None else {}),
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
