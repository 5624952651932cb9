"""A study in words: its facts, trial lines and notes, the confirmation's verdict,
its trials as a table. Shared by the dashboard's notes, the report and the CLI."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import optuna
import pandas as pd
from optuna.trial import FrozenTrial, TrialState

from heurtune.match import MatchStats, elo_text
from heurtune.tuning.study import (
    Verdict,
    best_match_trial,
    load_study,
    open_storage,
    schema,
    trial_score,
)


def params_text(params: Mapping[str, Any]) -> str:
    """Parameters as ``name=value`` (floats to 3 significant digits)."""
    return " ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in params.items())


def _interval(stats: MatchStats) -> str:
    lo, hi = stats.score_ci
    return f"{stats.score:.3f} [{lo:.3f}, {hi:.3f}]"


def _elo(stats: MatchStats) -> str:
    lo, hi = stats.score_ci
    elo_lo, elo_hi = stats.elo_ci
    return f"{stats.elo + 0.0:+.1f} [{elo_text(lo, elo_lo)}, {elo_text(hi, elo_hi)}]"


def value_text(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def trial_note(number: int, stats: MatchStats, planned: int, opponent: str,
               params: dict[str, Any], pruned: bool) -> str:
    """A finished trial's match summary as Markdown."""
    played = len(stats.pair_scores)
    state = f"pruned after {played} of {planned} opening pairs" if pruned else "complete"
    won, even, lost = stats.pair_outcomes
    ll, ld, dd, wd, ww = stats.pentanomial
    lines = [
        f"## Trial {number}: {state}", "",
        f"Against {opponent} on {played} opening pairs ({stats.games} games), "
        "every figure over pairs (95% intervals).", "",
        "| | |", "|---|---|",
        f"| pairs won / even / lost | {won} / {even} / {lost} |",
        f"| games | +{stats.wins} ={stats.draws} -{stats.losses} |",
        f"| score | {_interval(stats)} |",
        f"| Elo | {_elo(stats)} |",
        f"| nElo, LOS | {stats.nelo + 0.0:+.1f}, {stats.los:.1%} |",
        f"| pentanomial LL, LD, DD/WL, WD, WW | {ll}, {ld}, {dd}, {wd}, {ww} |",
        "", "Parameters: " + ", ".join(f"{k} = {value_text(v)}" for k, v in params.items()),
    ]
    return "\n".join(lines) + "\n"


def _exported_what(exported: dict[str, Any]) -> str:
    """What the last export wrote ("trial 7", "answer duels"; older notes: a trial number)."""
    return str(exported.get("what") or f"trial {exported.get('trial')}")


def _trial_line(trial: FrozenTrial) -> str:
    r = schema.TrialResult.of(trial.user_attrs)
    lo, hi = r.score_ci
    return (f"trial {trial.number}: score {trial_score(trial):.3f} [{lo:.3f}, {hi:.3f}] "
            f"over {r.games} games (+{r.wins} ={r.draws} -{r.losses}), "
            f"Elo {r.elo + 0.0:+.1f}")  # no -0.0


def vs_baseline_text(verdict: Verdict) -> str:
    """The winner's paired difference from the baseline, or nothing."""
    d = verdict.vs_baseline
    if d is None:
        return ""
    diff, lo, hi = d
    return f"; vs the baseline {diff:+.3f} [{lo:+.3f}, {hi:+.3f}] (paired)"


def confirmation_line(study: optuna.Study, name: str, completed: int) -> str:
    verdict = Verdict.of(study.user_attrs)
    if verdict is None:
        return f"not confirmed yet (heurtune confirm {name})"
    winner = verdict.winner
    lo, hi = winner.score_ci
    line = (f"winner {winner.label}"
            f"{' (the baseline: no candidate beat it)' if verdict.winner_is_baseline else ''}: "
            f"fresh score {winner.score:.3f} [{lo:.3f}, {hi:.3f}] over {winner.games} "
            f"games ({len(verdict.candidates)} candidates, {verdict.pairs} fresh opening "
            "pairs each)")
    line += vs_baseline_text(verdict)
    s = verdict.sprt
    if s is not None:
        line += (f"; SPRT [{s['elo0']:g}, {s['elo1']:g}]: {s['verdict'] or 'no verdict'} "
                 f"after {s['pairs']} pairs")
    if verdict.completed_trials != completed:
        line += (f" (confirmed when the study had {verdict.completed_trials} completed "
                 "trials: confirm again)")
    return line


