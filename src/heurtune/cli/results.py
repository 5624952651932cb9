"""Commands on a study's results: confirm, export, report, trials, dashboard."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from heurtune.cli._common import (
    ARTIFACTS_HELP,
    STUDY_NAME_HELP,
    Command,
    elo_pair,
    jobs_value,
    openings_option,
    pairs_arg,
    path_value,
    progress,
    storage_option,
    warn,
)
from heurtune.errors import HeurtuneError
from heurtune.tuning.studyfile import DEFAULT_PAIRS, DEFAULT_TOP, ConfirmOptions

if TYPE_CHECKING:
    from heurtune.tuning.views import Dashboard

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def run_confirmation(storage: str, study_name: str, options: ConfirmOptions,
                     dashboard: Dashboard, openings: str | None = None,
                     pgn: str | None = None, pgn_append: bool = False) -> None:
    """Confirm a study, printing one line per candidate and the verdict (and
    putting it in the study's dashboard note)."""
    from heurtune.tuning import confirm_study
    from heurtune.tuning.study import study_command
    from heurtune.tuning.views import verdict_text

    second = (f", then the winner and the baseline on {options.check} further fresh pairs"
              if options.method == "two-stage" else
              ", the winner's interval adjusted for the comparisons (max-t)")
    bar: Any = None

    def start() -> None:  # once the study and the options are checked
        nonlocal bar
        print(f"confirming study {study_name!r}: the {options.top} best trials, the study's "
              f"other answers and the baseline, {options.pairs} fresh pairs each (selection)"
              + second
              + (f", then an SPRT [{options.sprt[0]:g}, {options.sprt[1]:g}] for the winner"
                 if options.sprt else ""), flush=True)
        bar = progress(None, f"confirm {study_name}")  # (after the header: the bar sits below)

    try:
        verdict = confirm_study(storage, study_name, options,
                                on_line=lambda line: bar.write(line, file=sys.stdout),
                                on_pair=lambda: bar.update(1), on_start=start,
                                openings_file=openings, pgn=pgn, pgn_append=pgn_append)
    finally:
        if bar is not None:
            bar.close()
    dashboard.confirmed(storage, study_name)
    print(verdict_text(verdict).replace("winner ", "winner: ", 1))
    no_gain = verdict.no_gain()
    export = study_command("export", study_name, storage)
    print(f"stored in study {study_name!r} (user attribute 'confirmation'); "
          + (f"`{export}` writes the winner" if no_gain is None else
             f"no gain shown ({no_gain}): `{export}` refuses it without --force"))
    if pgn:
        print(f"wrote the confirmation's games to {pgn} (PGN)")


class Confirm(Command):
    name = "confirm"
    help = "re-play a study's best trials and the baseline on fresh openings; store the winner"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_name", help=STUDY_NAME_HELP)
        storage_option(s)
        s.add_argument("--top", type=int, default=DEFAULT_TOP,
                       help=f"how many of the best trials (default {DEFAULT_TOP})")
        s.add_argument("--pairs", default=None, metavar="N",
                       help=f"fresh opening pairs per candidate, to pick the winner "
                            f"(default {DEFAULT_PAIRS})")
        s.add_argument("--check-pairs", type=int, default=None, metavar="N",
                       help="then the winner and the baseline on N further fresh pairs, whose "
                            "figures export reports (default: --pairs)")
        s.add_argument("--max-t", action="store_true",
                       help="instead of that check, no further games: the winner's paired "
                            "difference from the baseline with a max-t (Dunnett) interval "
                            "over the candidates, and no point score")
        s.add_argument("--sprt", default=None, metavar="ELO0,ELO1",
                       help="then an SPRT for the winner vs the opponent on further fresh "
                            "openings")
        s.add_argument("--max-pairs", type=int, default=None,
                       help="the SPRT's cap (default: derived from its bounds and the winner's "
                            "measured pair variance, so that 95%% of such tests decide)")
        s.add_argument("--seed", type=int, default=None,
                       help="fresh openings (default: study seed + 1)")
        s.add_argument("--opening-plies", type=int, default=None,
                       help="default: the study's (longer ones where it used up most openings)")
        s.add_argument("--jobs", type=jobs_value, default=1, help="worker processes")
        openings_option(s, "the fresh openings are drawn from (default: the study's own book, "
                           "else random ones; none of the study's are played either way)")
        s.add_argument("--pgn", type=path_value, default=None, metavar="FILE",
                       help="also write every game of the confirmation as PGN")

    def run(self, args: argparse.Namespace) -> int:
        pairs = pairs_arg(args.pairs)
        if pairs == "all":
            raise HeurtuneError("confirm takes --pairs N (a number)")
        options = ConfirmOptions(
            top=args.top, pairs=int(pairs) if pairs is not None else DEFAULT_PAIRS,
            sprt=elo_pair(args.sprt) if args.sprt else None,
            max_pairs=args.max_pairs,
            seed=args.seed, jobs=args.jobs, opening_plies=args.opening_plies,
            method="max-t" if args.max_t else "two-stage", check_pairs=args.check_pairs,
        )
        if args.max_t and args.check_pairs is not None:
            raise HeurtuneError("confirm: --max-t plays no check, so --check-pairs does not apply")
        from heurtune.tuning.views import Dashboard

        run_confirmation(args.storage, args.study_name, options, Dashboard(),
                         openings=args.openings, pgn=args.pgn)
        return 0


class Export(Command):
    name = "export"
    help = "write a study's confirmed winner as an engine configuration"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_name", help=STUDY_NAME_HELP)
        storage_option(s)
        s.add_argument("--out", type=path_value, default=None,
                       help="default: studies/exported/STUDY.toml, .json, .py or .uci "
                            "(with --pareto: the folder STUDY-pareto there)")
        s.add_argument("--format", default="toml", choices=("toml", "json", "python", "uci"),
                       help="toml: heurtune's engine file (default); json; python: a module "
                            "of named constants; uci: only `setoption name X value Y` lines, "
                            "which pipe into the engine as they are (the provenance goes "
                            "beside them, NAME.provenance.toml). docs/guide.md#export-formats")
        s.add_argument("--pareto", action="store_true",
                       help="a multi-objective study: write every engine of its Pareto front")
        s.add_argument("--force", action="store_true",
                       help="write the winner even when its confirmation did not find it "
                            "better than the baseline (or the study is unconfirmed); the "
                            "file says so")
        s.add_argument("--trial", type=int, default=None, metavar="N",
                       help="write completed trial N instead of the winner (unconfirmed unless "
                            "it is the confirmation's winner; the file says so)")
        s.add_argument("--artifacts", type=path_value, default=None, metavar="DIR",
                       help=ARTIFACTS_HELP)

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.tomlio import check_writable
        from heurtune.tuning import Dashboard, export_best, export_pareto

        if args.pareto:
            written = export_pareto(args.storage, args.study_name, args.out, args.format)
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
        if args.trial is not None and args.pareto:
            raise HeurtuneError("--trial and --pareto do not go together")
        path, config = export_best(args.storage, args.study_name, args.out, args.format,
                                   force=args.force, trial=args.trial)
        prov = config.provenance
        dashboard.exported(args.storage, args.study_name, path,
                           f"trial {prov['trial']}" if "trial" in prov
                           else f"answer {prov['answer']}")
        if "unproven" in prov:
            warn(("written by hand" if args.trial is not None else "written with --force")
                 + f": {prov['unproven']}")
        confirmation = prov.get("confirmation")
        if confirmation is not None and "stale" in confirmation:
            warn(f"{confirmation['stale']}; confirm again to include the newer trials")
        if args.format == "uci":
            from heurtune.engine.formats import provenance_path

            print(f"wrote {path} (setoption lines only) and {provenance_path(path)} (the engine "
                  "file with its evidence)")
        else:
            print(f"wrote {path}")
        return 0


class Report(Command):
    name = "report"
    help = "a study as one self-contained HTML file with plots and a sample game"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_name", help=STUDY_NAME_HELP)
        storage_option(s)
        s.add_argument("--out", type=path_value, default=None,
                       help="default: studies/reports/STUDY.html")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.tuning import write_report

        path = write_report(args.storage, args.study_name, args.out)
        print(f"wrote {path}")
        return 0


class Trials(Command):
    name = "trials"
    help = "a study's trials as a table (or CSV)"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("study_name", help=STUDY_NAME_HELP)
        storage_option(s)
        s.add_argument("--csv", default=None, metavar="FILE",
                       help="write CSV instead of printing (- for standard output)")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.tomlio import check_writable
        from heurtune.tuning import trials_table

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
        else:  # every pair's score is the CSV's (a column as wide as the trial is long)
            shown = df.drop(columns=["pair_scores"], errors="ignore")
            if "score_ci" in shown.columns:  # (a positions study has losses instead)
                shown["score_ci"] = shown["score_ci"].map(
                    lambda v: f"[{v[0]:.3f}, {v[1]:.3f}]" if isinstance(v, list) and len(v) == 2
                    else v
                )
            print(shown.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        return 0


class DashboardCommand(Command):
    name = "dashboard"
    help = "optuna-dashboard for a storage"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        storage_option(s)
        s.add_argument("--host", default="127.0.0.1",
                       help="the address to serve on (default 127.0.0.1: this machine only; "
                            "another needs --allow-remote)")
        s.add_argument("--port", type=int, default=8080,
                       help="the port to serve on (default 8080)")
        s.add_argument("--writable", action="store_true",
                       help="allow notes, edits and deletions (default: read-only)")
        s.add_argument("--allow-remote", action="store_true",
                       help="allow a --host other than this machine (the dashboard has no login)")
        s.add_argument("--artifacts", type=path_value, default=None, metavar="DIR",
                       help=ARTIFACTS_HELP)

    def run(self, args: argparse.Namespace) -> int:
        from wsgiref.simple_server import WSGIRequestHandler, make_server

        from heurtune.tuning.study import storage_text
        from heurtune.tuning.views import dashboard_app

        if not 1 <= args.port <= 65535:
            raise HeurtuneError(f"--port must be in [1, 65535], got {args.port}")
        if args.host not in LOOPBACK and not args.allow_remote:
            raise HeurtuneError(f"--host {args.host} exposes the dashboard beyond this machine; "
                                "add --allow-remote to mean it (optuna-dashboard has no login)")
        app, folder = dashboard_app(args.storage, args.artifacts, writable=args.writable,
                                    host=args.host, port=args.port)

        class _Quiet(WSGIRequestHandler):
            def log_message(self, *_args: Any) -> None:  # no line per request
                pass

        try:
            server = make_server(args.host, args.port, app, handler_class=_Quiet)
        except OSError as exc:
            raise HeurtuneError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
        if args.host not in LOOPBACK:
            warn(f"the dashboard on {args.host} has no authentication: anyone who reaches this "
                 "port can read the studies"
                 + (" and change or delete them" if args.writable else ""))
        mode = ("writable: studies can be changed and deleted from the browser; requests from "
                "other sites are refused" if args.writable
                else "read-only (--writable allows notes and edits)")
        shown = f" and the artifacts in {folder}" if folder is not None else ""
        print(f"optuna-dashboard on http://{args.host}:{args.port}/ for "
              f"{storage_text(args.storage)}{shown}, "
              f"{mode} (Ctrl-C stops)", flush=True)
        # Ctrl-C and SIGTERM stop the server between requests: raised inside one,
        # wsgiref's handler would print them as a traceback and serve on
        stopped: list[KeyboardInterrupt] = []

        def stop(signum: int, _frame: object) -> None:
            from heurtune.cli import Terminated

            stopped.append(Terminated() if signum == signal.SIGTERM else KeyboardInterrupt())
            threading.Thread(target=server.shutdown, daemon=True).start()

        saved = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)
                 if callable(signal.getsignal(sig))}  # a signal ignored stays ignored
        try:
            server.serve_forever()
        finally:
            for sig, handler in saved.items():
                signal.signal(sig, handler)
            server.server_close()
        if stopped:
            raise stopped[0]
        return 0
