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
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

import heurtune
from heurtune.engine import EngineConfig
from heurtune.engine.formats import FORMATS, SUFFIXES, provenance_path, render
from heurtune.errors import HeurtuneError
from heurtune.tomlio import check_folder_writable, check_writable, write_atomic
from heurtune.tuning.after.answers import default_answer
from heurtune.tuning.study import (
    StudySetup,
    Verdict,
    load_tuned_study,
    schema,
    study_command,
    trial_score,
)

EXPORTED = Path("studies") / "exported"  # default folder: studies/exported/STUDY.toml
UNCONFIRMED = ("unconfirmed: the score is the best trial's on the tuning openings, which is "
               "optimistic (the best of many noisy trials); run `heurtune confirm` first")
UNCONFIRMED_POSITIONS = ("unconfirmed: the trial with the lowest loss on the positions, which has "
                         "played no games; run `heurtune confirm` (or `heurtune match` with "
                         "--exclude-study) first")
UNCONFIRMED_ANSWER = ("unconfirmed: an answer computed from the study's trials, which has "
                      "played no games of its own; run `heurtune confirm` first")


def _winner(study: optuna.Study, base: EngineConfig, complete: list[FrozenTrial],
            confirmation: Verdict | None) -> tuple[str, dict[str, Any], FrozenTrial | None]:
    """(label, searched parameters, trial or None) of what export writes: the
    confirmation's winner, else the study's default answer."""
    if confirmation is not None:
        number = confirmation.winner_trial
        trial = next((t for t in complete if t.number == number), None)
        params = confirmation.winner_params
        if params is None and trial is not None:  # recorded before answers were candidates
            params = dict(trial.params)
        label = confirmation.raw.get("winner_label", f"trial {number}")
        return label, dict(params or {}), trial
    answer = default_answer(study, base)
    trial = next((t for t in complete if t.number == answer.trial), None)
    return answer.label, dict(answer.params), trial


def export_choice(study: optuna.Study) -> tuple[str, dict[str, Any]] | None:
    """What ``export`` writes for this study, as (label, searched parameters): its
    confirmation's winner, else its default answer (the same choice as
    :func:`best_config`); None for a multi-objective study, one without a
    completed trial, or one whose engine cannot be read here."""
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if len(study.directions) > 1 or not complete:
        return None
    try:
        setup = StudySetup.of(study.user_attrs, study.study_name)
        base = EngineConfig.from_dict(setup.engine, source=f"study {study.study_name!r}")
        label, params, _trial = _winner(study, base, complete, Verdict.of(study.user_attrs))
    except HeurtuneError:
        return None
    return label, params


# an unconfirmed answer's gain over the baseline, as its detail holds it: measured
# on held-out duels (duels), then the model's prediction, labelled model-based
GAIN_KEYS = {"measured_gain": "measured_gain_elo", "measured_gain_ci": "measured_gain_elo_ci",
             "measured_duels": "measured_duels", "model_gain": "model_based_gain_elo",
             "model_gain_sd": "model_based_gain_elo_sd"}


def _answer_gain(study: optuna.Study, base: EngineConfig) -> dict[str, Any]:
    """The unconfirmed default answer's gain figures for the provenance (empty for
    a trial, or an answer without them)."""
    answer = default_answer(study, base)
    out = {new: answer.detail[old] for old, new in GAIN_KEYS.items()
           if answer.detail.get(old) is not None}
    if answer.detail.get("beyond_bounds"):  # the best may lie beyond these bounds
        out["beyond_bounds"] = dict(answer.detail["beyond_bounds"])
    return out


CHOSEN = ("chosen by hand (export --trial): unconfirmed unless it is the confirmation's "
          "winner; its score is the tuning match's, which is optimistic")


