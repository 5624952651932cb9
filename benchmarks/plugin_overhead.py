"""What a game or an engine from outside heurtune costs: plain Python, and the protocol.

Two comparisons, each against a baseline measured in the same run (the machine
is shared: read the ratios):

1. **A plain-Python game against the same rules as a numba kernel.** Isolation
   written both ways (``pyisolation`` from examples/isolation-python, and
   heurtune's ``isolation``), the same ``improved`` heuristic, the same
   alpha-beta to the same depth on the same seeded positions: nodes per second
   of each search; then whole games (AB_Improved at 4,000 nodes against the
   random mover) per second.
2. **An engine in another process against the in-process engine.** The C
   engine of examples/isolation-engine-c through docs/engine-protocol.md:
   time per move as heurtune sees it (sending the position and ``go``,
   reading ``bestmove``, checking it) at ``depth 1``, where the engine's own
   search is a few microseconds, so the time is the protocol's overhead; and
   at 4,000 nodes per move beside heurtune's compiled AB_Improved at 4,000
   nodes (equal search work by node count).

    python benchmarks/plugin_overhead.py [--seed 1] [--games 20] [--json]

It builds the C engine with ``make`` and registers the plugin from the
examples folder (no installation needed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "isolation-python" / "src"))

from heurtune.engine import Engine, EngineConfig, preset  # noqa: E402
from heurtune.engine.bench import bench  # noqa: E402
from heurtune.games import get_game, register_game  # noqa: E402
from heurtune.match.openings import random_openings  # noqa: E402
from heurtune.match.play import mix_seed, play_game  # noqa: E402

C_ENGINE = ROOT / "examples" / "isolation-engine-c"


def search_speed(depth: int, positions: int, seed: int) -> dict[str, Any]:
    out = {}
    for game in ("isolation", "pyisolation"):
        r = bench(game, "improved", depth, positions=positions, seed=seed, repeat=3)
        out[game] = {"nodes": r.nodes, "seconds": r.seconds, "nodes_per_second": r.nodes_per_second}
    out["ratio"] = out["isolation"]["nodes_per_second"] / out["pyisolation"]["nodes_per_second"]
    return out


def games_per_second(games: int, seed: int) -> dict[str, Any]:
    out = {}
    for game in ("isolation", "pyisolation"):
        kernel = get_game(game)
        a, b = Engine(preset(f"{game}:ab_improved")), Engine(preset(f"{game}:random"))
        openings = random_openings(kernel, {}, games, 2, seed)
        play_game(kernel, {}, (a, b), openings[0], seed)  # compile / warm up
        t0 = time.perf_counter()
        moves = 0
        for i, op in enumerate(openings):
            moves += len(play_game(kernel, {}, (a, b), op, mix_seed(seed, i)).moves)
        seconds = time.perf_counter() - t0
        out[game] = {"games": games, "seconds": seconds, "games_per_second": games / seconds,
                     "moves": moves}
    out["ratio"] = out["isolation"]["games_per_second"] / out["pyisolation"]["games_per_second"]
    return out


def _per_move(engine: Engine, opponent: Engine, games: int, seed: int) -> dict[str, float]:
    """Mean time and nodes per move of ``engine``'s moves, as :func:`play_game` sees them."""
    kernel = get_game("isolation")
    seconds = nodes = moves = 0.0
    for i, op in enumerate(random_openings(kernel, {}, games, 2, seed)):
        record = play_game(kernel, {}, (engine, opponent), op, mix_seed(seed, i))
        seconds += record.seconds[0]
        nodes += record.nodes[0]
        moves += record.searches[0]
    return {"moves": moves, "ms_per_move": 1000 * seconds / moves, "nodes_per_move": nodes / moves}


def protocol_overhead(games: int, seed: int) -> dict[str, Any]:
    subprocess.run(["make", "-s", "-C", str(C_ENGINE)], check=True)
    base = EngineConfig.load(C_ENGINE / "engine.toml")
    random_mover = Engine(preset("isolation:random"))
    out: dict[str, Any] = {}
    for label, search in (("depth 1", {"depth": 1, "nodes": 0}),
                          ("4000 nodes", {"depth": 64, "nodes": 4000})):
        cfg = EngineConfig.from_dict({**base.to_dict(), "search": search})
        external = Engine(cfg)
        _per_move(external, random_mover, 1, seed)  # start the process
        inproc = Engine(EngineConfig.from_dict({"game": "isolation", "heuristic": "improved",
                                                "search": search}))
        _per_move(inproc, random_mover, 1, seed)  # compile
        out[label] = {"process": _per_move(external, random_mover, games, seed),
                      "in_process": _per_move(inproc, random_mover, games, seed)}
        external.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    register_game("pyisolation", "heurtune_pyisolation")
    result = {"search": search_speed(args.depth, args.positions, args.seed),
              "games": games_per_second(args.games, args.seed),
              "protocol": protocol_overhead(args.games, args.seed)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    s, g, p = result["search"], result["games"], result["protocol"]
    print(f"search, improved, alpha-beta depth {args.depth}, {args.positions} positions:")
    for game in ("isolation", "pyisolation"):
        print(f"  {game:<12} {s[game]['nodes']:>9,} nodes in {s[game]['seconds']:.3f} s = "
              f"{s[game]['nodes_per_second']:>12,.0f} nodes/s")
    print(f"  numba / plain Python: {s['ratio']:.0f}x")
    print(f"games, ab_improved (4000 nodes) vs random, {args.games} games:")
    for game in ("isolation", "pyisolation"):
        print(f"  {game:<12} {g[game]['games_per_second']:8.1f} games/s")
    print(f"  numba / plain Python: {g['ratio']:.1f}x")
    print(f"time per move of the C engine through the protocol, {args.games} games vs random:")
    for label, row in p.items():
        pr, ip = row["process"], row["in_process"]
        print(f"  {label:<10} process {pr['ms_per_move']:.3f} ms ({pr['nodes_per_move']:.0f} "
              f"nodes)  in-process numba {ip['ms_per_move']:.3f} ms "
              f"({ip['nodes_per_move']:.0f} nodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
