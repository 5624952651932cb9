"""Which optimiser needs the fewest games? The simulated-oracle benchmark.

    python benchmarks/oracle.py --case fishtest [--seeds 20] [--json] [--plot FILE]
                                [--optimisers duels,spsa,...] [--full] [--out FILE] [--budget N]
                                [--cases MY_CASES.py] [--first-seed N] [--set KEY=VALUE]
    python benchmarks/oracle.py --case [--cases MY_CASES.py]     # lists the cases
    python benchmarks/oracle.py --validate-spsa [--seeds 50]

The cases are defined in heurtune.engine.heuristics.oracle (``define_case``);
``--cases FILE.py`` runs a file of your own first, whose ``define_case`` calls
add cases (each validated as it is defined: see that module), and ``--case``
with no name lists every case defined.

Each run is a real heurtune study (a study file written for the oracle's
stand-in game, ``heurtune.tuning.tune`` with the sampler and its options,
the default checkpoint pruner, the in-memory storage) whose games are decided
by a known Elo landscape (heurtune.match.oracle; the cases are in
heurtune.engine.heuristics.oracle: ``fishtest`` is fishtest's SPSA simulator's
setup). At checkpoints of games spent (the baseline trial's included) it asks
the study for its answers (heurtune.tuning.after.answers: what ``export`` and
``confirm`` use) from the trials finished within that many games, and records
how many Elo below the optimum each answer is.

Per optimiser: the median (and quartiles) of that loss over the seeds at every
checkpoint, the games until the median is within 1 Elo and within 0.5 Elo
(interpolated between checkpoints in log games; null: not within the budget),
and how often the answer is worse than the baseline. For every answer that
states its gain over the baseline (``duels``, ``model``), its ``calibration``:
how often the true gain lies within its model-based 95% interval (mean +- 1.96
sd) and above its lower bound (mean - sd, the bound the answer maximises), the
truth's mean z-score, and for ``duels`` the same of its measured interval
(held-out duels; heurtune.tuning.samplers.duels), over the checkpoints of every
seed where the answer is not the baseline itself (and again from a quarter of
the budget on). ``--json`` prints one object keyed by sampler name (``spsa``:
the Autoselect configuration) with those figures for its best answer, and under
``default`` the configuration heurtune uses by default.

``--first-seed N`` runs seeds N, N+1, ... instead of 0, 1, ...: fresh seeds to
confirm on what was chosen on the first ones. ``--set KEY=VALUE`` (repeatable)
changes a sampler option of the one optimiser run; its results are named with
the options set (``duels[edge_prior=4]``).

``--validate-spsa`` runs the SPSA sampler for the 376,868 games fishtest's
simulator plans for 4 parameters and reports how often it ends within 0.5 Elo
(the simulator's design: 95%).
"""

from __future__ import annotations

import os

# one core, as the timing claims say: numpy's BLAS threads off before numpy loads
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import math
import runpy
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

from heurtune.engine.heuristics.oracle import CASES, loss
from heurtune.errors import HeurtuneError
from heurtune.match.oracle import GAME, OracleRunner, oracle_game
from heurtune.tomlio import write_toml
from heurtune.tuning import tune
from heurtune.tuning.after.answers import study_answers
from heurtune.tuning.samplers import DISAGREE_Z, GUARDED, SAMPLERS, SamplerSpec, disagreement
from heurtune.tuning.study import load_study, open_storage
from heurtune.tuning.study.environment import environment
from heurtune.tuning.studyfile import SEARCH_DEFAULTS, load_study_file

DEFAULT = SEARCH_DEFAULTS["fine"]["sampler"]  # the configuration heurtune uses by default
THRESHOLDS = (1.0, 0.5)
WORSE = 1e-6  # Elo: an answer this much below the baseline counts as worse
# appended to duels' answer name: its loss where its guard withdrew it (``guard_z``)
UNGUARDED = "-unguarded"
# what an answer states of its gain over the baseline (heurtune.tuning.after.answers)
GAIN_KEYS = ("model_gain", "model_gain_sd", "measured_gain", "measured_gain_ci",
             "narrowed_at")  # the last: the trial from which duels narrowed (``narrow``)


@dataclass(frozen=True)
class Config:
    """One optimiser configuration: sampler, options, pairs per trial, games budget."""

    name: str
    sampler: str
    pairs: int
    budget: int
    options: dict[str, Any] = field(default_factory=dict)

    def sampler_spec(self) -> SamplerSpec:
        """The sampler with its options, its constants among them (set here, as research
        code sets them: a study file may not)."""
        return SamplerSpec.parse(self.sampler, self.options, self.name, internal=True)

    def file_options(self) -> dict[str, Any]:
        """Its options that a study file may set (the rest: :meth:`sampler_spec`)."""
        return {k: v for k, v in self.options.items()
                if k not in SAMPLERS[self.sampler].constants}

    def sampler_options(self) -> dict[str, Any]:
        """Every option of the sampler in effect, defaults included (what a result
        file records: a default changed later does not change it)."""
        return self.sampler_spec().recorded()


