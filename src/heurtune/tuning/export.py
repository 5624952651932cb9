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
from optuna.trial import FrozenTrial, TrialState

import heurtune
from heurtune.engine.config import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.tomlio import check_folder_writable
from heurtune.tuning.answers import default_answer
from heurtune.tuning.samplers import trial_score
from heurtune.tuning.confirm import CONFIRM_ATTR, candidate_label, winner_candidate
from heurtune.tuning.storage import load_study, open_storage
from heurtune.tuning.tune import load_tuned_study


UNCONFIRMED = ("unconfirmed: the score is the best trial's on the tuning openings, which is "
               "optimistic (the best of many noisy trials); run `heurtune confirm` first")
UNCONFIRMED_ANSWER = ("unconfirmed: an answer computed from the study's trials, which has "
                      "played no games of its own; run `heurtune confirm` first")


def _winner(study: optuna.Study, base: EngineConfig, complete: list[FrozenTrial],
            confirmation: dict[str, Any] | None) -> tuple[str, dict[str, Any], FrozenTrial | None]:
    """(label, searched parameters, trial or None) of what export writes: the
    confirmation's winner, else the study's default answer."""
    if confirmation is not None:
        number = confirmation.get("winner")
        trial = next((t for t in complete if t.number == number), None)
        params = confirmation.get("winner_params")
        if params is None and trial is not None:  # recorded before answers were candidates
            params = dict(trial.params)
        label = confirmation.get("winner_label", f"trial {number}")
        return label, dict(params or {}), trial
    answer = default_answer(study, base)
    trial = next((t for t in complete if t.number == answer.trial), None)
    return answer.label, dict(answer.params), trial


def best_config(storage_url: str, study_name: str) -> EngineConfig:
    """The study's confirmed winner (else its default answer: the best completed
    trial unless the study says otherwise) as a configuration with provenance."""
    study, setup, complete = load_tuned_study(storage_url, study_name, "export")
    if len(study.directions) > 1:
        raise HeurtuneError(f"study {study_name!r} has two objectives (score and cost): "
                            f"`heurtune export {study_name} --pareto` writes its Pareto front")
    confirmation = study.user_attrs.get(CONFIRM_ATTR)
    base = EngineConfig.from_dict(setup["engine"], source=f"study {study_name!r}")
    label, params, trial = _winner(study, base, complete, confirmation)
    states = [t.state for t in study.get_trials(deepcopy=False)]
    provenance: dict[str, Any] = {
        "study": study_name,
        "objective": study.user_attrs.get("objective", "score"),
        "opponent": setup.get("opponent_spec", ""),
        **_pool_provenance(setup),
        "pairs": setup["pairs"],
        "seed": setup["seed"],
    }
    if trial is not None:  # its tuning match
        attrs = trial.user_attrs
        provenance.update({
            "trial": trial.number,
            "games": attrs.get("games", 0),
            "wins": attrs.get("wins", 0),
            "draws": attrs.get("draws", 0),
            "losses": attrs.get("losses", 0),
            "score": trial_score(trial),
            "score_ci": list(attrs.get("score_ci", [])),
            "elo": attrs.get("elo", 0.0),
            "elo_ci": list(attrs.get("elo_ci", [])),
        })
    else:
        provenance["answer"] = label.removeprefix("answer ")
    provenance.update({
        "completed_trials": len(complete),
        "pruned_trials": states.count(TrialState.PRUNED),
        "failed_trials": states.count(TrialState.FAIL),
        "heurtune_version": heurtune.__version__,
        "optuna_version": optuna.__version__,
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "confirmed": confirmation is not None,
    })
    if confirmation is not None:
        provenance["note"] = ("score and interval are the tuning match's, unadjusted for the "
                              "selection among trials; [provenance.confirmation] holds the "
                              "fresh evidence" if trial is not None else
                              "an answer computed from the study, not a trial: "
                              "[provenance.confirmation] holds its evidence")
        provenance["confirmation"] = _confirmation_block(confirmation, len(complete))
    else:
        provenance["note"] = UNCONFIRMED if trial is not None else UNCONFIRMED_ANSWER
    slug = label.split(" (")[0].replace(" ", "-")
    return EngineConfig(
        game=base.game,
        heuristic=base.heuristic,
        params={**base.params, **params},
        search=base.search,
        rules=base.rules,
        name=f"{study_name}-{slug}",
        description=f"tuned by heurtune: study {study_name!r}, {label}",
        provenance=provenance,
    )


