"""``play_match``: a paired match between two engines, validated, as one call.

What ``heurtune match`` does, for library callers and the command line alike:
a fixed number of opening pairs, one opening of every symmetry class, or a
pentanomial SPRT until it decides (or its pair cap), optionally on openings that
leave out a study's (and their mirror images)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from heurtune.engine import EngineConfig, resolve_engine
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match.books import Book, load_book
from heurtune.match.openings import as_opening, opening_classes
from heurtune.match.play import Adjudication, PairResult
from heurtune.match.runner import MatchResult, MatchRunner, MatchSpec, SprtOutcome
from heurtune.match.stats import Sprt

DEFAULT_MAX_PAIRS = 2000  # an SPRT's pair cap when none is given
SPRT_MODELS = ("logistic", "normalized")

Pairs = int | Literal["all"]
OnPair = Callable[[PairResult, "float | None"], None]  # the pair, and the SPRT's LLR (or None)


@dataclass(frozen=True)
class MatchPlan:
    """A validated match, its openings drawn: what :func:`play_match` plays."""

    spec: MatchSpec
    openings: list[tuple[int, ...]]
    sprt: Sprt | None = None
    excluded: int = 0  # openings left out (a study's), their mirror images too
    excluded_from: str = ""  # where they come from (a study file's name)

    @property
    def every_class(self) -> bool:
        return self.spec.every_class

    @property
    def count(self) -> int:
        """Opening pairs to play (with an SPRT: at most)."""
        return len(self.openings)

    def header(self) -> str:
        """One line saying who plays whom, on what, how long."""
        a, b = self.spec.a.label, self.spec.b.label
        fresh = ""
        if self.excluded:
            mirrors = (" (nor their symmetric images)"
                       if get_game(self.spec.a.game).symmetry_hashes is not None else "")
            fresh = f", none of the {self.excluded} openings of {self.excluded_from}{mirrors}"
        if self.spec.book is not None:
            fresh += f", from {self.spec.book.name}"
        if self.spec.adjudication is not None and self.spec.adjudication.active:
            fresh += ", adjudicated"
        if self.sprt is None:
            what = "every opening class: " if self.every_class else ""
            return f"{a} vs {b}: {what}{self.count} opening pairs, seed {self.spec.seed}{fresh}"
        s = self.sprt
        unit = "nElo" if s.model == "normalized" else "Elo"
        return (f"{a} vs {b}: SPRT {unit} [{s.elo0:g}, {s.elo1:g}] (alpha {s.alpha:g}, "
                f"beta {s.beta:g}), at most {self.count} pairs, seed {self.spec.seed}{fresh}")


@dataclass(frozen=True)
class MatchOutcome:
    """A played match: its plan, its pairs and statistics, and the SPRT's verdict."""

    plan: MatchPlan
    result: MatchResult
    sprt: SprtOutcome | None = None

    def to_dict(self) -> dict[str, Any]:
        out = self.result.to_dict()
        if self.sprt is not None:
            out["sprt"] = self.sprt.to_dict()
        return out


def _engine(engine: EngineConfig | str) -> EngineConfig:
    return engine if isinstance(engine, EngineConfig) else resolve_engine(engine)


def check_match_options(*, pairs: Pairs | None = None,
                        sprt: Sprt | tuple[float, float] | None = None,
                        sprt_elo: str = "logistic", max_pairs: int | None = None) -> Sprt | None:
    """Check how long a match is to be (see :func:`prepare_match`); its SPRT, if any."""
    if sprt is not None and not isinstance(sprt, Sprt):
        if sprt_elo not in SPRT_MODELS:
            raise HeurtuneError(f"SPRT Elo model must be one of {', '.join(SPRT_MODELS)}, "
                                f"got {sprt_elo!r}")
        sprt = Sprt(*sprt, model=sprt_elo)
    if sprt is None and pairs is None:
        raise HeurtuneError("match needs --pairs N (or all), or --sprt ELO0,ELO1")
    if sprt is not None and pairs is not None:
        raise HeurtuneError("--sprt decides how many pairs to play: give --max-pairs, not --pairs")
    if max_pairs is not None and (sprt is None or max_pairs < 1):
        raise HeurtuneError("--max-pairs must be at least 1, with --sprt")
    if isinstance(pairs, int) and pairs < 1:
        raise HeurtuneError(f"--pairs must be at least 1, got {pairs}")
    return sprt


