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
    python benchmarks/plugin_overhead.py --user-level --games 100   # 3. only

3. **The protocol's cost where users pay it**: a match (heurtune's runner, one
   process) of the C engine at depth 1 against heurtune's own engine at depth 1,
   against the same match with heurtune's engine on both sides, same openings:
   the difference in wall time over the C engine's moves.

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


def user_level(games: int, seed: int, rounds: int = 3) -> dict[str, Any]:
    """What a user pays in a match: the C engine at depth 1 against heurtune's own
    engine at depth 1, beside the same match with the in-process engine on both
    sides, on the same openings (``heurtune match``'s runner, in this process).
    The protocol's cost per move is the difference in wall time over the moves the
    C engine made. The matches alternate, ``rounds`` times each, and the medians
    are compared (the machine is shared)."""
    from heurtune.match.runner import MatchRunner, MatchSpec

    subprocess.run(["make", "-s", "-C", str(C_ENGINE)], check=True)
    search = {"depth": 1, "nodes": 0}
    cfg = EngineConfig.from_dict({**EngineConfig.load(C_ENGINE / "engine.toml").to_dict(),
                                  "name": "c-isolation-depth1", "search": search})
    inproc = EngineConfig.from_dict({"game": "isolation", "heuristic": "improved",
                                     "name": "improved-depth1", "search": search})
    twin = inproc.with_params({}, name="improved-depth1-twin")
    mixed = MatchSpec(cfg, inproc, games, seed)
    plain = MatchSpec(twin, inproc, games, seed)
    times: dict[str, list[float]] = {"mixed": [], "plain": []}
    cpus: dict[str, list[float]] = {"mixed": [], "plain": []}
    moves = 0
    with MatchRunner(1) as runner:
        runner.run(mixed)  # start the engine, compile the search
        runner.run(plain)
        for _ in range(rounds):
            for label, spec in (("mixed", mixed), ("plain", plain)):
                t0, c0 = time.perf_counter(), time.process_time()
                result = runner.run(spec, keep_games=True)
                times[label].append(time.perf_counter() - t0)
                cpus[label].append(time.process_time() - c0)
                if label == "mixed":
                    moves = sum(g.searches[0] if k == 0 else g.searches[1]
                                for p in result.pairs for k, g in enumerate(p.games))

    def median(values: list[float]) -> float:
        return sorted(values)[len(values) // 2]

    mixed_s, plain_s = median(times["mixed"]), median(times["plain"])
    return {"pairs": games, "c_engine_moves": moves, "mixed_s": mixed_s, "plain_s": plain_s,
            "ms_per_move": 1000 * (mixed_s - plain_s) / moves, "rounds": rounds,
            # heurtune's own CPU time (its process: not the engine's, not the waiting)
            "cpu_ms_per_move": 1000 * (median(cpus["mixed"]) - median(cpus["plain"])) / moves}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--user-level", action="store_true",
                        help="only the protocol's cost per move inside a match")
    args = parser.parse_args()
    if args.user_level:
        u = user_level(args.games, args.seed)
        print(json.dumps(u, indent=2) if args.json else
              f"match at depth 1, {u['pairs']} pairs: C engine vs in process {u['mixed_s']:.3f} s, "
              f"in process vs in process {u['plain_s']:.3f} s (medians of {u['rounds']}); "
              f"the protocol costs {u['ms_per_move']:.3f} ms per C engine move "
              f"({u['c_engine_moves']} moves), of which heurtune's own CPU "
              f"{u['cpu_ms_per_move']:.3f} ms")
        return 0
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
