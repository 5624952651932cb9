"""Commands that play engines against each other: match, tournament, replay."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from heurtune.cli._common import (
    OPENING_PLIES_HELP,
    Command,
    adjudication,
    adjudication_options,
    elo_pair,
    jobs_value,
    openings_option,
    pairs_arg,
    path_value,
    progress,
    rules,
)
from heurtune.errors import HeurtuneError
from heurtune.match import DEFAULT_MAX_PAIRS


class Match(Command):
    name = "match"
    help = "paired match between two engines"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
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
        s.add_argument("--seed", type=int, default=0,
                       help="the openings and the engines' tie-breaks (default 0)")
        s.add_argument("--jobs", type=jobs_value, default=1, help="worker processes")
        s.add_argument("--opening-plies", type=int, default=None, help=OPENING_PLIES_HELP)
        s.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")
        s.add_argument("--exclude-study", metavar="STUDY_FILE", default=None,
                       help="play none of the openings that this study tunes on, nor those "
                            "its [confirm] section confirms on, nor their mirror images")
        s.add_argument("--json", action="store_true", help="print one JSON object")
        s.add_argument("--games", type=path_value, default=None, metavar="FILE",
                       help="also write every game (moves, nodes, result) as JSON Lines")
        s.add_argument("--pgn", type=path_value, default=None, metavar="FILE",
                       help="also write every game as PGN (players and their options, "
                            "opening, result, termination)")
        openings_option(s)
        adjudication_options(s)

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.engine import resolve_engine
        from heurtune.match import (
            MatchPlan,
            PairResult,
            check_match_options,
            play_match,
            prepare_match,
        )
        from heurtune.match.records import pair_records, write_records
        from heurtune.tomlio import check_writable

        pairs = pairs_arg(args.pairs)
        for path in (args.games, args.pgn):
            if path:
                check_writable(path)  # before the match, whose games would be lost
        sprt = check_match_options(pairs=pairs, sprt=elo_pair(args.sprt) if args.sprt else None,
                                   sprt_elo=args.sprt_elo, max_pairs=args.max_pairs)
        first, second = resolve_engine(args.a), resolve_engine(args.b)
        rule_options = rules(args.rule)
        exclude: tuple[tuple[int, ...], ...] = ()
        if args.exclude_study:
            from heurtune.tuning import load_study_file
            from heurtune.tuning.after.confirm import study_file_openings

            sf = load_study_file(args.exclude_study)
            if sf.base.game != first.game:
                raise HeurtuneError(f"{args.exclude_study} tunes {sf.base.game}, "
                                    f"not {first.game}")
            exclude = study_file_openings(sf)
        plan = prepare_match(first, second, pairs=pairs, sprt=sprt, max_pairs=args.max_pairs,
                             seed=args.seed, opening_plies=args.opening_plies,
                             rules=rule_options, exclude=exclude,
                             excluded_from=args.exclude_study or "", openings=args.openings,
                             adjudication=adjudication(args))
        a, b = plan.spec.a.label, plan.spec.b.label
        bar = progress(plan.count, f"{a} vs {b}")
        lower, upper = plan.sprt.bounds if plan.sprt is not None else (0.0, 0.0)

        def started(p: MatchPlan) -> None:
            if not args.json:
                print(p.header(), flush=True)

        def on_pair(_pair: PairResult, llr: float | None) -> None:
            bar.update(1)
            if llr is not None:
                bar.set_postfix_str(f"LLR {llr:.2f} [{lower:.2f}, {upper:.2f}]", refresh=False)

        outcome = play_match(plan, jobs=args.jobs, keep_games=bool(args.games or args.pgn),
                             on_start=started, on_pair=on_pair)
        bar.close()
        result = outcome.result
        records = pair_records(plan.spec, result.pairs) if args.games or args.pgn else []
        if args.games:
            write_records(args.games, records)
        if args.pgn:
            from heurtune.match.pgn import match_pgn, write_pgn

            write_pgn(args.pgn, match_pgn(plan.spec, result.pairs, records))
        stats = result.stats
        if args.json:
            print(json.dumps(outcome.to_dict()))
        else:
            if outcome.sprt is not None:
                print(outcome.sprt.summary())
            print(stats.summary())
            print(stats.pairs_summary())
            if stats.faults or stats.opponent_faults:
                print(f"faults: {stats.faults_text()} (`--games FILE` records each game's "
                      "reason)")
            print(f"first player (side 0) scored {result.first_player_score:.3f} over all games")
            if args.games:
                print(f"wrote {2 * len(result.pairs)} games to {args.games} "
                      f"(`heurtune replay {args.games} --game N` shows one)")
            if args.pgn:
                print(f"wrote {2 * len(result.pairs)} games to {args.pgn} (PGN)")
        return 0


class Replay(Command):
    name = "replay"
    help = "a recorded game move by move as text boards"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("file", help="a JSON Lines game record file (match --games)")
        s.add_argument("--game", type=int, default=0, help="which game (0: the first)")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.match.records import read_records, replay_text

        print(replay_text(read_records(args.file), args.game, args.file))
        return 0


class Tournament(Command):
    name = "tournament"
    help = "every agent against every opponent, with ratings"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("agents", nargs="+", metavar="AGENT", help="presets or engine files")
        s.add_argument("--opponents", nargs="+", required=True, metavar="OPP",
                       help="the opponents every agent plays: presets or engine files")
        s.add_argument("--pairs", type=int, required=True, help="opening pairs per cell")
        s.add_argument("--seed", type=int, default=0,
                       help="the openings and the engines' tie-breaks (default 0)")
        s.add_argument("--jobs", type=jobs_value, default=1, help="worker processes")
        s.add_argument("--opening-plies", type=int, default=None, help=OPENING_PLIES_HELP)
        s.add_argument("--csv", default=None, metavar="FILE", help="also write the cells as CSV")
        s.add_argument("--html", default=None, metavar="FILE",
                       help="also write a self-contained HTML page: the cross-table as a heat "
                            "map, scores and ratings with their intervals")
        s.add_argument("--json", action="store_true", help="print one JSON object")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.engine import resolve_engine
        from heurtune.match.tournament import run_tournament
        from heurtune.tomlio import check_writable

        for path in (args.csv, args.html):
            if path:
                check_writable(path)  # before the run, whose results would be lost
        agents = [resolve_engine(a) for a in args.agents]
        opponents = [resolve_engine(o) for o in args.opponents]
        bar = progress(args.pairs * len(agents) * len(opponents), "tournament")
        result = run_tournament(agents, opponents, args.pairs, args.seed, args.jobs,
                                args.opening_plies, on_pair=lambda _p: bar.update(1))
        bar.close()
        if args.csv:
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


class Book(Command):
    name = "book"
    help = "an opening book of balanced openings: random ones an engine scores near 0"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("engine", help="the engine that scores the openings: a preset "
                                      "GAME:NAME or an engine file (a UCI engine for chess)")
        s.add_argument("--out", type=path_value, required=True, metavar="FILE",
                       help="the book to write (chess: EPD; other games: a line of moves "
                            "per opening)")
        s.add_argument("--count", type=int, default=500, help="openings (default 500)")
        s.add_argument("--plies", type=int, default=None,
                       help="random plies of each opening (default: the game's)")
        s.add_argument("--window", type=float, default=50.0, metavar="CP",
                       help="keep an opening only where the engine scores its position "
                            "within +-CP of 0 (centipawns for a UCI engine; default 50)")
        s.add_argument("--seed", type=int, default=0, help="the random openings' seed")
        s.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")

    def run(self, args: argparse.Namespace) -> int:
        import datetime
        import shlex
        from dataclasses import replace

        from heurtune import __version__
        from heurtune.engine import resolve_engine
        from heurtune.games import get_game
        from heurtune.match.books import make_book
        from heurtune.match.runner import SEED_MAX
        from heurtune.tomlio import check_writable, write_atomic

        check_writable(args.out)
        if args.count < 1:
            raise HeurtuneError(f"--count must be at least 1, got {args.count}")
        if not 0 <= args.seed <= SEED_MAX:
            raise HeurtuneError(f"--seed must be in [0, {SEED_MAX}], got {args.seed}")
        engine = resolve_engine(args.engine)
        if args.rule:
            engine = replace(engine, rules={**engine.rules, **rules(args.rule)})
        plies = args.plies if args.plies is not None else get_game(engine.game).opening_plies
        if plies < 1:
            raise HeurtuneError(f"--plies must be at least 1, got {plies}")
        bar = progress(None, "openings tried")
        made = make_book(engine, args.count, plies, args.seed, args.window,
                         on_draw=lambda _d, kept: bar.set_postfix_str(f"{kept} kept") or
                         bar.update(1))
        bar.close()
        from heurtune.engine.process import option_value

        search = engine.search.to_dict()
        limits = ", ".join(f"{k} {v}" for k, v in search.items()
                           if k in ("depth", "nodes", "time_ms", "tc") and v
                           and not (k == "depth" and v == 64))
        what = engine.label
        if engine.process is not None:
            fixed = ", ".join(f"{k} = {option_value(v)}" for k, v in engine.process.options)
            what += f" ({engine.process.label}" + (f"; {fixed}" if fixed else "") + ")"
        header = [
            f"{len(made.openings)} balanced {engine.game} openings, made by heurtune "
            f"{__version__} on {datetime.date.today().isoformat()}:",
            f"  heurtune book {' '.join(shlex.quote(a) for a in sys.argv[2:])}",
            f"random openings of {plies} plies (seed {args.seed}, no two alike up to the "
            "board's symmetries), each kept where",
            f"{what} at {limits or 'its limits'} scored its position within "
            f"+-{args.window:g} of 0: {len(made.openings)} of {made.drawn} tried.",
            "Lines starting with # are comments, which heurtune's book reader skips.",
        ]
        write_atomic(args.out, made.text(header))
        print(f"wrote {len(made.openings)} openings to {args.out} ({made.drawn} tried; kept "
              f"within +-{args.window:g} of 0 by {engine.label})")
        return 0
