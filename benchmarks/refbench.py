"""Time to depth of heurtune's Isolation search against the C reference, in one run.

    python benchmarks/refbench.py [--depths 12 14] [--passes 7] [--ref ../shared/refbench]
                                  [--json FILE]

Builds ``iso_ref.c`` (``../shared/refbench/``, see its README) with the system C
compiler, writes the 8 ``heurtune bench isolation`` positions and heurtune's
Zobrist keys in its format, then, pass after pass, runs the C modes and
heurtune's search on the same positions, interleaved so that a busy machine slows
all of them alike. Each figure is the fastest pass. The C modes:

* ``ab``: plain fixed-depth alpha-beta, moves in square order;
* ``ord``: the same, moves ordered by fewest opponent replies;
* ``ht``: heurtune's iterative-deepening alpha-beta as it was, ported to C
  line by line (table, table move / killers / history ordering);
* ``htd1``: ``ht`` without the table and with unordered leaf parents.

heurtune runs three times: with Isolation's defaults (a 2^12-entry table probed
with 2 or more plies left, ordered leaf parents; no C mode has this tree), with
the settings of ``ht`` and with those of ``htd1``. The last two must search
exactly the C port's trees; the script says whether they did.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from heurtune.engine.bench import bench_positions
from heurtune.engine.config import LEGACY_SEARCH, search_defaults
from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.search import Searcher
from heurtune.games import get_game
from heurtune.games import isolation as ki

ROOT = Path(__file__).resolve().parent.parent
C_MODES = ("ab", "ord", "ht", "htd1")
SEED = 2024


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def build(ref_dir: Path, work: Path) -> Path:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("refbench: no C compiler (set CC)")
    exe = work / "iso_ref"
    subprocess.run([cc, "-O2", "-march=native", "-o", str(exe), str(ref_dir / "iso_ref.c")],
                   check=True)
    return exe


def write_inputs(states: list, work: Path) -> tuple[Path, Path]:
    pos, zob = work / "positions.txt", work / "zobrist.txt"
    with pos.open("w") as fh:
        for s in states:
            stm = int(s[ki.STM])
            fh.write(f"{int(s[ki.BLOCKED])} {int(s[ki.POS + stm])} {int(s[ki.POS + 1 - stm])}\n")
    keys = [*ki.Z_SQUARE[0], *ki.Z_SQUARE[1], *ki.Z_BLOCK, ki.Z_STM]
    zob.write_text(" ".join(str(int(k)) for k in keys) + "\n")
    return pos, zob


def run_c(exe: Path, mode: str, depth: int, pos: Path, zob: Path) -> tuple[float, int, int]:
    """(seconds, nodes, last-iteration nodes) of one pass of a C mode."""
    out = subprocess.run([str(exe), mode, str(depth), "1", str(pos), str(zob)],
                         check=True, capture_output=True, text=True).stdout
    fields = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    return float(fields["min"].rstrip("s")), int(fields["nodes"]), int(fields.get("last_iter_nodes", 0))


def run_heurtune(searcher: Searcher, params, states, depth: int, settings) -> tuple[float, int, int]:  # type: ignore[no-untyped-def]
    seconds, nodes, last = 0.0, 0, 0
    for state in states:
        searcher.clear()
        t0 = time.perf_counter()
        r = searcher.search(state, params, algorithm="alphabeta", depth=depth, seed=SEED, **settings)
        seconds += time.perf_counter() - t0
        nodes += r.nodes
        last += r.last_iteration_nodes
    return seconds, nodes, last


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depths", type=int, nargs="+", default=[12, 14])
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--ref", type=Path, default=ROOT.parent / "shared" / "refbench")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    kernel = get_game("isolation")
    h = get_heuristic("isolation", "improved")
    params = h.space.to_array({})
    states = bench_positions(kernel, 8, SEED, 16)
    variants = {
        "heurtune": search_defaults("isolation"),
        "heurtune (ht tree)": LEGACY_SEARCH,
        "heurtune (htd1 tree)": {**LEGACY_SEARCH, "table": False, "leaf_order": "none"},
    }
    searchers = {}
    for name, settings in variants.items():
        settings = dict(settings)
        searchers[name] = Searcher(kernel, h, settings.pop("tt_bits"))
        variants[name] = settings
        searchers[name].search(states[0], params, depth=2, **settings)  # compile / load
    rows: dict[int, dict[str, tuple[float, int, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        exe = build(args.ref, work)
        pos, zob = write_inputs(states, work)
        for depth in args.depths:
            best: dict[str, tuple[float, int, int]] = {}
            for _ in range(args.passes):
                for mode in C_MODES:
                    r = run_c(exe, mode, depth, pos, zob)
                    best[f"C {mode}"] = min(best.get(f"C {mode}", r), r)
                for name, settings in variants.items():
                    r = run_heurtune(searchers[name], params, states, depth, settings)
                    best[name] = min(best.get(name, r), r)
            rows[depth] = best

    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}, "
          f"numba {numba.__version__}")
    print(f"command: python benchmarks/refbench.py --depths {' '.join(map(str, args.depths))} "
          f"--passes {args.passes}\n")
    print("| depth | search | time to depth (s) | nodes | last iteration | x C ab |")
    print("|---:|---|---:|---:|---:|---:|")
    for depth, best in rows.items():
        ab = best["C ab"][0]
        for name, (sec, nodes, last) in best.items():
            print(f"| {depth} | {name} | {sec:.4f} | {nodes:,} | {last:,} | {sec / ab:.2f} |")
    print()
    for depth, best in rows.items():
        line = f"depth {depth}: heurtune / C ab = {best['heurtune'][0] / best['C ab'][0]:.2f}"
        for mode in ("ht", "htd1"):
            ours, theirs = best[f"heurtune ({mode} tree)"], best[f"C {mode}"]
            line += (f", heurtune ({mode} tree) / C {mode} = {ours[0] / theirs[0]:.2f} "
                     f"(same tree: {'yes' if ours[1:] == theirs[1:] else 'NO'})")
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {str(d): {k: {"seconds": v[0], "nodes": v[1], "last_iteration_nodes": v[2]}
                      for k, v in best.items()} for d, best in rows.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
