"""Which optimiser finds the better weights on REAL games? benchmarks/oracle.py on real play.

    python benchmarks/real_optimisers.py --games isolation,morris \\
        --samplers duels,spsa,multivariate-tpe --seeds 3 --budgets 8000,16000,32000 --workers 2 \\
        --out research/optimisers/real.json --plot research/optimisers/real.png
    python benchmarks/real_optimisers.py --plot-from A.json,B.json --plot FILE.png   # merge, re-plot
    python benchmarks/real_optimisers.py --plot-from A.json --paired duels,duels-edge-prior
    python benchmarks/real_optimisers.py --games isolation --samplers spsa,multivariate-tpe \\
        --seeds 1 --budgets 200,400 --pairs 8 --confirm-pairs 20 --out /tmp/r.json   # a quick look

benchmarks/oracle.py runs real heurtune studies whose games a known Elo landscape
decides; this script runs the same studies on real games. Per game setup
(:data:`SETUPS`), sampler and seed it writes a fine-tuning study file
(``heurtune.tomlio.write_toml``): the setup's tunable heuristic at a fixed-depth
alpha-beta search, a ``[params]`` box over a few influential parameters (every
other parameter pinned at its default), and as the opponent the baseline itself (an
engine file: the heuristic's defaults at the same search), with the sampler and the
pairs per trial of benchmarks/oracle.py's ``CONFIGS`` (duels 16, spsa 32,
multivariate-tpe 250) and the study-file defaults otherwise (checkpoint pruner,
answer ``auto``, symmetry-distinct openings drawn from the study seed, which is the
run's seed). ``heurtune.tuning.tune`` runs it on the in-memory storage with a
:class:`heurtune.match.MatchRunner` of one job (games played in the run's own
process, on one core) until the games spent (the finished trials' games, the
baseline trial's included, read from their user attributes) reach the largest
budget. At every budget (nested in that one run) it asks the study for its answers
(``heurtune.tuning.after.answers.study_answers``, what ``export`` and ``confirm``
use) from the trials finished within that many games: the one ``export`` writes
by default (answer ``auto``: the duel sampler's own answer for duels and spsa,
otherwise the best trial), and also ``best``, ``top-mean`` and ``model`` where
the study offers them (not for duels and spsa, whose only match trial is the
baseline).

Every distinct answer is then confirmed against the baseline on one fixed set of
opening pairs per game (default 500 pairs, 1,000 games), the same for all
samplers, seeds and budgets: symmetry-distinct openings (``MatchSpec(by_symmetry=
True)``) drawn from a seed of their own (``--confirm-seed``), one ply longer than
the tuning openings (Isolation 4 plies against 3, Morris 5 against 4), so that no
confirmation opening is a tuning opening of any run. Confirmations are cached by
parameter values (and ``--cache FILE`` keeps them across commands), so an answer
is never replayed; the baseline itself is confirmed too (it scores exactly 0.5
against itself: both sides play the same deterministic moves), and so is the
setup's reference point, the shipped exports' values of the box's parameters
(drawn as a dashed line: roughly how much the box holds). Reported per answer:
the score over the confirmation pairs with its 95% interval
(``heurtune.match.stats.score_interval``), its Elo and the Elo of the interval's
ends (the gain over the baseline, which is the opponent), the paired difference
from the baseline's own pairs on the same openings
(``heurtune.match.stats.difference_interval``, a t interval as ``confirm``
computes), draws and the pentanomial.

Output: ``--out FILE.json`` (every record: setup, sampler, seed, budget, games
spent, answer, whether it is the default answer, its parameters and its
confirmation; per run its wall seconds and trials), ``--plot FILE.png`` (per game
one panel: the default answer's confirmed Elo gain against games spent, log x,
a line through each sampler's median over the seeds, every seed a faint point,
a zero line) and a table on stderr. ``--plot-from A.json,B.json`` merges the records
of several ``--out`` files (e.g. runs of different samplers made at different
times) for the table and the plot, without running anything; ``--rename OLD=NEW,...``
shows samplers of those records under other names (two runs of one sampler from
different days side by side). ``--paired BASE,OTHER``
(two samplers of the records) prints OTHER's confirmed Elo minus BASE's, the default
answers matched on game, seed and budget, with its standard error, the paired t test's
p and both means per game and budget, as one JSON line.

``--workers N`` (default 2) runs the independent (setup, sampler, seed) runs and
then the confirmations in a pool of N processes, each on one core with its games
played in-process. Every run takes its seed, so the same command reproduces
(games are deterministic: alpha-beta with ``root_ties = "first"``).
"""

from __future__ import annotations

import os

# one core per worker: numpy's BLAS threads off before numpy loads
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import datetime
import json
import math
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from functools import cache
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import ttest_rel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oracle import CONFIGS, FULL_EXTRA, Config, versions_differ  # noqa: E402  (benchmarks/oracle.py: the samplers' settings)

from heurtune.engine.config import EngineConfig, SearchSettings  # noqa: E402
from heurtune.engine.heuristic import get_heuristic  # noqa: E402
from heurtune.match import MatchRunner, MatchSpec, stats_of  # noqa: E402
from heurtune.match.stats import difference_interval, elo  # noqa: E402
from heurtune.tomlio import write_toml  # noqa: E402
from heurtune.tuning import tune  # noqa: E402
from heurtune.tuning.after.answers import default_answer, study_answers  # noqa: E402
from heurtune.tuning.study import FINISHED, load_study, open_storage  # noqa: E402
from heurtune.tuning.study.environment import environment  # noqa: E402
from heurtune.tuning.study.schema import TrialResult  # noqa: E402
from heurtune.tuning.studyfile import load_study_file  # noqa: E402