def best_config(storage_url: str, study_name: str, trial_number: int | None = None
                ) -> EngineConfig:
    """The study's confirmed winner (else its default answer: the best completed
    trial unless the study says otherwise), or the trial ``trial_number``, as a
    configuration with provenance."""
    study, setup, complete = load_tuned_study(storage_url, study_name, "export")
    if len(study.directions) > 1:
        raise HeurtuneError(f"study {study_name!r} has two objectives (score and cost): "
                            f"`{study_command('export', study_name, storage_url, '--pareto')}` "
                            "writes its Pareto front")
    confirmation = Verdict.of(study.user_attrs)
    base = EngineConfig.from_dict(setup.engine, source=f"study {study_name!r}")
    label, params, trial = _winner(study, base, complete, confirmation)
    if trial_number is not None and (trial is None or trial.number != trial_number):
        chosen = next((t for t in complete if t.number == trial_number), None)
        if chosen is None:
            numbers = ", ".join(str(t.number) for t in complete[:20])
            raise HeurtuneError(f"study {study_name!r} has no completed trial {trial_number} "
                                f"(completed: {numbers}{', ...' if len(complete) > 20 else ''})")
        label, params, trial, confirmation = (f"trial {trial_number}", dict(chosen.params),
                                              chosen, None)
    states = [t.state for t in study.get_trials(deepcopy=False)]
    provenance: dict[str, Any] = {
        "study": study_name,
        "objective": study.user_attrs.get(schema.OBJECTIVE, "score"),
        "opponent": setup.opponent_spec,
        **_pool_provenance(setup),
        "pairs": setup.pairs,
        "seed": setup.seed,
    }
    if trial is not None and schema.POSITIONS_LOSS in trial.user_attrs:  # its losses
        info = study.user_attrs.get(schema.POSITIONS) or {}
        provenance.update({
            "trial": trial.number,
            "positions_loss": trial_score(trial),
            **{k: trial.user_attrs[k] for k in (schema.POSITIONS_HELD_OUT_LOSS,
                                                schema.POSITIONS_AGREEMENT)
               if k in trial.user_attrs},
            "positions": {k: info[k] for k in ("file", "k", "loss", "positions", "games",
                                               "held_out_games", "baseline_loss",
                                               "baseline_held_out_loss")
                          if info.get(k) is not None},
        })
    elif trial is not None:  # its tuning match
        attrs = trial.user_attrs
        provenance.update({
            "trial": trial.number,
            "games": attrs.get(schema.GAMES, 0),
            "wins": attrs.get(schema.WINS, 0),
            "draws": attrs.get(schema.DRAWS, 0),
            "losses": attrs.get(schema.LOSSES, 0),
            "score": trial_score(trial),
            "score_ci": list(attrs.get(schema.SCORE_CI, [])),
            "elo": attrs.get(schema.ELO, 0.0),
            "elo_ci": list(attrs.get(schema.ELO_CI, [])),
        })
    else:
        provenance["answer"] = label.removeprefix("answer ")
        if confirmation is None:
            provenance.update(_answer_gain(study, base))
    provenance.update({
        "completed_trials": len(complete),
        "pruned_trials": states.count(TrialState.PRUNED),
        "failed_trials": states.count(TrialState.FAIL),
        "heurtune_version": heurtune.__version__,
        "optuna_version": optuna.__version__,
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        # confirmed: a confirmation found it better than the baseline (export then
        # writes it without --force); its block is [provenance.confirmation]
        "confirmed": confirmation is not None and confirmation.no_gain() is None,
    })
    if confirmation is not None:
        provenance["note"] = ("the losses are on the positions that chose this trial (held-out: "
                              "games it was not fitted on); [provenance.confirmation] holds the "
                              "fresh evidence from games"
                              if trial is not None and "positions_loss" in provenance else
                              "score and interval are the tuning match's, unadjusted for the "
                              "selection among trials; [provenance.confirmation] holds the "
                              "fresh evidence" if trial is not None else
                              "an answer computed from the study, not a trial: "
                              "[provenance.confirmation] holds its evidence")
        provenance["confirmation"] = _confirmation_block(confirmation, len(complete))
    else:
        provenance["note"] = (CHOSEN if trial_number is not None
                              else UNCONFIRMED_ANSWER if trial is None
                              else UNCONFIRMED_POSITIONS if "positions_loss" in provenance
                              else UNCONFIRMED)
    slug = label.split(" (")[0].replace(" ", "-")
    return replace(
        base,
        params={**base.params, **params},
        name=f"{study_name}-{slug}",
        description=f"tuned by heurtune: study {study_name!r}, {label}",
        provenance=provenance,
    )


def unproven(provenance: Mapping[str, Any], study_name: str,
             storage_url: str | None = None) -> tuple[str, str] | None:
    """Why an exported configuration is not shown better than its baseline, and
    what to do about it (None when its confirmation found it better); the
    commands it names give ``--storage`` where ``storage_url`` is not the default."""
    def confirm(*more: str) -> str:
        if storage_url is None:
            return " ".join(("heurtune confirm", study_name) + more)
        return study_command("confirm", study_name, storage_url, *more)

    if "confirmation" not in provenance:
        if provenance.get("note") == CHOSEN:
            return (f"trial {provenance.get('trial')} of study {study_name!r} was chosen by "
                    "hand and is unconfirmed", f"run `{confirm()}` (fresh openings) first")
        picked = ("by its loss on the positions, without a game" if "positions_loss" in provenance
                  else "on the games that scored it")
        return (f"study {study_name!r} is unconfirmed: its winner was picked {picked}",
                f"run `{confirm()}` (fresh openings) first")
    why = provenance["confirmation"].get("no_gain")
    if why is None:
        return None
    return (f"study {study_name!r}: its confirmation found no gain ({why})",
            f"tune further (more trials or pairs) or confirm with more pairs "
            f"(`{confirm('--pairs', '200')}`)")


