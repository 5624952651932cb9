"""Measure heurtune's search against the plain-Python baseline, in one run.

    python benchmarks/run_benchmarks.py [--seed S] [--json FILE]

Prints a Markdown table (paste it into docs/benchmarks.md) with:

* alpha-beta and minimax nodes per second with the seed heuristic, one core,
  on the fixed bench positions;
* the plain-Python baselines (benchmarks/baseline_morris.py,
  baseline_isolation.py, baseline_gomoku.py, baseline_halma.py) on the same
  positions, and the ratio; Halma's move generation per position, both ways;
* match games per second for default matches, one process.

Speed targets are ratios against the baseline measured in the same run, so a
busy machine slows both sides alike.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import baseline_gomoku as base_gom  # noqa: E402
import baseline_halma as base_hal  # noqa: E402
import baseline_isolation as base_iso  # noqa: E402
import baseline_morris as base  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from heurtune.engine.bench import bench, bench_positions  # noqa: E402
from heurtune.engine.config import preset  # noqa: E402
from heurtune.games import get_game  # noqa: E402
from heurtune.games import gomoku as kg  # noqa: E402
from heurtune.games import halma as kh  # noqa: E402
from heurtune.games import isolation as ki  # noqa: E402
from heurtune.games import morris as km  # noqa: E402
from heurtune.match.runner import MatchRunner, MatchSpec  # noqa: E402


def to_baseline(state):  # type: ignore[no-untyped-def]
    board = tuple(
        "w" if state[km.BB] >> i & 1 else "b" if state[km.BB + 1] >> i & 1 else None
        for i in range(24)
    )
    player = "w" if state[km.STM] == 0 else "b"
    return ((int(state[km.STASH]), int(state[km.STASH + 1])), board), player


def fastest_pass(positions, search_one, repeat: int = 3) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    """Like heurtune's bench: ``search_one(position) -> (nodes, seconds)`` over all
    positions; the node count is the same every pass, the time the fastest pass's."""
    best = float("inf")
    nodes = 0
    for _ in range(repeat):
        results = [search_one(st) for st in positions]
        nodes = sum(n for n, _ in results)
        best = min(best, sum(t for _, t in results))
    return nodes, best


def baseline_morris_one(st, limit: int = 2) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    """The seed's Minimax(limit=2), i.e. 3 plies, on one position."""
    state, player = to_baseline(st)
    engine = base.Minimax(limit=limit)
    t0 = time.perf_counter()
    engine.best_value(state, player)
    return engine.nodes, time.perf_counter() - t0


def to_baseline_isolation(state):  # type: ignore[no-untyped-def]
    board = base_iso.Board()
    for side, player in ((0, 1), (1, 2)):
        pos = int(state[ki.POS + side])
        if pos >= 0:
            board._locations[player] = divmod(pos, 7)
    blocked = int(state[ki.BLOCKED])
    for sq in range(49):
        if blocked >> sq & 1:
            r, c = divmod(sq, 7)
            board._board_state[r][c] = 1  # a blocked square (its owner does not matter)
    board._active = 1 if state[ki.STM] == 0 else 2
    return board


def baseline_isolation_one(st, depth: int = 5) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    """The classic fixed-depth alpha-beta with improved_score on one position."""
    board = to_baseline_isolation(st)
    agent = base_iso.AlphaBetaPlayer(board._active, depth)
    t0 = time.perf_counter()
    agent.search(board)
    return agent.nodes, time.perf_counter() - t0


def to_baseline_gomoku(state):  # type: ignore[no-untyped-def]
    n = int(state[kg.R_SIZE])
    cells = [[int(state[kg.cell_index(state, r * kg.STRIDE + c)]) for c in range(n)]
             for r in range(n)]
    return base_gom.from_cells(cells, 1 if state[kg.STM] == 0 else 2)


def baseline_gomoku_one(st, depth: int = 1) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    """The seed-style alpha-beta (numpy lines per point, HeuristicScore per line)."""
    board, player = to_baseline_gomoku(st)
    agent = base_gom.AlphaBeta(depth)
    t0 = time.perf_counter()
    agent.search(board, player)
    return agent.nodes, time.perf_counter() - t0


def baseline_halma_one(st, depth: int = 2) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    """The seed-style alpha-beta (numpy board, recursive jumps, distance heuristic)."""
    board = base_hal.board_from_cells([int(v) for v in st[kh.BOARD:kh.BOARD + kh.CELLS]])
    t0 = time.perf_counter()
    _, nodes = base_hal.search(board, int(st[kh.STM]) + 1, depth)
    return nodes, time.perf_counter() - t0


@njit(cache=True)
def _halma_movegen_loop(states, out, reps):  # type: ignore[no-untyped-def]
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += kh.gen_moves(states[i], out, 0)
    return total


def halma_movegen(positions, reps: int = 2000) -> tuple[float, float, int]:  # type: ignore[no-untyped-def]
    """Microseconds per position for the kernel's move generation (in a compiled
    loop, so no Python call per position) and for the baseline's, and the mean
    number of moves."""
    states = np.stack(positions)
    out = np.empty((1, kh.KERNEL.max_moves), dtype=np.int64)
    _halma_movegen_loop(states, out, 1)
    t0 = time.perf_counter()
    total = _halma_movegen_loop(states, out, reps)
    kernel_us = (time.perf_counter() - t0) / (reps * len(positions)) * 1e6
    boards = [base_hal.board_from_cells([int(v) for v in st[kh.BOARD:kh.BOARD + kh.CELLS]])
              for st in positions]
    t0 = time.perf_counter()
    base_reps = 20
    for _ in range(base_reps):
        for st, board in zip(positions, boards, strict=False):
            base_hal.generate_moves(board, int(st[kh.STM]) + 1)
    base_us = (time.perf_counter() - t0) / (base_reps * len(positions)) * 1e6
    return kernel_us, base_us, total // (reps * len(positions))