# each optimiser at the pairs per trial it does best with (the --full table shows others)
CONFIGS = [
    Config("duels", "duels", 16, 64_000),
    Config("spsa", "spsa", 32, 200_000),
    Config("tpe", "tpe", 250, 100_000),
    Config("multivariate-tpe", "multivariate-tpe", 250, 100_000),
    Config("cmaes", "cmaes", 250, 100_000),
    Config("random", "random", 250, 100_000),
    Config("qmc", "qmc", 250, 100_000),
    Config("gp", "gp", 1000, 100_000),
]
FULL_EXTRA = [
    Config("duels-no-holdout", "duels", 16, 64_000, {"holdout_every": 0}),
    Config("duels-4", "duels", 4, 64_000),
    Config("duels-8", "duels", 8, 64_000),
    Config("duels-64", "duels", 64, 64_000),
    # a wider gradient prior (the baseline guessed 4 or 8 Elo below the optimum, not 2)
    Config("duels-start4", "duels", 16, 64_000, {"start_elo": 4.0}),
    Config("duels-start8", "duels", 16, 64_000, {"start_elo": 8.0}),
    # the answer's move toward an edge without its own test (before 2026-11-25's guard)
    Config("duels-unguarded", "duels", 16, 64_000, {"edge_move_sd": 0.0}),
    # the answer never moved toward an edge (before 2026-11-25)
    Config("duels-edge-off", "duels", 16, 64_000, {"edge_answer": "off"}),
    # the answer not stepped toward the model's maximum (before 2026-11-26)
    Config("duels-step-off", "duels", 16, 64_000, {"step_sd": 0.0}),
    # the gradient's prior four times wider at an edge (2026-11-26, later)
    Config("duels-edge-prior", "duels", 16, 64_000, {"edge_prior": 4.0}),
    Config("duels-edge-prior-2", "duels", 16, 64_000, {"edge_prior": 2.0}),
    # never widened, in any number of parameters (the default before 2026-11-27;
    # since then the default widens from 8 parameters on)
    Config("duels-edge-prior-off", "duels", 16, 64_000, {"edge_prior": 1.0}),
    # ... only once the model holds 8 duels per coefficient (2026-11-27)
    Config("duels-edge-prior-after", "duels", 16, 64_000,
           {"edge_prior": 4.0, "edge_prior_after": 8.0}),
    # ... only where the plain fit's slope toward the edge is 1 sd sure (2026-11-27)
    Config("duels-edge-prior-slope", "duels", 16, 64_000,
           {"edge_prior": 4.0, "edge_prior_slope_z": 1.0}),
    # ... both: after 8 duels per coefficient, and only where the slope is 1 sd sure
    Config("duels-edge-prior-after-slope", "duels", 16, 64_000,
           {"edge_prior": 4.0, "edge_prior_after": 8.0, "edge_prior_slope_z": 1.0}),
    # the radius halved where the held-out duels disagree with the model by 3 sd (2026-11-27)
    Config("duels-narrow", "duels", 16, 64_000, {"narrow": 0.5, "narrow_z": 3.0}),
    # never narrowed (the default until 2026-11-27; since then 0.5 at 5 sd)
    Config("duels-narrow-off", "duels", 16, 64_000, {"narrow": 0.0}),
    # the default without its guard on the answer (2026-11-28, "A real box with cusps")
    Config("duels-guard-off", "duels", 16, 64_000, {"guard_z": 0.0}),
    # ... with the guard on the model's record where no held-out duel has measured the
    # answer yet (its latest half; the default since 2026-11-28, "The guard on the model's
    # record")
    Config("duels-record", "duels", 16, 64_000, {"guard_record": 0.5}),
    # ... and without it (the default until 2026-11-28)
    Config("duels-record-off", "duels", 16, 64_000, {"guard_record": 0.0}),
    # ... at a flat 5 sd, not 3 (2026-11-27: its default, before narrow_from)
    Config("duels-narrow-z5", "duels", 16, 64_000,
           {"narrow": 0.5, "narrow_z": 5.0, "narrow_from": 0.0}),
    # ... its bar rising with the held-out duels: 3 sd at the first, 5 from the 100th
    # (the default since 2026-11-28)
    Config("duels-narrow-rising", "duels", 16, 64_000,
           {"narrow": 0.5, "narrow_z": 5.0, "narrow_from": 3.0}),
    # duel points a quarter of each range from their centre (the default's: half a
    # range): on a real fine box whose tuned point sits beside a cliff that the
    # default's duels span (2026-11-28, "Fine-tuning a real tuned point: Morris")
    Config("duels-radius-half", "duels", 16, 64_000, {"radius": 0.5}),
    # the radius narrowed also on the guard's signal (the answer measured at or below
    # the baseline, 3 sd or more below the model's gain; -2: 2 sd, explored first): an
    # adaptive remedy for the cliff above, not adopted (2026-11-28, "Narrowing on the
    # guard's signal": +1.05 Elo on the real Morris fine box, but no gain on `cliff`'s
    # fresh seeds)
    Config("duels-narrow-below", "duels", 16, 64_000, {"narrow_below": 3.0}),
    # the answer moved toward a far maximum (reach = -1: 1.75 times the prior's distance
    # below 8 parameters), since 2026-11-29 only where the curvature's empirical-Bayes
    # scale is at most 4: the default since then ("The scale gate"); without that gate,
    # the candidate before it, not adopted ("How far the model's maximum lies"; its runs were
    # made as "duels" while it was the default under test)
    Config("duels-reach", "duels", 16, 64_000, {"reach": -1.0}),
    # ... and without the move (the default until 2026-11-29)
    Config("duels-reach-off", "duels", 16, 64_000, {"reach": 0.0}),
    Config("duels-narrow-below-2", "duels", 16, 64_000, {"narrow_below": 2.0}),
    Config("spsa-classic", "spsa", 32, 200_000, {"schedule": "classic"}),
    Config("spsa-8", "spsa", 8, 100_000),
    Config("tpe-50", "tpe", 50, 50_000),
    Config("tpe-100", "tpe", 100, 100_000),
    Config("multivariate-tpe-100", "multivariate-tpe", 100, 100_000),
    Config("tpe-1000", "tpe", 1000, 100_000),
    Config("cmaes-50", "cmaes", 50, 50_000),
]