FIGURES = ("games", "wins", "draws", "losses", "score", "score_ci", "elo", "elo_ci", "los",
           "nelo", "pentanomial")  # a match's figures, as exported


def _confirmation_block(verdict: Verdict, completed: int) -> dict[str, Any]:
    """What an exported file says of the confirmation: the winner's figures on
    games that did not pick it (the two-stage check), its paired difference from
    the baseline there (or its max-t interval: no point score), the SPRT if one
    was run, and the selection that picked it, labelled optimistic."""
    raw = verdict.raw
    candidates = verdict.candidates
    block: dict[str, Any] = {"date": raw["date"], "method": verdict.method}
    evidence = verdict.evidence
    check = verdict.check
    if check is not None:
        block.update({"pairs": check["pairs"], "seed": check["seed"],
                      "excluded_openings": check["excluded_openings"]})
    elif verdict.method == "selection":  # recorded before two-stage confirmation
        block.update({"pairs": raw["pairs"], "seed": raw["seed"]})
    if evidence is not None:
        block.update({k: evidence[k] for k in FIGURES if k in evidence})
    if check is not None and "baseline" in check:
        block["baseline_score"] = check["baseline"]["score"]
        block["baseline_score_ci"] = check["baseline"]["score_ci"]
    d = verdict.vs_baseline
    if d is not None:
        block["difference_vs_baseline"] = d[0]
        block["difference_vs_baseline_ci"] = [d[1], d[2]]
    elif verdict.method == "max-t" and "max_t" in raw:
        m = raw["max_t"]
        block["difference_vs_baseline_ci"] = m["difference_ci"]
        block["max_t"] = {"comparisons": m["comparisons"], "critical": m["critical"],
                          "pairs": m["pairs"]}
    block["winner_is_baseline"] = raw["winner_is_baseline"]
    block["note"] = _block_note(verdict)
    block["selection"] = {
        "pairs": raw["pairs"],
        "seed": raw["seed"],
        "opening_plies": raw["opening_plies"],
        "excluded_study_openings": raw["excluded_study_openings"],
        "candidates": [c.label for c in candidates],
        "candidate_scores": [c.figures["score"] for c in candidates],
    }
    sprt = verdict.sprt
    if sprt is not None:
        block["sprt"] = {k: sprt[k] for k in ("elo0", "elo1", "alpha", "beta", "llr", "bounds",
                                              "pairs", "seed", "score", "score_ci",
                                              # corrected for the sequential stop
                                              "score_corrected", "score_corrected_ci",
                                              "elo_corrected", "elo_corrected_ci",
                                              "stop_corrected")
                         if k in sprt}
        block["sprt"]["verdict"] = sprt["verdict"] or "none (stopped at the pair cap)"
    why = verdict.no_gain()
    if why is not None:
        block["no_gain"] = why
    if completed != raw["completed_trials"]:
        block["stale"] = (f"confirmed when the study had {raw['completed_trials']} completed "
                          f"trials; it has {completed} now")
    return block


def _block_note(verdict: Verdict) -> str:
    """What the confirmation block's figures are, in one sentence."""
    if verdict.method == "selection":
        return ("the figures are the selection's own: the winner was picked on these games, "
                "so they are optimistic (confirmed before two-stage confirmation)")
    if verdict.winner_is_baseline:
        return "no candidate beat the baseline in the selection; no further games were played"
    if verdict.method == "max-t":
        return ("no further games: the interval of the paired difference from the baseline "
                "holds for all candidates at once (max-t), so for the one picked; no point "
                "score, since the winner's own is the luckiest of the candidates'")
    return ("the figures are the winner's on further fresh openings that did not pick it "
            "(the check); [selection] lists the games that picked it, whose scores are "
            "optimistic")


def _pool_provenance(setup: StudySetup) -> dict[str, Any]:
    """A pool study's opponents and weights (nothing for one opponent)."""
    if not setup.pool:
        return {}
    return {"opponents": [m.spec for m in setup.pool], "weights": [m.weight for m in setup.pool]}


def write_config(config: EngineConfig, path: Path, header: str, fmt: str = "toml") -> None:
    """Write ``config`` in format ``fmt`` (see :mod:`heurtune.engine.formats`), atomically."""
    write_atomic(path, render(config, fmt, header))


