"""A study in words: its facts, trial lines and notes, the confirmation's verdict,
its trials as a table. Shared by the dashboard's notes, the report and the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import optuna
import pandas as pd
from optuna.storages._heartbeat import BaseHeartbeat
from optuna.trial import FrozenTrial, TrialState

from heurtune.engine import EngineConfig
from heurtune.engine.params import value_text
from heurtune.errors import HeurtuneError
from heurtune.match import MatchStats, elo_text
from heurtune.match.stats import FAULT_WORDS
from heurtune.tuning.after.answers import Answer, default_answer
from heurtune.tuning.samplers import (
    DISAGREE_Z,
    GUARDED,
    MANY_PARAMETERS,
    NARROWER_RADIUS,
    RECORD,
    disagreement,
    is_holdout,
)
from heurtune.tuning.study import (
    Verdict,
    best_match_trial,
    duel_of,
    load_study,
    open_storage,
    schema,
    study_command,
    trial_score,
)
from heurtune.tuning.study.environment import LIBRARIES


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


def trial_note(number: int, stats: MatchStats, planned: int, opponent: str,
               params: dict[str, Any], pruned: bool, failed: str = "") -> str:
    """A finished trial's match summary as Markdown (``failed``: why it failed)."""
    played = len(stats.pair_scores)
    state = (f"failed: {failed}" if failed else
             f"pruned after {played} of {planned} opening pairs" if pruned else "complete")
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
        *([f"| games lost by engine faults | {stats.faults_text()} |"]
          if stats.faults or stats.opponent_faults else []),
        "", "Parameters: " + ", ".join(f"{k} = {value_text(v)}" for k, v in params.items()),
    ]
    return "\n".join(lines) + "\n"


def gain_text(detail: Mapping[str, Any]) -> str:
    """An answer's gain over the baseline as its ``detail`` holds it: measured by
    held-out duels (a 95% interval), then the model's prediction, labelled
    model-based (its sd); empty when it has neither."""
    if detail.get("is_baseline"):
        return "the baseline itself (no gain claimed)"
    parts = []
    if "measured_gain" in detail:
        m = detail["measured_gain"]
        if m is None:
            parts.append("measured: not yet (no held-out duel played near this answer)")
        else:
            lo, hi = detail["measured_gain_ci"]
            parts.append(f"measured {m + 0.0:+.1f} Elo [{lo + 0.0:+.1f}, {hi + 0.0:+.1f}] over "
                         f"{detail['measured_duels']} held-out duels against the baseline "
                         f"({detail['measured_games']} games)")
    if detail.get("model_gain") is not None:
        parts.append(f"model-based {detail['model_gain'] + 0.0:+.1f} Elo "
                     f"(sd {detail['model_gain_sd']:.1f})")
    return "; ".join(parts)


def reach_text(detail: Mapping[str, Any]) -> str:
    """One sentence where ``duels`` moved its answer toward a maximum the duels put
    far from the baseline (its ``reach`` setting, a constant: on below 8 parameters; the
    ``detail``'s ``reached``, recorded since 2026-11-29); empty where it did not. The
    answer then lies beyond the point of highest lower bound, so its model-based sd is
    wider: on the simulated oracle's ``far`` the move took games to 1 Elo from 10,966
    to 9,044 (docs/results/optimisers.md, "The scale gate")."""
    if not detail.get("reached") or detail.get("is_baseline"):
        return ""
    return ("the answer moved toward the model's maximum, which the duels put far from "
            "the baseline, past the point of highest lower bound (reach)")