CONFIRM_PAIRS = 500
CONFIRM_SEED = 20261124
BUDGETS = (8000, 16000, 32000)
STUDY = "real"
EXTRA_ANSWERS = ("best", "top-mean", "model")  # recorded beside the default where offered


@dataclass(frozen=True)
class Setup:
    """One game's fine-tuning study: heuristic, search depth, the box searched
    (every other parameter pinned at its default), opening plies of the tuning
    and of the confirmation openings."""

    game: str
    heuristic: str
    depth: int
    box: Mapping[str, tuple[float, float]]
    opening_plies: int
    confirm_plies: int
    note: str = ""
    ms_per_game: float = 1.0  # roughly (this machine): the longest runs start first
    # a reference point in the box, confirmed beside the answers: the values the
    # shipped exports found for the box's parameters (how much there is to gain)
    reference: Mapping[str, float] = field(default_factory=dict)
    rules: Mapping[str, Any] = field(default_factory=dict)
    # the baseline's values where they are not the heuristic's defaults (a fine-tuning
    # box around a tuned point): the opponent, the study's first trial, every pinned
    # parameter's value
    start: Mapping[str, float] = field(default_factory=dict)

    def search(self) -> SearchSettings:
        return SearchSettings.from_dict({"algorithm": "alphabeta", "depth": self.depth})

    def baseline(self) -> EngineConfig:
        """The heuristic at its defaults (and ``start``): the opponent, and the study's
        first trial."""
        base = EngineConfig(game=self.game, heuristic=self.heuristic, search=self.search(),
                            rules=dict(self.rules), name="baseline")
        return base.with_params(dict(self.start)) if self.start else base

    def engine(self, params: Mapping[str, Any], name: str = "answer") -> EngineConfig:
        return self.baseline().with_params(dict(params), name=name)


# the exported morris-phased optimum (studies/exported/morris-phased.toml): each Morris
# box's reference point
MORRIS_PHASED_EXPORTED = {
    "move_stones": 8.392776713409274, "move_mills": 4.022208213751223,
    "move_possible_mills": 1.0388258325035948, "move_open_mills": 8.989078430537287,
    "move_double_mills": 5.805781562745398, "move_blocked": 4.102655420413227,
    "move_mobility": 0.7358293032935845, "place_mills": 8.684255449182261}
MORRIS_FIVE = ("move_stones", "move_mills", "move_possible_mills", "move_open_mills",
               "move_blocked")


def morris_setup(names: tuple[str, ...], note: str, ms_per_game: float = 3.0) -> Setup:
    """Morris ``phased`` at depth 2, these weights searched over their whole ranges
    (which hold the defaults and the exported optimum's values), the rest pinned."""
    space = {p.name: p for p in get_heuristic("morris", "phased").space.params}
    return Setup("morris", "phased", 2,
                 {n: (float(space[n].low), float(space[n].high)) for n in names},
                 opening_plies=4, confirm_plies=5, ms_per_game=ms_per_game, note=note,
                 reference={n: MORRIS_PHASED_EXPORTED[n] for n in names})


def isolation_fine(start: Mapping[str, float], note: str) -> Setup:
    """Isolation ``weighted`` at depth 3, `isolation`'s five weights in ranges half as
    wide (``opp2``'s as wide) around a tuned point, from the baseline ``start``;
    confirmed on 5-ply openings, enough distinct ones for the many pairs that resolve a
    few Elo."""
    return Setup("isolation", "weighted", 3,
                 {"own_start": (1.0, 3.0), "opp_start": (0.25, 1.25), "opp_end": (0.75, 1.75),
                  "own2": (0.1, 0.6), "opp2": (0.2, 0.7)},
                 opening_plies=3, confirm_plies=5, note=note, start=start)


def morris_fine(start: Mapping[str, float], note: str) -> Setup:
    """Morris ``phased`` at depth 2, `morris`'s five weights from the baseline ``start``,
    each in a range half as wide as its declared one, centred on ``start`` and cut at
    the declared range's ends."""
    space = {p.name: p for p in get_heuristic("morris", "phased").space.params}
    box = {}
    for n in MORRIS_FIVE:
        low, high = float(space[n].low), float(space[n].high)
        quarter = (high - low) / 4
        box[n] = (round(max(low, start[n] - quarter), 6), round(min(high, start[n] + quarter), 6))
    return Setup("morris", "phased", 2, box, opening_plies=4, confirm_plies=5,
                 ms_per_game=3.5, note=note, start=start)


