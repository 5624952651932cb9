"""The ``heurtune`` command line: parse, call, print.

Every user error ends as one line ``heurtune: error: ...`` on stderr and exit
code 2; an interrupted run exits 130 (finished trials are already stored).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import threading
from typing import Any, NoReturn, Sequence

from heurtune import __version__
from heurtune.errors import HeurtuneError

DEFAULT_STORAGE = "sqlite:///studies/heurtune.db"
MAX_PERFT_DEPTH = 12  # deeper counts take hours in every game
DEFAULT_MAX_PAIRS = 2000  # the SPRT cap when --max-pairs is not given
LOOPBACK = ("127.0.0.1", "localhost", "::1")
ARTIFACTS_HELP = ("the dashboard's artifact folder (default: beside a SQLite database, "
                  "studies/heurtune-artifacts for studies/heurtune.db; other storages: none)")


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (the running trial is marked failed)."""


def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"heurtune: error: {message} (see {self.prog} --help)\n")


def _rules(items: Sequence[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise HeurtuneError(f"--rule expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _params_text(params: Any) -> str:
    """Parameters as ``name=value`` (floats to 3 significant digits)."""
    return " ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in params.items())


def _progress(total: int | None, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="pair", file=sys.stderr, disable=None, leave=False)


# -- commands ------------------------------------------------------------------
def cmd_perft(args: argparse.Namespace) -> int:
    from heurtune.games import get_game
    from heurtune.games.perft import perft

    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        raise HeurtuneError(f"perft depth must be in [0, {MAX_PERFT_DEPTH}], got {args.depth}")
    kernel = get_game(args.game)
    state = kernel.new_state(_rules(args.rule))
    print(perft(kernel, args.depth, state))
    return 0


def _elo_pair(text: str) -> tuple[float, float]:
    """``ELO0,ELO1`` as two numbers."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        elo0, elo1 = float(parts[0]), float(parts[1])
    except ValueError:
        raise HeurtuneError(f"--sprt takes ELO0,ELO1 (two numbers), got {text!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise HeurtuneError(f"--sprt bounds must be finite, got {text!r}")
    return elo0, elo1


def _pairs_arg(text: str | None) -> int | str | None:
    """``--pairs``: a positive count, or ``all`` (every symmetry class of opening)."""
    if text is None or text == "all":
        return text
    try:
        value = int(text)
    except ValueError:
        raise HeurtuneError(f"--pairs takes a number or 'all', got {text!r}") from None
    if value < 1:
        raise HeurtuneError(f"--pairs must be at least 1, got {value}")
    return value


def cmd_match(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from heurtune.engine.config import resolve_engine
    from heurtune.games import get_game
    from heurtune.match.openings import opening_classes
    from heurtune.match.runner import MatchRunner, MatchSpec
    from heurtune.match.stats import Sprt

    pairs = _pairs_arg(args.pairs)
    if args.games:
        from heurtune.tomlio import check_writable

        check_writable(args.games)  # before the match, whose games would be lost
    sprt = Sprt(*_elo_pair(args.sprt), model=args.sprt_elo) if args.sprt else None
    if sprt is None and pairs is None:
        raise HeurtuneError("match needs --pairs N (or all), or --sprt ELO0,ELO1")
    if sprt is not None and pairs is not None:
        raise HeurtuneError("--sprt decides how many pairs to play: give --max-pairs, not --pairs")
    if args.max_pairs is not None and (sprt is None or args.max_pairs < 1):
        raise HeurtuneError("--max-pairs must be at least 1, with --sprt")
    a, b = resolve_engine(args.a), resolve_engine(args.b)
    if args.rule:
        rules = {**a.rules, **_rules(args.rule)}
        a, b = replace(a, rules=rules), replace(b, rules=rules)
    exclude: tuple[tuple[int, ...], ...] = ()
    if args.exclude_study:
        from heurtune.tuning.studyfile import load_study_file

        sf = load_study_file(args.exclude_study)
        if sf.base.game != a.game:
            raise HeurtuneError(f"{args.exclude_study} tunes {sf.base.game}, not {a.game}")
        exclude = tuple(sf.match_spec().openings())
    every_class = pairs == "all"
    if every_class:
        probe = MatchSpec(a, b, 1, args.seed, args.opening_plies)
        count = len(opening_classes(get_game(a.game), a.rules, probe.plies, exclude))
        if count == 0:
            raise HeurtuneError("no opening class is left to play")
    else:
        count = int(pairs) if pairs is not None else (args.max_pairs or DEFAULT_MAX_PAIRS)
    spec = MatchSpec(a, b, count, args.seed, args.opening_plies, exclude,
                     every_class=every_class, fewer_ok=sprt is not None)
    openings = spec.openings()  # drawn once (validated before anything is played)
    count = len(openings)  # with --sprt: the cap, or every opening there is if fewer
    fresh = ""
    if exclude:
        mirrors = (" (nor their symmetric images)"
                   if get_game(a.game).symmetry_hashes is not None else "")
        fresh = f", none of the {len(exclude)} openings of {args.exclude_study}{mirrors}"
    what = "every opening class: " if every_class else ""
    if sprt is None:
        head = f"{a.label} vs {b.label}: {what}{count} opening pairs, seed {args.seed}{fresh}"
    else:
        unit = "nElo" if sprt.model == "normalized" else "Elo"
        head = (f"{a.label} vs {b.label}: SPRT {unit} [{sprt.elo0:g}, {sprt.elo1:g}] "
                f"(alpha {sprt.alpha:g}, beta {sprt.beta:g}), at most {count} pairs, "
                f"seed {args.seed}{fresh}")
    if not args.json:
        print(head, flush=True)
    bar = _progress(count, f"{a.label} vs {b.label}")
    outcome = None
    with MatchRunner(args.jobs) as runner:
        if sprt is None:
            result = runner.run(spec, on_pair=lambda _p: bar.update(1), openings=openings,
                                keep_games=bool(args.games))
        else:
            lower, upper = sprt.bounds

            def progress(pair: object, llr: float) -> None:
                bar.update(1)
                bar.set_postfix_str(f"LLR {llr:.2f} [{lower:.2f}, {upper:.2f}]", refresh=False)

            result, outcome = runner.run_sprt(spec, sprt, on_pair=progress, openings=openings,
                                              keep_games=bool(args.games))
    bar.close()
    if args.games:
        from heurtune.match.records import pair_records, write_records

        write_records(args.games, pair_records(spec, result.pairs))
    stats = result.stats
    if args.json:
        out = result.to_dict()
        if outcome is not None:
            out["sprt"] = outcome.to_dict()
        print(json.dumps(out))
    else:
        if outcome is not None:
            print(outcome.summary())
        print(stats.summary())
        print(stats.pairs_summary())
        print(f"first player (side 0) scored {result.first_player_score:.3f} over all games")
        if args.games:
            print(f"wrote {2 * len(result.pairs)} games to {args.games} "
                  f"(`heurtune replay {args.games} --game N` shows one)")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from heurtune.match.records import read_records, replay_text

    print(replay_text(read_records(args.file), args.game, args.file))
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from heurtune.engine.config import resolve_engine
    from heurtune.match.tournament import run_tournament

    from heurtune.tomlio import check_writable

    for path in (args.csv, args.html):
        if path:
            check_writable(path)  # before the run, whose results would be lost
    agents = [resolve_engine(a) for a in args.agents]
    opponents = [resolve_engine(o) for o in args.opponents]
    bar = _progress(args.pairs * len(agents) * len(opponents), "tournament")
    result = run_tournament(agents, opponents, args.pairs, args.seed, args.jobs,
                            args.opening_plies, on_pair=lambda _p: bar.update(1))
    bar.close()
    if args.csv:
        from pathlib import Path

        try:
            Path(args.csv).write_text(result.to_csv())
        except OSError as exc:  # the results are still printed below
            print(f"heurtune: error: cannot write {args.csv}: {exc}", file=sys.stderr)
    if args.html:
        from heurtune.match.html import tournament_page

        try:
            tournament_page(result).write(args.html)
        except HeurtuneError as exc:  # the results are still printed below
            print(f"heurtune: error: {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.to_table())
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from heurtune.tuning.dashboard import Dashboard
    from heurtune.tuning.studyfile import load_study_file
    from heurtune.tuning.tune import tune

    sf = load_study_file(args.study_file)
    dashboard = Dashboard.open(args.storage, args.artifacts)  # a bad folder fails here
    if args.study_name is not None:
        from heurtune.tuning.studyfile import check_study_name

        check_study_name(args.study_name, "--study-name")
    target = args.trials if args.trials is not None else sf.trials
    print_estimate(sf, target)
    if args.dry_run:
        return 0
    bar = tqdm(total=target, desc=f"study {args.study_name or sf.name}", unit="trial",
               file=sys.stderr, disable=None)

    def on_trial(t: Any) -> None:
        bar.update(1)
        ci = t.user_attrs.get("score_ci", [0, 0])
        score = t.user_attrs.get("score")  # a pruned trial's value is its last report
        value = f"{score:.3f}" if score is not None else "-"
        state = t.state.name.lower()
        bar.write(
            f"trial {t.number:>3} {state:<8} score {value} [{ci[0]:.3f}, {ci[1]:.3f}] "
            f"over {t.user_attrs.get('games', 0)} games  " + _params_text(t.params),
            file=sys.stderr,
        )

    done_pairs: dict[int, int] = {}

    def on_pair(trial_number: int, _pair: Any) -> None:
        done_pairs[trial_number] = done_pairs.get(trial_number, 0) + 1
        bar.set_postfix_str(f"trial {trial_number}: {done_pairs[trial_number]}/{sf.pairs} pairs")

    summary = tune(
        sf, storage_url=args.storage, study_name=args.study_name, trials=args.trials,
        jobs=args.jobs, on_trial=on_trial, on_pair=on_pair, dashboard=dashboard,
    )
    bar.close()
    if summary.ran == 0:
        print(f"study {summary.study_name!r} already has {summary.finished} finished trials")
    print(
        f"study {summary.study_name!r} in {summary.storage}: {summary.finished} finished trials, "
        f"best trial {summary.best_number} with {sf.objective_name} = "
        f"{summary.best_value:.3f}" if summary.best_value is not None
        else f"study {summary.study_name!r}: no completed trial yet"
    )
    found = summary.answer  # what export writes unconfirmed (a duel sampler's, the model's...)
    if found is not None:
        gain = found.detail.get("gain")
        print(f"{found.label}: {_params_text(found.params)}"
              + (f" (model: {gain:+.1f} +- {found.detail['gain_sd']:.1f} Elo over the baseline)"
                 if gain is not None else ""))
    if sf.confirm is not None and summary.best_value is not None and summary.finished >= target:
        from dataclasses import replace

        from heurtune.tuning.confirm import needs_confirmation

        if needs_confirmation(args.storage, summary.study_name):
            options = sf.confirm if args.jobs is None else replace(sf.confirm, jobs=args.jobs)
            run_confirmation(args.storage, summary.study_name, options, dashboard)
        else:
            print(f"study {summary.study_name!r} is confirmed already (`heurtune confirm` "
                  "confirms it again)")
    return 0


def print_estimate(sf: Any, trials: int) -> None:
    """What the study costs and resolves (from its calibration, if any)."""
    from heurtune.tuning.calibrate import study_estimate

    plan, notes = study_estimate(sf, trials)
    for line in notes + plan.lines():
        print(line, flush=True)


def _openings_text(study_openings: bool) -> str:
    return "of the study's" if study_openings else "fresh"


def _count(value: int, option: str) -> int:
    if value < 1:
        raise HeurtuneError(f"{option} must be at least 1, got {value}")
    return value


def cmd_calibrate(args: argparse.Namespace) -> int:
    from heurtune.tomlio import check_writable
    from heurtune.tuning.calibrate import calibrate, calibration_path, save_calibration
    from heurtune.tuning.studyfile import load_study_file

    sf = load_study_file(args.study_file)
    out = check_writable(args.out or calibration_path(sf))  # before any game is played
    pairs = _count(args.pairs, "--pairs")
    bar = _progress(2 * pairs, f"calibrate {sf.name}")
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


def cmd_screen(args: argparse.Namespace) -> int:
    from heurtune.tomlio import check_writable
    from heurtune.tuning.screen import save_png, screen, screen_games
    from heurtune.tuning.studyfile import load_study_file

    sf = load_study_file(args.study_file)
    if args.png:
        check_writable(args.png)  # before any game is played
    pairs = _count(args.pairs, "--pairs")
    games = screen_games(sf, pairs, args.param or (), args.points)
    # printed with the first parameter's results, once every option has been checked
    header = [f"screening {sf.path}: each point vs the baseline, {pairs} "
              f"{_openings_text(args.study_openings)} opening pairs per point, "
              f"{games:,} games"]
    bar = _progress(games // 2, f"screen {sf.name}")

    def show(entry: Any) -> None:
        bar.write("\n".join(header[:1] + entry.lines()), file=sys.stdout)
        header.clear()

    try:
        result = screen(sf, pairs=pairs, points=args.points, names=args.param or (),
                        inert_elo=args.inert_elo, seed=args.seed,
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
        print(result.summary() + f" (inert: spread below {result.inert_elo:g} Elo and no "
              "point differs from the baseline at 95%)")
        if args.png:
            print(f"wrote {args.png}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from heurtune.tomlio import check_writable
    from heurtune.tuning.dashboard import Dashboard
    from heurtune.tuning.export import export_best

    if args.pareto:
        from heurtune.tuning.export import export_pareto

        written = export_pareto(args.storage, args.study_name, args.out)
        for path, config in written:
            prov = config.provenance
            print(f"wrote {path}: trial {prov['trial']}, score {prov['score']:.3f} "
                  f"[{prov['score_ci'][0]:.3f}, {prov['score_ci'][1]:.3f}], "
                  f"{prov['ms_per_move']:.2f} ms per move")
        print(f"the Pareto front of study {args.study_name!r}: {len(written)} engines "
              "(unconfirmed: play the one you pick on fresh openings)")
        return 0
    if args.out:
        check_writable(args.out)
    dashboard = Dashboard.open(args.storage, args.artifacts)
    path, config = export_best(args.storage, args.study_name, args.out)
    prov = config.provenance
    dashboard.exported(args.storage, args.study_name, path,
                       f"trial {prov['trial']}" if "trial" in prov else f"answer {prov['answer']}")
    confirmation = config.provenance.get("confirmation")
    if confirmation is None:
        what = ("the exported score is the best trial's on the tuning openings (optimistic)"
                if "trial" in prov else f"the exported weights are the study's {prov['answer']} "
                "answer, which has played no games of its own")
        print(f"heurtune: warning: study {args.study_name!r} is unconfirmed: {what}; run "
              f"`heurtune confirm {args.study_name}` and export again", file=sys.stderr)
    else:
        if confirmation.get("winner_is_baseline"):
            print("heurtune: warning: the confirmation's winner is the baseline: no candidate beat "
                  "it on the fresh openings", file=sys.stderr)
        if "stale" in confirmation:
            print(f"heurtune: warning: {confirmation['stale']}; confirm again to include the "
                  "newer trials", file=sys.stderr)
    print(f"wrote {path}")
    return 0


def _confirm_options(args: argparse.Namespace) -> Any:
    from heurtune.tuning.studyfile import DEFAULT_MAX_PAIRS, DEFAULT_PAIRS, ConfirmOptions

    pairs = _pairs_arg(args.pairs)
    if pairs == "all":
        raise HeurtuneError("confirm takes --pairs N (a number)")
    return ConfirmOptions(
        top=args.top, pairs=int(pairs) if pairs is not None else DEFAULT_PAIRS,
        sprt=_elo_pair(args.sprt) if args.sprt else None,
        max_pairs=args.max_pairs if args.max_pairs is not None else DEFAULT_MAX_PAIRS,
        seed=args.seed, jobs=args.jobs, opening_plies=args.opening_plies,
    )


def run_confirmation(storage: str, study_name: str, options: Any, dashboard: Any) -> None:
    """Confirm a study, printing one line per candidate and the verdict (and
    putting it in the study's dashboard note)."""
    from heurtune.tuning.confirm import confirm_study, winner_candidate

    bar = _progress(None, f"confirm {study_name}")
    print(f"confirming study {study_name!r}: the {options.top} best trials, the study's other "
          f"answers and the baseline, "
          f"{options.pairs} fresh pairs each"
          + (f", then an SPRT [{options.sprt[0]:g}, {options.sprt[1]:g}] for the winner"
             if options.sprt else ""), flush=True)
    verdict = confirm_study(storage, study_name, options,
                            on_line=lambda line: bar.write(line, file=sys.stdout),
                            on_pair=lambda: bar.update(1))
    bar.close()
    dashboard.confirmed(storage, study_name)
    winner = winner_candidate(verdict)
    lo, hi = winner["score_ci"]
    line = (f"winner: {winner['label']}, "
            f"fresh score {winner['score']:.3f} [{lo:.3f}, {hi:.3f}] over {winner['games']} games")
    if "vs_baseline" in verdict:
        d = verdict["vs_baseline"]
        line += (f"; vs the baseline {d['difference']:+.3f} "
                 f"[{d['difference_ci'][0]:+.3f}, {d['difference_ci'][1]:+.3f}] (paired)")
    print(line)
    print(f"stored in study {study_name!r} (user attribute 'confirmation'); "
          f"`heurtune export {study_name}` writes the winner")


def cmd_confirm(args: argparse.Namespace) -> int:
    from heurtune.tuning.dashboard import Dashboard

    run_confirmation(args.storage, args.study_name, _confirm_options(args), Dashboard())
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from heurtune.tuning.report import write_report

    path = write_report(args.storage, args.study_name, args.out)
    print(f"wrote {path}")
    return 0


def cmd_trials(args: argparse.Namespace) -> int:
    from heurtune.tomlio import check_writable
    from heurtune.tuning.export import trials_table

    if args.csv and args.csv != "-":
        check_writable(args.csv)
    df = trials_table(args.storage, args.study_name)
    if args.csv == "-":
        df.to_csv(sys.stdout, index=False)
    elif args.csv:
        try:
            df.to_csv(args.csv, index=False)
        except OSError as exc:
            raise HeurtuneError(f"cannot write {args.csv}: {exc}") from None
        print(f"wrote {len(df)} trials to {args.csv}")
    else:
        shown = df.copy()
        shown["score_ci"] = shown["score_ci"].map(
            lambda v: f"[{v[0]:.3f}, {v[1]:.3f}]" if isinstance(v, list) and len(v) == 2 else v
        )
        print(shown.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


def cmd_dashboard(args: argparse.Namespace) -> int:
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    import optuna_dashboard

    from heurtune.tuning.dashboard import serve_artifacts
    from heurtune.tuning.storage import open_storage

    if not 1 <= args.port <= 65535:
        raise HeurtuneError(f"--port must be in [1, 65535], got {args.port}")
    if args.host not in LOOPBACK and not args.allow_remote:
        raise HeurtuneError(f"--host {args.host} exposes the dashboard beyond this machine; "
                            "add --allow-remote to mean it (optuna-dashboard has no login)")
    storage = open_storage(args.storage, create=False)
    store, folder = serve_artifacts(args.storage, args.artifacts)
    app = optuna_dashboard.wsgi(storage, artifact_store=store)
    if not args.writable:
        app = _read_only(app)

    class _Quiet(WSGIRequestHandler):
        def log_message(self, *_args: Any) -> None:  # no line per request
            pass

    try:
        server = make_server(args.host, args.port, app, handler_class=_Quiet)
    except OSError as exc:
        raise HeurtuneError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
    if args.host not in LOOPBACK:
        print(f"heurtune: warning: the dashboard on {args.host} has no authentication: anyone "
              "who reaches this port can read the studies"
              + (" and change or delete them" if args.writable else ""), file=sys.stderr)
    mode = "writable" if args.writable else "read-only (--writable allows notes and edits)"
    shown = f" and the artifacts in {folder}" if folder is not None else ""
    print(f"optuna-dashboard on http://{args.host}:{args.port}/ for {args.storage}{shown}, "
          f"{mode} (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def _read_only(app: Any) -> Any:
    """The dashboard's WSGI app, refusing every request that would change a study."""

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("REQUEST_METHOD", "GET").upper() not in ("GET", "HEAD", "OPTIONS"):
            start_response("403 Forbidden", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"heurtune dashboard is read-only; start it with --writable to change studies\n"]
        return app(environ, start_response)

    return guarded


def cmd_bench(args: argparse.Namespace) -> int:
    from heurtune.engine.bench import bench

    settings = {k: v for k, v in (("table", args.table), ("tt_min_depth", args.tt_min_depth),
                                  ("leaf_order", args.leaf_order), ("tt_bits", args.tt_bits),
                                  ("candidates", args.candidates))
                if v is not None}
    result = bench(args.game, args.heuristic, args.depth, args.algorithm, args.positions,
                   **settings)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        table = " ".join(f"{k}={v}" for k, v in result.settings.items())
        print(
            f"{result.game} {result.heuristic} {result.algorithm} depth {result.depth} ({table}): "
            f"{result.positions} positions, time to depth {result.seconds:.3f} s; "
            f"{result.nodes:,} nodes ({result.last_iteration_nodes:,} in the last iteration) = "
            f"{result.nodes_per_second:,.0f} nodes/s"
        )
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from heurtune.engine.config import presets
    from heurtune.engine.heuristic import heuristics
    from heurtune.games import game_names, get_game

    for game in [args.game] if args.game else game_names():
        kernel = get_game(game)
        print(f"{game}: {kernel.description}")
        print("  rules: " + ", ".join(f"{r.name}={r.default}" for r in kernel.rules))
        for name, h in heuristics(game).items():
            print(f"  heuristic {name}: {h.description}")
            for row in h.space.describe():
                print(f"    {row['name']:<22} default {row['default']:<6} "
                      f"[{row.get('low')}, {row.get('high')}]  {row['help']}")
        for name, data in presets(game).items():
            print(f"  preset {game}:{name}: {data.get('description', '')}")
    return 0


# -- parser ---------------------------------------------------------------------
def _fresh_openings_options(s: argparse.ArgumentParser) -> None:
    """The opening and worker options that calibrate and screen share."""
    s.add_argument("--seed", type=int, default=None,
                   help="fresh openings and tie-breaks (default: the study's seed + 1)")
    s.add_argument("--opening-plies", type=int, default=None, help="default: the study's")
    s.add_argument("--study-openings", action="store_true",
                   help="play the study's own tuning openings instead of fresh ones")
    s.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the study's)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="heurtune", description="Tune game-AI heuristics by self-play with Optuna.")
    p.add_argument("--version", action="version", version=f"heurtune {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("perft", help="count move sequences from the start position")
    s.add_argument("game")
    s.add_argument("depth", type=int)
    s.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")
    s.set_defaults(func=cmd_perft)

    s = sub.add_parser("match", help="paired match between two engines")
    s.add_argument("a", help="preset GAME:NAME or engine configuration .toml")
    s.add_argument("b", help="preset GAME:NAME or engine configuration .toml")
    s.add_argument("--pairs", default=None, metavar="N|all",
                   help="openings, each played twice (all: one of every symmetry class)")
    s.add_argument("--sprt", default=None, metavar="ELO0,ELO1",
                   help="play until a pentanomial SPRT (alpha = beta = 0.05) accepts "
                        "H0 (Elo ELO0) or H1 (Elo ELO1)")
    s.add_argument("--max-pairs", type=int, default=None,
                   help=f"with --sprt: stop without a verdict after this many pairs "
                        f"(default {DEFAULT_MAX_PAIRS})")
    s.add_argument("--sprt-elo", choices=("logistic", "normalized"), default="logistic",
                   help="what --sprt's bounds are: logistic Elo (default) or normalised Elo")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--jobs", type=int, default=1, help="worker processes")
    s.add_argument("--opening-plies", type=int, default=None)
    s.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")
    s.add_argument("--exclude-study", metavar="STUDY_FILE", default=None,
                   help="play none of the openings that this study tunes on, nor their "
                        "mirror images")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--games", default=None, metavar="FILE",
                   help="also write every game (moves, nodes, result) as JSON Lines")
    s.set_defaults(func=cmd_match)

    s = sub.add_parser("replay", help="a recorded game move by move as text boards")
    s.add_argument("file", help="a JSON Lines game record file (match --games)")
    s.add_argument("--game", type=int, default=0, help="which game (0: the first)")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("tournament", help="every agent against every opponent, with ratings")
    s.add_argument("agents", nargs="+", metavar="AGENT", help="presets or engine files")
    s.add_argument("--opponents", nargs="+", required=True, metavar="OPP")
    s.add_argument("--pairs", type=int, required=True, help="opening pairs per cell")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--jobs", type=int, default=1, help="worker processes")
    s.add_argument("--opening-plies", type=int, default=None)
    s.add_argument("--csv", default=None, metavar="FILE", help="also write the cells as CSV")
    s.add_argument("--html", default=None, metavar="FILE",
                   help="also write a self-contained HTML page: the cross-table as a heat map, "
                        "scores and ratings with their intervals")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_tournament)

    s = sub.add_parser("tune", help="create or resume an Optuna study from a study file")
    s.add_argument("study_file")
    s.add_argument("--trials", type=int, default=None, help="total finished trials to reach")
    s.add_argument("--storage", default=DEFAULT_STORAGE)
    s.add_argument("--study-name", default=None)
    s.add_argument("--jobs", type=int, default=None, help="worker processes per match")
    s.add_argument("--dry-run", action="store_true",
                   help="print the study's cost and resolution estimate only; touch no storage")
    s.add_argument("--artifacts", default=None, metavar="DIR", help=ARTIFACTS_HELP)
    s.set_defaults(func=cmd_tune)

    from heurtune.tuning.calibrate import DEFAULT_ELO, DEFAULT_PAIRS as CALIBRATION_PAIRS

    s = sub.add_parser("calibrate", help="measure a study's match noise (baseline vs opponent "
                                          "and vs itself) and plan its pairs per trial")
    s.add_argument("study_file")
    s.add_argument("--pairs", type=int, default=CALIBRATION_PAIRS,
                   help=f"opening pairs against each (default {CALIBRATION_PAIRS})")
    s.add_argument("--elo", type=float, default=DEFAULT_ELO,
                   help=f"the Elo difference a trial should resolve (default {DEFAULT_ELO:g})")
    _fresh_openings_options(s)
    s.add_argument("--out", default=None,
                   help="default: beside the study file, STUDY.calibration.json (what tune reads)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_calibrate)

    from heurtune.tuning.screen import DEFAULT_INERT_ELO, DEFAULT_POINTS
    from heurtune.tuning.screen import DEFAULT_PAIRS as SCREEN_PAIRS

    s = sub.add_parser("screen", help="vary one parameter at a time against the baseline; "
                                       "flag inert parameters")
    s.add_argument("study_file")
    s.add_argument("--pairs", type=int, default=SCREEN_PAIRS,
                   help=f"opening pairs per point (default {SCREEN_PAIRS})")
    s.add_argument("--points", type=int, default=DEFAULT_POINTS,
                   help=f"points per parameter, both bounds included (default {DEFAULT_POINTS})")
    s.add_argument("--param", action="append", metavar="NAME",
                   help="screen only this parameter (repeatable; default every searched one)")
    s.add_argument("--inert-elo", type=float, default=DEFAULT_INERT_ELO,
                   help=f"inert: no point significant and a spread below this "
                        f"(default {DEFAULT_INERT_ELO:g})")
    _fresh_openings_options(s)
    s.add_argument("--png", default=None, metavar="FILE", help="also draw one panel per parameter")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_screen)

    s = sub.add_parser("confirm", help="re-play a study's best trials and the baseline on "
                                        "fresh openings; store the winner")
    s.add_argument("study_name")
    s.add_argument("--storage", default=DEFAULT_STORAGE)
    s.add_argument("--top", type=int, default=3, help="how many of the best trials (default 3)")
    s.add_argument("--pairs", default=None, metavar="N",
                   help="fresh opening pairs per candidate (default 200)")
    s.add_argument("--sprt", default=None, metavar="ELO0,ELO1",
                   help="then an SPRT for the winner vs the opponent on further fresh openings")
    s.add_argument("--max-pairs", type=int, default=None, help="the SPRT's cap (default 2000)")
    s.add_argument("--seed", type=int, default=None, help="fresh openings (default: study seed + 1)")
    s.add_argument("--opening-plies", type=int, default=None,
                   help="default: the study's (longer ones where it used up most openings)")
    s.add_argument("--jobs", type=int, default=1, help="worker processes")
    s.set_defaults(func=cmd_confirm)

    s = sub.add_parser("export", help="write a study's confirmed (or best) trial as an engine "
                                      "configuration")
    s.add_argument("study_name")
    s.add_argument("--storage", default=DEFAULT_STORAGE)
    s.add_argument("--out", default=None, help="default: studies/exported/STUDY.toml (with "
                                                 "--pareto: the folder STUDY-pareto there)")
    s.add_argument("--pareto", action="store_true",
                   help="a multi-objective study: write every engine of its Pareto front")
    s.add_argument("--artifacts", default=None, metavar="DIR", help=ARTIFACTS_HELP)
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("report", help="a study as one self-contained HTML file with plots and "
                                      "a sample game")
    s.add_argument("study_name")
    s.add_argument("--storage", default=DEFAULT_STORAGE)
    s.add_argument("--out", default=None, help="default: studies/reports/STUDY.html")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("trials", help="a study's trials as a table (or CSV)")
    s.add_argument("study_name")
    s.add_argument("--storage", default=DEFAULT_STORAGE)
    s.add_argument("--csv", default=None, metavar="FILE", help="write CSV instead of printing (- for standard output)")
    s.set_defaults(func=cmd_trials)

    s = sub.add_parser("dashboard", help="optuna-dashboard for a storage")
    s.add_argument("--storage", default=DEFAULT_STORAGE)
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8080)
    s.add_argument("--writable", action="store_true",
                   help="allow notes, edits and deletions (default: read-only)")
    s.add_argument("--allow-remote", action="store_true",
                   help="allow a --host other than this machine (the dashboard has no login)")
    s.add_argument("--artifacts", default=None, metavar="DIR", help=ARTIFACTS_HELP)
    s.set_defaults(func=cmd_dashboard)

    s = sub.add_parser("bench", help="search speed on fixed positions")
    s.add_argument("game")
    s.add_argument("--heuristic", default=None, help="default: the game's (morris: seed)")
    s.add_argument("--algorithm", default="alphabeta", choices=["alphabeta", "minimax"])
    s.add_argument("--depth", type=int, default=None, help="default: the game's (morris: 7)")
    s.add_argument("--positions", type=int, default=8)
    s.add_argument("--table", action=argparse.BooleanOptionalAction, default=None,
                   help="transposition table on / off (default: the game's)")
    s.add_argument("--tt-min-depth", type=int, default=None,
                   help="probe the table only with this many plies left (default: the game's)")
    s.add_argument("--leaf-order", default=None, choices=["full", "killers", "none"],
                   help="move order of leaf parents (default: the game's)")
    s.add_argument("--tt-bits", type=int, default=None,
                   help="table of 2^N entries (default: the game's)")
    s.add_argument("--candidates", action=argparse.BooleanOptionalAction, default=None,
                   help="search the game's candidate moves only (default: the game's)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser("list", help="games, heuristics, parameter spaces and presets")
    s.add_argument("game", nargs="?")
    s.set_defaults(func=cmd_list)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except HeurtuneError as exc:
        print(f"heurtune: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, Terminated) else "interrupted"
        detail = (" (a running trial is marked failed; finished trials are stored; the same "
                  "command resumes)" if args.func is cmd_tune else "")
        print(f"heurtune: {what}{detail}", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except BrokenPipeError:  # output piped into `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
