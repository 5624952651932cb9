"""``heurtune screen``: which parameters matter, one at a time, before a study.

For each searched parameter of a study, a few points across its range (both
bounds included; log-scale parameters spaced in log; integer and stepped ones
snapped to their grid and deduplicated; a categorical parameter's choices),
every other parameter at the baseline's value (the study's defaults, or its
``start_from`` engine's). Each point's engine plays **the baseline** head to
head on the same fresh paired openings (one set for every point); the
baseline's own value is a point too, with Elo 0 by definition (two identical
engines score 0.5 in every pair) and no games.

Per point: the score against the baseline with its 95% interval, and its Elo.
Per parameter: the spread (the best point's Elo minus the worst's, the
baseline's 0 included) and the paired score difference between the best and the
worst point with its 95% interval (the points played the same openings, so
their difference is compared opening by opening). The verdict:

* **active**: some point's interval excludes the baseline (score 0.5), or the
  best-minus-worst interval excludes 0;
* **inert**: not active, and the spread is below ``inert_elo`` (default
  :data:`DEFAULT_INERT_ELO`): over its whole range the parameter moved the
  engine less than that, as far as these pairs can tell. A candidate to pin in
  the study's ``[params]``;
* **unclear**: not active, but the spread is at least ``inert_elo``: the points
  differ by chance or by too little for these pairs; more pairs tell.

A numeric parameter is also **lopsided** where it falls steeply on one side of the
baseline's value and gently on the other. Both sides are read over the reach they
share (the nearer bound's distance from the baseline's value, in log for a
log-scale parameter), from their points between half that reach and all of it: one
side's worst point lies at least ``steep_elo`` (default :data:`DEFAULT_STEEP_ELO`)
below the baseline, its interval excluding the baseline's score, while on the other
side no point loses as much as :data:`LOPSIDED_SHARE` of that, each loss scaled as a
quadratic's to the same distance (so a bowl around the baseline is not lopsided),
nor gains as much as :data:`SLOPE_SHARE` of it, scaled as a line's (nor is a
slope). Duels half a range wide reach across such a side and the quadratic they fit
misreads it; where the study tunes with ``duels`` at a wider radius, the screen says
so and names the narrower radius (the bar's evidence: on the two real Morris fine
boxes, ``move_blocked`` lost 71 and 53 Elo at its lower end against 20 lost and 19
gained at its upper end, and the narrower radius confirmed about 3 Elo better there;
on the Isolation fine box no weight lost more than 11 at either end;
docs/results/optimisers.md).

With 95% intervals at every point, a parameter with no effect at all is called
active now and then (several looks); that errs on the side of keeping it in the
search. The spread of noisy points exceeds the true one, so "inert" needs
enough pairs: with ``n`` pairs a point's Elo has a standard error of about
``695 * sqrt(pair variance / n)``.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from heurtune.engine import CategoricalParam, IntParam, Param, Value
from heurtune.engine.params import value_text
from heurtune.errors import HeurtuneError
from heurtune.match import MatchResult, MatchRunner, MatchStats, PairResult, paired_difference
from heurtune.tomlio import write_atomic
from heurtune.tuning.planning._common import baseline, draw_openings, play
from heurtune.tuning.samplers import NARROWER_RADIUS
from heurtune.tuning.studyfile import StudyFile

SCREEN_PAIRS = 100  # per point
DEFAULT_POINTS = 5  # per parameter, both bounds included (plus the baseline's value)
DEFAULT_INERT_ELO = 30.0  # a spread below this (and no point significant): inert
DEFAULT_STEEP_ELO = 30.0  # lopsided: one side's worst point at least this far below ...
LOPSIDED_SHARE = 1 / 3  # ... and the other side's, as far out, less than this share of it
SLOPE_SHARE = 1 / 2  # ... nor gaining this share of it (where it would be a slope)
SIDES = ("low", "high")
MIN_POINTS = 2
MAX_POINTS = 50
VERDICTS = ("active", "unclear", "inert")
PNG_COLUMNS = 4  # panels per row
PNG_PANEL = (3.2, 2.6)  # inches per panel
COLOURS = {"active": "tab:blue", "unclear": "tab:orange", "inert": "tab:gray"}


def _snap(param: Param, x: float) -> Value:
    """A real number as a value of ``param``: rounded to an integer or onto the
    step grid, kept within the bounds."""
    low, high = param.low, param.high  # type: ignore[union-attr]
    step = getattr(param, "step", None)
    if step:
        x = low + round((x - low) / step) * step
    if isinstance(param, IntParam):
        return int(min(max(round(x), low), high))
    return float(min(max(round(x, 12), low), high))


def screen_points(param: Param, count: int, base: Value) -> list[Value]:
    """The values a parameter is screened at: ``count`` points from its low to
    its high bound (evenly, or evenly in log for a log-scale parameter), snapped
    and deduplicated, plus the baseline's value; a categorical parameter's
    choices. In increasing order (choices in their order)."""
    if isinstance(param, CategoricalParam):
        return list(param.choices)
    low, high = float(param.low), float(param.high)
    if param.log:
        grid = [math.exp(math.log(low) + (math.log(high) - math.log(low)) * k / (count - 1))
                for k in range(count)]
    else:
        grid = [low + (high - low) * k / (count - 1) for k in range(count)]
    values = {_snap(param, x) for x in grid} | {base}
    return sorted(values)


@dataclass
class Point:
    """One value of a parameter; ``result`` is its match against the baseline
    (None for the baseline's own value: Elo 0 by definition, no games)."""

    value: Value
    result: MatchResult | None = None

    @property
    def baseline(self) -> bool:
        return self.result is None

    @property
    def stats(self) -> MatchStats | None:
        return None if self.result is None else self.result.stats

    @property
    def score(self) -> float:
        return 0.5 if self.stats is None else self.stats.score

    @property
    def elo(self) -> float:
        return 0.0 if self.stats is None else self.stats.elo

    @property
    def significant(self) -> bool:
        """Whether its interval excludes the baseline's score (0.5)."""
        if self.stats is None:
            return False
        lo, hi = self.stats.score_ci
        return lo > 0.5 or hi < 0.5

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "baseline": self.baseline}
        if self.stats is None:
            out.update(score=0.5, elo=0.0, games=0)
        else:
            out.update(self.stats.to_dict())
        return out


