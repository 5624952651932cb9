"""``heurtune calibrate``: how noisy a study's matches are, and what that costs.

Before an expensive study, play the **baseline** (the study's engine with its
defaults, or the ``start_from`` engine's weights) against the study's opponent,
and against itself, on fresh openings (none of the study's, nor their mirror
images, unless asked), and measure what decides how many pairs a trial needs:

* against the opponent: the score with its interval, Elo, the draw ratio, the
  first player's score, the pentanomial pair counts, the fraction of even pairs,
  the variance of a pair's score (as the intervals compute it: the five pair
  outcomes with half a pair added to each, :func:`heurtune.match.stats.pair_variance`),
  the per-game variance it implies (twice the pair variance, as nElo uses), the
  per-game variance of the same games counted as independent (win / draw / loss)
  and the "virtual draw ratio" ``1 - 4 * per-game variance``: the draw ratio
  that unpaired games with the same spread would need;
* against itself: two identical engines score exactly 0.5 in every pair by
  construction (both games of a pair share their tie-break seeds), so self-play
  gives game-level figures only: the first player's score (the first-move
  advantage), the draw ratio and the game length; no pair variance.

When the opponent plays exactly like the baseline (a tunable family at its
defaults is often the opponent's heuristic: Isolation's ``weighted`` is
AB_Improved), every pair against it repeats the self-play pair and says nothing
about trials that differ; the plan then assumes independent games at the
measured draw ratio (:func:`independent_pair_variance`) and says so.

From the pair variance, :func:`plan` says how many pairs per trial resolve an
Elo difference and how many games the planned study implies; ``heurtune tune``
prints the same estimate before it starts (:func:`study_estimate`), from the
calibration file beside the study file when one was made for this setup.

The planning formula (normal approximation, two-sided): a trial's score over
``n`` pairs has standard error ``sigma / sqrt(n)`` (``sigma^2`` the pair
variance), so its 95% interval has half-width ``z * sigma / sqrt(n)`` with
``z = 1.96``. It resolves an Elo difference ``E`` when that half-width is at most
``delta``, the score change of ``E`` Elo at the baseline's score ``s``
(``delta = 1 / (1 + 10^(-E/400)) - 1/2`` at ``s = 1/2``; elsewhere the smaller of
the changes up and down)::

    n = ceil((z / delta)^2 * sigma^2)

and ``n`` pairs resolve the ``E`` whose ``delta`` is ``z * sigma / sqrt(n)``. A
study then plays at most ``trials * pairs * 2 * opponents`` games (pruned trials
stop early, so fewer). Telling two trials ``E`` apart needs up to twice the pairs
(the variance of a difference of two scores; shared openings lower it).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heurtune import __version__
from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match import MatchResult, MatchRunner, PairResult, pair_variance
from heurtune.match.stats import z_value
from heurtune.tomlio import write_atomic
from heurtune.tuning.planning._common import baseline, draw_openings, play
from heurtune.tuning.studyfile import StudyFile

CALIBRATION_PAIRS = 200  # calibration pairs (each against the opponent and against itself)
DEFAULT_ELO = 20.0  # the Elo difference a trial should resolve
CONFIDENCE = 0.95
GAMES_PER_PAIR = 2


def independent_pair_variance(draw_ratio: float = 0.0) -> float:
    """The variance of a pair of two independent even games with this draw ratio:
    (1 - d) / 4 per game, halved by averaging two games. What the plan assumes
    without a calibration (no draws: 0.125), or when the opponent plays exactly
    like the baseline. Pairing usually lowers it; 0.25 (every pair WW or LL) would
    be the bound, which real matches do not approach."""
    return (1.0 - draw_ratio) / 4.0 / GAMES_PER_PAIR


ASSUMED_PAIR_VARIANCE = independent_pair_variance()  # 0.125
# a score this close to 0 or 1 is planned as if this far inside (Elo is infinite there)
SCORE_MARGIN = 0.01
# a baseline scoring outside [1 - LOPSIDED, LOPSIDED] gets a note: its opponent is
# far off, each Elo moves the score little, and better trials have little room
LOPSIDED = 0.8
CALIBRATION_SUFFIX = ".calibration.json"
FORMAT = 1  # of the calibration file


# -- planning ------------------------------------------------------------------
def _inside(score: float) -> float:
    """``score`` kept :data:`SCORE_MARGIN` away from 0 and 1."""
    return min(max(score, SCORE_MARGIN), 1.0 - SCORE_MARGIN)


def _score_changes(score: float, elo: float) -> tuple[float, float]:
    """How far the score moves up and down from ``score`` for ``elo`` Elo more or
    less (logistic model, in odds: odds(s) * 10^(E/400))."""
    s = _inside(score)
    odds = (1.0 - s) / s
    up = 1.0 / (1.0 + odds * 10.0 ** (-elo / 400.0)) - s
    down = s - 1.0 / (1.0 + odds * 10.0 ** (elo / 400.0))
    return up, down


ELO_RANGE = (0.5, 1000.0)  # differences a plan can resolve: finer takes millions of pairs


def check_elo(elo: float) -> float:
    """``elo``, the Elo difference to resolve, checked to lie in :data:`ELO_RANGE`."""
    low, high = ELO_RANGE
    if not (math.isfinite(elo) and low <= elo <= high):
        raise HeurtuneError(f"--elo (the Elo difference to resolve) must be in [{low:g}, "
                            f"{high:g}], got {elo:g}")
    return elo


def pairs_needed(variance: float, elo: float, score: float = 0.5,
                 confidence: float = CONFIDENCE) -> int:
    """Pairs whose ``confidence`` interval (normal approximation) is no wider than
    ``elo`` Elo on either side of ``score``: ``ceil((z / delta)^2 * variance)``."""
    check_elo(elo)
    delta = min(_score_changes(score, elo))
    return max(1, math.ceil((z_value(confidence) / delta) ** 2 * variance))


def resolved_elo(variance: float, pairs: int, score: float = 0.5,
                 confidence: float = CONFIDENCE) -> float:
    """The Elo difference that ``pairs`` pairs resolve: the wider side of the
    interval ``score +- z * sqrt(variance / pairs)`` in Elo (inf when it reaches 0 or 1)."""
    s = _inside(score)
    half = z_value(confidence) * math.sqrt(variance / pairs)
    if s + half >= 1.0 or s - half <= 0.0:
        return math.inf

    def log_odds_ratio(a: float, b: float) -> float:  # Elo from score b to score a
        return 400.0 * math.log10(a * (1.0 - b) / ((1.0 - a) * b))

    return max(log_odds_ratio(s + half, s), log_odds_ratio(s, s - half))


@dataclass(frozen=True)
class Plan:
    """What a study's evidence per trial buys, from a pair variance (measured by
    a calibration, or :data:`ASSUMED_PAIR_VARIANCE`)."""

    pair_variance: float
    measured: bool
    elo: float  # the difference to resolve
    score: float  # the baseline's score the Elo differences are taken at
    pairs: int  # the study's pairs per trial
    trials: int
    opponents: int
    pairs_needed: int  # per trial, to resolve ``elo``
    resolved_elo: float  # what ``pairs`` resolve
    confidence: float = CONFIDENCE

    @property
    def games(self) -> int:
        """Games the study plays at most (every trial to the end)."""
        return self.trials * self.pairs * GAMES_PER_PAIR * self.opponents

    def lines(self) -> list[str]:
        resolved = ("no finite Elo" if math.isinf(self.resolved_elo)
                    else f"+-{self.resolved_elo:.0f} Elo")
        opponents = f"{self.opponents} opponent{'s' if self.opponents != 1 else ''}"
        return [
            f"plan: {self.trials} trials x {self.pairs} pairs x {GAMES_PER_PAIR} games x "
            f"{opponents} = {self.games:,} games at most (pruned trials stop early)",
            f"plan: {self.pairs} pairs per trial resolve {resolved} ({self.confidence:.0%}); "
            f"+-{self.elo:g} Elo needs {self.pairs_needed:,} pairs per trial "
            f"(pair variance {self.pair_variance:.4f}{'' if self.measured else ', assumed'}"
            f"{'' if self.score == 0.5 else f', at the baseline score {self.score:.3f}'})",
        ]

    def to_dict(self) -> dict[str, Any]:
        return {"pair_variance": self.pair_variance, "measured": self.measured,
                "elo": self.elo, "score": self.score, "confidence": self.confidence,
                "pairs": self.pairs, "trials": self.trials, "opponents": self.opponents,
                "pairs_needed": self.pairs_needed,
                "resolved_elo": None if math.isinf(self.resolved_elo) else self.resolved_elo,
                "games": self.games}


def plan(pair_variance: float, *, pairs: int, trials: int, elo: float = DEFAULT_ELO,
         opponents: int = 1, score: float = 0.5, measured: bool = True,
         confidence: float = CONFIDENCE) -> Plan:
    """The planning arithmetic in one place (see the module docstring): the pairs
    per trial that resolve ``elo``, what the study's ``pairs`` resolve, and the
    games ``trials`` trials against ``opponents`` opponents play at most."""
    return Plan(pair_variance=pair_variance, measured=measured, elo=elo, score=score,
                pairs=pairs, trials=trials, opponents=opponents,
                pairs_needed=pairs_needed(pair_variance, elo, score, confidence),
                resolved_elo=resolved_elo(pair_variance, pairs, score, confidence),
                confidence=confidence)


# -- calibration -------------------------------------------------------------------
def game_figures(result: MatchResult) -> dict[str, float]:
    """Game-level figures of a match: the first player's score (side 0, over all
    games), the draw ratio and the mean game length in plies (opening included)."""
    stats = result.stats
    plies = [n for p in result.pairs for n in p.plies]
    return {
        "games": stats.games,
        "first_player_score": result.first_player_score,
        "draw_ratio": stats.draws / stats.games,
        "mean_plies": sum(plies) / len(plies),
    }


def pair_figures(result: MatchResult) -> dict[str, Any]:
    """What the pairs say about the noise: the match statistics, the fraction of
    even pairs, the pair and per-game variances, the per-game variance of the same
    games taken as independent, and the virtual draw ratio."""
    stats = result.stats
    scores = stats.pair_scores
    var_pair = pair_variance(scores)
    var_game = 2.0 * var_pair
    s = stats.score
    games = stats.games
    independent = (stats.wins * (1.0 - s) ** 2 + stats.draws * (0.5 - s) ** 2
                   + stats.losses * s ** 2) / games
    return {
        **stats.to_dict(),
        "even_fraction": sum(1 for x in scores if x == 0.5) / len(scores),
        "pair_variance": var_pair,
        "game_variance": var_game,
        "independent_game_variance": independent,
        "virtual_draw_ratio": 1.0 - 4.0 * var_game,
    }


@dataclass
class Calibration:
    """A calibration: its record (what the file holds) and the pairs it played."""

    record: dict[str, Any]
    vs_opponent: MatchResult
    vs_itself: MatchResult

    @property
    def plan(self) -> Plan:
        return plan_from(self.record, pairs=self.record["study_pairs"],
                         trials=self.record["study_trials"], elo=self.record["elo"],
                         opponents=self.record.get("study_opponents", 1))

    def lines(self) -> list[str]:
        """The report, as printed."""
        r = self.record
        v, me = r["vs_opponent"], r["vs_itself"]
        ll, ld, dd, wd, ww = v["pentanomial"]
        lo, hi = v["score_ci"]
        out = [
            f"vs {r['opponent']}: score {v['score']:.3f} [{lo:.3f}, {hi:.3f}]  "
            f"Elo {v['elo'] + 0.0:+.1f}  (+{v['wins']} ={v['draws']} -{v['losses']}, "
            f"{v['games']} games)",
            f"  pairs: LL {ll}, LD {ld}, DD/WL {dd}, WD {wd}, WW {ww} "
            f"({v['even_fraction']:.1%} even)",
            f"  variance: per pair {v['pair_variance']:.4f}, per game {v['game_variance']:.4f} "
            f"({v['independent_game_variance']:.4f} if the games were independent); "
            f"virtual draw ratio {v['virtual_draw_ratio']:.3f}",
            f"  games: draw ratio {v['draw_ratio']:.3f}, first player scored "
            f"{v['first_player_score']:.3f}, {v['mean_plies']:.1f} plies",
            f"vs itself: draw ratio {me['draw_ratio']:.3f}, first player scored "
            f"{me['first_player_score']:.3f}, {me['mean_plies']:.1f} plies",
            "  (every pair scores 0.5 by construction: both games share their tie-breaks, "
            "so self-play has no pair variance)",
        ]
        if r["plays_like_baseline"]:
            out.append(f"note: {r['opponent']} played every pair exactly as the baseline did "
                       "(the same results and game lengths as self-play): these pairs say "
                       "nothing about trials that differ; the plan assumes independent games "
                       f"at the measured draw ratio, pair variance {r['planning_variance']:.4f}")
        if not 1.0 - LOPSIDED <= v["score"] <= LOPSIDED:
            out.append(f"note: the baseline scores {v['score']:.3f} against {r['opponent']}: "
                       "far from even, each Elo moves the score little and a better trial "
                       "has little room; a closer opponent measures more per game")
        return out + self.plan.lines()


def plan_from(record: dict[str, Any], *, pairs: int, trials: int, elo: float = DEFAULT_ELO,
              opponents: int = 1) -> Plan:
    """The plan a calibration record implies for a study of ``trials`` x ``pairs``."""
    return plan(record["planning_variance"], pairs=pairs, trials=trials, elo=elo,
                opponents=opponents, score=record["vs_opponent"]["score"],
                measured=not record["plays_like_baseline"])


def calibration_path(sf: StudyFile) -> Path:
    """Where a study's calibration lives by default: beside the study file
    (``studies/quick/morris.toml`` -> ``studies/quick/morris.calibration.json``)."""
    path = Path(sf.path)
    return path.with_name(path.stem + CALIBRATION_SUFFIX)


def calibration_setup(sf: StudyFile) -> dict[str, Any]:
    """What a calibration was made for: the baseline, the opponent and the study's
    opening length (a calibration of another setup is stale). Not the pairs, trials
    or seed: changing those is what a calibration is for."""
    setup = {"baseline": baseline(sf).to_dict(), "opponent": sf.opponent.to_dict(),
             "opening_plies": sf.opening_plies}
    same: dict[str, Any] = json.loads(json.dumps(setup))  # as it reads back from the file
    return same


def same_engine(a: EngineConfig, b: EngineConfig) -> bool:
    """Whether two configurations play identically (names aside)."""
    def key(c: EngineConfig) -> dict[str, Any]:
        return {k: v for k, v in c.to_dict().items()
                if k not in ("name", "description", "provenance")}

    return key(a) == key(b)


def calibrate(
    sf: StudyFile,
    *,
    pairs: int = CALIBRATION_PAIRS,
    seed: int | None = None,
    opening_plies: int | None = None,
    study_openings: bool = False,
    elo: float = DEFAULT_ELO,
    jobs: int | None = None,
    runner: Any = None,
    on_pair: Callable[[PairResult], None] | None = None,
) -> Calibration:
    """Play the baseline against the study's opponent and against itself on the
    same ``pairs`` openings and measure the figures of the module docstring.

    ``runner``: a :class:`MatchRunner` or any object with its ``run(spec,
    on_pair=, openings=)`` (tests and simulations pass one that plays no games);
    default a runner of ``jobs`` workers (default the study's). The result is the
    same for every ``jobs``."""
    check_elo(elo)  # before any game
    if runner is None:
        with MatchRunner(jobs if jobs is not None else sf.jobs) as own:
            return calibrate(sf, pairs=pairs, seed=seed, opening_plies=opening_plies,
                             study_openings=study_openings, elo=elo, runner=own,
                             on_pair=on_pair)
    base = baseline(sf)
    if same_engine(base, sf.opponent):
        raise HeurtuneError(f"{sf.path}: the baseline is the opponent {sf.opponent.label}: every "
                            "pair scores 0.5 by construction, so there is nothing to measure")
    openings, plies, seed = draw_openings(sf, pairs, seed, opening_plies, study_openings)
    twin = baseline(sf, name="baseline (second copy)")  # its own engine object in workers
    vs_opponent = play(runner, base, sf.opponent, seed, plies, openings, on_pair)
    vs_itself = play(runner, base, twin, seed, plies, openings, on_pair)
    figures = {**pair_figures(vs_opponent), **game_figures(vs_opponent)}
    # the opponent plays like the baseline (a family at its defaults is the opponent's
    # heuristic): every pair even by construction, a variance that says nothing of trials
    alike = ([(p.a_scores, p.plies) for p in vs_opponent.pairs]
             == [(p.a_scores, p.plies) for p in vs_itself.pairs])
    record = {
        "format": FORMAT,
        "heurtune_version": __version__,
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "study": sf.path,
        "study_name": sf.name,
        "setup": calibration_setup(sf),
        # a pool is calibrated against its first opponent (its plan counts them all)
        "opponent": (sf.opponent.label if len(sf.pool) == 1 else
                     f"{sf.opponent.label} (the first of a pool of {len(sf.pool)})"),
        "study_opponents": len(sf.pool),
        "pairs": len(openings),
        "seed": seed,
        "opening_plies": plies,
        "openings": "study" if study_openings else "fresh",
        "elo": elo,
        "study_pairs": sf.pairs,
        "study_trials": sf.trials,
        "vs_opponent": figures,
        "vs_itself": game_figures(vs_itself),
        "plays_like_baseline": alike,
        "planning_variance": (independent_pair_variance(figures["draw_ratio"]) if alike
                              else figures["pair_variance"]),
    }
    calibration = Calibration(record, vs_opponent, vs_itself)
    record["plan"] = calibration.plan.to_dict()
    return calibration


def save_calibration(calibration: Calibration, path: str | os.PathLike[str]) -> None:
    """Write the record as JSON, atomically (check the path with
    :func:`heurtune.tomlio.check_writable` before playing)."""
    write_atomic(path, json.dumps(calibration.record, indent=2) + "\n")


def load_calibration(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A calibration record; a missing or malformed file is a :class:`HeurtuneError`."""
    try:
        record: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HeurtuneError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HeurtuneError(f"{path}: cannot read a calibration: {exc}") from None
    ok = (isinstance(record, dict) and record.get("format") == FORMAT
          and isinstance(record.get("vs_opponent"), dict)
          and isinstance(record.get("planning_variance"), (int, float))
          and isinstance(record.get("plays_like_baseline"), bool)
          and isinstance(record["vs_opponent"].get("score"), (int, float)))
    if not ok:
        raise HeurtuneError(f"{path}: not a heurtune calibration (format {FORMAT})")
    return record


def study_estimate(sf: StudyFile, trials: int | None = None, elo: float = DEFAULT_ELO,
                   ) -> tuple[Plan, list[str]]:
    """The plan ``heurtune tune`` prints before it starts, with a line saying where
    its variance comes from: the calibration beside the study file when it was
    made for this setup, else :data:`ASSUMED_PAIR_VARIANCE` (named)."""
    trials = sf.trials if trials is None else trials
    if trials < 1:
        raise HeurtuneError(f"trials must be at least 1, got {trials}")
    path = calibration_path(sf)
    why = f"no calibration at {path}"
    if path.exists():
        try:
            record = load_calibration(path)
        except HeurtuneError as exc:
            why = f"{exc}; ignored"
        else:
            if record.get("setup") == calibration_setup(sf):
                how = ("assumed from the draw ratio measured by" if record["plays_like_baseline"]
                       else "measured by")
                note = (f"plan: pair variance {how} {path} ({record.get('pairs')} pairs "
                        f"vs {record.get('opponent')}, {str(record.get('date', 'undated'))[:10]})")
                return plan_from(record, pairs=sf.pairs, trials=trials, elo=elo,
                                 opponents=len(sf.pool)), [note]
            stored: dict[str, Any] = (record["setup"] if isinstance(record.get("setup"), dict)
                                      else {})
            current = calibration_setup(sf)
            diff = sorted(k for k in set(stored) | set(current) if stored.get(k) != current.get(k))
            why = f"{path} was made for another setup ({', '.join(diff)} differ); ignored"
    note = (f"plan: {why}; assuming pair variance {ASSUMED_PAIR_VARIANCE} (independent "
            f"games without draws); `heurtune calibrate {sf.path}` measures it")
    return plan(ASSUMED_PAIR_VARIANCE, pairs=sf.pairs, trials=trials, elo=elo,
                opponents=len(sf.pool), measured=False), [note]