def _confirmation_block(verdict: dict[str, Any], completed: int) -> dict[str, Any]:
    """What an exported file says of the confirmation: the winner's fresh figures,
    its paired difference from the baseline and the SPRT, if one was run."""
    winner = winner_candidate(verdict)
    keys = ("games", "wins", "draws", "losses", "score", "score_ci", "elo", "elo_ci", "los",
            "nelo", "pentanomial")
    block: dict[str, Any] = {
        "date": verdict["date"],
        "pairs": verdict["pairs"],
        "seed": verdict["seed"],
        "opening_plies": verdict["opening_plies"],
        "excluded_study_openings": verdict["excluded_study_openings"],
        "candidates": [candidate_label(c) for c in verdict["candidates"]],
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


def _pool_provenance(setup: dict[str, Any]) -> dict[str, Any]:
    """A pool study's opponents and weights (nothing for one opponent)."""
    if "pool" not in setup:
        return {}
    return {"opponents": [m["spec"] for m in setup["pool"]],
            "weights": [m["weight"] for m in setup["pool"]]}


def export_pareto(storage_url: str, study_name: str,
                  out: str | os.PathLike[str] | None) -> list[tuple[Path, EngineConfig]]:
    """Write every trial of a multi-objective study's Pareto front (score against
    the opponent, the tuned engine's milliseconds per move) as an engine file in
    the folder ``out`` (default ``studies/exported/STUDY-pareto``)."""
    study, setup, complete = load_tuned_study(storage_url, study_name, "export")
    if len(study.directions) < 2:
        raise HeurtuneError(f"study {study_name!r} has one objective: it has no Pareto front "
                            f"(`heurtune export {study_name}` without --pareto)")
    folder = Path(out) if out else Path("studies") / "exported" / f"{study_name}-pareto"
    check_folder_writable(folder)
    base = EngineConfig.from_dict(setup["engine"], source=f"study {study_name!r}")
    front = sorted(study.best_trials, key=lambda t: (-t.values[0], t.values[1], t.number))
    written = []
    date = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    for rank, t in enumerate(front):
        a = t.user_attrs
        config = EngineConfig(
            game=base.game, heuristic=base.heuristic, params={**base.params, **t.params},
            search=base.search, rules=base.rules, name=f"{study_name}-trial-{t.number}",
            description=(f"tuned by heurtune: study {study_name!r}, trial {t.number}, "
                         f"Pareto front {rank + 1} of {len(front)}"),
            provenance={
                "study": study_name, "trial": t.number, "pareto": True,
                "objectives": [study.user_attrs.get("objective", "score"), "ms per move"],
                "opponent": setup.get("opponent_spec", ""), **_pool_provenance(setup),
                "pairs": setup["pairs"], "seed": setup["seed"], "games": a.get("games", 0),
                "score": float(t.values[0]), "score_ci": list(a.get("score_ci", [])),
                "ms_per_move": float(t.values[1]), "elo": a.get("elo", 0.0),
                "elo_ci": list(a.get("elo_ci", [])), "confirmed": False,
                "note": ("a member of the Pareto front on the tuning openings (score against "
                         "the opponent, cost per move): unconfirmed; confirm one with "
                         "`heurtune match FILE OPPONENT --exclude-study STUDY_FILE`"),
                "heurtune_version": heurtune.__version__,
                "optuna_version": optuna.__version__, "date": date})
        path = folder / f"{study_name}-trial-{t.number}.toml"
        config.save(path, f"# heurtune engine configuration: study {study_name!r}, trial "
                          f"{t.number}, on its Pareto front (score {t.values[0]:.3f}, "
                          f"{t.values[1]:.2f} ms per move)\n")
        written.append((path, config))
    return written


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