def bounds_text(detail: Mapping[str, Any], searched: int | None = None) -> str:
    """The parameters an answer's ``detail`` says the best may lie beyond (its
    ``beyond_bounds``) as one sentence; empty when none. Where the range cannot be
    widened (a weight that must stay positive), ``duels``' wider prior at the edge
    brings its answer nearer an optimum on the bound, so the sentence says so. Its
    default (``edge_prior = -1``) widens there: from
    :data:`~heurtune.tuning.samplers.duels.MANY_PARAMETERS` ``searched`` parameters on at
    once, below that (or ``searched`` unknown) once the model holds 8 duels per
    coefficient and is sure of the slope toward the edge; there the sentence also names
    ``edge_prior = 4`` with ``edge_prior_after = 8``, which does not wait for the slope
    and gains more at an edge, at a centred price (docs/results/optimisers.md, "Below 8
    parameters: the second rule"). Empty where ``duels`` withdrew its model's answer
    (``guard_z``): that model does not fit the box, so its slope at a bound says
    nothing either."""
    beyond = detail.get("beyond_bounds") or {}
    if not beyond or GUARDED in detail:
        return ""
    where = ", ".join(f"{name}'s {side} bound" for name, side in beyond.items())
    if searched is not None and searched >= MANY_PARAMETERS:
        how = (f"sampler duels, which answers nearer it: from {MANY_PARAMETERS} parameters on "
               f"its default edge_prior widens the prior there, unless edge_prior = 1")
    else:
        how = ("sampler duels, which answers nearer it: its default edge_prior widens the "
               "prior there once the fit is sure of the slope; edge_prior = 4 and "
               "edge_prior_after = 8 widen it sooner")
    return (f"the best may lie beyond {where}: the model's gain still rises through it "
            f"(widen the range and tune again; where the bound is a hard limit, tune "
            f"with {how})")


def fit_text(detail: Mapping[str, Any]) -> str:
    """One sentence where an answer's measured gain (held-out duels the model never
    fitted) and its model-based gain lie :data:`~heurtune.tuning.samplers.DISAGREE_Z`
    sd or more apart (:func:`~heurtune.tuning.samplers.disagreement`); empty
    otherwise. Measured above the model: the landscape is not the bowl the model fits
    (on real Morris and Isolation boxes and the oracle's ``broad`` case, where a broad
    search found more); below it: the model overrates its answer
    (docs/results/optimisers.md, "When the model's gain and the measured one
    disagree"). Where ``duels``' radius narrowed on that test (its ``narrow`` setting),
    the sentence says from which trial, whether or not the gains still disagree; where
    narrowing was off (``narrow = 0``: a study recorded before it), a measurement above
    the model names narrower duels (the ``radius`` option at
    :data:`~heurtune.tuning.samplers.NARROWER_RADIUS`, what narrowing does) beside a
    broad search (docs/results/optimisers.md, "A higher bar for narrowing")."""
    narrowed = _narrowed_text(detail)
    guarded = _guarded_text(detail)
    if guarded:
        return f"{guarded}; {narrowed}" if narrowed else guarded
    apart = disagreement(detail)
    if apart is None or abs(apart) < DISAGREE_Z:
        return narrowed
    said = (f"the held-out duels measure {detail['measured_gain'] + 0.0:+.1f} Elo where the "
            f"model predicts {detail['model_gain'] + 0.0:+.1f} ({abs(apart):.1f} sd apart)")
    if apart > 0:
        radius = detail.get("radius")  # the duels' radius now (missing: not recorded)
        narrower = not narrowed and not detail.get("narrow") and not (
            isinstance(radius, (int, float)) and radius <= NARROWER_RADIUS)
        text = (f"{said}: the landscape is not the bowl the model fits, so read the measured "
                f"gain; where the weights may lie far from good ones, a broad search "
                f"(search = \"broad\")"
                + (f" or narrower duels (radius = {NARROWER_RADIUS:g})" if narrower else "")
                + " may find more")
    else:
        text = f"{said}: the model overrates its answer; read the measured gain and confirm it"
    return f"{text}; {narrowed}" if narrowed else text