SETUPS: dict[str, Setup] = {
    # The mobility weights of `weighted` (AB_Improved at its defaults: own - opponent
    # moves). The box holds the defaults (1, 1, 1, 0, 0) and what the exported
    # isolation studies found (own_start 2.75-4, opp_start 0-0.75, opp_end
    # 0.75-1.25, own2 0.7-0.85, opp2 0.15-0.2). own_end (default 1, exported
    # 1-1.25), the centre, distance and the territory / partition features stay at
    # their defaults: `territory = 4` alone is worth about +190 Elo at depth 3, a
    # broad search's landscape, not a fine-tuning one.
    "isolation": Setup(
        "isolation", "weighted", 3,
        {"own_start": (0.0, 4.0), "opp_start": (0.0, 2.0), "opp_end": (0.0, 2.0),
         "own2": (0.0, 1.0), "opp2": (0.0, 0.5)},
        opening_plies=3, confirm_plies=4,
        note="weighted's mobility weights; territory/partition/centre pinned at 0",
        reference={"own_start": 2.75, "opp_start": 0.75, "opp_end": 1.25, "own2": 0.7,
                   "opp2": 0.15}),  # studies/exported/isolation-refine.toml
    # (not in the default command) fine-tuning a tuned point: `isolation`'s five weights
    # in ranges half as wide as `isolation`'s (opp2's as wide), around a good answer
    # (multivariate TPE's seed-4 answer at 32,000 games, +94.7 [+73, +117] Elo over
    # the defaults on the confirmation openings, every value inside the box), which is
    # the baseline (research/optimisers-log.md, "Fine-tuning a real tuned point")
    "isolation-fine": isolation_fine(
        {"own_start": 2.0, "opp_start": 0.75, "opp_end": 1.25, "own2": 0.35, "opp2": 0.45},
        "a fine box around a tuned point of `isolation` (its baseline)"),
    # (not in the default command) the same box from a worse baseline: `own_start` and
    # `own2` moved toward their box's other ends (-9.4 [-16, -3] Elo against
    # `isolation-fine`'s baseline, 8,000 games), so that the box's best lies about
    # 20 Elo above it: the oracle's `far` case on real play
    "isolation-fine-far": isolation_fine(
        {"own_start": 2.75, "opp_start": 0.75, "opp_end": 1.25, "own2": 0.15, "opp2": 0.45},
        "isolation-fine's box from a worse baseline"),
    # (not in the default command) `isolation`'s five and three more of `weighted`'s
    # fine-tuning weights: own_end (default 1, exported 1), centrality and distance
    # (defaults 0, exported 0.7 and -0.05; their whole ranges): the narrowing default
    # on an Isolation box of 8 parameters (research/optimisers-log.md, "Narrowing on
    # an Isolation box of eight parameters")
    "isolation-eight": Setup(
        "isolation", "weighted", 3,
        {"own_start": (0.0, 4.0), "own_end": (0.0, 2.0), "opp_start": (0.0, 2.0),
         "opp_end": (0.0, 2.0), "own2": (0.0, 1.0), "opp2": (0.0, 0.5),
         "centrality": (-2.0, 2.0), "distance": (-1.0, 1.0)},
        opening_plies=3, confirm_plies=4,
        note="eight of weighted's fine-tuning weights; territory/partition pinned at 0",
        reference={"own_start": 2.75, "own_end": 1.0, "opp_start": 0.75, "opp_end": 1.25,
                   "own2": 0.7, "opp2": 0.15, "centrality": 0.7,
                   "distance": -0.05}),  # studies/exported/isolation-refine.toml
    # The moving-phase weights of `phased` that matter most at depth 2 (measured one
    # at a time from the defaults, 300 pairs each: move_open_mills 9 +166 Elo,
    # move_blocked 4 +135, move_possible_mills 5 +94, move_mills 1 +90,
    # move_stones 8.4 +13; the placing weights' exported values change little or
    # lose). The box holds the defaults (1, 4, 2, 0, 0) and the exported
    # morris-phased optimum's values of these five (8.4, 4.0, 1.0, 9.0, 4.1).
    "morris": morris_setup(MORRIS_FIVE, "phased's influential moving-phase weights; the "
                                        "rest pinned at the defaults"),
    # (not in the default command) six of phased's weights, for the threshold of
    # `edge_prior`'s default (research/optimisers-log.md, "Six parameters: the rule"):
    # the five of `morris` and `move_double_mills`
    "morris-six": morris_setup(MORRIS_FIVE + ("move_double_mills",),
                               "six of phased's moving-phase weights"),
    # (not in the default command) seven of phased's weights, one below the threshold
    # of `edge_prior`'s default (research/optimisers-log.md, "Checks of the default
    # below 8 parameters"): the moving phase's seven
    "morris-seven": morris_setup(MORRIS_FIVE + ("move_double_mills", "move_mobility"),
                                 "the seven moving-phase weights of phased"),
    # (not in the default command) eight of phased's weights, for the default of
    # `edge_prior` by the number of parameters (research/optimisers-log.md, "A default
    # by the number of parameters"): the five above, the two other moving-phase
    # weights and the placing phase's mills
    "morris-eight": morris_setup(
        MORRIS_FIVE + ("move_double_mills", "move_mobility", "place_mills"),
        "eight of phased's weights: the moving phase's seven and the placing mills"),
    # (not in the default command) fine-tuning a tuned Morris point: around
    # multivariate TPE's seed-2 answer on `morris` at 32,000 games (+290.7 [+269, +314]
    # Elo over the defaults), rounded, which is the baseline (research/optimisers-log.md,
    # "Fine-tuning a real tuned point: Morris")
    "morris-fine": morris_fine(
        {"move_stones": 8.75, "move_mills": 4.5, "move_possible_mills": 1.0,
         "move_open_mills": 7.0, "move_blocked": 1.75},
        "a fine box around a tuned point of `morris` (its baseline)"),
    # (not in the default command) a second tuned Morris point, the same way: TPE's
    # seed-1 answer on `morris` at 32,000 games (+289.4 Elo over the defaults), rounded,
    # whose `move_blocked` (0.95) lies on the slope of morris-fine's cliff (2026-11-28)
    "morris-fine-2": morris_fine(
        {"move_stones": 9.5, "move_mills": 4.4, "move_possible_mills": 0.95,
         "move_open_mills": 7.1, "move_blocked": 0.95},
        "a fine box around a second tuned point of `morris` (its baseline)"),
    # (not in the default command) a third tuned Morris point, the same way: TPE's
    # seed-0 answer on `morris` at 32,000 games (+282.3 Elo over the defaults), rounded,
    # in another region (move_mills 9.8, move_blocked 3.1): the fifth real fine box, on
    # which screen's lopsided reading was tested (research/optimisers-log.md, "`screen`
    # names a cliff beside the baseline")
    "morris-fine-3": morris_fine(
        {"move_stones": 8.1, "move_mills": 9.8, "move_possible_mills": 4.15,
         "move_open_mills": 7.7, "move_blocked": 3.1},
        "a fine box around a third tuned point of `morris` (its baseline)"),
    # (not in the default command) the seed's own features in the moving phase and
    # mobility: a smaller gain (tens of Elo, like the isolation box's)
    "morris-seedfeatures": morris_setup(
        ("move_stones", "move_mills", "move_possible_mills", "move_mobility"),
        "phased's seed features in the moving phase and mobility", ms_per_game=3.5),
}