def checkpoints(budget: int) -> list[int]:
    """Games at which the answers are read: 1,000 then about 1.41x apart."""
    out, g = [], 1000.0
    while g <= budget * 1.0001:
        out.append(int(round(g)))
        g *= math.sqrt(2.0)
    return out


def with_options(cfg: Config, settings: list[str]) -> Config:
    """``cfg`` with the sampler options ``KEY=VALUE`` set (a value read as JSON where
    it is, else as text), named after them: ``duels[edge_prior=4]``."""
    options = dict(cfg.options)
    for item in settings:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise HeurtuneError(f"--set {item!r}: expected KEY=VALUE")
        try:
            options[key.strip()] = json.loads(text)
        except ValueError:
            options[key.strip()] = text
    label = ",".join(item.strip() for item in settings)
    return replace(cfg, name=f"{cfg.name}[{label}]", options=options)


def study_file(path: Path, case: str, cfg: Config, seed: int) -> Path:
    # SPSA's classic schedule decays over the pairs the study plans (trials x pairs):
    # plan the budget (its trials are never pruned); the others stop at the budget
    trials = cfg.budget // (2 * cfg.pairs) + 1 if cfg.sampler == "spsa" else 10_000_000
    data: dict[str, Any] = {
        "study": {"name": "oracle", "game": GAME, "opponent": f"{GAME}:{case}",
                  "trials": trials, "pairs": cfg.pairs, "seed": seed, "jobs": 1},
        "engine": {"heuristic": case},
        "sampler": {"kind": cfg.sampler, **cfg.file_options()},  # constants: run_one
    }
    write_toml(path, data)
    return path


Run = tuple[dict[str, list[float]], dict[str, list[dict[str, Any]]]]


def run_one(case: str, cfg: Config, seed: int, tmp: Path) -> Run:
    """Loss of every answer at every checkpoint, for one seed; and for the answers
    that state a gain over the baseline, that gain and the truth at every
    checkpoint where the answer is not the baseline."""
    sf = load_study_file(study_file(tmp / f"{cfg.name}-{seed}.toml", case, cfg, seed))
    sf = replace(sf, sampler=cfg.sampler_spec())
    runner = OracleRunner(seed=seed)
    url = f"memory:{cfg.name}-{seed}-{time.monotonic_ns()}"
    marks = checkpoints(cfg.budget)
    records: list[dict[str, float]] = []  # per checkpoint: the loss of every answer
    gains: dict[str, list[dict[str, Any]]] = {}
    state: dict[str, Any] = {"study": None}
    the_case = CASES[case]

    def on_trial(trial: Any) -> None:
        if state["study"] is None:
            state["study"] = load_study(open_storage(url), "oracle")
        study = state["study"]
        while len(records) < len(marks) and runner.games >= marks[len(records)]:
            # what the study knew within the checkpoint: the trials before this one
            known = [t for t in study.get_trials(deepcopy=False) if t.number < trial.number]
            # every answer, one equal to another's included (duels' guarded answer is
            # the baseline, which the best trial may be)
            answers = study_answers(study, sf.base, known, repeated=True)
            record = {a.name: loss(the_case, a.params) for a in answers}
            for a in answers:  # duels' answer as it was before its guard (``guard_z``)
                if "guard_z" in a.detail:
                    withdrawn = a.detail.get(GUARDED)
                    record[a.name + UNGUARDED] = (record[a.name] if withdrawn is None
                                                  else loss(the_case, withdrawn["params"]))
            records.append(record)
            for a in answers:
                if "model_gain" in a.detail and not a.detail.get("is_baseline"):
                    gains.setdefault(a.name, []).append(
                        {"games": marks[len(records) - 1],
                         "truth": the_case.start_elo - records[-1][a.name],
                         **{k: a.detail[k] for k in GAIN_KEYS if k in a.detail}})

    tune(sf, storage_url=url, runner=runner, on_trial=on_trial,
         until=lambda _study: len(records) >= len(marks))
    # an answer not offered yet at a checkpoint: what export falls back to, the
    # best trial (the baseline before any trial finished)
    names = {n for r in records for n in r}
    return ({n: [r.get(n, r.get("best", the_case.start_elo)) for r in records] for n in names},
            gains)


