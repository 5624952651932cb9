"""``heurtune export``: the confirmed (or best) trial as an engine configuration
with its evidence.

A study confirmed by ``heurtune confirm`` exports the winner of the
confirmation, with a ``[provenance.confirmation]`` block holding its score on
the fresh openings; the tuning score beside it is unadjusted (the best of many
noisy trials is optimistic). An unconfirmed study still exports its best trial,
and the file says that it is unconfirmed."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

import optuna
import pandas as pd
from optuna.trial import TrialState

import heurtune
from heurtune.engine.config import EngineConfig
from heurtune.tuning.confirm import CONFIRM_ATTR
from heurtune.tuning.storage import load_study, open_storage
from heurtune.tuning.tune import load_tuned_study


UNCONFIRMED = ("unconfirmed: the score is the best trial's on the tuning openings, which is "
               "optimistic (the best of many noisy trials); run `heurtune confirm` first")


def best_config(storage_url: str, study_name: str) -> EngineConfig:
    """The study's confirmed winner (else its best completed trial) as a
    configuration with provenance."""
    study, setup, complete = load_tuned_study(storage_url, study_name, "export")
    confirmation = study.user_attrs.get(CONFIRM_ATTR)
    best = study.best_trial
    if confirmation is not None:
        best = next((t for t in complete if t.number == confirmation["winner"]), best)
    base = EngineConfig.from_dict(setup["engine"], source=f"study {study_name!r}")
    attrs = best.user_attrs
    states = [t.state for t in study.get_trials(deepcopy=False)]
    provenance = {
        "study": study_name,
        "trial": best.number,
        "objective": study.user_attrs.get("objective", "score"),
        "opponent": setup.get("opponent_spec", ""),
        "pairs": setup["pairs"],
        "seed": setup["seed"],
        "games": attrs.get("games", 0),
        "wins": attrs.get("wins", 0),
        "draws": attrs.get("draws", 0),
        "losses": attrs.get("losses", 0),
        "score": float(best.value),
        "score_ci": list(attrs.get("score_ci", [])),
        "elo": attrs.get("elo", 0.0),
        "elo_ci": list(attrs.get("elo_ci", [])),
        "completed_trials": len(complete),
        "pruned_trials": states.count(TrialState.PRUNED),
        "failed_trials": states.count(TrialState.FAIL),
        "heurtune_version": heurtune.__version__,
        "optuna_version": optuna.__version__,
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "confirmed": confirmation is not None,
        "note": ("score and interval are the tuning match's, unadjusted for the selection "
                 "among trials; [provenance.confirmation] holds the fresh evidence"
                 if confirmation is not None else UNCONFIRMED),
    }
    if confirmation is not None:
        provenance["confirmation"] = _confirmation_block(confirmation, len(complete))
    return EngineConfig(
        game=base.game,
        heuristic=base.heuristic,
        params={**base.params, **best.params},
        search=base.search,
        rules=base.rules,
        name=f"{study_name}-trial-{best.number}",
        description=f"tuned by heurtune: study {study_name!r}, trial {best.number}",
        provenance=provenance,
    )


def _confirmation_block(verdict: dict[str, Any], completed: int) -> dict[str, Any]:
    """What an exported file says of the confirmation: the winner's fresh figures,
    its paired difference from the baseline and the SPRT, if one was run."""
    winner = next(c for c in verdict["candidates"] if c["trial"] == verdict["winner"])
    keys = ("games", "wins", "draws", "losses", "score", "score_ci", "elo", "elo_ci", "los",
            "nelo", "pentanomial")
    block: dict[str, Any] = {
        "date": verdict["date"],
        "pairs": verdict["pairs"],
        "seed": verdict["seed"],
        "opening_plies": verdict["opening_plies"],
        "excluded_study_openings": verdict["excluded_study_openings"],
        "candidates": [c["trial"] for c in verdict["candidates"]],
        "candidate_scores": [c["score"] for c in verdict["candidates"]],
        "winner_is_baseline": verdict["winner_is_baseline"],
        **{k: winner[k] for k in keys if k in winner},
    }
    if "vs_baseline" in verdict:
        block["difference_vs_baseline"] = verdict["vs_baseline"]["difference"]
        block["difference_vs_baseline_ci"] = verdict["vs_baseline"]["difference_ci"]
    if "sprt" in verdict:
        s = verdict["sprt"]
        block["sprt"] = {k: s[k] for k in ("elo0", "elo1", "alpha", "beta", "llr", "bounds",
                                           "pairs", "seed", "score", "score_ci")}
        block["sprt"]["verdict"] = s["verdict"] or "none (stopped at the pair cap)"
    if completed != verdict["completed_trials"]:
        block["stale"] = (f"confirmed when the study had {verdict['completed_trials']} completed "
                          f"trials; it has {completed} now")
    return block


def export_best(storage_url: str, study_name: str,
                out: str | os.PathLike[str] | None) -> tuple[Path, EngineConfig]:
    """Write the study's confirmed (or best) trial; return the path and the configuration."""
    config = best_config(storage_url, study_name)
    path = Path(out) if out else Path("studies") / "exported" / f"{study_name}.toml"
    header = (
        f"# heurtune engine configuration exported from study {study_name!r}.\n"
        f"# Play it: heurtune match {path} {config.provenance['opponent'] or 'OPPONENT'} --pairs 100\n"
    )
    config.save(path, header)
    return path, config


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