def _guarded_text(detail: Mapping[str, Any]) -> str:
    """Where ``duels`` withdrew its model's answer (its ``guard_z`` setting: the
    held-out duels measured it at or below the baseline, that many sd below the
    model; with ``basis = "record"``, its ``guard_record`` setting: none had measured
    it, and the latest held-out duels measured the answers they played so, below
    what the model predicted for them): what they measured, and what may find more (a
    broad search or narrower ranges where good values lie in a narrow band, as on
    ``isolation-eight``; narrower duels beside a cliff, as on the Morris fine boxes:
    docs/results/optimisers.md, "Narrower duels on the second Morris fine box"); empty
    where it did not."""
    g = detail.get(GUARDED)
    if not isinstance(g, Mapping):
        return ""
    try:
        measured, model = float(g["measured_gain"]), float(g["model_gain"])
        low, high = (float(v) for v in g["measured_gain_ci"])
        apart = abs(float(g["apart"]))
    except (KeyError, TypeError, ValueError):
        return ""
    if g.get("basis") == RECORD:  # none near the answer: the model's record (guard_record)
        try:
            predicted, duels = float(g["record_model_gain"]), int(g["measured_duels"])
        except (KeyError, TypeError, ValueError, OverflowError):
            return ""
        latest = ("the latest held-out duel measured the answer it played" if duels == 1 else
                  f"the latest {duels} held-out duels measured the answers they played")
        said = (f"no held-out duel has measured the model's answer ({model + 0.0:+.1f} Elo "
                f"predicted), and {latest} at {measured + 0.0:+.1f} Elo "
                f"[{low + 0.0:+.1f}, {high + 0.0:+.1f}] where the model predicted "
                f"{predicted + 0.0:+.1f} ({apart:.1f} sd apart): no gain over the baseline "
                f"is shown, so the study answers the baseline (guard_z, guard_record)")
    else:
        said = (f"the held-out duels measure the model's answer at {measured + 0.0:+.1f} "
                f"Elo [{low + 0.0:+.1f}, {high + 0.0:+.1f}] where the model predicts "
                f"{model + 0.0:+.1f} ({apart:.1f} sd apart): no gain over the baseline is "
                f"shown, so the study answers the baseline (guard_z)")
    text = (f"{said}; the model does not fit this box between its duels and the baseline: "
            f"where a weight's good values lie in a narrow band around its default, which "
            f"duels half a range wide step over, a broad search (search = \"broad\") or "
            f"narrower ranges around the defaults may find more")
    radius = detail.get("radius")  # the duels' radius now (missing: not recorded)
    if not (isinstance(radius, (int, float)) and radius <= NARROWER_RADIUS):
        text += (f"; where a weight falls off steeply beside a good baseline, narrower duels "
                 f"(radius = {NARROWER_RADIUS:g}) may find more")
    return text


def _narrowed_text(detail: Mapping[str, Any]) -> str:
    """Where ``duels``' radius narrowed (its ``narrow`` setting, on a measurement above
    the model or, with ``narrow_below``, on the guard's test below it): from which
    trial, and to what; empty where it did not."""
    at, radius = detail.get("narrowed_at"), detail.get("radius")
    bar = detail.get("narrow_bar")  # the bar it cleared (recorded since 2026-11-28)
    if not isinstance(bar, (int, float)):
        bar = detail.get("narrow_z", DISAGREE_Z)
    if (not isinstance(at, int) or not isinstance(radius, (int, float))
            or not isinstance(bar, (int, float))):
        return ""
    said = (f"the duels narrowed to a radius of {radius:g} half ranges from trial {at} on, "
            f"where the held-out duels first measured the answer")
    if bar < 0:  # narrowed on the guard's test (narrow_below)
        return (f"{said} at or below the baseline and {-bar:.3g} sd below the model's gain "
                f"(narrow_below)")
    return f"{said}'s gain {bar:.3g} sd above the model's (narrow)"


