"""What refereeing a UCI engine costs, and how many games a second it plays.

Plays Toga II (Debian's ``toga2``, its own book off, 16 MB hash) against itself
from the shipped book ``heurtune:chess-balanced`` and reports, per move:

* **the referee's cost**: the CPU time of heurtune's own process (legality of
  each move through python-chess, the game's end, the clock, writing
  ``position ... moves ...`` and reading ``info``/``bestmove``), measured with
  ``time.process_time`` over a match played in this process (``--jobs 1``),
  beside the wall time of a move, which is mostly the engine's search;
* **games per second** with ``--jobs 1`` and ``--jobs 2`` worker processes.

    python benchmarks/chess_engines.py --depth 4 --pairs 20
    python benchmarks/chess_engines.py --depth 4 6 --pairs 20 --jobs 1 2 --json out.json

Needs ``toga2`` on the PATH (``apt-get install toga2``; Debian puts it in
/usr/games). Published in docs/benchmarks.md ("Chess engines through UCI").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

from heurtune.engine import EngineConfig
from heurtune.match.books import load_book
from heurtune.match.runner import MatchRunner, MatchSpec

TOGA = "toga2"


def toga(depth: int) -> EngineConfig:
    return EngineConfig.from_dict({
        "game": "chess", "name": f"toga2-depth{depth}",
        "process": {"command": [TOGA], "options": {"OwnBook": False, "Hash": 16}},
        "search": {"depth": depth}})


def measure(depth: int, pairs: int, jobs: int, seed: int) -> dict[str, float]:
    """One match of ``pairs`` book openings, Toga II against itself at ``depth``."""
    engine = toga(depth)
    book = load_book("heurtune:chess-balanced", "chess")
    spec = MatchSpec(engine, engine.with_params({}, name="toga2-copy"), pairs, seed, book=book)
    with MatchRunner(jobs) as runner:
        # one pair first, so that the workers and engines have started
        runner.run(spec, openings=spec.openings()[:1])
        cpu, wall = time.process_time(), time.perf_counter()
        result = runner.run(spec, keep_games=True)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    games = [g for p in result.pairs for g in p.games]
    moves = sum(sum(g.searches) for g in games)
    searched = sum(sum(g.seconds) for g in games)  # each move's whole exchange, seen here
    out = {"depth": depth, "jobs": jobs, "pairs": pairs, "games": len(games), "moves": moves,
           "wall_s": wall, "games_per_s": len(games) / wall,
           "wall_ms_per_move": 1000 * wall / moves if jobs == 1 else float("nan"),
           "exchange_ms_per_move": 1000 * searched / moves}
    if jobs == 1:  # the match ran in this process: its CPU time is the referee's
        out["referee_cpu_ms_per_move"] = 1000 * cpu / moves
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, nargs="+", default=[4])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None, metavar="FILE")
    args = parser.parse_args()
    if shutil.which(TOGA) is None:
        sys.exit(f"{TOGA} is not on the PATH (apt-get install toga2; PATH=$PATH:/usr/games)")
    rows = []
    print("depth jobs games moves  games/s  wall ms/move  referee CPU ms/move")
    for depth in args.depth:
        for jobs in args.jobs:
            row = measure(depth, args.pairs, jobs, args.seed)
            rows.append(row)
            cpu = row.get("referee_cpu_ms_per_move")
            print(f"{depth:>5} {jobs:>4} {row['games']:>5} {row['moves']:>5} "
                  f"{row['games_per_s']:>8.2f} {row['wall_ms_per_move']:>13.2f} "
                  f"{'' if cpu is None else f'{cpu:.3f}':>20}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "rows": rows, "machine": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "python": platform.python_version()}, indent=2))


if __name__ == "__main__":
    main()
