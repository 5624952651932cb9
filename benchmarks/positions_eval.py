"""How fast is the positions objective? Positions evaluated per second.

    python benchmarks/positions_eval.py [--games 40] [--seed 1] [--repeat 5] [--json]

For every built-in game, the position set of ``--games`` uniformly random
games (every position after the opening) is evaluated with the heuristic its
shipped tuned engine uses, three ways in one run: a plain-Python loop that
rebuilds each position's state (``PositionSet.state``) and calls the compiled
evaluator on it (the baseline: Python per position), and
:class:`heurtune.engine.batch.PositionEvaluator` with one thread and with two.
Reported: positions, positions per second of each, and the ratios to the
baseline measured in the same run (the machine is shared; ratios are what to
compare). The values are checked equal before anything is timed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heurtune.engine import EngineConfig  # noqa: E402
from heurtune.engine.batch import PositionEvaluator  # noqa: E402
from heurtune.games import ONGOING, get_game  # noqa: E402
from heurtune.match.positions import GameLine, PositionSet, sample_positions  # noqa: E402

SHIPPED = {"morris": "phased", "gomoku": "threats", "halma": "family", "isolation": "weighted"}


def random_set(game: str, games: int, seed: int) -> PositionSet:
    kernel = get_game(game)
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(games):
        state, moves = kernel.new_state(), []
        while kernel.outcome(state) == ONGOING:
            legal = kernel.legal_moves(state)
            move = legal[int(rng.integers(len(legal)))]
            kernel.make_move(state, move)
            moves.append(move)
        lines.append(GameLine(tuple(moves), 0.5, kernel.opening_plies))
    return sample_positions(game, {}, lines, seed=seed)


def best_time(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(game: str, games: int, seed: int, repeat: int) -> dict[str, float | int | str]:
    s = random_set(game, games, seed)
    kernel = get_game(game)
    h = EngineConfig(game=game, heuristic=SHIPPED[game]).heuristic_obj
    params = h.to_array()
    one = PositionEvaluator(kernel, h, s.rules, s.arrays(), threads=1)
    two = PositionEvaluator(kernel, h, s.rules, s.arrays(), threads=2)

    def plain() -> np.ndarray:
        return np.array([h.evaluate(st, params, kernel.side_to_move(st))
                         for st in (s.state(i) for i in range(s.size))])

    expected = plain()
    if not (np.array_equal(one(params), expected) and np.array_equal(two(params), expected)):
        raise SystemExit(f"{game}: the batch values differ from the plain loop's")
    t_plain = best_time(plain, max(1, repeat // 2))
    t_one, t_two = best_time(lambda: one(params), repeat), best_time(lambda: two(params), repeat)
    return {"game": game, "heuristic": h.name, "positions": s.size,
            "plain_per_s": s.size / t_plain, "batch1_per_s": s.size / t_one,
            "batch2_per_s": s.size / t_two, "batch1_ratio": t_plain / t_one,
            "batch2_ratio": t_plain / t_two}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [measure(g, args.games, args.seed, args.repeat) for g in sorted(SHIPPED)]
    if args.json:
        print(json.dumps(rows))
        return
    print("| game | heuristic | positions | Python loop /s | batch, 1 thread /s | batch, 2 threads "
          "/s | ratio 1 thread | ratio 2 threads |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['game']} | {r['heuristic']} | {r['positions']:,} | {r['plain_per_s']:,.0f} "
              f"| {r['batch1_per_s']:,.0f} | {r['batch2_per_s']:,.0f} | "
              f"{r['batch1_ratio']:.1f}x | {r['batch2_ratio']:.1f}x |")


if __name__ == "__main__":
    main()
