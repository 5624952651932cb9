"""``heurtune positions``: a position set from played games (the positions objective's data)."""

from __future__ import annotations

import argparse
import time

from heurtune.cli._common import (
    OPENING_PLIES_HELP,
    Command,
    jobs_value,
    openings_option,
    path_value,
    progress,
    rules,
)
from heurtune.errors import HeurtuneError
from heurtune.match.positions import DEFAULT_QUIET_DEPTH, MAX_QUIET_DEPTH


class Positions(Command):
    name = "positions"
    help = "sample labelled positions from games, for objective = \"positions\""

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("engine", help="the engine whose games are played (and whose heuristic "
                                      "--quiet searches with): preset GAME:NAME or engine file")
        s.add_argument("--opponent", default=None, metavar="ENGINE",
                       help="its opponent (default: the engine itself)")
        s.add_argument("--games", type=int, default=None, metavar="N",
                       help="games to play, in pairs with colours swapped (N even)")
        s.add_argument("--from", dest="records", default=None, metavar="RECORDS.jsonl",
                       help="take the games of a game record file (match --games) instead "
                            "of playing")
        s.add_argument("--seed", type=int, default=0,
                       help="openings, tie-breaks and the positions drawn")
        s.add_argument("--jobs", type=jobs_value, default=1, help="worker processes")
        s.add_argument("--opening-plies", type=int, default=None, help=OPENING_PLIES_HELP)
        s.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")
        s.add_argument("--skip-plies", type=int, default=0, metavar="K",
                       help="leave out each game's first K plies after its opening")
        s.add_argument("--per-game", type=int, default=0, metavar="M",
                       help="at most M positions per game, drawn at random (0: all)")
        s.add_argument("--quiet", action="store_true",
                       help="keep the position at the end of a shallow search's principal "
                            "variation from each sampled one (where the search evaluates)")
        s.add_argument("--quiet-depth", type=int, default=None, metavar="D",
                       help=f"the depth of --quiet's search, 1 to {MAX_QUIET_DEPTH} (default "
                            f"{DEFAULT_QUIET_DEPTH})")
        s.add_argument("--exclude-study", metavar="STUDY_FILE", default=None,
                       help="play none of the openings that this study tunes on")
        s.add_argument("--out", type=path_value, required=True, metavar="FILE.npz",
                       help="the position file")
        openings_option(s, "the games")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.engine import resolve_engine
        from heurtune.match import play_match, prepare_match
        from heurtune.match.openings import start_of
        from heurtune.match.positions import (
            GameLine,
            QuietSearch,
            lines_from_records,
            sample_positions,
        )
        from heurtune.match.records import read_records
        from heurtune.tomlio import check_writable

        check_writable(args.out)  # before the games, which would be lost
        if (args.games is None) == (args.records is None):
            raise HeurtuneError("give --games N (play them) or --from RECORDS.jsonl")
        engine = resolve_engine(args.engine)
        if args.quiet_depth is not None and not args.quiet:
            raise HeurtuneError("--quiet-depth goes with --quiet")
        depth = DEFAULT_QUIET_DEPTH if args.quiet_depth is None else args.quiet_depth
        quiet = QuietSearch(engine, depth) if args.quiet else None
        t0 = time.perf_counter()
        provenance: dict[str, object] = {"engine": engine.label}
        if args.records is not None:
            if args.opponent or args.rule or args.exclude_study or args.openings:
                raise HeurtuneError("--from takes the recorded games as they are: no "
                                    "--opponent, --rule, --exclude-study or --openings")
            records = read_records(args.records)
            game, rule_values, lines = lines_from_records(records, args.records)
            if game != engine.game:
                raise HeurtuneError(f"{args.records} holds {game} games; {engine.label} "
                                    f"plays {engine.game}")
            seeds = {r["seed"] for r in records}
            plies = {len(r["opening"]) for r in records}
            provenance.update(source=args.records, players=sorted(
                {p for r in records for p in r["players"]}))
            if len(seeds) == 1 and len(plies) == 1:  # one match: its openings are known
                provenance["match"] = {"pairs": max(r["pair"] for r in records) + 1,
                                       "seed": seeds.pop(), "opening_plies": plies.pop(),
                                       "distinct_openings": "symmetry"}
        else:
            if args.games < 2 or args.games % 2:
                raise HeurtuneError(f"--games must be an even number of at least 2, got "
                                    f"{args.games}")
            opponent = resolve_engine(args.opponent) if args.opponent else engine
            exclude: tuple[tuple[int, ...], ...] = ()
            if args.exclude_study:
                from heurtune.tuning import load_study_file
                from heurtune.tuning.after.confirm import study_file_openings

                exclude = study_file_openings(load_study_file(args.exclude_study))
            book = None
            if args.openings:
                from heurtune.match.books import load_book

                book = load_book(args.openings, engine.game, engine.rules)
                if any(op.start for op in book.openings):
                    raise HeurtuneError(f"opening book {args.openings}: a position file holds "
                                        "games as moves from the game's start, and this "
                                        "book's openings start from other positions")
            plan = prepare_match(engine, opponent, pairs=args.games // 2, seed=args.seed,
                                 opening_plies=args.opening_plies, rules=rules(args.rule),
                                 exclude=exclude, excluded_from=args.exclude_study or "",
                                 openings=book)
            started = next((start_of(o) for o in plan.openings if start_of(o)), "")
            if started:  # the file keeps moves, replayed from the game's own start
                raise HeurtuneError(f"these rules start games elsewhere than {engine.game}'s "
                                    f"own start (e.g. {started!r}); a position set holds "
                                    "games from the game's start")
            print(plan.header(), flush=True)
            bar = progress(plan.count, "pairs")
            outcome = play_match(plan, jobs=args.jobs, keep_games=True,
                                 on_pair=lambda _p, _llr: bar.update(1))
            bar.close()
            lines = [GameLine(g.moves, g.first_score, len(p.opening))
                     for p in sorted(outcome.result.pairs, key=lambda p: p.index)
                     for g in p.games]
            game, rule_values = engine.game, dict(plan.spec.a.rules)
            provenance.update(opponent=opponent.label, players=[engine.label, opponent.label],
                              match={"pairs": plan.count, "seed": args.seed,
                                     "opening_plies": plan.spec.plies,
                                     "distinct_openings": "symmetry"})
            print(outcome.result.stats.summary())
        played = time.perf_counter() - t0
        if quiet is not None:
            quiet.warm_up()
        print(f"sampling the positions of {len(lines)} games"
              + (f", each through a {quiet.depth}-ply quiet line" if quiet is not None else "")
              + " ...", flush=True)
        bar = progress(len(lines), "positions")
        found = sample_positions(game, rule_values, lines, seed=args.seed,
                                 skip_plies=args.skip_plies, per_game=args.per_game, quiet=quiet,
                                 provenance={**provenance, "seconds_playing": round(played, 1)},
                                 on_game=lambda: bar.update(1))
        bar.close()
        found.save(args.out)
        draws = float((found.label == 0.5).mean())
        print(f"wrote {found.size} positions of {found.games} games to {args.out} "
              f"(labels: {float(found.label.mean()):.3f} mean, {draws:.1%} draws; "
              f"{time.perf_counter() - t0:.1f} s)")
        return 0
