"""Commands about games and engines: list, perft, bench."""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

from heurtune.cli._common import GAME_HELP, Command, rules
from heurtune.errors import HeurtuneError

MAX_PERFT_DEPTH = 12  # deeper counts take hours in every game
PERFT_BUDGET_S = 600.0  # a count the measured speed says takes longer is refused


class Perft(Command):
    name = "perft"
    help = "count move sequences from the start position (or another: --position)"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("game", help=GAME_HELP)
        s.add_argument("depth", type=int,
                       help=f"the length of the sequences, in plies (0 to {MAX_PERFT_DEPTH})")
        s.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")
        s.add_argument("--position", default="", metavar="TEXT",
                       help="count from this position instead of the start (chess: a FEN)")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.games import get_game
        from heurtune.games.perft import perft
        from heurtune.match.foreground import compiling, interruptible

        if not 0 <= args.depth <= MAX_PERFT_DEPTH:
            raise HeurtuneError(f"perft depth must be in [0, {MAX_PERFT_DEPTH}], "
                                f"got {args.depth}")
        kernel = get_game(args.game)
        state = kernel.new_state(rules(args.rule), args.position)
        with compiling(f"the {args.game} perft"):
            counts = [interruptible(perft, kernel, min(args.depth, 1), state)]
        # the shallower counts first, until one takes long enough to time: the
        # growth from depth to depth then says whether the count asked for ends
        depth, seconds = min(args.depth, 1), 0.0
        while depth < args.depth and seconds < 0.2:
            depth += 1
            start = time.perf_counter()
            counts.append(interruptible(perft, kernel, depth, state))
            seconds = time.perf_counter() - start
        if depth < args.depth and counts[-2] > 0:
            growth = max(counts[-1] / counts[-2], 1.0)
            estimate = seconds * growth ** (args.depth - depth)
            if estimate > PERFT_BUDGET_S:
                reachable = depth + int(math.log(PERFT_BUDGET_S / seconds) / math.log(growth)
                                        ) if growth > 1.0 else args.depth
                raise HeurtuneError(
                    f"perft {args.game} {args.depth} would take about {_duration(estimate)} at "
                    f"this machine's speed ({counts[-1]:,} sequences at depth {depth} took "
                    f"{seconds:.2f} s, x{growth:.0f} per ply); depth {reachable} is within "
                    f"{PERFT_BUDGET_S / 60:.0f} minutes")
            counts.append(interruptible(perft, kernel, args.depth, state))
        print(counts[-1])
        return 0


def _duration(seconds: float) -> str:
    """A long time in words (minutes to years)."""
    for unit, size in (("years", 365 * 86400.0), ("days", 86400.0), ("hours", 3600.0)):
        if seconds >= size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds / 60:.0f} minutes"


class Bench(Command):
    name = "bench"
    help = "search speed on fixed positions"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("game", help=GAME_HELP)
        s.add_argument("--heuristic", default=None, help="default: the game's (morris: seed)")
        s.add_argument("--algorithm", default="alphabeta", choices=["alphabeta", "minimax"],
                       help="the search (default alphabeta)")
        s.add_argument("--depth", type=int, default=None,
                       help="default: the game's (morris: 7)")
        s.add_argument("--positions", type=int, default=8,
                       help="how many fixed positions to search (default 8)")
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
        s.add_argument("--root-ties", default=None, choices=["first", "random"],
                       help="alpha-beta among equal root moves: the first in root order "
                            "(default) or a seeded draw, as minimax makes")
        s.add_argument("--json", action="store_true", help="print one JSON object")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.engine.bench import bench

        settings = {k: v for k, v in (("table", args.table), ("tt_min_depth", args.tt_min_depth),
                                      ("leaf_order", args.leaf_order), ("tt_bits", args.tt_bits),
                                      ("candidates", args.candidates),
                                      ("root_ties", args.root_ties))
                    if v is not None}
        from heurtune.match.foreground import interruptible

        result = interruptible(bench, args.game, args.heuristic, args.depth, args.algorithm,
                               args.positions, **settings)
        if args.json:
            print(json.dumps(result.to_dict()))
        else:
            table = " ".join(f"{k}={v}" for k, v in result.settings.items())
            print(
                f"{result.game} {result.heuristic} {result.algorithm} depth {result.depth} "
                f"({table}): {result.positions} positions, time to depth {result.seconds:.3f} s; "
                f"{result.nodes:,} nodes ({result.last_iteration_nodes:,} in the last iteration)"
                f" = {result.nodes_per_second:,.0f} nodes/s"
            )
        return 0