def unconfirmed_answer(study: optuna.Study) -> Answer | None:
    """What ``export`` writes while the study is unconfirmed, where that is an
    answer rather than a trial (a duel sampler's, the model's); None for the best
    trial, a multi-objective study, or a study whose engine cannot be read here."""
    engine = study.user_attrs.get(schema.SETUP, {}).get("engine")
    if not engine or len(study.directions) > 1 or best_match_trial(study) is None:
        return None
    try:
        found = default_answer(study, EngineConfig.from_dict(
            engine, source=f"study {study.study_name!r}"))
    except HeurtuneError:
        return None
    return None if found.name == "best" else found


def _exported_what(exported: dict[str, Any]) -> str:
    """What the last export wrote ("trial 7", "answer duels"; older notes: a trial number)."""
    return str(exported.get("what") or f"trial {exported.get('trial')}")


def positions_text(attrs: Mapping[str, Any]) -> str | None:
    """A positions trial's losses ("loss 0.4410, held-out 0.4523"), None for a
    match trial."""
    loss = attrs.get(schema.POSITIONS_LOSS)
    if loss is None:
        return None
    held = attrs.get(schema.POSITIONS_HELD_OUT_LOSS)
    return f"loss {loss:.4f}" + (f", held-out {held:.4f}" if held is not None else "")


def _trial_line(trial: FrozenTrial) -> str:
    losses = positions_text(trial.user_attrs)
    if losses is not None:
        return f"trial {trial.number}: {losses}"
    r = schema.TrialResult.of(trial.user_attrs)
    lo, hi = r.score_ci
    return (f"trial {trial.number}: score {trial_score(trial):.3f} [{lo:.3f}, {hi:.3f}] "
            f"over {r.games} games (+{r.wins} ={r.draws} -{r.losses}), "
            f"Elo {r.elo + 0.0:+.1f}")  # no -0.0


def verdict_text(verdict: Verdict) -> str:
    """The winner and its evidence in words: what picked it (the selection, whose
    own score is optimistic) and what measured it (the check's further fresh
    games, or max-t intervals)."""
    winner = verdict.winner
    lo, hi = winner.score_ci
    picked = (f"{len(verdict.candidates)} candidates on {verdict.pairs} fresh opening pairs "
              "each")
    if verdict.winner_is_baseline:
        return (f"winner {winner.label} (the baseline: no candidate beat it; {picked}, its "
                f"score {winner.score:.3f})")
    if verdict.method == "selection":  # recorded before two-stage confirmation
        text = (f"winner {winner.label}: fresh score {winner.score:.3f} [{lo:.3f}, {hi:.3f}] "
                f"over {winner.games} games ({picked}; selection figures, optimistic)")
    else:
        text = (f"winner {winner.label}: picked among {picked} (score there "
                f"{winner.score:.3f}, optimistic)")
    check = verdict.check
    if check is not None:
        w = check["winner"]
        clo, chi = w["score_ci"]
        text += (f"; on {check['pairs']} further fresh pairs {w['score']:.3f} "
                 f"[{clo:.3f}, {chi:.3f}] over {w['games']} games")
    d = verdict.vs_baseline
    if d is not None:
        text += f"; vs the baseline {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}] (paired)"
    elif verdict.method == "max-t" and verdict.gain_interval is not None:
        glo, ghi = verdict.gain_interval
        text += (f"; vs the baseline [{glo:+.3f}, {ghi:+.3f}] (max-t over "
                 f"{verdict.raw['max_t']['comparisons']} comparisons; no point score)")
    return text


def command_text(command: str, name: str, storage_url: str | None) -> str:
    """``heurtune COMMAND NAME``, with ``--storage URL`` where ``storage_url`` is
    given and not the default storage (its password hidden)."""
    if storage_url is None:
        return f"heurtune {command} {name}"
    return study_command(command, name, storage_url)