def study_facts(study: optuna.Study, folder: Path | None) -> list[tuple[str, str]]:
    """What a study is and where it stands, as (name, value) rows: its study
    file, engine, opponent, openings, budget, trials, best trial,
    confirmation, exported engine and artifact folder."""
    name = study.study_name
    setup = study.user_attrs.get(schema.SETUP, {})
    tuning = study.user_attrs.get(schema.TUNING, {})
    engine = setup.get("engine", {})
    search = engine.get("search", {})
    trials = study.get_trials(deepcopy=False)
    count = {s: sum(1 for t in trials if t.state == s) for s in TrialState}
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    best = best_match_trial(study)
    pairs = setup.get("pairs", "?")
    openings = ("one of every symmetry class" if setup.get("openings") == "all"
                else f"{pairs} pairs ({2 * pairs if isinstance(pairs, int) else '?'} games)")
    exported = study.user_attrs.get(schema.EXPORTED)
    where = folder if folder is not None else tuning.get("artifacts")
    return [
        ("study file", tuning.get("study_file") or "-"),
        ("engine", f"{engine.get('game', '?')} heuristic {engine.get('heuristic', '?')}, "
                   + ", ".join(f"{k} {v}" for k, v in search.items()
                               if k in ("algorithm", "depth", "nodes", "time_ms") and v)),
        ("opponent", str(setup.get("opponent_spec", "?"))),
        ("openings", f"{openings} per trial, {setup.get('opening_plies', '?')} plies, "
                     f"seed {setup.get('seed', '?')}"),
        ("budget", f"{tuning.get('trials', '?')} trials, sampler {tuning.get('sampler', '?')}, "
                   f"pruner {tuning.get('pruner', '?')}"),
        ("trials", f"{count[TrialState.COMPLETE]} complete, {count[TrialState.PRUNED]} pruned, "
                   f"{count[TrialState.FAIL]} failed, {count[TrialState.RUNNING]} running"),
        ("best", _trial_line(best) if best is not None else "no completed trial yet"),
        ("confirmation", confirmation_line(study, name, len(complete))),
        ("exported engine", f"{exported['path']} ({_exported_what(exported)}, {exported['date']})"
         if exported else f"not exported yet (heurtune export {name})"),
        ("artifacts", str(where) if where
         else "none (give --artifacts DIR to keep engines and sample games)"),
    ]


def trials_table(storage_url: str, study_name: str) -> pd.DataFrame:
    """One row per trial: number, state, score, interval, games and parameters."""
    storage = open_storage(storage_url, create=False)
    study = load_study(storage, study_name)
    df = study.trials_dataframe(attrs=("number", "state", "user_attrs", "params"))
    try:  # running trials whose worker stopped sending heartbeats (killed, powered off)
        stale = {storage.get_trial(i).number for i in storage._get_stale_trial_ids(study._study_id)}
    except Exception:  # pragma: no cover - a storage without heartbeats
        stale = set()
    if stale and "state" in df.columns:
        df.loc[df["number"].isin(stale), "state"] = "RUNNING (stale: retried by the next tune)"
    rename = {c: c.removeprefix("user_attrs_").removeprefix("params_") for c in df.columns}
    df = df.rename(columns=rename)
    keep = ["number", "state", "score", "score_ci", "wins", "draws", "losses", "games"]
    hidden = ("elo", "elo_ci", "baseline", "sampler_seed", "start_from")
    params = [c for c in df.columns if c not in keep and c not in hidden]
    for col in keep:
        if col not in df.columns:
            df[col] = None
    return df[keep + [c for c in params if c not in keep]]