@dataclass(frozen=True)
class Lopsided:
    """Where a parameter falls steeply on one side of the baseline's value: ``side``
    ("low" or "high"), that side's worst point, and the other side's worst point at
    like distances (see :attr:`ParamScreen.lopsided`)."""

    side: str
    steep: Point
    other: Point

    def text(self) -> str:
        return (f"lopsided: Elo {self.steep.elo + 0.0:+.1f} at {value_text(self.steep.value)} "
                f"on its {self.side} side, at worst {self.other.elo + 0.0:+.1f} (at "
                f"{value_text(self.other.value)}) as far out on the other")

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "value": self.steep.value, "elo": self.steep.elo,
                "other_value": self.other.value, "other_elo": self.other.elo}


@dataclass
class ParamScreen:
    """A parameter's points and what they say."""

    name: str
    kind: str  # float | int | categorical
    log: bool
    points: list[Point]
    inert_elo: float
    steep_elo: float = DEFAULT_STEEP_ELO

    @property
    def best(self) -> Point:
        """The point of highest Elo (of equal ones the baseline, else the first)."""
        return max(self.points, key=lambda p: (p.elo, p.baseline))

    @property
    def worst(self) -> Point:
        """The point of lowest Elo (of equal ones the baseline, else the first)."""
        return min(self.points, key=lambda p: (p.elo, not p.baseline))

    @property
    def spread(self) -> float:
        """The best point's Elo minus the worst's (the baseline's 0 included)."""
        return self.best.elo - self.worst.elo

    @property
    def difference(self) -> tuple[float, float, float]:
        """(mean, low, high) of the best point's score minus the worst's: paired by
        opening, or the other point's own interval where one is the baseline."""
        best, worst = self.best, self.worst
        if best is worst:
            return 0.0, 0.0, 0.0
        if worst.result is None:
            lo, hi = best.stats.score_ci  # type: ignore[union-attr]
            return best.score - 0.5, lo - 0.5, hi - 0.5
        if best.result is None:
            lo, hi = worst.stats.score_ci  # type: ignore[union-attr]
            return 0.5 - worst.score, 0.5 - hi, 0.5 - lo
        return paired_difference(best.result.pairs, worst.result.pairs)

    @property
    def verdict(self) -> str:
        _, lo, _ = self.difference
        if any(p.significant for p in self.points) or lo > 0.0:
            return "active"
        return "inert" if self.spread < self.inert_elo else "unclear"

    @property
    def lopsided(self) -> Lopsided | None:
        """Where it falls steeply on one side of the baseline's value and gently on
        the other (see the module docstring); None for a categorical parameter, a
        baseline at a bound, a side with no point as far out as half the shared
        reach, or a profile that is not lopsided."""
        base = next((p for p in self.points if p.baseline), None)
        if self.kind == "categorical" or base is None:
            return None
        b = float(base.value)

        def distance(p: Point) -> float:
            x = float(p.value)
            return abs(math.log(x / b)) if self.log else abs(x - b)

        sides = {"low": [p for p in self.points if float(p.value) < b],
                 "high": [p for p in self.points if float(p.value) > b]}
        if not sides["low"] or not sides["high"]:
            return None
        reach = min(max(distance(p) for p in side) for side in sides.values())

        def scaled(p: Point) -> float:  # its loss as a quadratic would have it at the reach
            return -p.elo * (reach / distance(p)) ** 2

        def sloped(p: Point) -> float:  # its loss as a line would have it at the reach
            return -p.elo * reach / distance(p)

        # compared over like distances: a side's points within the reach, and at least
        # half of it out (a quadratic scales a near point's noise up too far)
        far = {k: [p for p in side if reach / 2 <= distance(p) <= reach * (1 + 1e-9)]
               for k, side in sides.items()}
        for side, other in (SIDES, SIDES[::-1]):
            if not far[side] or not far[other]:
                continue
            steep = min(far[side], key=lambda p: p.elo)
            sure = steep.stats is not None and steep.stats.score_ci[1] < 0.5
            if not (sure and steep.elo <= -self.steep_elo):
                continue
            # not a bowl (the other side loses as much, as a quadratic scales it) and
            # not a slope (the other side gains as much, as a line scales it)
            bowl = max(scaled(p) for p in far[other]) >= LOPSIDED_SHARE * scaled(steep)
            slope = max(-sloped(p) for p in far[other]) >= SLOPE_SHARE * sloped(steep)
            if not bowl and not slope:
                return Lopsided(side, steep, min(far[other], key=lambda p: p.elo))
        return None

    def to_dict(self) -> dict[str, Any]:
        diff, lo, hi = self.difference
        lopsided = self.lopsided
        return {"name": self.name, "kind": self.kind, "log": self.log,
                "verdict": self.verdict, "spread_elo": self.spread,
                "best": self.best.value, "worst": self.worst.value,
                "difference": diff, "difference_ci": [lo, hi],
                "lopsided": None if lopsided is None else lopsided.to_dict(),
                "points": [p.to_dict() for p in self.points]}

    def lines(self) -> list[str]:
        """The parameter's block of the table."""
        lopsided = self.lopsided
        out = [f"{self.name}: {self.verdict}, spread {self.spread:.1f} Elo; best "
               f"{value_text(self.best.value)} - worst {value_text(self.worst.value)}: "
               f"{self.difference[0]:+.3f} [{self.difference[1]:+.3f}, "
               f"{self.difference[2]:+.3f}]" + ("" if lopsided is None else
                                                f"; {lopsided.text()}")]
        for p in self.points:
            if p.stats is None:
                out.append(f"  {value_text(p.value):>10}  baseline: Elo 0 by definition, "
                           "no games")
                continue
            lo, hi = p.stats.score_ci
            elo_lo, elo_hi = p.stats.elo_ci
            out.append(f"  {value_text(p.value):>10}  score {p.score:.3f} [{lo:.3f}, "
                       f"{hi:.3f}]  Elo {p.elo + 0.0:+7.1f} [{elo_lo + 0.0:+.1f}, "
                       f"{elo_hi + 0.0:+.1f}]{'  *' if p.significant else ''}")
        return out


