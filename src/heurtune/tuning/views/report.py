"""``heurtune report``: a study as one self-contained HTML file.

The page (plotly.js embedded once, so it works offline) holds:

* the study's facts (the same rows as its dashboard note);
* the optimisation history: every finished trial's score with its 95%
  interval, pruned trials at their last running score, the best so far (a
  positions study: each trial's training and held-out loss, the fitted K);
* parameter importances (Optuna's PED-ANOVA, its default: deterministic and
  without scikit-learn), slice plots of the most
  important parameters and a contour plot of the top ones (Optuna's plotly
  figures);
* pruning: trials by state, the pairs they played, and the running score per
  pair (Optuna's intermediate values); a positions study instead: the
  calibration of the baseline's and the tuned weights' predictions on the
  held-out positions;
* the confirmation: each candidate's fresh score with its interval beside its
  tuning score, and the verdict;
* the tuned weights (the engine ``export`` writes) against the defaults,
  each within its search bounds;
* heat maps of the per-cell weights, tuned and default, for heuristics that
  have the ``cell_weights`` hook (Halma's);
* a replay of the tuned engine's games against the opponent on the study's
  first opening, both colours, played with the tuning match's seeds (so they
  are the games its trial played there).
"""

from __future__ import annotations

import datetime as _dt
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import optuna
import plotly.graph_objects as go
from optuna.distributions import CategoricalDistribution
from optuna.importance import PedAnovaImportanceEvaluator
from optuna.trial import FrozenTrial, TrialState

import heurtune
from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match import MatchRunner
from heurtune.match.html import HtmlPage, interval_figure
from heurtune.match.records import pair_records
from heurtune.tomlio import check_writable
from heurtune.tuning._experimental import experimental_ok
from heurtune.tuning.after import best_config, tuning_spec
from heurtune.tuning.study import Verdict, best_match_trial, load_tuned_study, schema
from heurtune.tuning.views.text import confirmation_line, study_facts

REPORTS = Path("studies") / "reports"  # default folder: studies/reports/STUDY.html
SLICE_PARAMS = 4  # slice plots of this many of the most important parameters
CONTOUR_PARAMS = 3  # a contour matrix of this many
MIN_IMPORTANCE_TRIALS = 2  # completed trials PED-ANOVA needs (fewer: all importances equal)
STATE_COLOURS = {TrialState.COMPLETE: "#1f77b4", TrialState.PRUNED: "#ff7f0e",
                 TrialState.FAIL: "#d62728", TrialState.RUNNING: "#7f7f7f"}
BEST_COLOUR = "#2ca02c"
DEFAULT_COLOUR = "#7f7f7f"
HEAT_SCALE = "RdBu_r"  # per-cell weights: blue low, red high (as the seed drew them)


def report_path(study_name: str, out: str | os.PathLike[str] | None) -> Path:
    """Where the report goes: ``out``, else ``studies/reports/STUDY.html``."""
    return Path(out) if out else REPORTS / f"{study_name}.html"


def write_report(storage_url: str, study_name: str, out: str | os.PathLike[str] | None) -> Path:
    """Build the study's report and write it atomically; returns its path."""
    path = check_writable(report_path(study_name, out))
    build_report(storage_url, study_name).write(path)
    return path


def build_report(storage_url: str, study_name: str) -> HtmlPage:
    """The report page of a study that ``heurtune tune`` created (with at least
    one completed trial)."""
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # the plots' notes on sparse studies
    try:
        with warnings.catch_warnings():  # Optuna's notes on a multi-objective study's target
            warnings.simplefilter("ignore", UserWarning)
            return _build_report(storage_url, study_name)
    finally:
        optuna.logging.set_verbosity(verbosity)