def calibration(points: list[dict[str, Any]], z: float) -> dict[str, Any]:
    """How well an answer's stated gains cover the truth (see the module docstring)."""
    model = [p for p in points if p["model_gain_sd"]]
    measured = [p for p in points if p.get("measured_gain") is not None]
    out: dict[str, Any] = {"checkpoints": len(points)}
    if model:
        out["model_covers_95"] = round(float(np.mean(
            [abs(p["truth"] - p["model_gain"]) <= 1.96 * p["model_gain_sd"] for p in model])), 3)
        out["model_lower_bound_holds"] = round(float(np.mean(
            [p["model_gain"] - z * p["model_gain_sd"] <= p["truth"] for p in model])), 3)
        out["model_mean_z"] = round(float(np.mean(
            [(p["truth"] - p["model_gain"]) / p["model_gain_sd"] for p in model])), 2)
        out["model_mean_gain"] = round(float(np.mean([p["model_gain"] for p in model])), 2)
    out["mean_truth"] = round(float(np.mean([p["truth"] for p in points])), 2) if points else None
    if any("measured_gain" in p for p in points):
        out["measured_share"] = round(len(measured) / len(points), 3) if points else 0.0
        if measured:
            out["measured_covers_95"] = round(float(np.mean(
                [p["measured_gain_ci"][0] <= p["truth"] <= p["measured_gain_ci"][1]
                 for p in measured])), 3)
            out["measured_lower_bound_holds"] = round(float(np.mean(
                [p["measured_gain_ci"][0] <= p["truth"] for p in measured])), 3)
            out["measured_median_width"] = round(float(np.median(
                [p["measured_gain_ci"][1] - p["measured_gain_ci"][0] for p in measured])), 1)
            # where tune says the two gains disagree (heurtune.tuning.samplers.disagreement)
            apart = [d for d in (disagreement(p) for p in measured) if d is not None]
            if apart:
                out["disagree_share"] = round(float(np.mean(
                    [abs(d) >= DISAGREE_Z for d in apart])), 3)
                out["disagree_above_share"] = round(float(np.mean(
                    [d >= DISAGREE_Z for d in apart])), 3)
    return out


def games_to(marks: list[int], median: np.ndarray, threshold: float) -> int | None:
    """Games until the median first reaches ``threshold`` (log-interpolated)."""
    for k, m in enumerate(median):
        if m <= threshold:
            if k == 0:
                return marks[0]
            g0, g1, m0 = math.log(marks[k - 1]), math.log(marks[k]), median[k - 1]
            t = (m0 - threshold) / (m0 - m) if m0 != m else 1.0
            return int(round(math.exp(g0 + t * (g1 - g0))))
    return None


RATIO_RESAMPLES = 2000


def crossing_ratio(marks: list[int], base: np.ndarray, other: np.ndarray,
                   target: float = 1.3) -> dict[str, Any]:
    """``other``'s games until the median loss is within 1 Elo over ``base``'s
    (each an array of per-seed loss curves at ``marks``), with a 95% bootstrap
    interval: the seeds of each resampled independently, ``RATIO_RESAMPLES``
    times, with a fixed seed. A resample whose median never gets there counts as
    infinitely many games (an interval may be open above); where neither does, it
    is left out. ``share_within``: the share of resamples at most ``target``."""
    rng = np.random.default_rng(0x5A7 + len(marks))

    def games(losses: np.ndarray) -> float:
        g = games_to(marks, np.median(losses, axis=0), 1.0)
        return math.inf if g is None else float(g)
    found = []
    for _ in range(RATIO_RESAMPLES):
        gb = games(base[rng.integers(0, len(base), len(base))])
        go = games(other[rng.integers(0, len(other), len(other))])
        found.append(go / gb if math.isfinite(gb) else 0.0 if math.isfinite(go) else math.nan)
    ratios = np.asarray(found)
    ratios = ratios[~np.isnan(ratios)]
    point = games(other) / games(base)

    def r(x: float) -> float | None:
        return round(float(x), 3) if math.isfinite(x) else None
    low, high = (np.quantile(ratios, [0.025, 0.975], method="inverted_cdf") if len(ratios)
                 else (math.nan, math.nan))
    return {"seeds": [len(other), len(base)], "games_to_1_elo": r(point),
            "interval_95": [r(low), r(high)],
            "share_within": round(float(np.mean(ratios <= target)), 3) if len(ratios) else None}


# one optimiser in two results files: its names, its results and its default answers
ResultsPair = tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]


