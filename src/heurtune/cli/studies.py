"""Commands that run a study or plan one: tune, calibrate, screen."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from heurtune.cli._common import (
    ARTIFACTS_HELP,
    STUDY_FILE_HELP,
    Command,
    count,
    jobs_value,
    path_value,
    progress,
    storage_option,
)
from heurtune.tuning.planning import (
    CALIBRATION_PAIRS,
    DEFAULT_ELO,
    DEFAULT_INERT_ELO,
    DEFAULT_POINTS,
    DEFAULT_STEEP_ELO,
    SCREEN_PAIRS,
)
from heurtune.tuning.studyfile import StudyFile


def print_estimate(sf: StudyFile, trials: int) -> None:
    """What the study costs and resolves (from its calibration, if any)."""
    from heurtune.tuning.planning import study_estimate

    if sf.positions is not None:  # no game: each trial one pass over the positions
        print(f"plan: {trials} trials, each the {sf.positions.loss} loss over the positions of "
              f"{sf.positions.file} (no game is played; [confirm] plays games)", flush=True)
        return
    plan, notes = study_estimate(sf, trials)
    for line in notes + plan.lines():
        print(line, flush=True)


class Tune(Command):
    name = "tune"
    help = "create or resume an Optuna study from a study file"
    resumable = True

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_file", help=STUDY_FILE_HELP)
        s.add_argument("--trials", type=int, default=None,
                       help="total finished trials to reach (default: the study file's)")
        storage_option(s)
        s.add_argument("--study-name", default=None,
                       help="store the study under this name (default: the study file's "
                            "[study] name)")
        s.add_argument("--jobs", type=jobs_value, default=None, help="worker processes per match")
        s.add_argument("--dry-run", action="store_true",
                       help="print the study's cost and resolution estimate only; "
                            "touch no storage")
        s.add_argument("--artifacts", type=path_value, default=None, metavar="DIR",
                       help=ARTIFACTS_HELP)
        s.add_argument("--pgn", type=path_value, default=None, metavar="FILE",
                       help="add every trial's games (and the [confirm] section's) to FILE as "
                            "PGN, as trials finish")

    def run(self, args: argparse.Namespace) -> int:
        from tqdm import tqdm

        from heurtune.cli.results import run_confirmation
        from heurtune.tomlio import check_writable
        from heurtune.tuning import Dashboard, TrialResult, load_study_file, tune
        from heurtune.tuning.study import storage_text, study_command
        from heurtune.tuning.study.schema import FAULTED
        from heurtune.tuning.studyfile import check_study_name
        from heurtune.tuning.views import (
            bounds_text,
            fit_text,
            gain_text,
            params_text,
            positions_text,
            reach_text,
        )
        from heurtune.tuning.views.text import faults_cell

        sf = load_study_file(args.study_file)
        dashboard = Dashboard.open(args.storage, args.artifacts)  # a bad folder fails here
        if args.study_name is not None:
            check_study_name(args.study_name, "--study-name")
        target = args.trials if args.trials is not None else sf.trials
        print_estimate(sf, target)
        if args.dry_run:
            return 0
        if args.pgn:
            check_writable(args.pgn)  # before the games, which would be lost
        bar = tqdm(total=target, desc=f"study {args.study_name or sf.name}", unit="trial",
                   file=sys.stderr, disable=None)

        def on_trial(t: Any) -> None:
            bar.update(1)
            r = TrialResult.of(t.user_attrs)  # a pruned trial's value is its last report
            value = f"{r.score:.3f}" if r.score is not None else "-"
            state = t.state.name.lower()
            result = positions_text(t.user_attrs) or (
                f"score {value} [{r.score_ci[0]:.3f}, {r.score_ci[1]:.3f}] over {r.games} games")
            faults = faults_cell(t.user_attrs.get("faults"))
            if t.user_attrs.get(FAULTED):  # the engine broke: the reason, not a score
                state, result = "failed", str(t.user_attrs[FAULTED])
            elif faults:
                result += f" (lost by faults: {faults})"
            bar.write(f"trial {t.number:>3} {state:<8} {result}  " + params_text(t.params),
                      file=sys.stderr)

        done_pairs: dict[int, int] = {}

        def on_pair(trial_number: int, _pair: Any) -> None:
            done_pairs[trial_number] = done_pairs.get(trial_number, 0) + 1
            bar.set_postfix_str(f"trial {trial_number}: {done_pairs[trial_number]}/{sf.pairs} "
                                "pairs")

        summary = tune(
            sf, storage_url=args.storage, study_name=args.study_name, trials=args.trials,
            jobs=args.jobs, on_trial=on_trial, on_pair=on_pair, observer=dashboard,
            pgn=args.pgn,
        )
        bar.close()
        if summary.ran == 0:
            print(f"study {summary.study_name!r} already has {summary.finished} finished trials")
        print(
            f"study {summary.study_name!r} in {storage_text(summary.storage)}: "
            f"{summary.finished} finished trials"
            + (f" ({summary.faulted} failed for engine faults)" if summary.faulted else "")
            + f", best trial {summary.best_number} with {sf.objective_name} = "
            f"{summary.best_value:.3f}" if summary.best_value is not None
            else f"study {summary.study_name!r}: no completed trial yet"
        )
        if sf.sampler.kind == "lbfgs" and summary.finished < target and summary.best_value:
            print(f"lbfgs: L-BFGS-B converged after {summary.finished} trials (of at most "
                  f"{target})")
        found = summary.answer  # what export writes unconfirmed (a duel sampler's, the model's)
        if found is not None:
            gain = gain_text(found.detail)
            print(f"{found.label}: {params_text(found.params)}"
                  + (f" (gain over the baseline: {gain})" if gain else ""))
            fit = fit_text(found.detail)
            if fit:
                print(f"{found.label}: {fit}")
            reach = reach_text(found.detail)
            if reach:
                print(f"{found.label}: {reach}")
            bounds = bounds_text(found.detail, len(found.params))
            if bounds:
                print(f"{found.label}: {bounds}")
        if summary.confirm is not None:
            run_confirmation(args.storage, summary.study_name, summary.confirm, dashboard,
                             pgn=args.pgn, pgn_append=True)
        elif summary.confirmed_already:
            print(f"study {summary.study_name!r} is confirmed already "
                  f"(`{study_command('confirm', summary.study_name, args.storage)}` confirms "
                  "it again)")
        elif summary.best_value is not None and len(sf.objectives) > 1:
            print(f"next: `{study_command('export', summary.study_name, args.storage, '--pareto')}`"
                  " writes its Pareto front")
        elif summary.best_value is not None:
            print(f"next: `{study_command('confirm', summary.study_name, args.storage)}` "
                  "re-plays the best trials on fresh openings, then `heurtune export` writes "
                  "the winner")
        return 0


def _fresh_openings_options(s: argparse.ArgumentParser) -> None:
    """The opening and worker options that calibrate and screen share."""
    s.add_argument("--seed", type=int, default=None,
                   help="fresh openings and tie-breaks (default: the study's seed + 1)")
    s.add_argument("--opening-plies", type=int, default=None,
                   help="random plies that start every opening (default: the study's)")
    s.add_argument("--study-openings", action="store_true",
                   help="play the study's own tuning openings instead of fresh ones")
    s.add_argument("--jobs", type=jobs_value, default=None,
                   help="worker processes (default: the study's)")


def _openings_text(study_openings: bool) -> str:
    return "of the study's" if study_openings else "fresh"


class Calibrate(Command):
    name = "calibrate"
    help = ("measure a study's match noise (baseline vs opponent and vs itself) and plan its "
            "pairs per trial")

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_file", help=STUDY_FILE_HELP)
        s.add_argument("--pairs", type=int, default=CALIBRATION_PAIRS,
                       help=f"opening pairs against each (default {CALIBRATION_PAIRS})")
        s.add_argument("--elo", type=float, default=DEFAULT_ELO,
                       help=f"the Elo difference a trial should resolve (default {DEFAULT_ELO:g})")
        _fresh_openings_options(s)
        s.add_argument("--out", type=path_value, default=None,
                       help="default: beside the study file, STUDY.calibration.json (what tune "
                            "reads)")
        s.add_argument("--json", action="store_true", help="print one JSON object")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.tomlio import check_writable
        from heurtune.tuning import load_study_file
        from heurtune.tuning.planning import calibrate, calibration_path, save_calibration

        sf = load_study_file(args.study_file)
        out = check_writable(args.out or calibration_path(sf))  # before any game is played
        pairs = count(args.pairs, "--pairs")
        bar = progress(2 * pairs, f"calibrate {sf.name}")
        try:
            result = calibrate(sf, pairs=pairs, seed=args.seed, opening_plies=args.opening_plies,
                               study_openings=args.study_openings, elo=args.elo, jobs=args.jobs,
                               on_pair=lambda _p: bar.update(1))
        finally:
            bar.close()
        save_calibration(result, out)
        if args.json:
            print(json.dumps(result.record))
        else:
            r = result.record
            print(f"calibration of {sf.path}: the baseline vs {r['opponent']} and vs itself, "
                  f"{r['pairs']} {_openings_text(args.study_openings)} opening pairs "
                  f"each ({r['opening_plies']} plies, seed {r['seed']})")
            print("\n".join(result.lines()))
            reads = out == calibration_path(sf)  # tune reads the calibration beside the study
            print(f"wrote {out}" + (f" (`heurtune tune {sf.path}` reads it)" if reads else ""))
        return 0


class Screen(Command):
    name = "screen"
    help = "vary one parameter at a time against the baseline; flag inert parameters"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_file", help=STUDY_FILE_HELP)
        s.add_argument("--pairs", type=int, default=SCREEN_PAIRS,
                       help=f"opening pairs per point (default {SCREEN_PAIRS})")
        s.add_argument("--points", type=int, default=DEFAULT_POINTS,
                       help=f"points per parameter, both bounds included "
                            f"(default {DEFAULT_POINTS})")
        s.add_argument("--param", action="append", metavar="NAME",
                       help="screen only this parameter (repeatable; default every searched one)")
        s.add_argument("--inert-elo", type=float, default=DEFAULT_INERT_ELO,
                       help=f"inert: no point significant and a spread below this "
                            f"(default {DEFAULT_INERT_ELO:g})")
        s.add_argument("--steep-elo", type=float, default=DEFAULT_STEEP_ELO,
                       help=f"lopsided: one side of the baseline's value falls at least this "
                            f"far, surely, and the other gently: neither a bowl nor a slope "
                            f"(default {DEFAULT_STEEP_ELO:g})")
        _fresh_openings_options(s)
        s.add_argument("--png", default=None, metavar="FILE",
                       help="also draw one panel per parameter")
        s.add_argument("--json", action="store_true", help="print one JSON object")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.tomlio import check_writable
        from heurtune.tuning import load_study_file
        from heurtune.tuning.planning import save_png, screen, screen_games

        sf = load_study_file(args.study_file)
        if args.png:
            check_writable(args.png)  # before any game is played
        pairs = count(args.pairs, "--pairs")
        games = screen_games(sf, pairs, args.param or (), args.points)
        # printed with the first parameter's results, once every option has been checked
        header = [f"screening {sf.path}: each point vs the baseline, {pairs} "
                  f"{_openings_text(args.study_openings)} opening pairs per point, "
                  f"{games:,} games"]
        bar = progress(games // 2, f"screen {sf.name}")

        def show(entry: Any) -> None:
            bar.write("\n".join(header[:1] + entry.lines()), file=sys.stdout)
            header.clear()

        try:
            result = screen(sf, pairs=pairs, points=args.points, names=args.param or (),
                            inert_elo=args.inert_elo, steep_elo=args.steep_elo,
                            seed=args.seed,
                            opening_plies=args.opening_plies, study_openings=args.study_openings,
                            jobs=args.jobs, on_pair=lambda _p: bar.update(1),
                            on_param=None if args.json else show)
        finally:
            bar.close()
        if args.png:
            save_png(result, args.png)
        if args.json:
            print(json.dumps(result.to_dict()))
        else:
            lopsided = result.lopsided_names()
            print(result.verdicts() + f" (inert: spread below {result.inert_elo:g} Elo and no "
                  "point differs from the baseline at 95%)" + (
                      f"; lopsided: {', '.join(lopsided)} (one side falls {result.steep_elo:g} "
                      "Elo or more, the other gently)" if lopsided else ""))
            advice = result.advice()
            if advice:
                print(advice)
            if args.png:
                print(f"wrote {args.png}")
        return 0