def _build_report(storage_url: str, study_name: str) -> HtmlPage:
    study, setup, complete = load_tuned_study(storage_url, study_name, "report on")
    trials = study.get_trials(deepcopy=False)
    if len(study.directions) > 1:  # a Pareto front: shown is its best-scoring member
        best = best_match_trial(study)
        assert best is not None  # load_tuned_study found a completed trial
        tuned = EngineConfig.from_dict(setup.engine, source=f"study {study_name!r}") \
            .with_params(dict(best.params), name=f"{study_name}-trial-{best.number}")
        tuned = replace(tuned, provenance={"trial": best.number})
    else:
        tuned = best_config(storage_url, study_name)
    base = EngineConfig.from_dict(setup.engine, source=f"study {study_name!r}")
    opponent = EngineConfig.from_dict(setup.opponent, source=f"study {study_name!r}")
    page = HtmlPage(f"Study {study_name}: {base.game} heuristic {base.heuristic} "
                    f"against {setup.raw.get('opponent_spec', opponent.label)}")
    page.facts(study_facts(study, None, storage_url))

    positions = study.user_attrs.get(schema.POSITIONS)
    page.heading("Optimisation history")
    if isinstance(positions, Mapping):  # a positions study: its losses
        page.figure(loss_figure(trials, positions))
    else:
        page.figure(history_figure(trials, study.user_attrs.get(schema.OBJECTIVE, "score")))

    # a multi-objective study: the plots show its score (the first objective)
    multi = len(study.directions) > 1
    on_score: dict[str, Any] = ({"target": lambda t: t.values[0], "target_name": "score"}
                                if multi else {})
    if multi:
        page.heading("Pareto front: score against the tuned engine's milliseconds per move")
        page.figure(optuna.visualization.plot_pareto_front(
            study, target_names=["score", "ms per move"]))
    page.heading("Parameter importances")
    important = _importances(study, complete)
    if important:
        with experimental_ok():
            importances = optuna.visualization.plot_param_importances(
                study, evaluator=PedAnovaImportanceEvaluator(), **_importance_target(study))
        # (Optuna's words are "hyperparameter": here they are the heuristic's weights)
        importances.update_layout(
            title="parameter importances: how much of the score's spread each explains "
                  "(PED-ANOVA)", xaxis_title="importance", yaxis_title="parameter")
        page.figure(importances)
        page.heading("Slices and contours of the most important parameters")
        page.figure(optuna.visualization.plot_slice(study, params=important[:SLICE_PARAMS],
                                                    **on_score))
        if len(important) > 1:
            page.figure(optuna.visualization.plot_contour(
                study, params=important[:CONTOUR_PARAMS], **on_score))
    else:
        page.text("Importances need at least two completed trials whose parameters differ.",
                  note=True)

    if isinstance(positions, Mapping):
        page.heading("Calibration: predicted against observed results")
        _calibration_section(page, positions, base, study, tuned)
    else:
        page.heading("Pruning")
        page.facts(_pruning_facts(trials, setup.pairs))
        page.figure(pairs_figure(trials, setup.pairs))
        if any(t.intermediate_values for t in trials):
            page.figure(optuna.visualization.plot_intermediate_values(study))

    page.heading("Confirmation")
    page.text(confirmation_line(study, study_name, len(complete), storage_url))
    verdict = Verdict.of(study.user_attrs)
    if verdict is not None:
        # a positions study's tuning values are losses: not drawn on the score axis
        page.figure(confirmation_figure(verdict, tuning=not isinstance(positions, Mapping)))

    what = (f"trial {tuned.provenance['trial']}" if "trial" in tuned.provenance
            else f"answer {tuned.provenance['answer']}")
    page.heading(f"Tuned weights ({what}) against the defaults")
    sampled = next(t for t in trials if t.distributions)
    page.figure(weights_figure(sampled.distributions, dict(tuned.params), base.params))

    cell_weights = tuned.heuristic_obj.cell_weights
    if cell_weights is not None:
        page.heading("Per-cell weights of one piece")
        page.text("What one piece of the first player adds on each cell of an otherwise empty "
                  "board (terms of the whole position left out); each map on its own scale.",
                  note=True)
        page.figure(cell_heatmap(cell_weights(base.params), "defaults (the baseline)"))
        page.figure(cell_heatmap(cell_weights(tuned.params), f"tuned ({what})"))

    page.heading("Sample games of the tuned engine against the opponent")
    spec = replace(tuning_spec(setup, base, opponent), a=tuned)
    with MatchRunner(1) as runner:
        sample = runner.run(spec, openings=spec.openings()[:schema.SAMPLE_PAIRS], keep_games=True)
    for record in pair_records(spec, sample.pairs):
        side = "first" if record["players"][0] == tuned.label else "second"
        page.replay(record, f"pair {record['pair']}: the tuned engine moves {side}")

    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    page.text(f"heurtune {heurtune.__version__}, optuna {optuna.__version__}, {now}", note=True)
    return page