def games_per_second(a: str, b: str, pairs: int, seed: int) -> tuple[int, float]:
    spec = MatchSpec(preset(a), preset(b), pairs=pairs, seed=seed)
    with MatchRunner(1) as runner:
        runner.run(MatchSpec(spec.a, spec.b, pairs=1, seed=seed + 1))  # compile / load
        t0 = time.perf_counter()
        result = runner.run(spec)
        seconds = time.perf_counter() - t0
    return result.stats.games, seconds


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--depth", type=int, default=7, help="alpha-beta depth")
    ap.add_argument("--pairs", type=int, default=10, help="pairs per match figure")
    ap.add_argument("--json", default=None, help="also write the figures as JSON")
    args = ap.parse_args()

    kernel = get_game("morris")
    positions = bench_positions(kernel, 8, args.seed)
    rows = []
    ab = bench("morris", "seed", args.depth, "alphabeta", 8, args.seed)
    mm = bench("morris", "seed", 4, "minimax", 8, args.seed)
    b_nodes, b_sec = fastest_pass(positions, baseline_morris_one)
    b_nps = b_nodes / b_sec
    rows.append(("morris: alpha-beta, seed heuristic", f"depth {ab.depth}", ab.nodes, ab.seconds,
                 ab.nodes_per_second, ab.nodes_per_second / b_nps))
    rows.append(("morris: minimax (memo), seed heuristic", "depth 4", mm.nodes, mm.seconds,
                 mm.nodes_per_second, mm.nodes_per_second / b_nps))
    rows.append(("morris: plain-Python baseline (seed style)", "depth 3", b_nodes, b_sec, b_nps, 1.0))
    iso_positions = bench_positions(get_game("isolation"), 8, args.seed, 16)
    iso = bench("isolation", "improved", 12, "alphabeta", 8, args.seed)
    bi_nodes, bi_sec = fastest_pass(iso_positions, baseline_isolation_one)
    bi_nps = bi_nodes / bi_sec
    rows.append(("isolation: alpha-beta, improved", f"depth {iso.depth}", iso.nodes, iso.seconds,
                 iso.nodes_per_second, iso.nodes_per_second / bi_nps))
    rows.append(("isolation: plain-Python baseline (board copied per move)", "depth 5", bi_nodes,
                 bi_sec, bi_nps, 1.0))
    gom_positions = bench_positions(get_game("gomoku"), 8, args.seed, 20)
    gom = bench("gomoku", "threats", 4, "alphabeta", 8, args.seed)
    bg_nodes, bg_sec = fastest_pass(gom_positions, baseline_gomoku_one, repeat=1)
    bg_nps = bg_nodes / bg_sec
    rows.append(("gomoku: alpha-beta, threats (candidate moves)", f"depth {gom.depth}", gom.nodes,
                 gom.seconds, gom.nodes_per_second, gom.nodes_per_second / bg_nps))
    rows.append(("gomoku: plain-Python baseline (seed style, numpy lines per point)", "depth 1",
                 bg_nodes, bg_sec, bg_nps, 1.0))
    hal_positions = bench_positions(get_game("halma"), 8, args.seed, 60)
    hal = bench("halma", "distance", 3, "alphabeta", 8, args.seed)
    bh_nodes, bh_sec = fastest_pass(hal_positions, baseline_halma_one, repeat=1)
    bh_nps = bh_nodes / bh_sec
    rows.append(("halma: alpha-beta, distance (chain jumps)", f"depth {hal.depth}", hal.nodes,
                 hal.seconds, hal.nodes_per_second, hal.nodes_per_second / bh_nps))
    rows.append(("halma: plain-Python baseline (seed style, numpy board, recursive jumps)",
                 "depth 2", bh_nodes, bh_sec, bh_nps, 1.0))
    movegen = halma_movegen(hal_positions)
    matches = []
    for a, b in (("morris:seed", "morris:seed"), ("morris:ab", "morris:seed"),
                 ("isolation:ab_improved", "isolation:ab_improved"),
                 ("gomoku:seed", "gomoku:seed"), ("gomoku:ab", "gomoku:seed"),
                 ("halma:distance", "halma:manhattan")):
        games, sec = games_per_second(a, b, args.pairs, args.seed)
        matches.append((f"{a} vs {b}", games, sec, games / sec))

    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, {platform.machine()}; "
          f"Python {platform.python_version()}, numba {numba.__version__}")
    print(f"command: python benchmarks/run_benchmarks.py --seed {args.seed} --depth {args.depth} "
          f"--pairs {args.pairs}\n")
    print("| search (one core, 8 fixed positions) | limit | nodes | seconds | nodes/s "
          "| x its baseline |")
    print("|---|---|---:|---:|---:|---:|")
    for name, limit, nodes, sec, nps, ratio in rows:
        print(f"| {name} | {limit} | {nodes:,} | {sec:.3f} | {nps:,.0f} | {ratio:,.0f} |")
    kernel_us, base_us, moves = movegen
    print(f"\nhalma move generation (chain jumps, the same 8 positions, {moves} moves on "
          f"average): kernel {kernel_us:.2f} us per position, baseline {base_us:,.0f} us "
          f"({base_us / kernel_us:,.0f} x)")
    print("\n| match (one process) | games | seconds | games/s |")
    print("|---|---:|---:|---:|")
    for name, games, sec, gps in matches:
        print(f"| {name} | {games} | {sec:.2f} | {gps:.1f} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"search": rows, "matches": matches}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