def _kind(param: Param) -> str:
    if isinstance(param, CategoricalParam):
        return "categorical"
    return "int" if isinstance(param, IntParam) else "float"


@dataclass
class ScreenResult:
    """Every screened parameter, and how the screen was played."""

    study: str
    pairs: int
    seed: int
    opening_plies: int
    inert_elo: float
    params: list[ParamScreen] = field(default_factory=list)
    steep_elo: float = DEFAULT_STEEP_ELO
    # the radius of the study's duels (None: the study does not tune with duels)
    duels_radius: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"study": self.study, "pairs": self.pairs, "seed": self.seed,
                "opening_plies": self.opening_plies, "inert_elo": self.inert_elo,
                "steep_elo": self.steep_elo, "advice": self.advice(),
                "params": [p.to_dict() for p in self.params]}

    def verdicts(self) -> str:
        """The parameters by verdict."""
        parts = []
        for verdict in VERDICTS:
            names = [p.name for p in self.params if p.verdict == verdict]
            if names:
                parts.append(f"{verdict}: {', '.join(names)}")
        return "; ".join(parts)

    def lopsided_names(self) -> list[str]:
        """The lopsided parameters' names."""
        return [p.name for p in self.params if p.lopsided is not None]

    def summary(self) -> str:
        """One line: the parameters by verdict, and the lopsided ones."""
        lopsided = self.lopsided_names()
        return self.verdicts() + (f"; lopsided: {', '.join(lopsided)}" if lopsided else "")

    def advice(self) -> str:
        """What a lopsided parameter means for the study's duels, where it tunes with
        them wider than :data:`NARROWER_RADIUS`; empty otherwise."""
        names = self.lopsided_names()
        if not names or self.duels_radius is None or self.duels_radius <= NARROWER_RADIUS:
            return ""
        verb = "falls" if len(names) == 1 else "fall"
        return (f"{', '.join(names)} {verb} steeply on one side of the baseline's value: the "
                f"study's duels (radius = {self.duels_radius:g}; at 1 their points lie half a "
                f"range from the centre) reach across such a side and the quadratic they fit "
                f"misreads it; consider "
                f"radius = {NARROWER_RADIUS:g} under [sampler] or sampler = \"spsa\" "
                f"(docs/guide.md, \"A cliff beside your point\")")


