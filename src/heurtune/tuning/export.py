"""``heurtune export``: the best trial as an engine configuration with its evidence."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

import optuna
import pandas as pd
from optuna.trial import TrialState

import heurtune
from heurtune.engine.config import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.tuning.storage import load_study, open_storage
from heurtune.tuning.tune import SETUP_ATTR


def best_config(storage_url: str, study_name: str) -> EngineConfig:
    """The best completed trial of the study as a configuration with provenance."""
    storage = open_storage(storage_url, create=False)
    study = load_study(storage, study_name)
    setup = study.user_attrs.get(SETUP_ATTR)
    if setup is None:
        raise HeurtuneError(f"study {study_name!r} was not created by heurtune tune")
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not complete:
        raise HeurtuneError(f"study {study_name!r} has no completed trial to export")
    best = study.best_trial
    base = EngineConfig.from_dict(setup["engine"], source=f"study {study_name!r}")
    attrs = best.user_attrs
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
        "heurtune_version": heurtune.__version__,
        "optuna_version": optuna.__version__,
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "note": "score and interval are the tuning match's; the best of many trials is "
                "optimistic, so confirm with a fresh `heurtune match` on another seed",
    }
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


def export_best(storage_url: str, study_name: str, out: str | os.PathLike[str] | None) -> Path:
    config = best_config(storage_url, study_name)
    path = Path(out) if out else Path("studies") / "exported" / f"{study_name}.toml"
    header = (
        f"# heurtune engine configuration exported from study {study_name!r}.\n"
        f"# Play it: heurtune match {path} {config.provenance['opponent'] or 'OPPONENT'} --pairs 100\n"
    )
    config.save(path, header)
    return path


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