def read_results(path: str) -> dict[str, Any]:
    """One ``--out`` file, or several joined by ``+`` (``a.json+b.json``: runs of one
    case on other seeds, their seeds pooled: each answer's per-seed losses
    concatenated, ``first_seed`` the list of the files' first seeds, ``versions``
    kept where they agree). One clear error where a file cannot be read or the files
    do not pool."""
    try:
        parts = [json.loads(Path(p).read_text()) for p in path.split("+")]
    except (OSError, ValueError) as e:
        raise HeurtuneError(f"cannot read a results file: {e}") from None
    if len(parts) == 1:
        return dict(parts[0]) if isinstance(parts[0], dict) else {}
    try:
        first = parts[0]
        merged = {**first, "results": json.loads(json.dumps(first["results"])),
                  "seeds": sum(int(p["seeds"]) for p in parts),
                  "first_seed": [p.get("first_seed", 0) for p in parts],
                  "versions": first.get("versions")
                  if all(p.get("versions") == first.get("versions") for p in parts) else None}
        for part in parts[1:]:
            if part["case"] != first["case"] or set(part["results"]) != set(first["results"]):
                raise HeurtuneError(f"{path}: the files to pool hold other cases or "
                                    "optimisers")
            for name, result in merged["results"].items():
                theirs = part["results"][name]
                if theirs["checkpoints"] != result["checkpoints"]:
                    raise HeurtuneError(f"{path}: {name} has other checkpoints in one file")
                for answer, curves in result["answers"].items():
                    curves["losses"] = curves["losses"] + theirs["answers"][answer]["losses"]
    except (KeyError, TypeError):
        raise HeurtuneError(f"{path}: not results files of oracle.py --out") from None
    if len({str(f) for f in merged["first_seed"]}) != len(parts):
        raise HeurtuneError(f"{path}: the files to pool start at the same seed")
    return merged


def read_results_pair(base_path: str, other_path: str, same_case: bool = False
                      ) -> tuple[dict[str, Any], dict[str, Any], list[ResultsPair]]:
    """Two ``--out`` files and their optimisers side by side: where each holds just
    one, those two whatever their names; else those in both. One clear error where a
    file cannot be read, is not such a file, the cases differ (``same_case``) or no
    optimiser pairs."""
    base, other = read_results(base_path), read_results(other_path)
    try:
        b_res, o_res = base["results"], other["results"]
        if len(b_res) == 1 and len(o_res) == 1:
            names = [(next(iter(b_res)), next(iter(o_res)))]
        else:
            names = [(n, n) for n in sorted(set(b_res) & set(o_res))]
        pairs = [(bn, on, b_res[bn], o_res[on], b_res[bn]["answers"][b_res[bn]["answer"]],
                  o_res[on]["answers"][o_res[on]["answer"]]) for bn, on in names]
        case = base["case"]
    except (KeyError, TypeError):
        raise HeurtuneError("not a results file of oracle.py --out") from None
    if same_case and other.get("case") != case:
        raise HeurtuneError(f"the files are of different cases ({case!r}, {other.get('case')!r})")
    if not pairs:
        raise HeurtuneError("no optimiser is in both results files")
    return base, other, pairs


def ratio_files(base_path: str, other_path: str) -> list[str]:
    """Per optimiser in both files (written by ``--out``; where each holds just one,
    those two whatever their names), its games to 1 Elo in the second over the first,
    with :func:`crossing_ratio`'s interval."""
    base, other, pairs = read_results_pair(base_path, other_path)
    lines = []
    for base_name, other_name, b, o, ab, ao in pairs:
        name = base_name if base_name == other_name else f"{other_name} over {base_name}"
        if "losses" not in ab or "losses" not in ao or b["checkpoints"] != o["checkpoints"]:
            raise HeurtuneError(f"{name}: the files need per-seed losses at the same "
                                "checkpoints (written by this version of oracle.py)")
        q = crossing_ratio(b["checkpoints"], np.asarray(ab["losses"]), np.asarray(ao["losses"]))
        low, high = ("-" if x is None else f"{x:.2f}" for x in q["interval_95"])
        point = "-" if q["games_to_1_elo"] is None else f"{q['games_to_1_elo']:.2f}"
        lines.append(f"{name}: {other['case']} / {base['case']} games to 1 Elo {point} "
                     f"(95% {low} to {high}; within 1.3 in {q['share_within']} of resamples; "
                     f"seeds {q['seeds'][0]} / {q['seeds'][1]})")
    return lines


PAIRED_GAMES = (2000, 4000, 8000, 16000, 32000, 64000)  # where paired differences are read


def paired_losses(marks: list[int], base: np.ndarray, other: np.ndarray
                  ) -> dict[str, list[float]]:
    """``other``'s loss minus ``base``'s, seed by seed (row for row: the same seeds),
    averaged over the seeds with its standard error, at each of :data:`PAIRED_GAMES`
    among ``marks``: negative is better. Two answers read off the same runs, or two
    runs whose seeds draw the same games, differ far less than their medians'
    crossing points do (research/optimisers-log.md, "Seed by seed")."""
    diff = np.asarray(other) - np.asarray(base)
    out: dict[str, list[float]] = {}
    for games in PAIRED_GAMES:
        if games in marks:
            column = diff[:, marks.index(games)]
            se = column.std(ddof=1) / math.sqrt(len(column)) if len(column) > 1 else 0.0
            out[str(games)] = [round(float(column.mean()), 3), round(float(se), 3)]
    return out