def screen_plan(sf: StudyFile, names: Sequence[str] = (), points: int = DEFAULT_POINTS,
                ) -> list[tuple[Param, list[Value]]]:
    """The parameters to screen (``names``, default every searched one) and each
    one's values; every bad name or count is a :class:`HeurtuneError`."""
    if not MIN_POINTS <= points <= MAX_POINTS:
        raise HeurtuneError(f"--points must be in [{MIN_POINTS}, {MAX_POINTS}], got {points}")
    searched = {p.name: p for p in sf.space.searched}
    for name in names:
        if name in sf.space.fixed:
            raise HeurtuneError(f"{sf.path}: parameter {name!r} is fixed by the study, "
                                "not searched")
        if name not in searched:
            raise HeurtuneError(f"{sf.path}: unknown parameter {name!r} (searched: "
                                f"{', '.join(searched)})")
    chosen = [searched[n] for n in dict.fromkeys(names)] if names else list(searched.values())
    if not chosen:
        raise HeurtuneError(f"{sf.path}: the study searches no parameter")
    base = baseline(sf).params
    return [(p, screen_points(p, points, base[p.name])) for p in chosen]


def screen(
    sf: StudyFile,
    *,
    pairs: int = SCREEN_PAIRS,
    points: int = DEFAULT_POINTS,
    names: Sequence[str] = (),
    inert_elo: float = DEFAULT_INERT_ELO,
    steep_elo: float = DEFAULT_STEEP_ELO,
    seed: int | None = None,
    opening_plies: int | None = None,
    study_openings: bool = False,
    jobs: int | None = None,
    runner: Any = None,
    on_pair: Callable[[PairResult], None] | None = None,
    on_param: Callable[[ParamScreen], None] | None = None,
) -> ScreenResult:
    """Screen the study's parameters one at a time (see the module docstring).

    ``runner``: a :class:`MatchRunner` or any object with its ``run(spec,
    on_pair=, openings=)``; default a runner of ``jobs`` workers (default the
    study's). ``on_param`` gets each parameter as soon as its points are played.
    The result is the same for every ``jobs``."""
    if runner is None:
        with MatchRunner(jobs if jobs is not None else sf.jobs) as own:
            return screen(sf, pairs=pairs, points=points, names=names, inert_elo=inert_elo,
                          steep_elo=steep_elo, seed=seed, opening_plies=opening_plies,
                          study_openings=study_openings,
                          runner=own, on_pair=on_pair, on_param=on_param)
    if not inert_elo >= 0:
        raise HeurtuneError(f"--inert-elo must be at least 0, got {inert_elo:g}")
    if not steep_elo > 0:
        raise HeurtuneError(f"--steep-elo must be above 0, got {steep_elo:g}")
    todo = screen_plan(sf, names, points)
    openings, plies, seed = draw_openings(sf, pairs, seed, opening_plies, study_openings)
    base = baseline(sf)
    radius = float(sf.sampler.options["radius"]) if sf.sampler.kind == "duels" else None
    result = ScreenResult(sf.path, len(openings), seed, plies, inert_elo,
                          steep_elo=steep_elo, duels_radius=radius)
    for param, values in todo:
        played = []
        for value in values:
            if value == base.params[param.name]:
                played.append(Point(value))
                continue
            engine = base.with_params({param.name: value}, name=f"{param.name}={value}")
            played.append(Point(value, play(runner, engine, base, seed, plies, openings,
                                             on_pair)))
        entry = ParamScreen(param.name, _kind(param), bool(getattr(param, "log", False)),
                            played, inert_elo, steep_elo)
        result.params.append(entry)
        if on_param is not None:
            on_param(entry)
    return result