def _importances(study: optuna.Study, complete: Sequence[FrozenTrial]) -> list[str]:
    """The searched parameters from the most important down (none when they
    cannot be computed: fewer than two completed trials, or nothing varies)."""
    if len(complete) < MIN_IMPORTANCE_TRIALS:
        return []
    try:
        with experimental_ok():
            ranked = optuna.importance.get_param_importances(
                study, evaluator=PedAnovaImportanceEvaluator(), **_importance_target(study))
    except (ValueError, RuntimeError):
        return []
    return list(ranked)


def _importance_target(study: optuna.Study) -> dict[str, Any]:
    """For a multi-objective study: importances for the score (negated: PED-ANOVA
    looks at the lowest values, and a higher score is better)."""
    if len(study.directions) < 2:
        return {}
    return {"target": lambda t: -t.values[0]}


def _score(trial: FrozenTrial) -> tuple[float, float, float] | None:
    """A finished trial's score and interval (a pruned one's at its last pair)."""
    score, ci = trial.user_attrs.get(schema.SCORE), trial.user_attrs.get(schema.SCORE_CI)
    if score is None or not ci:
        return None
    return float(score), float(ci[0]), float(ci[1])


def history_figure(trials: Sequence[FrozenTrial], objective: str) -> go.Figure:
    """Every finished trial's score with its 95% interval (pruned trials at their
    last running score), and the best completed score so far."""
    fig = go.Figure()
    for state in (TrialState.COMPLETE, TrialState.PRUNED):
        shown = [(t, s) for t in trials if t.state == state and (s := _score(t)) is not None]
        fig.add_trace(go.Scatter(
            x=[t.number for t, _ in shown], y=[s[0] for _, s in shown], mode="markers",
            name=state.name.lower(), marker={"color": STATE_COLOURS[state], "size": 8},
            error_y={"type": "data", "symmetric": False,
                     "array": [s[2] - s[0] for _, s in shown],
                     "arrayminus": [s[0] - s[1] for _, s in shown]},
            customdata=[[s[1], s[2], t.user_attrs.get(schema.GAMES, 0)] for t, s in shown],
            hovertemplate=("trial %{x}: %{y:.3f} [%{customdata[0]:.3f}, %{customdata[1]:.3f}] "
                           "over %{customdata[2]} games<extra></extra>")))
    best_x, best_y, best = [], [], None
    for t in sorted(trials, key=lambda t: t.number):
        if t.state == TrialState.COMPLETE and t.values:  # the score: the first objective
            best = t.values[0] if best is None else max(best, t.values[0])
        if best is not None:
            best_x.append(t.number)
            best_y.append(best)
    fig.add_trace(go.Scatter(x=best_x, y=best_y, mode="lines", name="best so far",
                             line={"shape": "hv", "color": BEST_COLOUR}))
    fig.add_hline(y=0.5, line_dash="dot", line_color="#888")
    fig.update_layout(title=f"{objective}, with 95% intervals", xaxis_title="trial",
                      yaxis_title="score")
    return fig


def loss_figure(trials: Sequence[FrozenTrial], info: Mapping[str, Any]) -> go.Figure:
    """A positions study's training and held-out loss per trial, the best
    training loss so far, and the baseline's losses."""
    done = sorted((t for t in trials if t.state == TrialState.COMPLETE and t.values),
                  key=lambda t: t.number)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[t.number for t in done], y=[t.values[0] for t in done],
                             mode="markers", name="training loss",
                             marker={"color": STATE_COLOURS[TrialState.COMPLETE], "size": 8}))
    held = [(t.number, t.user_attrs[schema.POSITIONS_HELD_OUT_LOSS]) for t in done
            if schema.POSITIONS_HELD_OUT_LOSS in t.user_attrs]
    if held:
        fig.add_trace(go.Scatter(x=[n for n, _ in held], y=[v for _, v in held],
                                 mode="markers", name="held-out loss",
                                 marker={"color": STATE_COLOURS[TrialState.PRUNED], "size": 7,
                                         "symbol": "diamond"}))
    best_x, best_y, best = [], [], None
    for t in done:
        best = t.values[0] if best is None else min(best, t.values[0])
        best_x.append(t.number)
        best_y.append(best)
    fig.add_trace(go.Scatter(x=best_x, y=best_y, mode="lines", name="best so far",
                             line={"shape": "hv", "color": BEST_COLOUR}))
    if info.get("baseline_loss") is not None:
        fig.add_hline(y=float(info["baseline_loss"]), line_dash="dot", line_color="#888")
    fig.update_layout(
        title=f"{info.get('loss', 'cross-entropy')} loss of sigmoid(eval / K) against the "
              f"results, K = {float(info.get('k', 0.0)):.4g} (fitted at the baseline)<br>"
              f"{info.get('positions')} positions of {info.get('games')} games, "
              f"{info.get('held_out_games')} games held out; dotted: the baseline's training "
              "loss",
        xaxis_title="trial", yaxis_title="loss")
    return fig


