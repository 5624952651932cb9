"""Where a node's time goes: cost per call of each kernel function and of the evaluation.

    python benchmarks/profile_kernel.py GAME [--heuristic H] [--states 2000] [--seed 2024]

Samples positions the way searches meet them (the bench positions followed by a
few random plies), then times, in compiled loops over those positions, each call
the search makes per node: ``outcome``, ``gen_moves``, ``make_move`` +
``unmake_move`` (per legal move) and the heuristic's ``evaluate``; prints them
beside the search's own time per node on the bench positions (``heurtune
bench``), so the rest (ordering, table, bookkeeping) can be read off. The loops
reach each position through an unmanaged view, as the search does (a managed
row view would add reference-count traffic the search never pays).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import carray, njit

from heurtune.engine.bench import bench, bench_defaults, bench_positions
from heurtune.engine.heuristic import get_heuristic
from heurtune.games import ONGOING, get_game
from heurtune.games.bits import address, at_address


def sample(kernel, count: int, seed: int, max_plies: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    starts = bench_positions(kernel, 8, seed, max_plies)
    out = []
    while len(out) < count:
        state = starts[len(out) % len(starts)].copy()
        for _ in range(int(rng.integers(0, 6))):
            moves = kernel.legal_moves(state)
            if not moves or kernel.outcome(state) != ONGOING:
                break
            kernel.make_move(state, moves[int(rng.integers(len(moves)))])
        if kernel.outcome(state) == ONGOING:
            out.append(state)
    return np.array(out)


def timers(kernel, evaluate):  # type: ignore[no-untyped-def]
    gen, make, unmake, outcome = kernel.gen_moves, kernel.make_move, kernel.unmake_move, kernel.outcome

    @njit(nogil=True)
    def row(base, i, width):  # type: ignore[no-untyped-def]
        return carray(at_address(base + 8 * i * width), width, np.int64)

    @njit(nogil=True)
    def t_outcome(states, reps):  # type: ignore[no-untyped-def]
        base, width, acc = address(states), states.shape[1], 0
        for _ in range(reps):
            for i in range(states.shape[0]):
                acc += outcome(row(base, i, width))
        return acc

    @njit(nogil=True)
    def t_gen(states, buf, reps):  # type: ignore[no-untyped-def]
        base, width, acc = address(states), states.shape[1], 0
        for _ in range(reps):
            for i in range(states.shape[0]):
                acc += gen(row(base, i, width), buf, 0)
        return acc

    @njit(nogil=True)
    def t_make(states, buf, reps):  # type: ignore[no-untyped-def]
        base, width, acc = address(states), states.shape[1], 0
        for i in range(states.shape[0]):
            s = row(base, i, width)
            n = gen(s, buf, 0)
            for _ in range(reps):
                for j in range(n):
                    make(s, buf[0, j])
                    acc += s[0]
                    unmake(s, buf[0, j])
        return acc

    @njit(nogil=True)
    def t_eval(states, params, reps):  # type: ignore[no-untyped-def]
        base, width, acc = address(states), states.shape[1], 0.0
        for _ in range(reps):
            for i in range(states.shape[0]):
                acc += evaluate(row(base, i, width), params, 0)
        return acc

    return t_outcome, t_gen, t_make, t_eval


def per_call(fn, args, calls: int, reps: int) -> float:  # type: ignore[no-untyped-def]
    fn(*args, 1)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        fn(*args, reps)
        best = min(best, time.perf_counter() - t0)
    return best / (reps * calls) * 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--heuristic", default=None)
    ap.add_argument("--states", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    kernel = get_game(args.game)
    defaults = bench_defaults(args.game)
    h = get_heuristic(args.game, args.heuristic or str(defaults["heuristic"]))
    params = h.space.to_array({})
    states = sample(kernel, args.states, args.seed, int(defaults["max_plies"]))  # type: ignore[call-overload]
    buf = np.empty((1, kernel.max_moves), dtype=np.int64)
    moves = sum(kernel.gen_moves(s, buf, 0) for s in states)
    t_outcome, t_gen, t_make, t_eval = timers(kernel, h.evaluate)
    reps = 50
    costs = {
        "outcome": per_call(t_outcome, (states,), len(states), reps),
        "gen_moves": per_call(t_gen, (states, buf), len(states), reps),
        "make_move + unmake_move": per_call(t_make, (states, buf), moves, max(1, reps // 5)),
        f"evaluate ({h.name})": per_call(t_eval, (states, params), len(states), reps),
    }
    r = bench(args.game, h.name)
    print(f"{args.game}: {len(states)} sampled positions, {moves / len(states):.1f} legal moves "
          f"on average")
    print(f"search (heurtune bench {args.game}, depth {r.depth}, {' '.join(f'{k}={v}' for k, v in r.settings.items())}): "
          f"{r.seconds / r.nodes * 1e9:.1f} ns per node")
    for name, ns in costs.items():
        print(f"  {name}: {ns:.1f} ns per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