def screen_games(sf: StudyFile, pairs: int, names: Sequence[str] = (),
                 points: int = DEFAULT_POINTS) -> int:
    """How many games a screen plays (every point but the baseline's, 2 per pair)."""
    base = baseline(sf).params
    return sum(2 * pairs * sum(1 for v in values if v != base[p.name])
               for p, values in screen_plan(sf, names, points))


def save_png(result: ScreenResult, path: str | os.PathLike[str]) -> None:
    """One small panel per parameter: Elo against the baseline with its 95%
    interval at every point, the baseline's value marked, the verdict (and a
    lopsided reading) in the title (inert ones grey). Written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(result.params)
    cols = min(PNG_COLUMNS, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False,
                             figsize=(PNG_PANEL[0] * cols, PNG_PANEL[1] * rows))
    for ax, entry in zip(axes.flat, result.params, strict=False):  # spare panels stay empty
        colour = COLOURS[entry.verdict]
        categorical = entry.kind == "categorical"
        xs = (list(range(len(entry.points))) if categorical
              else [float(p.value) for p in entry.points])
        elos = [p.elo for p in entry.points]
        low = [p.elo - (p.stats.elo_ci[0] if p.stats else 0.0) for p in entry.points]
        high = [(p.stats.elo_ci[1] if p.stats else 0.0) - p.elo for p in entry.points]
        ax.axhline(0.0, color="black", linewidth=0.6)
        ax.errorbar(xs, elos, yerr=[low, high], fmt="o-", color=colour, capsize=3,
                    markersize=4, linewidth=1)
        for x, p in zip(xs, entry.points, strict=True):
            if p.baseline:
                ax.plot([x], [0.0], marker="D", color="black", markersize=6, zorder=3)
        if categorical:
            ax.set_xticks(xs, [value_text(p.value) for p in entry.points])
        elif entry.log:
            ax.set_xscale("log")
        lopsided = "" if entry.lopsided is None else f", lopsided ({entry.lopsided.side})"
        ax.set_title(f"{entry.name}: {entry.verdict}{lopsided}", fontsize=9, color=colour)
        ax.set_ylabel("Elo vs baseline", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(f"{result.study}: {result.pairs} pairs per point "
                 f"(black diamond: the baseline)", fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