def _calibration_section(page: HtmlPage, info: Mapping[str, Any], base: EngineConfig,
                         study: optuna.Study, tuned: EngineConfig) -> None:
    """The calibration plot of the baseline and the tuned weights on the held-out
    positions (where the position file can still be read)."""
    from heurtune.match.positions import load_positions
    from heurtune.tuning.after.answers import study_space
    from heurtune.tuning.positions import PositionsFit

    try:
        positions = load_positions(str(info.get("file")), base.game)
        fit = PositionsFit(positions, base, study_space(base, study.get_trials(deepcopy=False)),
                           loss=str(info.get("loss", "cross-entropy")),
                           held_out=float(info.get("held_out", 0.2)),
                           seed=int(info.get("split_seed", 0)), scale=float(info["k"]),
                           # (absent: recorded before the option, with the side to move's)
                           perspective=str(info.get("perspective", "side-to-move")))
    except (HeurtuneError, KeyError, ValueError) as exc:
        page.text(f"No calibration plot: {exc}", note=True)
        return
    page.figure(calibration_figure({
        "baseline": fit.calibration(dict(base.params)),
        f"tuned ({tuned.name})": fit.calibration(dict(tuned.params))},
        held_out=bool(fit.held_mask.any())))


def calibration_figure(curves: Mapping[str, Sequence[Mapping[str, float]]],
                       held_out: bool = True) -> go.Figure:
    """Observed mean result against mean prediction, by bins of the prediction,
    one curve per set of weights (marker size: the bin's positions)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect",
                             line={"dash": "dot", "color": "#888"}))
    colours = [DEFAULT_COLOUR, BEST_COLOUR, "#1f77b4"]
    for k, (name, bins) in enumerate(curves.items()):
        counts = [b["count"] for b in bins]
        top = max(counts) if counts else 1
        fig.add_trace(go.Scatter(
            x=[b["predicted"] for b in bins], y=[b["observed"] for b in bins],
            mode="lines+markers", name=name, line={"color": colours[k % len(colours)]},
            marker={"size": [6 + 14 * c / top for c in counts]}, customdata=counts,
            hovertemplate="predicted %{x:.3f}, observed %{y:.3f} over %{customdata} "
                          "positions<extra></extra>"))
    where = "held-out" if held_out else "training"
    fig.update_layout(title=f"calibration on the {where} positions: mean result against mean "
                            "prediction, by tenths of the prediction",
                      xaxis={"title": "predicted result", "range": [0, 1]},
                      yaxis={"title": "observed result", "range": [0, 1]})
    return fig


def _pruning_facts(trials: Sequence[FrozenTrial], pairs: int) -> list[tuple[str, str]]:
    finished = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    played = sum(int(t.user_attrs.get(schema.GAMES, 0)) // 2 for t in finished)
    planned = pairs * len(finished)
    pruned = [t for t in finished if t.state == TrialState.PRUNED]
    saved = 1.0 - played / planned if planned else 0.0
    return [
        ("trials", ", ".join(f"{sum(1 for t in trials if t.state == s)} {s.name.lower()}"
                             for s in STATE_COLOURS)),
        ("opening pairs played", f"{played} of {planned} planned ({saved:.0%} saved by pruning)"),
        ("pruned after", ", ".join(f"trial {t.number}: "
                                   f"{int(t.user_attrs.get(schema.GAMES, 0)) // 2}"
                                   for t in pruned) or "none pruned"),
    ]


def pairs_figure(trials: Sequence[FrozenTrial], pairs: int) -> go.Figure:
    """The opening pairs each trial played, coloured by its state."""
    fig = go.Figure()
    for state, colour in STATE_COLOURS.items():
        shown = [t for t in trials if t.state == state]
        if shown:
            fig.add_trace(go.Bar(x=[t.number for t in shown],
                                 y=[int(t.user_attrs.get(schema.GAMES, 0)) // 2 for t in shown],
                                 name=state.name.lower(), marker_color=colour))
    fig.add_hline(y=pairs, line_dash="dot", line_color="#888")
    fig.update_layout(title=f"opening pairs played per trial (of {pairs})", xaxis_title="trial",
                      yaxis_title="pairs", barmode="overlay")
    return fig


def confirmation_figure(verdict: Verdict, tuning: bool = True) -> go.Figure:
    """Each candidate's selection score with its interval, its tuning score (unless
    ``tuning`` is false: a positions study's tuning values are losses), and the
    winner's and the baseline's scores on the check's further openings."""
    candidates = verdict.candidates
    winner = verdict.winner.label
    names = [c.label + (" (baseline)" if c.baseline and "baseline" not in c.label else "")
             + (" - winner" if c.label == winner else "") for c in candidates]
    scores = [c.score for c in candidates]
    intervals = [c.figures["score_ci"] for c in candidates]
    check = verdict.check
    if check is not None:  # the figures export reports: further openings, unselected
        for key, label in (("winner", f"{winner} - check"), ("baseline", "baseline - check")):
            if key in check:
                names.append(label)
                scores.append(check[key]["score"])
                intervals.append(check[key]["score_ci"])
    # one short line each, so that the title fits a narrow window
    lines = [f"each candidate's score on {verdict.pairs} fresh opening pairs (95% interval)",
             "selection: optimistic for the winner, picked on these games"
             + ("; x: its tuning score" if tuning else "")]
    if check is not None:
        lines.append(f"check: the winner and the baseline on {check['pairs']} further pairs, "
                     "the figures export reports")
    fig = interval_figure(names, scores, intervals, "<br>".join(lines), "score", reference=0.5)
    fig.update_layout(margin={"t": 40 + 22 * len(lines)})
    fig.data[0].name = "fresh score"
    if not tuning:
        fig.update_layout(showlegend=True)
        return fig
    fig.add_trace(go.Scatter(x=[c.tuning_score for c in candidates], y=names[:len(candidates)],
                             mode="markers",
                             name="tuning score", marker={"symbol": "x", "size": 10,
                                                          "color": DEFAULT_COLOUR}))
    fig.update_layout(showlegend=True)
    return fig