def prepare_match(
    a: EngineConfig | str,
    b: EngineConfig | str,
    *,
    pairs: Pairs | None = None,
    sprt: Sprt | tuple[float, float] | None = None,
    sprt_elo: str = "logistic",
    max_pairs: int | None = None,
    seed: int = 0,
    opening_plies: int | None = None,
    rules: Mapping[str, Any] | None = None,
    exclude: Sequence[tuple[int, ...]] = (),
    excluded_from: str = "",
    openings: str | Book | None = None,
    adjudication: Adjudication | None = None,
) -> MatchPlan:
    """Check a match and draw its openings; nothing is played.

    ``a`` and ``b`` are engines or their specs (presets ``game:name``, engine
    files). Give ``pairs`` (a count, or ``"all"``: one opening of every
    symmetry class) or ``sprt`` (Elo bounds, or a :class:`Sprt`; ``max_pairs``
    caps it, default :data:`DEFAULT_MAX_PAIRS`). ``rules`` override both
    engines' rule options; ``exclude`` lists openings not to play (nor their
    mirror images), ``excluded_from`` names where they come from. ``openings``:
    an opening book (a file, ``heurtune:NAME``, or a loaded :class:`Book`) to draw
    from instead of random openings; ``adjudication``: when the referee ends a
    game early."""
    sprt = check_match_options(pairs=pairs, sprt=sprt, sprt_elo=sprt_elo, max_pairs=max_pairs)
    first, second = _engine(a), _engine(b)
    if rules:
        merged = {**first.rules, **rules}
        first, second = replace(first, rules=merged), replace(second, rules=merged)
    excluded = tuple(as_opening(op) for op in exclude)
    every_class = pairs == "all"
    book = openings if isinstance(openings, Book) or openings is None else \
        load_book(openings, first.game, first.rules)
    if every_class:
        probe = MatchSpec(first, second, 1, seed, opening_plies)
        count = len(opening_classes(get_game(first.game), first.rules, probe.plies, excluded))
        if count == 0:
            raise HeurtuneError("no opening class is left to play")
    else:
        count = int(pairs) if pairs is not None else (max_pairs or DEFAULT_MAX_PAIRS)
    spec = MatchSpec(first, second, count, seed, opening_plies, excluded,
                     every_class=every_class, fewer_ok=sprt is not None, book=book,
                     adjudication=adjudication)
    # drawn once; with an SPRT, the cap or every opening there is if fewer
    return MatchPlan(spec, spec.openings(), sprt, len(excluded), excluded_from)


def play_match(
    a: EngineConfig | str | MatchPlan,
    b: EngineConfig | str | None = None,
    *,
    jobs: int = 1,
    keep_games: bool = False,
    on_start: Callable[[MatchPlan], None] | None = None,
    on_pair: OnPair | None = None,
    runner: MatchRunner | None = None,
    **options: Any,
) -> MatchOutcome:
    """Play a paired match: fixed pairs or an SPRT (see :func:`prepare_match` for
    ``options``), or a plan made by it (``a`` a :class:`MatchPlan`, no ``b``).

    ``on_start`` receives the validated plan before the first game;
    ``on_pair(pair, llr)`` each pair as it is taken (``llr`` None without an
    SPRT); ``keep_games``: the pairs carry their games (for game records);
    ``runner`` plays the pairs (default: a :class:`MatchRunner` of ``jobs``
    worker processes)."""
    if isinstance(a, MatchPlan):
        if b is not None or options:
            raise TypeError("play_match(plan) takes no engines or match options")
        plan = a
    else:
        if b is None:
            raise TypeError("play_match needs two engines")
        plan = prepare_match(a, b, **options)
    if on_start is not None:
        on_start(plan)
    own = runner is None
    play = MatchRunner(jobs) if runner is None else runner
    try:
        if plan.sprt is None:
            result = play.run(plan.spec, openings=plan.openings, keep_games=keep_games,
                              on_pair=None if on_pair is None else (lambda p: on_pair(p, None)))
            return MatchOutcome(plan, result)
        result, outcome = play.run_sprt(plan.spec, plan.sprt, openings=plan.openings,
                                        keep_games=keep_games, on_pair=on_pair)
        return MatchOutcome(plan, result, outcome)
    except BaseException:  # Ctrl-C, SIGTERM, an error: the workers are killed, not awaited
        if own:
            play.close(stop=True)
        raise
    finally:
        if own:
            play.close()