def config_of(name: str, pairs: int = 0) -> Config:
    """benchmarks/oracle.py's configuration of a sampler, its ``--full`` ones included
    (``pairs``: another trial size)."""
    found = next((c for c in CONFIGS + FULL_EXTRA if c.name == name), None)
    if found is None:
        raise ValueError(f"unknown sampler {name!r}: one of "
                         f"{[c.name for c in CONFIGS + FULL_EXTRA]}")
    return Config(found.name, found.sampler, pairs or found.pairs, found.budget,
                  dict(found.options))


# -- one tuning run ----------------------------------------------------------------
def write_study(folder: Path, setup: Setup, cfg: Config, seed: int, budget: int) -> Path:
    """The study file (and the baseline's engine file beside it, its opponent)."""
    base = setup.baseline()
    engine_file = folder / "baseline.toml"
    write_toml(engine_file, {"game": setup.game, "heuristic": setup.heuristic,
                             "name": "baseline", "params": dict(base.params),
                             "search": {"algorithm": "alphabeta", "depth": setup.depth},
                             "rules": dict(setup.rules)})
    params: dict[str, Any] = {}
    for p in base.heuristic_obj.space:
        if p.name in setup.box:
            low, high = setup.box[p.name]
            params[p.name] = {"low": low, "high": high}
        else:
            params[p.name] = base.params[p.name]
    # SPSA's classic schedule decays over the pairs the study plans (as oracle.py)
    trials = budget // (2 * cfg.pairs) + 1 if cfg.sampler == "spsa" else 10_000_000
    data: dict[str, Any] = {
        "study": {"name": STUDY, "game": setup.game, "opponent": engine_file.name,
                  "trials": trials, "pairs": cfg.pairs, "seed": seed, "jobs": 1,
                  "opening_plies": setup.opening_plies,
                  # the study's baseline (its first trial; where a duel sampler starts
                  # and what its held-out duels play) is the opponent's point, not the
                  # box's defaults
                  **({"start_from": engine_file.name} if setup.start else {})},
        "engine": {"heuristic": setup.heuristic,
                   "search": {"algorithm": "alphabeta", "depth": setup.depth},
                   **({"rules": dict(setup.rules)} if setup.rules else {})},
        "params": params,
        "sampler": {"kind": cfg.sampler, **cfg.file_options()},  # constants: run_one
    }
    path = folder / f"{setup.game}-{cfg.name}-{seed}.toml"
    write_toml(path, data)
    return path