def weights_figure(distributions: Mapping[str, Any], tuned: Mapping[str, Any],
                   defaults: Mapping[str, Any]) -> go.Figure:
    """Each searched parameter's tuned and default value, placed within its
    search bounds (0: the low bound, 1: the high one); hover shows the values."""
    names, tuned_at, default_at, text = [], [], [], []
    for name, dist in distributions.items():
        value, default = tuned[name], defaults.get(name)
        if isinstance(dist, CategoricalDistribution):
            choices = list(dist.choices)
            span = max(len(choices) - 1, 1)
            place = [choices.index(v) / span if v in choices else None for v in (value, default)]
        else:
            low, high = float(dist.low), float(dist.high)
            place = [(float(v) - low) / (high - low) if high > low and v is not None else 0.5
                     for v in (value, default)]
        names.append(name)
        tuned_at.append(place[0])
        default_at.append(place[1])
        text.append(f"tuned {value!r}, default {default!r}")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=default_at, y=names, mode="markers", name="default",
                             marker={"color": DEFAULT_COLOUR, "size": 11, "symbol": "line-ns",
                                     "line": {"width": 3, "color": DEFAULT_COLOUR}},
                             text=text, hovertemplate="%{y}: %{text}<extra></extra>"))
    fig.add_trace(go.Scatter(x=tuned_at, y=names, mode="markers", name="tuned",
                             marker={"color": BEST_COLOUR, "size": 10},
                             text=text, hovertemplate="%{y}: %{text}<extra></extra>"))
    fig.update_layout(title="tuned and default weights within each parameter's search bounds",
                      xaxis={"title": "place within the bounds (0: low, 1: high)",
                             "range": [-0.05, 1.05]},
                      yaxis={"autorange": "reversed"}, height=max(300, 28 * len(names) + 140))
    return fig


def cell_heatmap(weights: Any, title: str) -> go.Figure:
    """A ``ranks x files`` array of per-cell weights (row 0: rank 1, at the bottom)."""
    ranks, files = weights.shape
    fig = go.Figure(go.Heatmap(
        z=weights, x=[chr(ord("a") + c) for c in range(files)],
        y=[str(r + 1) for r in range(ranks)], colorscale=HEAT_SCALE,
        hovertemplate="%{x}%{y}: %{z:.2f}<extra></extra>"))
    fig.update_layout(title=title, width=560, height=520,
                      yaxis={"scaleanchor": "x", "type": "category"},
                      xaxis={"type": "category"})
    return fig