def worse_seeds(marks: list[int], base: np.ndarray, other: np.ndarray, start: float,
                from_games: int = 2000) -> dict[str, Any]:
    """The seeds whose answer is worse than the baseline (``start`` Elo below the best)
    at some checkpoint from ``from_games`` on, in ``base`` and in ``other`` (rows: the
    same seeds), those worse in one only (``base_only``, ``other_only``), and the exact
    McNemar test's two-sided p on those: whether ``other`` makes more or fewer seeds
    worse than the baseline than seed noise explains; and the seed-checkpoints worse
    than the baseline at any checkpoint in each (``base_checkpoints``,
    ``other_checkpoints``)."""
    cols = np.asarray(marks) >= from_games
    worse_b, worse_o = (np.asarray(x) > start + WORSE for x in (base, other))
    wb, wo = worse_b[:, cols].any(axis=1), worse_o[:, cols].any(axis=1)
    b, c = int((wb & ~wo).sum()), int((~wb & wo).sum())
    p = float(binomtest(c, b + c, 0.5).pvalue) if b + c else 1.0
    return {"base": int(wb.sum()), "other": int(wo.sum()), "base_only": b, "other_only": c,
            "p": p, "base_checkpoints": int(worse_b.sum()),
            "other_checkpoints": int(worse_o.sum())}


def paired_files(base_path: str, other_path: str) -> list[str]:
    """The second ``--out`` file's default-answer losses minus the first's, seed by
    seed (:func:`paired_losses`), for the one optimiser each holds (or, where they
    hold several, each optimiser in both), with the seed-checkpoints worse than the
    baseline in each and the seeds worse from 2,000 games on (:func:`worse_seeds`). The files must be of one case and the same seeds; a first line
    ``warning: ...`` says where they were not written with the same libraries on the
    same processor (:func:`versions_differ`), where a seed's duels go elsewhere and
    the differences are not paired."""
    base, other, pairs = read_results_pair(base_path, other_path, same_case=True)
    if base.get("first_seed", 0) != other.get("first_seed", 0):
        raise HeurtuneError(f"the files start at different seeds ({base.get('first_seed', 0)}, "
                            f"{other.get('first_seed', 0)}): seed by seed they do not pair")
    case = base["case"]
    start, lines = CASES[case].start_elo if case in CASES else None, []
    differ = versions_differ(base.get("versions"), other.get("versions"))
    if differ:
        lines.append(f"warning: {differ}: seed by seed these runs are not paired")
    for bn, on, b, o, ab, ao in pairs:
        if ("losses" not in ab or "losses" not in ao or b["checkpoints"] != o["checkpoints"]
                or len(ab["losses"]) != len(ao["losses"])):
            raise HeurtuneError(f"{bn}, {on}: the files need per-seed losses of as many "
                                "seeds at the same checkpoints (written by this version "
                                "of oracle.py with the same --seeds)")
        p = paired_losses(b["checkpoints"], np.asarray(ab["losses"]), np.asarray(ao["losses"]))
        cells = ", ".join(f"{int(k) // 1000}k {v[0]:+.3f} ({v[1]:.3f})" for k, v in p.items())
        worse = ""
        if start is not None:
            ws = worse_seeds(b["checkpoints"], np.asarray(ab["losses"]),
                             np.asarray(ao["losses"]), start)
            worse = (f"; seed-checkpoints worse than the baseline {ws['base_checkpoints']} "
                     f"-> {ws['other_checkpoints']}"
                     f"; seeds worse from 2k games on {ws['base']} -> {ws['other']} "
                     f"(in one only {ws['base_only']} / {ws['other_only']}, McNemar p "
                     f"{ws['p']:.2f})")
        lines.append(f"{case}: {on} minus {bn}, mean loss (se): {cells}{worse} "
                     f"({len(ab['losses'])} seeds)")
    return lines


def versions_differ(a: dict[str, str] | None, b: dict[str, str] | None) -> str:
    """What differs between two ``--out`` files' ``versions`` (libraries, processor
    and OpenBLAS kernel) that changes a seed's runs; empty where nothing does. Where
    both files name their kernel (``blas``), the processor's name is not compared:
    two processors on one kernel give the same runs."""
    if not a or not b:
        return "a file does not name its library versions"
    ignored = {"heurtune"}
    if "blas" in a and "blas" in b:
        ignored.add("cpu")  # the kernel, not the processor's name, sets the rounding
    keys = sorted((set(a) | set(b)) - ignored)
    changed = [f"{k} {a.get(k, 'not recorded')} vs {b.get(k, 'not recorded')}"
               for k in keys if a.get(k) != b.get(k)]
    return "the files differ in " + "; ".join(changed) if changed else ""