class List(Command):
    name = "list"
    help = ("games (built-in and plugins), heuristics, parameter spaces and presets; "
            "an engine file: its options")

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        s.add_argument("game", nargs="?",
                       help="one game, or an engine file (an external engine's options)")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.engine import presets, resolve_engine
        from heurtune.engine.heuristic import heuristics
        from heurtune.errors import HeurtuneError
        from heurtune.games import PythonKernel, game_entry, game_names, get_game
        from heurtune.games.registry import registry_problems

        def space_rows(space: Any, values: Any = None) -> None:
            rows = space.describe()
            width = max([22] + [len(row["name"]) + 1 for row in rows])
            for row in rows:
                bounds = ("one of " + ", ".join(str(c).lower() if isinstance(c, bool) else str(c)
                                                for c in row["choices"]) if "choices" in row
                          else f"[{row.get('low')}, {row.get('high')}]")
                value = ""
                if values is not None and values.get(row["name"]) != row["default"]:
                    value = f"  (this file: {values.get(row['name'])})"
                shown = str(row["default"]).lower() if isinstance(row["default"], bool) \
                    else str(row["default"])
                print(f"    {row['name']:<{width}} default {shown:<6} {bounds}"
                      f"{value}  {row['help']}".rstrip())

        if args.game is not None and (args.game.endswith(".toml") or "/" in args.game):
            from heurtune.engine.process import describe, option_value

            cfg = resolve_engine(args.game)
            h = cfg.heuristic_obj
            print(f"{cfg.label}: {cfg.game} engine, {h.description}")
            if cfg.process is not None:
                info = describe(cfg.process, cfg.game)
                print(f"  protocol: {cfg.process.dialect(cfg.game)}"
                      + (f"; author: {info.author}" if info.author else ""))
                if cfg.process.options:
                    print("  fixed by the file ([process] options): " + ", ".join(
                        f"{k} = {option_value(v)}" for k, v in cfg.process.options))
            print(f"  options ({h.kind} engine {h.name}), the parameters a study may tune:")
            space_rows(h.space, cfg.params)
            if cfg.process is not None:
                others = describe(cfg.process, cfg.game).others
                if others:
                    print("  options it declares that are no parameters (left alone):")
                    for o in others:
                        print(f"    {o.name:<22} {o.kind}"
                              + (f" default {o.default}" if o.default else "")
                              + (f"  ({o.reason})" if o.reason else ""))
            return 0
        problems = registry_problems(said=True)  # printed below, once
        for game in [args.game] if args.game is not None else game_names():
            entry = game_entry(game)  # an unknown (or empty) name: one error line
            try:
                kernel = get_game(game)
                table = heuristics(game)
                preset_table = presets(game)
            except HeurtuneError as exc:
                if args.game is not None:
                    raise
                print(f"{game}: cannot be used: {exc}")
                continue
            kind = "plain Python" if isinstance(kernel, PythonKernel) else "numba kernel"
            print(f"{game}: {kernel.description}  [{kind}; {entry.source}]")
            print("  rules: " + (", ".join(f"{r.name}={r.default} ({r.low} to {r.high})"
                                           for r in kernel.rules) or "none"))
            for name, h in table.items():
                print(f"  heuristic {name}: {h.description}")
                space_rows(h.space)
            for name, data in preset_table.items():
                print(f"  preset {game}:{name}: {data.get('description', '')}")
                print(f"    {_preset_summary(f'{game}:{name}')}")
        for name, problem in problems.items():
            if args.game is None or args.game == name:
                print(f"warning: {problem}")
        return 0



def _value(value: Any) -> str:
    """A weight's or a setting's value, compactly (``2``, ``0.85``, ``true``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _preset_summary(spec: str) -> str:
    """What a preset plays, on one line: its heuristic with the weights that differ
    from the heuristic's defaults, its search and limits, and the rules it sets
    apart from the game's defaults (``wall_corner, edges_need_piece=1 (the rest at
    its defaults); alphabeta, depth 2``)."""
    from heurtune.engine import preset
    from heurtune.engine.config import SearchSettings
    from heurtune.games import get_game

    try:
        cfg = preset(spec)
    except HeurtuneError as exc:
        return f"cannot be built: {exc}"
    search = cfg.search
    if search.algorithm == "random":
        parts = ["a uniformly random legal move (no heuristic, no search)"]
    else:
        h = cfg.heuristic_obj
        defaults = h.space.defaults()
        changed = [f"{k}={_value(v)}" for k, v in cfg.params.items() if v != defaults.get(k)]
        weights = (f"{h.name}, {' '.join(changed)} (the rest at its defaults)" if changed
                   else f"{h.name} at its defaults")
        limits = [search.algorithm]
        if search.depth != SearchSettings.depth:
            limits.append(f"depth {search.depth}")
        if search.nodes:
            limits.append(f"{search.nodes} nodes per move")
        if search.time_ms:
            limits.append(f"{_value(search.time_ms)} ms per move")
        if search.tc:
            limits.append(f"clock {search.tc}")
        if search.root_ties != SearchSettings.root_ties:
            limits.append(f"root ties {search.root_ties}")
        parts = [weights, ", ".join(limits)]
    game_rules = {r.name: r.default for r in get_game(cfg.game).rules}
    rules = [f"{k}={v}" for k, v in cfg.rules.items() if v != game_rules.get(k)]
    if rules:
        parts.append("rules " + " ".join(rules))
    return "; ".join(parts)