def run_one(setup_name: str, sampler: str, seed: int, budgets: Sequence[int],
            pairs: int = 0) -> dict[str, Any]:
    """One tuning run: the study's answers at every budget (games spent)."""
    setup = SETUPS[setup_name]
    cfg = config_of(sampler, pairs)
    marks = sorted(budgets)
    t0 = time.time()
    tmp = tempfile.TemporaryDirectory()
    sf = load_study_file(write_study(Path(tmp.name), setup, cfg, seed, marks[-1]))
    sf = replace(sf, sampler=cfg.sampler_spec())
    url = f"memory:{setup_name}-{sampler}-{seed}-{time.monotonic_ns()}"
    checkpoints: list[dict[str, Any]] = []
    state: dict[str, Any] = {"study": None, "spent": 0}

    def spent(trials: Iterable[Any]) -> list[tuple[Any, int]]:
        """The finished trials in order, each with the games spent up to it."""
        out, total = [], 0
        for t in sorted((t for t in trials if t.state in FINISHED), key=lambda t: t.number):
            total += TrialResult.of(t.user_attrs).games
            out.append((t, total))
        return out

    def on_trial(_trial: Any) -> None:
        if state["study"] is None:
            state["study"] = load_study(open_storage(url), STUDY)
        study = state["study"]
        trials = study.get_trials(deepcopy=False)
        cum = spent(trials)
        state["spent"] = cum[-1][1] if cum else 0
        while len(checkpoints) < len(marks) and state["spent"] >= marks[len(checkpoints)]:
            mark = marks[len(checkpoints)]
            # what the study knew within the budget: the trials finished within it
            known = [t for t, g in cum if g <= mark]
            games = max((g for _t, g in cum if g <= mark), default=0)
            answers = study_answers(study, sf.base, known)
            default = None
            if answers:  # what export would write, the answers listed or one left out
                found = default_answer(study, sf.base, known)  # (a withdrawn duels answer)
                default = next((a for a in answers if a.name == found.name
                                and a.params == found.params), None)
                if default is None:
                    default = found
                    answers = [found, *answers]
            recorded = []
            for a in answers:
                if a is not default and (a.name not in EXTRA_ANSWERS or sf.sampler.duels):
                    continue  # (a duel sampler's best match trial is the baseline)
                detail = {k: v for k, v in a.detail.items()
                          if isinstance(v, (int, float, str, bool, list, dict)) or v is None}
                recorded.append({"answer": a.name, "default": a is default,
                                 "params": {k: v for k, v in a.params.items()},
                                 "trial": a.trial, "detail": detail})
            if default is None:  # no trial finished yet: the baseline
                recorded.insert(0, {"answer": "baseline", "default": True,
                                    "params": {k: sf.base.params[k] for k in setup.box},
                                    "trial": None, "detail": {}})
            checkpoints.append({"budget": mark, "games": games, "trials": len(known),
                                "answers": recorded})

    with MatchRunner(1) as runner, tmp:
        tune(sf, storage_url=url, runner=runner, on_trial=on_trial,
             until=lambda _study: len(checkpoints) >= len(marks))
    study = load_study(open_storage(url), STUDY)
    finished = [t for t in study.get_trials(deepcopy=False) if t.state in FINISHED]
    results = [TrialResult.of(t.user_attrs) for t in finished]
    games = sum(r.games for r in results)
    draws = sum(r.draws for r in results)
    return {"setup": setup_name, "game": setup.game, "sampler": sampler,
            "sampler_kind": cfg.sampler, "pairs_per_trial": cfg.pairs,
            "options": cfg.options,
            "sampler_options": cfg.sampler_options(),
            "seed": seed, "trials": len(finished),
            "pruned": sum(1 for t in finished if t.state.name == "PRUNED"),
            "games": games, "tuning_draw_ratio": round(draws / games, 4) if games else None,
            "wall_seconds": round(time.time() - t0, 1), "checkpoints": checkpoints}


# -- confirmation ---------------------------------------------------------------------
def params_key(setup_name: str, params: Mapping[str, Any]) -> str:
    """The cache key: the setup's game, heuristic, depth and the full parameters."""
    setup = SETUPS[setup_name]
    full = setup.engine(params).params
    return json.dumps([setup.game, setup.heuristic, setup.depth, dict(setup.rules),
                       sorted((k, repr(v)) for k, v in full.items())])


@cache
def confirm_openings(setup_name: str, pairs: int, seed: int) -> tuple[tuple[int, ...], ...]:
    setup = SETUPS[setup_name]
    base = setup.baseline()
    spec = MatchSpec(base, base, pairs, seed, setup.confirm_plies, by_symmetry=True)
    return tuple(spec.openings())


def confirm_one(setup_name: str, params: Mapping[str, Any], pairs: int,
                seed: int) -> dict[str, Any]:
    """The answer against the baseline on the fixed confirmation openings."""
    setup = SETUPS[setup_name]
    ops = confirm_openings(setup_name, pairs, seed)
    spec = MatchSpec(setup.engine(params), setup.baseline(), pairs, seed,
                     setup.confirm_plies, by_symmetry=True)
    t0 = time.time()
    with MatchRunner(1) as runner:
        played = sorted(runner.iter_pairs(spec, list(ops)), key=lambda p: p.index)
    st = stats_of(played)
    lo, hi = st.score_ci
    return {"games": st.games, "wins": st.wins, "draws": st.draws, "losses": st.losses,
            "score": st.score, "score_ci": [lo, hi], "elo": st.elo,
            "elo_ci": [elo(lo, st.games), elo(hi, st.games)],
            "pentanomial": list(st.pentanomial), "pair_scores": [p.score for p in played],
            "seconds": round(time.time() - t0, 2)}


def paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% t interval of the pair-by-pair difference (as ``confirm``)."""
    return difference_interval([x - y for x, y in zip(a, b, strict=True)])


def pair_variance_plain(scores: Sequence[float]) -> float:
    return float(np.var(scores, ddof=1)) if len(scores) > 1 else 0.0


# -- the benchmark ----------------------------------------------------------------------
def checked(args: argparse.Namespace) -> tuple[list[str], list[str], list[int]]:
    """The setups, samplers and budgets asked for (ValueError: which is unknown or
    malformed)."""
    setups = [s for s in args.games.split(",") if s]
    samplers = [s for s in args.samplers.split(",") if s]
    for s in setups:
        if s not in SETUPS:
            raise ValueError(f"unknown game setup {s!r}: one of {sorted(SETUPS)}")
    for s in samplers:
        config_of(s)
    try:
        budgets = sorted(int(b) for b in args.budgets.split(",") if b)
    except ValueError:
        raise ValueError(f"--budgets {args.budgets!r}: not comma-separated whole numbers of "
                         "games") from None
    if not setups or not samplers or not budgets or budgets[0] < 1:
        raise ValueError("give at least one game setup, one sampler and budgets of at "
                         "least 1 game")
    return setups, samplers, budgets


def run_all(args: argparse.Namespace, setups: Sequence[str], samplers: Sequence[str],
            budgets: Sequence[int]) -> dict[str, Any]:
    """Every run and confirmation of ``setups`` x ``samplers`` x seeds, read at
    ``budgets`` (as :func:`checked` gives them), and the records."""
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    cache: dict[str, dict[str, Any]] = {}
    if args.cache and Path(args.cache).exists():
        stored = json.loads(Path(args.cache).read_text())
        if stored.get("pairs") == args.confirm_pairs and stored.get("seed") == args.confirm_seed:
            cache = stored["results"]
    jobs = [(g, s, seed) for g in setups for s in samplers for seed in seeds]
    jobs.sort(key=lambda j: -SETUPS[j[0]].ms_per_game)  # the longest first (stable otherwise)
    runs: list[dict[str, Any]] = []
    pending: dict[Future[Any], tuple[str, Any]] = {}
    waiting: dict[str, Future[Any]] = {}
    t0 = time.time()
    ctx = get_context("spawn")

    def want_confirm(pool: ProcessPoolExecutor, setup_name: str,
                     params: Mapping[str, Any]) -> None:
        key = params_key(setup_name, params)
        if key in cache or key in waiting:
            return
        fut = pool.submit(confirm_one, setup_name, dict(params), args.confirm_pairs,
                          args.confirm_seed)
        waiting[key] = fut
        pending[fut] = ("confirm", key)

    with ProcessPoolExecutor(max_workers=args.workers, mp_context=ctx) as pool:
        for g, s, seed in jobs:
            fut = pool.submit(run_one, g, s, seed, budgets, args.pairs)
            pending[fut] = ("run", (g, s, seed))
        for g in setups:  # the baseline's own pairs: the reference of paired differences
            want_confirm(pool, g, {})
            if SETUPS[g].reference:
                want_confirm(pool, g, SETUPS[g].reference)
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for fut in done:
                kind, what = pending.pop(fut)
                result = fut.result()
                if kind == "run":
                    runs.append(result)
                    print(f"[{time.time() - t0:6.0f} s] run {what[0]} {what[1]} seed {what[2]}: "
                          f"{result['trials']} trials, {result['games']} games, "
                          f"{result['wall_seconds']:.0f} s", file=sys.stderr, flush=True)
                    for cp in result["checkpoints"]:
                        for a in cp["answers"]:
                            want_confirm(pool, result["setup"], a["params"])
                else:
                    cache[what] = result
                    waiting.pop(what, None)
    if args.cache:
        Path(args.cache).parent.mkdir(parents=True, exist_ok=True)
        Path(args.cache).write_text(json.dumps({"pairs": args.confirm_pairs,
                                                "seed": args.confirm_seed, "results": cache}))
    runs.sort(key=lambda r: (setups.index(r["setup"]), samplers.index(r["sampler"]), r["seed"]))
    records: list[dict[str, Any]] = []
    baselines: dict[str, Any] = {}
    references: dict[str, Any] = {}
    for g in setups:
        b = cache[params_key(g, {})]
        baselines[g] = {k: v for k, v in b.items() if k != "pair_scores"} | {
            "pair_variance": pair_variance_plain(b["pair_scores"])}
        if SETUPS[g].reference:
            c = cache[params_key(g, SETUPS[g].reference)]
            references[g] = {"params": dict(SETUPS[g].reference)} | {
                k: v for k, v in c.items() if k != "pair_scores"} | {
                "pair_variance": pair_variance_plain(c["pair_scores"])}
    for r in runs:
        base_pairs = cache[params_key(r["setup"], {})]["pair_scores"]
        base_params = SETUPS[r["setup"]].baseline().params
        for cp in r["checkpoints"]:
            for a in cp["answers"]:
                c = cache[params_key(r["setup"], a["params"])]
                d, dlo, dhi = paired(c["pair_scores"], base_pairs)
                records.append({
                    "setup": r["setup"], "game": r["game"], "sampler": r["sampler"],
                    "seed": r["seed"], "budget": cp["budget"], "games": cp["games"],
                    "trials": cp["trials"], "answer": a["answer"], "default": a["default"],
                    "params": a["params"], "trial": a["trial"],
                    "is_baseline": all(a["params"][k] == base_params[k] for k in a["params"]),
                    "detail": a["detail"],
                    "confirmed": {k: v for k, v in c.items()
                                  if k not in ("pair_scores", "seconds")}
                    | {"diff_vs_baseline": d, "diff_vs_baseline_ci": [dlo, dhi],
                       "pair_variance": pair_variance_plain(c["pair_scores"])},
                    "run_wall_seconds": r["wall_seconds"]})
    return {
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.time() - t0, 1),
        # a duels study reproduces only on the same libraries and OpenBLAS kernel
        "versions": environment(),
        "settings": {"games": setups, "samplers": samplers, "seeds": seeds, "budgets": budgets,
                     "workers": args.workers, "pairs_override": args.pairs or None,
                     "confirm_pairs": args.confirm_pairs, "confirm_seed": args.confirm_seed},
        "setups": {g: {"game": SETUPS[g].game, "heuristic": SETUPS[g].heuristic,
                       "depth": SETUPS[g].depth, "box": {k: list(v) for k, v in
                                                         SETUPS[g].box.items()},
                       "opening_plies": SETUPS[g].opening_plies,
                       "confirm_plies": SETUPS[g].confirm_plies, "note": SETUPS[g].note,
                       "defaults": {k: SETUPS[g].baseline().params[k] for k in SETUPS[g].box}}
                   for g in setups},
        "baseline_confirmed": baselines,
        "reference_confirmed": references,
        "runs": [{k: v for k, v in r.items() if k != "checkpoints"}
                 | {"checkpoints": [{k: v for k, v in cp.items() if k != "answers"}
                                    for cp in r["checkpoints"]]} for r in runs],
        "records": records,
    }


# -- table and plot ---------------------------------------------------------------------
def merge(paths: Sequence[str]) -> dict[str, Any]:
    """The records (and setups, baselines, runs) of several --out files, in one."""
    out: dict[str, Any] = {"sources": list(paths), "setups": {}, "baseline_confirmed": {},
                           "reference_confirmed": {}, "runs": [], "records": [],
                           "versions": {}}
    for p in paths:
        data = json.loads(Path(p).read_text())
        out["versions"][p] = data.get("versions")
        out["setups"].update(data["setups"])
        out["baseline_confirmed"].update(data["baseline_confirmed"])
        out["reference_confirmed"].update(data.get("reference_confirmed", {}))
        out["runs"] += data["runs"]
        out["records"] += data["records"]
    return out


def renamed(data: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``data`` with its samplers renamed (``names``: old to new) in the records and runs:
    two runs of one sampler from different days shown side by side, or a configuration's
    name shown as what it now is. Raises ValueError for a name no record holds, or a new
    name another sampler of the records already has."""
    held = {r["sampler"] for r in data["records"]}
    for old, new in names.items():
        if old not in held:
            raise ValueError(f"--rename {old}={new}: no record of a sampler {old!r} "
                             f"(the records hold {sorted(held)})")
        if new in held - set(names):
            raise ValueError(f"--rename {old}={new}: the records already hold a sampler "
                             f"{new!r}")
    out = dict(data)
    out["records"] = [{**r, "sampler": names.get(r["sampler"], r["sampler"])}
                      for r in data["records"]]
    out["runs"] = [{**r, "sampler": names.get(r["sampler"], r["sampler"])}
                   for r in data["runs"]]
    return out