def confirmation_line(study: optuna.Study, name: str, completed: int,
                      storage_url: str | None = None) -> str:
    """The verdict of the study's confirmation, or the command that confirms it
    (naming ``storage_url`` where it is not the default)."""
    verdict = Verdict.of(study.user_attrs)
    if verdict is None:
        return f"not confirmed yet ({command_text('confirm', name, storage_url)})"
    line = verdict_text(verdict)
    s = verdict.sprt
    if s is not None:
        line += (f"; SPRT [{s['elo0']:g}, {s['elo1']:g}]: {s['verdict'] or 'no verdict'} "
                 f"after {s['pairs']} pairs")
    if verdict.completed_trials != completed:
        line += (f" (confirmed when the study had {verdict.completed_trials} completed "
                 "trials: confirm again)")
    return line


def study_facts(study: optuna.Study, folder: Path | None,
                storage_url: str | None = None) -> list[tuple[str, str]]:
    """What a study is and where it stands, as (name, value) rows: its study
    file, engine, opponent, openings, budget, trials, best trial, the answer
    export writes unconfirmed (where it is no trial, with its gain over the
    baseline), confirmation, exported engine, artifact folder and the environment
    (:func:`environment_text`). The commands it names give ``--storage`` where
    ``storage_url`` is given and not the default storage."""
    name = study.study_name
    attrs = study.user_attrs  # one read of the storage
    setup = attrs.get(schema.SETUP, {})
    tuning = attrs.get(schema.TUNING, {})
    engine = setup.get("engine", {})
    search = engine.get("search", {})
    trials = study.get_trials(deepcopy=False)
    count = {s: sum(1 for t in trials if t.state == s) for s in TrialState}
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    best = best_match_trial(study)
    pairs = setup.get("pairs", "?")
    openings = ("one of every symmetry class" if setup.get("openings") == "all"
                else f"{pairs} pairs ({2 * pairs if isinstance(pairs, int) else '?'} games)")
    if isinstance(setup.get("book"), Mapping):
        openings += f" from the book {setup['book'].get('name', '?')}"
    exported = attrs.get(schema.EXPORTED)
    where = folder if folder is not None else tuning.get("artifacts")
    answer = unconfirmed_answer(study)
    gain = gain_text(answer.detail) if answer is not None else ""
    bounds = bounds_text(answer.detail, len(answer.params)) if answer is not None else ""
    fit = fit_text(answer.detail) if answer is not None else ""
    reach = reach_text(answer.detail) if answer is not None else ""
    answer_row = ([(f"answer {answer.name}", params_text(answer.params)
                    + (f"; gain over the baseline: {gain}" if gain else "")
                    + (f"; {fit}" if fit else "")
                    + (f"; {reach}" if reach else "")
                    + (f"; {bounds}" if bounds else ""))]
                  if answer is not None else [])
    return [
        ("study file", tuning.get("study_file") or "-"),
        ("engine", f"{engine.get('game', '?')} heuristic {engine.get('heuristic', '?')}, "
                   + ", ".join(f"{k} {v}" for k, v in search.items()
                               if k in ("algorithm", "depth", "nodes", "time_ms") and v)),
        ("opponent", str(setup.get("opponent_spec", "?"))),
        ("openings", f"{openings} per trial, {setup.get('opening_plies', '?')} plies, "
                     f"seed {setup.get('seed', '?')}" if setup.get("objective") != "positions"
         else f"the positions' games: {openings}, {setup.get('opening_plies', '?')} plies, "
              f"seed {setup.get('seed', '?')} (confirmation plays none of them)"),
        *_positions_rows(study),
        ("budget", f"{tuning.get('trials', '?')} trials, sampler {tuning.get('sampler', '?')}"
                   f"{sampler_changes_text(attrs.get(schema.SAMPLER))}, "
                   f"pruner {tuning.get('pruner', '?')}"),
        ("trials", f"{count[TrialState.COMPLETE]} complete, {count[TrialState.PRUNED]} pruned, "
                   f"{count[TrialState.FAIL]} failed, {count[TrialState.RUNNING]} running"),
        ("engine faults", faults_text(trials)),
        ("best", _trial_line(best) if best is not None else "no completed trial yet"),
        *answer_row,
        ("confirmation", confirmation_line(study, name, len(complete), storage_url)),
        ("exported engine", f"{exported['path']} ({_exported_what(exported)}, {exported['date']})"
         if exported else f"not exported yet ({command_text('export', name, storage_url)})"),
        ("artifacts", str(where) if where
         else "none (give --artifacts DIR to keep engines and sample games)"),
        ("environment", environment_text(attrs)),
    ]