def summarise(case: str, cfg: Config, both: list[Run], seconds: float) -> dict[str, Any]:
    marks = checkpoints(cfg.budget)
    runs = [r for r, _gains in both]
    start = CASES[case].start_elo
    names = sorted({n for r in runs for n in r})
    answers: dict[str, Any] = {}
    for name in names:
        curves = np.array([r.get(name, [start] * len(marks))[:len(marks)] for r in runs])
        median = np.median(curves, axis=0)
        answers[name] = {
            "games_to_1_elo": games_to(marks, median, 1.0),
            "games_to_half_elo": games_to(marks, median, 0.5),
            "median": [round(float(x), 4) for x in median],
            "q25": [round(float(x), 4) for x in np.quantile(curves, 0.25, axis=0)],
            "q75": [round(float(x), 4) for x in np.quantile(curves, 0.75, axis=0)],
            "worse_than_baseline": [round(float(x), 3)
                                    for x in (curves > start + WORSE).mean(axis=0)],
            "median_never_worse": bool(np.all(median <= start + WORSE)),
            "losses": [[round(float(x), 4) for x in seed] for seed in curves],
        }
        points = [p for _r, gains in both for p in gains.get(name, [])]
        if any("narrowed_at" in p for p in points):  # the trial each seed narrowed at, or None
            answers[name]["narrowed_at"] = [
                next((p["narrowed_at"] for p in gains.get(name, [])
                      if p.get("narrowed_at") is not None), None) for _r, gains in both]
        if points:
            z = cfg.options.get("z", 1.0) if name == cfg.sampler else 1.0
            late = cfg.budget // 4  # once the model has most of its data
            answers[name]["calibration"] = {
                **calibration(points, z),
                f"from_{late}_games": calibration([p for p in points if p["games"] >= late], z)}

    def rank(name: str) -> tuple[float, float, float]:
        a = answers[name]
        big = float("inf")
        return (a["games_to_1_elo"] or big, a["games_to_half_elo"] or big, a["median"][-1])

    # the best of the answers a study offers: duels' answer before its guard is a
    # diagnostic, no study's answer, and the figures (--ratio, --paired) are the guarded one's
    best = min((n for n in answers if not n.endswith(UNGUARDED)), key=rank)
    return {"sampler": cfg.sampler, "options": cfg.options,
            "sampler_options": cfg.sampler_options(),
            "pairs_per_trial": cfg.pairs,
            "budget": cfg.budget, "checkpoints": marks, "seeds": len(runs),
            "seconds": round(seconds, 1), "answer": best, **{k: answers[best][k] for k in (
                "games_to_1_elo", "games_to_half_elo", "median_never_worse")},
            "answers": answers,
            **({"calibration": answers[best]["calibration"]}
               if "calibration" in answers[best] else {})}