def paired_samplers(data: Mapping[str, Any], base: str, other: str) -> dict[str, Any]:
    """``other``'s confirmed Elo minus ``base``'s, default answers matched on setup,
    seed and budget: the mean difference with its standard error, the paired t test's
    two-sided p, and per setup and budget both means. Raises ValueError where the two
    share no (setup, seed, budget)."""
    def of(name: str) -> dict[tuple[str, int, int], float]:
        return {(r["setup"], r["seed"], r["budget"]): float(r["confirmed"]["elo"])
                for r in data["records"] if r["sampler"] == name and r["default"]}
    a, b = of(base), of(other)
    keys = sorted(set(a) & set(b))
    if not keys:
        raise ValueError(f"--paired {base},{other}: no setup, seed and budget holds both "
                         "samplers' default answers")
    diffs = np.array([b[k] - a[k] for k in keys])
    se = float(diffs.std(ddof=1) / math.sqrt(len(diffs))) if len(diffs) > 1 else float("nan")
    p = float(ttest_rel([b[k] for k in keys], [a[k] for k in keys]).pvalue) \
        if len(diffs) > 1 and diffs.std() > 0 else float("nan")
    cells: dict[str, list[float]] = {}
    for setup, budget in sorted({(k[0], k[2]) for k in keys}):
        ks = [k for k in keys if k[0] == setup and k[2] == budget]
        cells[f"{setup} {budget}"] = [round(float(np.mean([a[k] for k in ks])), 1),
                                      round(float(np.mean([b[k] for k in ks])), 1)]
    return {"base": base, "other": other, "pairs": len(keys),
            "mean": round(float(diffs.mean()), 2), "se": round(se, 2), "p": round(p, 3),
            "means": cells}