def sampler_changes_text(record: Any) -> str:
    """Where a study was resumed with other sampler settings than it began with
    (its sampler record's ``earlier`` list), which settings held until which trial
    (the kind, and the options that differ from those that followed), as a
    parenthesis; empty where they never changed."""
    earlier = record.get("earlier") if isinstance(record, Mapping) else None
    held = [e for e in (earlier if isinstance(earlier, list) else []) if isinstance(e, Mapping)]
    if not held:
        return ""
    parts = []
    for e, after in zip(held, [*held[1:], record], strict=True):
        mine, next_ = e.get("options"), after.get("options")
        mine = mine if isinstance(mine, Mapping) else {}
        next_ = next_ if isinstance(next_, Mapping) else {}
        differ = ([f"{k} {mine.get(k, 'default')}" for k in sorted(set(mine) | set(next_))
                   if mine.get(k) != next_.get(k)] if e.get("kind") == after.get("kind") else [])
        options = f" ({', '.join(differ)})" if differ else ""
        parts.append(f"{e.get('kind', '?')}{options} until trial {e.get('until_trial', '?')}")
    return f" (its settings changed on resuming; before: {', '.join(parts)})"


def environment_text(attrs: Mapping[str, Any]) -> str:
    """The libraries and OpenBLAS kernel a study was created with, and what differed
    for each worker that joined it in another environment (its trials may not
    reproduce the creator's): one line."""
    created = attrs.get(schema.ENVIRONMENT)
    if not isinstance(created, Mapping):
        return "not recorded (the study was created by an older heurtune)"
    parts = [", ".join(f"{k} {created[k]}" for k in ("python", *LIBRARIES) if k in created),
             f"{created.get('blas', 'kernel ?')} on {created.get('cpu', '?')}"]
    for key, other in sorted(attrs.items()):
        if key.startswith(schema.JOINED_ENVIRONMENT) and isinstance(other, Mapping):
            differs = other.get("differs")
            parts.append("a worker joined with " + (", ".join(map(str, differs))
                                                    if isinstance(differs, list) else "?"))
    return "; ".join(part for part in parts if part)


def _positions_rows(study: optuna.Study) -> list[tuple[str, str]]:
    """A positions study's data: its file, positions, split, K and baseline loss."""
    info = study.user_attrs.get(schema.POSITIONS)
    if not isinstance(info, Mapping):
        return []
    held = info.get("baseline_held_out_loss")
    return [("positions", f"{info.get('file')}: {info.get('positions')} positions of "
                          f"{info.get('games')} games, {info.get('held_out_games')} games held "
                          f"out; {info.get('loss')}, K {info.get('k', 0.0):.4g}; baseline loss "
                          f"{info.get('baseline_loss', 0.0):.4f}"
                          + (f", held-out {held:.4f}" if held is not None else ""))]