def plot(case: str, results: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for name, r in results.items():
        a = r["answers"][r["answer"]]
        marks = r["checkpoints"]
        line, = ax.plot(marks, a["median"], label=f"{name} ({r['answer']})")
        ax.fill_between(marks, a["q25"], a["q75"], color=line.get_color(), alpha=0.12)
    start = CASES[case].start_elo
    ax.axhline(start, color="grey", lw=0.8, ls=":", label="baseline")
    for t in THRESHOLDS:
        ax.axhline(t, color="grey", lw=0.6, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("games spent")
    ax.set_ylabel("Elo below the optimum (median, quartile band)")
    ax.set_title(f"simulated oracle, case {case}: {next(iter(results.values()))['seeds']} seeds")
    ax.set_ylim(0, max(start * 1.6, 1.0))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def validate_spsa(seeds: int, pairs: int) -> dict[str, Any]:
    """SPSA (Autoselect) over the 376,868 games fishtest's simulator plans for 4
    parameters: the share of runs ending within 0.5 Elo (its design: 95%)."""
    cfg = Config("spsa", "spsa", pairs, 376_868)
    finals = []
    with tempfile.TemporaryDirectory() as tmp, oracle_game():
        for seed in range(seeds):
            sf = load_study_file(study_file(Path(tmp) / f"v{seed}.toml", "fishtest", cfg, seed))
            runner = OracleRunner(seed=seed)
            url = f"memory:validate-{seed}-{time.monotonic_ns()}"
            tune(sf, storage_url=url, runner=runner, until=lambda _s: runner.games >= cfg.budget)  # noqa: B023 (called within this iteration)
            study = load_study(open_storage(url), "oracle")
            spsa = next(a for a in study_answers(study, sf.base) if a.name == "spsa")
            finals.append(loss(CASES["fishtest"], spsa.params))
            print(f"seed {seed}: {runner.games} games, {finals[-1]:.3f} Elo below the optimum",
                  file=sys.stderr)
    within = sum(1 for f in finals if f <= 0.5)
    return {"seeds": seeds, "pairs_per_trial": pairs, "games": cfg.budget,
            "within_half_elo": within / seeds, "mean_loss": float(np.mean(finals)),
            "median_loss": float(np.median(finals))}


def load_cases(paths: list[str]) -> None:
    """Run each file of cases (its ``define_case`` calls add them)."""
    for path in paths:
        if not Path(path).is_file():
            raise HeurtuneError(f"--cases {path}: no such file")
        runpy.run_path(path, run_name="oracle_cases")


def check_cases(names: list[str]) -> None:
    """Every name a defined case (after :func:`load_cases`), or one error naming the
    first that is not, with the cases known."""
    for name in names:
        if name not in CASES:
            raise HeurtuneError(f"unknown case {name!r} (known: {', '.join(CASES)})")


def list_cases() -> str:
    """One line per defined case: name, parameters, the baseline's loss, description."""
    return "\n".join(f"{c.name:<12} {c.dim:>2} parameters, baseline {c.start_elo:.4g} Elo below "
                     f"the best; {c.description}" for c in CASES.values())


def main() -> int:
    first = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    first.add_argument("--cases", action="append", default=[])
    try:
        load_cases(first.parse_known_args()[0].cases)
    except HeurtuneError as e:
        print(f"oracle.py: error: {e}", file=sys.stderr)
        return 2
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--case", nargs="?", const="", default="fishtest",
                    choices=["", *sorted(CASES)], help="the case (no name: list them)")
    ap.add_argument("--cases", action="append", default=[], metavar="FILE.py",
                    help="a file whose define_case calls add cases (repeatable)")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0,
                    help="the first seed (fresh seeds to confirm a choice on)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a sampler option of the one optimiser run (repeatable)")
    ap.add_argument("--optimisers", default="", help="comma-separated names (default: all)")
    ap.add_argument("--full", action="store_true", help="also other pairs-per-trial settings")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--out", default="", help="also write the full results as JSON here")
    ap.add_argument("--plot", default="", help="write the loss curves as a PNG here")
    ap.add_argument("--budget", type=int, default=0,
                    help="cap every optimiser's games at this (a quick look; 0: their own)")
    ap.add_argument("--ratio", nargs=2, metavar=("BASE.json", "OTHER.json"),
                    help="run nothing: per optimiser in both --out files, OTHER's games to 1 "
                         "Elo over BASE's, with a 95%% bootstrap interval over the seeds "
                         "(A.json+B.json: the seeds of both files pooled; also for --paired)")
    ap.add_argument("--paired", nargs=2, metavar=("BASE.json", "OTHER.json"),
                    help="run nothing: OTHER's default-answer loss minus BASE's, seed by seed, "
                         "averaged with its standard error (two --out files of one case and "
                         "the same seeds; the one optimiser in each, or those in both)")
    ap.add_argument("--validate-spsa", action="store_true")
    ap.add_argument("--validate-pairs", type=int, default=32)
    args = ap.parse_args()
    if args.case == "":
        print(list_cases())
        return 0
    if args.ratio or args.paired:
        try:
            lines = ratio_files(*args.ratio) if args.ratio else paired_files(*args.paired)
            for line in lines:
                if line.startswith("warning: "):
                    print(f"oracle.py: {line}", file=sys.stderr)
                else:
                    print(line)
        except HeurtuneError as e:
            print(f"oracle.py: error: {e}", file=sys.stderr)
            return 2
        return 0
    if args.validate_spsa:
        print(json.dumps(validate_spsa(args.seeds, args.validate_pairs)))
        return 0
    configs = CONFIGS + (FULL_EXTRA if args.full else [])
    if args.optimisers:
        wanted = args.optimisers.split(",")
        unknown = [w for w in wanted if w not in {c.name for c in configs}]
        if unknown:
            ap.error(f"unknown optimisers {unknown}")
        configs = [c for c in configs if c.name in wanted]
    if args.set:
        if len(configs) != 1:
            ap.error("--set needs exactly one optimiser (--optimisers NAME)")
        try:
            configs = [with_options(configs[0], args.set)]
        except HeurtuneError as e:
            ap.error(str(e))
    if args.first_seed < 0 or args.seeds < 1:
        ap.error("--first-seed must be 0 or more and --seeds 1 or more")
    if args.budget > 0:
        configs = [replace(c, budget=min(c.budget, args.budget)) for c in configs]
    skipped = {}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, oracle_game():
        for cfg in configs:
            if cfg.sampler == "gp":
                import importlib.util

                if importlib.util.find_spec("torch") is None:
                    skipped[cfg.name] = "needs PyTorch (pip install 'heurtune[gp]')"
                    continue
            t0 = time.time()
            seeds = range(args.first_seed, args.first_seed + args.seeds)
            try:
                runs = [run_one(args.case, cfg, seed, Path(tmp)) for seed in seeds]
            except HeurtuneError as e:
                print(f"oracle.py: error: {cfg.name}: {e}", file=sys.stderr)
                return 2
            results[cfg.name] = summarise(args.case, cfg, runs, time.time() - t0)
            r = results[cfg.name]
            print(f"{cfg.name:<18} answer {r['answer']:<9} 1 Elo: {r['games_to_1_elo']}  "
                  f"0.5 Elo: {r['games_to_half_elo']}  never worse: {r['median_never_worse']}  "
                  f"({r['seconds']:.0f} s)", file=sys.stderr)
            if "calibration" in r:
                print(f"{'':<18} its gain: {json.dumps(r['calibration'])}", file=sys.stderr)
            at = r["answers"][r["answer"]].get("narrowed_at")
            if at is not None:
                print(f"{'':<18} narrowed in {sum(a is not None for a in at)} of {len(at)} "
                      "seeds", file=sys.stderr)
    if args.plot:
        plot(args.case, results, args.plot)
    # a seed's games and answers reproduce exactly only with the same libraries (their
    # floating point differs from version to version): the --out file names them
    full = {"case": args.case, "seeds": args.seeds, "first_seed": args.first_seed,
            "default": DEFAULT, "skipped": skipped,
            "results": results, "versions": environment()}
    if args.out:
        Path(args.out).write_text(json.dumps(full, indent=1))
    if args.json:
        out: dict[str, Any] = {name: {k: r[k] for k in ("games_to_1_elo", "games_to_half_elo",
                                                         "answer", "pairs_per_trial",
                                                         "median_never_worse", "calibration")
                                      if k in r}
                               for name, r in results.items()}
        out["default"] = DEFAULT
        out["skipped"] = skipped
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    assert set(c.sampler for c in CONFIGS) <= set(SAMPLERS)
    sys.exit(main())