def export_pareto(storage_url: str, study_name: str,
                  out: str | os.PathLike[str] | None,
                  fmt: str = "toml") -> list[tuple[Path, EngineConfig]]:
    """Write every trial of a multi-objective study's Pareto front (score against
    the opponent, the tuned engine's milliseconds per move) as an engine file in
    the folder ``out`` (default ``studies/exported/STUDY-pareto``), in format ``fmt``."""
    study, setup, complete = load_tuned_study(storage_url, study_name, "export")
    if len(study.directions) < 2:
        raise HeurtuneError(f"study {study_name!r} has one objective: it has no Pareto front "
                            f"(`{study_command('export', study_name, storage_url)}` without "
                            "--pareto)")
    folder = Path(out) if out else EXPORTED / f"{study_name}-pareto"
    check_folder_writable(folder)
    base = EngineConfig.from_dict(setup.engine, source=f"study {study_name!r}")
    front = sorted(study.best_trials, key=lambda t: (-t.values[0], t.values[1], t.number))
    written = []
    date = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    for rank, t in enumerate(front):
        a = t.user_attrs
        config = replace(
            base, params={**base.params, **t.params}, name=f"{study_name}-trial-{t.number}",
            description=(f"tuned by heurtune: study {study_name!r}, trial {t.number}, "
                         f"Pareto front {rank + 1} of {len(front)}"),
            provenance={
                "study": study_name, "trial": t.number, "pareto": True,
                "objectives": [study.user_attrs.get(schema.OBJECTIVE, "score"), "ms per move"],
                "opponent": setup.opponent_spec, **_pool_provenance(setup),
                "pairs": setup.pairs, "seed": setup.seed, "games": a.get(schema.GAMES, 0),
                "score": float(t.values[0]), "score_ci": list(a.get(schema.SCORE_CI, [])),
                "ms_per_move": float(t.values[1]), "elo": a.get(schema.ELO, 0.0),
                "elo_ci": list(a.get(schema.ELO_CI, [])), "confirmed": False,
                "note": ("a member of the Pareto front on the tuning openings (score against "
                         "the opponent, cost per move): unconfirmed; confirm one with "
                         "`heurtune match FILE OPPONENT --exclude-study STUDY_FILE`"),
                "heurtune_version": heurtune.__version__,
                "optuna_version": optuna.__version__, "date": date})
        path = folder / f"{study_name}-trial-{t.number}{SUFFIXES[fmt]}"
        write_config(config, path, f"# heurtune engine configuration: study {study_name!r}, trial "
                          f"{t.number}, on its Pareto front (score {t.values[0]:.3f}, "
                          f"{t.values[1]:.2f} ms per move)\n", fmt)
        written.append((path, config))
    return written


def default_export_path(study_name: str, fmt: str = "toml") -> Path:
    """Where ``export`` writes by default: ``studies/exported/STUDY.toml`` (a Python
    module: the study's name with ``_`` for what an import cannot take)."""
    stem = study_name if fmt != "python" else re.sub(r"\W", "_", study_name)
    return EXPORTED / f"{stem}{SUFFIXES[fmt]}"


def export_best(storage_url: str, study_name: str, out: str | os.PathLike[str] | None,
                fmt: str = "toml", force: bool = False, trial: int | None = None,
                ) -> tuple[Path, EngineConfig]:
    """Write the study's confirmed winner (or the trial ``trial``) in format ``fmt``
    (toml, json, python, uci); return the path and the configuration.

    Only a winner that the study's confirmation found better than the baseline
    is written: an unconfirmed study, or a confirmation whose winner is the
    baseline or not better than it for sure, is an error that says what to do.
    ``force`` writes it anyway, and a trial chosen by hand is written whatever
    its evidence, each with the reason in its provenance (``unproven``). A
    ``.uci`` file holds only ``setoption`` lines: its provenance goes beside it,
    as the TOML engine file ``NAME.provenance.toml``."""
    if fmt not in FORMATS:
        raise HeurtuneError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    config = best_config(storage_url, study_name, trial)
    found = unproven(config.provenance, study_name, storage_url)
    if found is not None:
        reason, advice = found
        if not force and trial is None:
            raise HeurtuneError(f"{reason}; nothing exported: {advice}, or write it anyway "
                                "with --force")
        config = replace(config, provenance={**config.provenance, "unproven": reason})
    path = Path(out) if out else default_export_path(study_name, fmt)
    header = f"# heurtune engine configuration exported from study {study_name!r}.\n"
    sidecar = provenance_path(path) if fmt == "uci" else None
    if sidecar is not None:
        check_writable(sidecar)  # both files, or neither
    if fmt == "toml" or sidecar is not None:
        header += (f"# Play it: heurtune match {sidecar or path} "
                   f"{config.provenance['opponent'] or 'OPPONENT'} --pairs 100\n")
    if sidecar is not None:
        header += f"# The engine's setoption lines: {path}\n"
        write_config(config, sidecar, header, "toml")
    write_config(config, path, header, fmt)
    return path, config