def faults_text(trials: Sequence[FrozenTrial]) -> str:
    """The games a study's trials lost by engine faults (the tuned engine's, then
    its opponents'), by kind, and the trials that failed for them: one line."""
    own: dict[str, int] = {}
    other: dict[str, int] = {}
    games = 0
    for t in trials:
        games += int(t.user_attrs.get(schema.GAMES, 0) or 0)
        for key, into in (("faults", own), ("opponent_faults", other)):
            counts = t.user_attrs.get(key)
            for kind, n in (counts.items() if isinstance(counts, dict) else ()):
                into[kind] = into.get(kind, 0) + int(n)
    failed = [t.number for t in trials if t.state == TrialState.FAIL
              and schema.FAULTED in t.user_attrs]
    if not own and not other and not failed:
        return f"none in {games} games"
    parts = [f"the tuned engine lost {sum(own.values())} of {games} games by its faults"
             + (f" ({faults_cell(own)})" if own else "")]
    if other:
        parts.append(f"its opponents {sum(other.values())} ({faults_cell(other)})")
    if failed:
        parts.append("trials failed for them (over the study's fault_share): "
                     + ", ".join(map(str, failed)))
    return "; ".join(parts)


def faults_cell(counts: Any) -> str:
    """A trial's fault counts ({kind: games}) as a table cell: ``timed out 3``."""
    if not isinstance(counts, dict) or not counts:
        return ""
    return ", ".join(f"{FAULT_WORDS.get(k, k)} {n}" for k, n in counts.items())


def trials_table(storage_url: str, study_name: str) -> pd.DataFrame:
    """One row per trial: number, state, score, interval, games and parameters;
    in a duel study also what each duel was (``duel``: ``search``, or
    ``held-out``: the answer against the baseline, left out of the model) and,
    for a held-out duel, the model's prediction of the gain it measures
    (``model_based_gain`` and its sd, Elo)."""
    storage = open_storage(storage_url, create=False)
    study = load_study(storage, study_name, storage_url)
    df = study.trials_dataframe(attrs=("number", "state", "user_attrs", "params"))
    stale: set[int] = set()
    try:  # running trials whose worker stopped sending heartbeats (killed, powered off)
        if isinstance(storage, BaseHeartbeat):
            stale = {storage.get_trial(i).number
                     for i in storage._get_stale_trial_ids(study._study_id)}
    except Exception:  # pragma: no cover - a storage without heartbeats
        pass
    if stale and "state" in df.columns:
        df.loc[df["number"].isin(stale), "state"] = "RUNNING (stale: retried by the next tune)"
    rename = {c: c.removeprefix("user_attrs_").removeprefix("params_") for c in df.columns}
    df = df.rename(columns=rename)
    keep = ["number", "state", "score", "score_ci", "wins", "draws", "losses", "games"]
    if schema.POSITIONS_LOSS in df.columns:  # a positions study: its losses instead
        keep = ["number", "state", schema.POSITIONS_LOSS, schema.POSITIONS_HELD_OUT_LOSS,
                schema.POSITIONS_AGREEMENT]
    hidden = ("elo", "elo_ci", "baseline", "sampler_seed", "start_from")
    # games lost by engine faults (the tuned engine's, its opponent's), where any were
    for col in ("faults", "opponent_faults", schema.FAULTED):
        if col in df.columns:
            if col != schema.FAULTED:
                df[col] = df[col].map(faults_cell)
            keep.append(col)
    params = [c for c in df.columns if c not in keep and c not in hidden]
    for col in keep:
        if col not in df.columns:
            df[col] = None
    duels = {t.number: duel_of(t) for t in study.get_trials(deepcopy=False)}
    if any(d is not None for d in duels.values()) and "number" in df.columns:
        df["duel"] = [None if duels.get(n) is None else
                      "held-out" if is_holdout(duels[n]) else "search" for n in df["number"]]
        keep.append("duel")
        if any(is_holdout(d) for d in duels.values()):
            for col, key in (("model_based_gain", "model_gain"),
                             ("model_based_gain_sd", "model_gain_sd")):
                df[col] = [(duels.get(n) or {}).get(key) if is_holdout(duels.get(n)) else None
                           for n in df["number"]]
                keep.append(col)
    return df[keep + [c for c in params if c not in keep]]