def _ordered(values: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def table(data: Mapping[str, Any]) -> str:
    """Per setup, sampler, budget and answer: the median confirmed Elo over the
    seeds, and every seed's Elo [interval]."""
    lines = []
    recs = data["records"]
    for g in _ordered(r["setup"] for r in recs):
        b = data["baseline_confirmed"].get(g, {})
        lines.append(f"== {g}: baseline vs itself {b.get('score', float('nan')):.3f} on "
                     f"{b.get('games', 0)} games, draws {b.get('draws', 0)}")
        ref = data.get("reference_confirmed", {}).get(g)
        if ref:
            lines.append(f"reference (the exports' values) Elo {ref['elo']:+.1f} "
                         f"[{ref['elo_ci'][0]:+.1f}, {ref['elo_ci'][1]:+.1f}], "
                         f"draws {ref['draws']} of {ref['games']}")
        for s in _ordered(r["sampler"] for r in recs if r["setup"] == g):
            rs = [r for r in recs if r["setup"] == g and r["sampler"] == s]
            for name in ["default", *_ordered(r["answer"] for r in rs if not r["default"])]:
                for budget in sorted({r["budget"] for r in rs}):
                    sel = [r for r in rs if r["budget"] == budget
                           and (r["default"] if name == "default" else r["answer"] == name)]
                    if not sel:
                        continue
                    sel.sort(key=lambda r: r["seed"])
                    med = float(np.median([r["confirmed"]["elo"] for r in sel]))
                    label = (f"default ({sel[0]['answer']})" if name == "default" else name)
                    seeds = "  ".join(
                        f"s{r['seed']} {r['confirmed']['elo']:+.0f} "
                        f"[{r['confirmed']['elo_ci'][0]:+.0f},{r['confirmed']['elo_ci'][1]:+.0f}]"
                        for r in sel)
                    lines.append(f"{s:<17} {label:<16} {budget:>6}  median {med:+6.1f}  {seeds}")
    return "\n".join(lines)


def plot(data: Mapping[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = [r for r in data["records"] if r["default"]]
    setups = _ordered(r["setup"] for r in recs)
    samplers = _ordered(r["sampler"] for r in recs)
    fig, axes = plt.subplots(1, max(len(setups), 1), figsize=(6.5 * max(len(setups), 1), 4.8),
                             squeeze=False)
    colours = {s: f"C{k}" for k, s in enumerate(samplers)}
    for ax, g in zip(axes[0], setups, strict=False):
        for k, s in enumerate(samplers):
            rs = [r for r in recs if r["setup"] == g and r["sampler"] == s]
            if not rs:
                continue
            shift = 1.0 + 0.03 * (k - (len(samplers) - 1) / 2)  # side by side on a log axis
            budgets = sorted({r["budget"] for r in rs})
            for r in rs:
                ax.plot(r["budget"] * shift, r["confirmed"]["elo"], "o", color=colours[s],
                        alpha=0.3, ms=4, lw=0)
            med = [float(np.median([r["confirmed"]["elo"] for r in rs if r["budget"] == b]))
                   for b in budgets]
            seeds = len({r["seed"] for r in rs})
            names = [r["answer"] for r in rs]
            name = max(_ordered(names), key=names.count)  # the answer it mostly was
            ax.plot([b * shift for b in budgets], med, "-o", color=colours[s], ms=5,
                    label=f"{s} ({name}; median of {seeds} seeds)")
        ax.axhline(0.0, color="grey", lw=0.8, ls=":")
        ref = data.get("reference_confirmed", {}).get(g)
        if ref:
            ax.axhline(ref["elo"], color="black", lw=0.8, ls="--",
                       label=f"the exports' values of these parameters: {ref['elo']:+.0f}")
        ax.set_xscale("log")
        ax.set_xlabel("games spent")
        ax.set_ylabel("confirmed Elo gain over the baseline")
        info = data["setups"].get(g, {})
        ax.set_title(f"{g}: {info.get('heuristic', '')}, alpha-beta depth {info.get('depth', '')}, "
                     f"{len(info.get('box', {}))} parameters", fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", default="isolation,morris",
                    help=f"comma-separated game setups, of {sorted(SETUPS)}")
    ap.add_argument("--samplers", default="duels,spsa,multivariate-tpe",
                    help="comma-separated names of benchmarks/oracle.py's CONFIGS")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS),
                    help="games spent at which the answers are read (the largest: the run's)")
    ap.add_argument("--pairs", type=int, default=0,
                    help="pairs per trial for every sampler (a quick test; 0: oracle.py's)")
    ap.add_argument("--confirm-pairs", type=int, default=CONFIRM_PAIRS)
    ap.add_argument("--confirm-seed", type=int, default=CONFIRM_SEED)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", default="", help="keep confirmations in this JSON file")
    ap.add_argument("--out", default="", help="write every record as JSON here")
    ap.add_argument("--plot", default="", help="write the plot (PNG) here")
    ap.add_argument("--plot-from", default="",
                    help="comma-separated --out files: merge them for the table, --plot and "
                         "--out (runs nothing)")
    ap.add_argument("--paired", default="", metavar="BASE,OTHER",
                    help="two samplers of the records: OTHER's confirmed Elo minus BASE's, "
                         "matched on game, seed and budget, with its se and the paired t "
                         "test's p (printed as JSON)")
    ap.add_argument("--rename", default="", metavar="OLD=NEW,...",
                    help="with --plot-from: show these samplers under other names (in the "
                         "table, the plot, --paired and --out)")
    args = ap.parse_args()
    paired = [s for s in args.paired.split(",") if s]
    if args.paired and len(paired) != 2:
        ap.error("--paired takes two sampler names, BASE,OTHER")
    names = dict(item.split("=", 1) for item in args.rename.split(",") if "=" in item)
    if args.rename and (not args.plot_from or len(names) != len(args.rename.split(","))):
        ap.error("--rename takes OLD=NEW pairs, with --plot-from")
    if args.plot_from:
        data = merge(args.plot_from.split(","))
        try:
            data = renamed(data, names)
        except ValueError as e:
            ap.error(str(e))
        if args.out:
            Path(args.out).write_text(json.dumps(data, indent=1))
    else:
        try:
            asked = checked(args)
        except ValueError as e:
            print(f"real_optimisers.py: error: {e}", file=sys.stderr)
            return 2
        data = run_all(args, *asked)
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(json.dumps(data, indent=1))
    print(table(data), file=sys.stderr)
    if paired:
        sources = list(data.get("versions", {}).items())
        for (pa, va), (pb, vb) in zip(sources, sources[1:], strict=False):
            differ = versions_differ(va, vb)
            if differ:
                print(f"real_optimisers.py: warning: {pa}, {pb}: {differ}: the samplers' "
                      "answers may differ for that alone", file=sys.stderr)
        try:
            print(json.dumps(paired_samplers(data, *paired)))
        except ValueError as e:
            ap.error(str(e))
    if args.plot:
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        plot(data, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
