"""Time to depth of this checkout's search against an earlier commit's, interleaved.

    python benchmarks/compare_commits.py --base c88d970 [--game morris] [--heuristic H]
                                         [--depth 7] [--algorithm alphabeta] [--rounds 5]

Checks the base commit out into a temporary git worktree and runs ``bench`` of
both versions (the same 8 positions, each the fastest of 3 passes) in
alternating fresh processes, ``--rounds`` times each, so that the machine's
load affects both alike; reports the fastest time of each and their ratio,
and whether both searched the same number of nodes (the same tree).
Numba's caches of both versions go to temporary folders (a cold first round
is discarded).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from worktree import ROOT, checked_out

PROBE = (
    "import json, sys; sys.path.insert(0, sys.argv[1]); "
    "from heurtune.engine.bench import bench; "
    "r = bench(sys.argv[2], sys.argv[5] or None, int(sys.argv[3]), sys.argv[4]); "
    "print(json.dumps({'seconds': r.seconds, 'nodes': r.nodes}))"
)


def run(src: Path, cache: Path, game: str, depth: int, algorithm: str, heuristic: str) -> dict:
    env = {"NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", PROBE, str(src), game, str(depth), algorithm,
                          heuristic],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the earlier commit")
    ap.add_argument("--game", default="morris")
    ap.add_argument("--heuristic", default="", help="default: the game's bench heuristic")
    ap.add_argument("--depth", type=int, default=7)
    ap.add_argument("--algorithm", default="alphabeta")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        try:
            tree = stack.enter_context(checked_out(args.base, Path(tmp) / "base"))
        except ValueError as e:
            ap.error(str(e))
        sides = {"base": tree / "src", "this": ROOT / "src"}
        caches = {k: Path(tmp) / f"cache-{k}" for k in sides}
        for k in sides:  # compile both first
            run(sides[k], caches[k], args.game, args.depth, args.algorithm, args.heuristic)
        best: dict[str, dict] = {}
        for _ in range(args.rounds):
            for k in sides:
                r = run(sides[k], caches[k], args.game, args.depth, args.algorithm, args.heuristic)
                if k not in best or r["seconds"] < best[k]["seconds"]:
                    best[k] = r
    b, t = best["base"], best["this"]
    what = f"{args.game} {args.heuristic}".strip()
    print(f"{what} {args.algorithm} depth {args.depth}, fastest of {args.rounds} rounds: "
          f"{args.base} {b['seconds']:.4f} s ({b['nodes']:,} nodes), this checkout "
          f"{t['seconds']:.4f} s ({t['nodes']:,} nodes): {b['seconds'] / t['seconds']:.2f}x faster, "
          f"{'same' if b['nodes'] == t['nodes'] else 'DIFFERENT'} node count")
    return 0


if __name__ == "__main__":
    sys.exit(main())
