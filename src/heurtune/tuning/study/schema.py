"""What a heurtune study stores in Optuna: every attribute key, and typed records.

An Optuna study holds heurtune's own data in user and system attributes (JSON).
This module is their one home: every key is a constant here, and what is read
back is read through the records below, which also accept the shapes that
studies recorded by earlier versions hold (the shipped studies, and any user's
database), so nothing stored is ever re-written to be read.

Study user attributes
    :data:`SETUP` the setup a resumed study must agree on (engine, opponent or
    pool, pairs, seed, openings; :class:`StudySetup`); :data:`OBJECTIVE` the
    objective's name; :data:`SAMPLER` the sampler kind, its options, the answer
    setting and the planned pairs; :data:`TUNING` the study file, target trials,
    sampler, pruner and artifact folder (the dashboard's); :data:`CONFIRMATION`
    the confirmation's verdict (:class:`Verdict`); :data:`EXPORTED` the last
    export's file, what it wrote and when; :data:`ENVIRONMENT` the creating
    worker's library versions, processor and OpenBLAS kernel
    (:mod:`heurtune.tuning.study.environment`: a ``duels`` study reproduces only
    on the same kernel).

Trial user attributes
    the match figures of :meth:`heurtune.match.MatchStats.to_dict` (score,
    interval, wins, draws, losses, games, Elo, nElo, LOS, pentanomial; read
    through :class:`TrialResult`), :data:`PAIR_SCORES` (a completed trial's pair
    scores by opening, what the checkpoint pruner compares with),
    :data:`OPPONENTS` (per-opponent figures against a pool), :data:`BASELINE` /
    :data:`START_FROM` (the enqueued first trial), :data:`SURPLUS` (a trial
    that stepped aside), :data:`SAMPLER_SEED`, :data:`MS_PER_MOVE` (the cost
    objective); a positions trial's :data:`POSITIONS_LOSS` (its value),
    :data:`POSITIONS_HELD_OUT_LOSS` and :data:`POSITIONS_AGREEMENT`.

Trial system attributes
    :data:`DUEL` a duel trial's other side and its sampler's bookkeeping;
    Optuna's own :data:`FIXED_PARAMS` (an enqueued trial) and
    :data:`FAILED_TRIAL` (a retry of a failed one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from heurtune.errors import HeurtuneError

# -- study user attributes ---------------------------------------------------------
SETUP = "heurtune_setup"
OBJECTIVE = "objective"
SAMPLER = "sampler"
TUNING = "tuning"
CONFIRMATION = "confirmation"
EXPORTED = "exported"
POSITIONS = "positions"  # a positions study's file, fitted K, split and baseline losses
LOCAL_SEARCH = "local_search"  # sampler lbfgs: converged, after how many finished trials
ENVIRONMENT = "environment"  # the creating worker's libraries, processor, OpenBLAS kernel
# where the study's opening book was read (a path, or heurtune:NAME): the last worker's
BOOK_PATH = "opening_book_path"
# + a digest of one: another environment a worker joined or resumed the study in
# (that worker's environment and, under "differs", what differs from the creator's)
JOINED_ENVIRONMENT = "environment_joined_"

# -- trial user attributes ---------------------------------------------------------
SCORE = "score"
SCORE_CI = "score_ci"
GAMES = "games"
WINS = "wins"
DRAWS = "draws"
LOSSES = "losses"
ELO = "elo"
ELO_CI = "elo_ci"
PAIR_SCORES = "pair_scores"
OPPONENTS = "opponents"
BASELINE = "baseline"
START_FROM = "start_from"
SURPLUS = "surplus"
# a trial failed because its engine lost more than the study's fault_share of its
# games by its own faults (illegal moves, timeouts, lost clocks, crashes): the reason
FAULTED = "faulted"
SAMPLER_SEED = "sampler_seed"
MS_PER_MOVE = "ms_per_move"
POSITIONS_LOSS = "positions_loss"  # a positions trial: its training loss (the value)
POSITIONS_HELD_OUT_LOSS = "positions_held_out_loss"
POSITIONS_AGREEMENT = "positions_agreement"

# -- trial system attributes -------------------------------------------------------
DUEL = "heurtune:duel"
FIXED_PARAMS = "fixed_params"  # Optuna's: an enqueued trial
FAILED_TRIAL = "failed_trial"  # Optuna's: the retry of a failed trial

# opening pairs (two games each) a new best trial keeps as its sample games (an
# artifact the dashboard lists and the report replays)
SAMPLE_PAIRS = 1


@dataclass(frozen=True)
class TrialResult:
    """A finished match trial's figures, as its user attributes hold them.

    Every field has the value an absent key means (a trial pruned before its
    first pair, a duel's bookkeeping), so a view never indexes a missing key."""

    score: float | None = None
    score_ci: tuple[float, float] = (0.0, 0.0)
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    elo: float = 0.0
    elo_ci: tuple[float, float] = (0.0, 0.0)
    pair_scores: tuple[float, ...] = ()

    @classmethod
    def of(cls, user_attrs: Mapping[str, Any]) -> TrialResult:
        """The figures in a trial's user attributes."""
        a = user_attrs
        ci = a.get(SCORE_CI) or (0.0, 0.0)
        elo_ci = a.get(ELO_CI) or (0.0, 0.0)
        score = a.get(SCORE)
        return cls(
            score=None if score is None else float(score),
            score_ci=(float(ci[0]), float(ci[1])),
            games=int(a.get(GAMES, 0)), wins=int(a.get(WINS, 0)),
            draws=int(a.get(DRAWS, 0)), losses=int(a.get(LOSSES, 0)),
            elo=float(a.get(ELO, 0.0)), elo_ci=(float(elo_ci[0]), float(elo_ci[1])),
            pair_scores=tuple(float(s) for s in a.get(PAIR_SCORES) or ()),
        )


@dataclass(frozen=True)
class PoolEntry:
    """One opponent of a pool study, as its setup records it."""

    opponent: Mapping[str, Any]  # the engine, as EngineConfig.to_dict() wrote it
    spec: str
    weight: float


@dataclass(frozen=True)
class StudySetup:
    """A study's :data:`SETUP` attribute, typed. ``raw`` is the stored dict (what a
    resumed study compares); the fields are read from it, with the defaults of
    studies recorded before a key existed."""

    raw: Mapping[str, Any]

    @classmethod
    def of(cls, attrs: Mapping[str, Any], study_name: str) -> StudySetup:
        """The setup in a study's user attributes (an error if it has none)."""
        raw = attrs.get(SETUP)
        if not isinstance(raw, Mapping):
            raise HeurtuneError(f"study {study_name!r} was not created by heurtune tune")
        return cls(raw)

    @property
    def engine(self) -> Mapping[str, Any]:
        return dict(self.raw["engine"])

    @property
    def opponent(self) -> Mapping[str, Any]:
        return dict(self.raw["opponent"])

    @property
    def opponent_spec(self) -> str:
        return str(self.raw.get("opponent_spec", ""))

    @property
    def pool(self) -> tuple[PoolEntry, ...]:
        """The opponents of a pool study (empty: one opponent, :attr:`opponent`)."""
        return tuple(PoolEntry(m["opponent"], str(m["spec"]), float(m["weight"]))
                     for m in self.raw.get("pool", ()))

    @property
    def pairs(self) -> int:
        return int(self.raw["pairs"])

    @property
    def seed(self) -> int:
        return int(self.raw["seed"])

    @property
    def opening_plies(self) -> int:
        return int(self.raw["opening_plies"])

    @property
    def by_symmetry(self) -> bool:
        """No two openings mirror images (absent before the option: by position)."""
        return bool(self.raw.get("distinct_openings", "position") == "symmetry")

    @property
    def every_class(self) -> bool:
        """``pairs = "all"``: one opening of every symmetry class."""
        return bool(self.raw.get("openings") == "all")

    @property
    def book(self) -> Mapping[str, str] | None:
        """The opening book its matches draw from (its file's name and digest), or
        None (random openings)."""
        book = self.raw.get("book")
        return dict(book) if isinstance(book, Mapping) else None

    @property
    def adjudication(self) -> Mapping[str, int]:
        """Its adjudication rules (empty: none)."""
        return dict(self.raw.get("adjudication", {}))


@dataclass(frozen=True)
class Candidate:
    """One candidate of a confirmation, as its verdict records it: its label, the
    trial it is (None: an answer that is no trial), whether it is the baseline,
    its parameters, its tuning score and its figures on the fresh openings."""

    label: str
    params: Mapping[str, Any]
    score: float
    score_ci: tuple[float, float]
    games: int
    trial: int | None = None
    answer: str = "trial"
    baseline: bool = False
    tuning_score: float | None = None
    figures: Mapping[str, Any] = field(default_factory=dict)  # every stored figure

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Candidate:
        ci = entry.get(SCORE_CI) or (0.0, 0.0)
        trial = entry.get("trial")
        tuning = entry.get("tuning_score")
        return cls(
            # verdicts recorded before answers were candidates name the trial only
            label=str(entry.get("label") or f"trial {trial}"),
            params=dict(entry.get("params") or {}),
            score=float(entry[SCORE]), score_ci=(float(ci[0]), float(ci[1])),
            games=int(entry.get(GAMES, 0)),
            trial=None if trial is None else int(trial),
            answer=str(entry.get("answer", "trial")), baseline=bool(entry.get("baseline")),
            tuning_score=None if tuning is None else float(tuning),
            figures=dict(entry),
        )


@dataclass(frozen=True)
class Verdict:
    """A confirmation's verdict (the study's :data:`CONFIRMATION` attribute), typed.
    ``raw`` is the stored dict; the fields read it, verdicts of earlier versions
    included (those name the winner by trial number only, and carry no
    ``winner_params``)."""

    raw: Mapping[str, Any]

    @classmethod
    def of(cls, attrs: Mapping[str, Any]) -> Verdict | None:
        """The verdict in a study's user attributes, or None (not confirmed)."""
        raw = attrs.get(CONFIRMATION)
        return None if raw is None else cls(raw)

    @property
    def candidates(self) -> list[Candidate]:
        return [Candidate.of(c) for c in self.raw["candidates"]]

    @property
    def winner(self) -> Candidate:
        """The winning candidate."""
        entries = self.raw["candidates"]
        if "winner_label" in self.raw:
            entry = next(c for c in entries if c.get("label") == self.raw["winner_label"])
        else:
            entry = next(c for c in entries if c.get("trial") == self.raw.get("winner"))
        return Candidate.of(entry)

    @property
    def winner_trial(self) -> int | None:
        """The winner's trial number (None: an answer that is no trial)."""
        number = self.raw.get("winner")
        return None if number is None else int(number)

    @property
    def winner_params(self) -> Mapping[str, Any] | None:
        """The winner's searched parameters (None in verdicts recorded before answers
        were candidates: read them from its trial)."""
        params = self.raw.get("winner_params")
        return None if params is None else dict(params)

    @property
    def winner_is_baseline(self) -> bool:
        return bool(self.raw["winner_is_baseline"])

    @property
    def completed_trials(self) -> int | None:
        value = self.raw.get("completed_trials")
        return None if value is None else int(value)

    @property
    def pairs(self) -> int:
        return int(self.raw["pairs"])

    @property
    def method(self) -> str:
        """``two-stage`` (the winner re-measured on a further fresh set),
        ``max-t`` (simultaneous intervals on the selection's games), or
        ``selection`` (a verdict recorded before either: its figures are the
        selection's own, optimistic)."""
        return str(self.raw.get("method", "selection"))

    @property
    def check(self) -> Mapping[str, Any] | None:
        """The two-stage check: the winner's (and the baseline's) figures on
        further fresh openings that did not pick it (None: not played)."""
        c = self.raw.get("check")
        return None if c is None else dict(c)

    @property
    def evidence(self) -> Mapping[str, Any] | None:
        """The winner's match figures that export reports (score, interval, Elo,
        LOS, pentanomial): the check's in a two-stage verdict, the selection's in
        one recorded before (optimistic); None where there is no unbiased point
        figure (``max-t``, or a baseline winner that played no check)."""
        if self.method == "selection":
            return self.winner.figures
        check = self.check
        return None if check is None else dict(check["winner"])

    @property
    def vs_baseline(self) -> tuple[float, float, float] | None:
        """The winner's paired difference from the baseline and its interval, on
        games that did not pick it (the check); in a verdict recorded before
        two-stage confirmation, on the selection's games. None with ``max-t``
        (see :attr:`gain_interval`) or when no baseline was compared."""
        if self.method == "selection":
            d = self.raw.get("vs_baseline")
        else:
            d = (self.check or {}).get("vs_baseline")
        if d is None:
            return None
        lo, hi = d["difference_ci"]
        return float(d["difference"]), float(lo), float(hi)

    @property
    def gain_interval(self) -> tuple[float, float] | None:
        """The interval the export rule reads: the winner's paired difference
        from the baseline (:attr:`vs_baseline`'s), or its max-t interval."""
        if self.method == "max-t":
            m = self.raw.get("max_t")
            return None if m is None else (float(m["difference_ci"][0]),
                                           float(m["difference_ci"][1]))
        d = self.vs_baseline
        return None if d is None else (d[1], d[2])

    def no_gain(self) -> str | None:
        """Why this confirmation did not find its winner better than the baseline
        (None: it did: the lower end of their paired difference's interval is
        above 0, on the check's games or by max-t). Export writes only a winner
        found better."""
        label = self.raw.get("winner_label", "the winner")
        if self.winner_is_baseline:
            return "no candidate scored above the baseline on the fresh openings"
        interval = self.gain_interval
        if interval is None:
            return f"it played no baseline to compare {label} with"
        lo, hi = interval
        if lo > 0.0:
            return None
        if self.method == "max-t":
            m = self.raw["max_t"]
            return (f"{label} is not better than the baseline for sure: [{lo:+.3f}, {hi:+.3f}] "
                    f"(max-t over {m['comparisons']} comparisons, {m['pairs']} fresh pairs)")
        d = self.vs_baseline
        check = self.check
        where = (f"{self.pairs} fresh pairs" if check is None
                 else f"{check['pairs']} further fresh pairs")
        point = "" if d is None else f"{d[0]:+.3f} "
        return (f"{label} is not better than the baseline for sure: {point}"
                f"[{lo:+.3f}, {hi:+.3f}] (paired, {where})")

    @property
    def sprt(self) -> Mapping[str, Any] | None:
        """The winner's SPRT (bounds, verdict, pairs, its match figures), if run."""
        s = self.raw.get("sprt")
        return None if s is None else dict(s)

