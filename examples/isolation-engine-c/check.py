#!/usr/bin/env python3
"""Check the C Isolation engine against heurtune's own rules kernel.

Run from anywhere with heurtune's Python (the engine is built first if missing):

    python examples/isolation-engine-c/check.py [--games 20] [--nodes 2000]

It starts ./isolation-engine, checks the handshake (id name, id game, option
lines), then:

* plays games of the engine against a random mover (both colours) and against
  itself with ``go nodes N seed S``, checking every ``bestmove`` against the
  kernel's legal moves and asking every position twice (the same position,
  limits and seed must give the same move, whatever was searched in between);
* checks the engine's move generation: with every weight 0 and ``go depth 1``
  the move is the seed's pick among equal moves, so many seeds must cover the
  kernel's legal moves exactly (first moves: every empty square, next to the
  opponent included; later: knight jumps);
* checks robustness (garbage, an over-long line, bad moves, EOF) and a fresh
  process giving the same moves;
* measures nodes per second with ``go movetime``.

Prints a summary; exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

from heurtune.games import ONGOING, get_game
from heurtune.games import isolation as iso
from heurtune.games.base import STM

HERE = Path(__file__).resolve().parent
BINARY = Path(os.environ.get("ISOLATION_ENGINE", HERE / "isolation-engine"))

problems: list[str] = []


def problem(text: str) -> None:
    problems.append(text)
    print("PROBLEM:", text, flush=True)


class Engine:
    """The engine process, with a reader thread so every read has a deadline."""

    def __init__(self, quiet: bool = False) -> None:
        self.proc = subprocess.Popen(
            [str(BINARY)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if quiet else None, text=True, bufsize=1, cwd=HERE)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 10.0) -> str:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise RuntimeError("engine closed its output")
        return line

    def until(self, last: str, timeout: float = 10.0) -> list[str]:
        out = []
        while True:
            line = self.read(timeout)
            out.append(line)
            if line.split(" ", 1)[0] == last:
                return out

    def go(self, moves: list[str], limits: str) -> tuple[str, int, int, float]:
        """(bestmove, depth, nodes, seconds) for the position after ``moves``."""
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        t0 = time.perf_counter()
        self.send("go " + limits)
        lines = self.until("bestmove", timeout=30.0)
        seconds = time.perf_counter() - t0
        depth = nodes = -1
        for line in lines[:-1]:
            words = line.split()
            if not words or words[0] != "info":
                problem(f"unexpected line before bestmove: {line!r}")
                continue
            for key, value in zip(words[1:], words[2:], strict=False):
                if key == "depth":
                    depth = int(value)
                elif key == "nodes":
                    nodes = int(value)
        words = lines[-1].split()
        if len(words) != 2:
            problem(f"malformed bestmove line: {lines[-1]!r}")
            return "", depth, nodes, seconds
        return words[1], depth, nodes, seconds

    def quit(self) -> int:
        self.send("quit")
        return self.proc.wait(timeout=10)


def handshake(engine: Engine) -> dict[str, tuple[float, float, float]]:
    engine.send("uci")
    lines = engine.until("uciok")
    ids = {}
    opts = {}
    for line in lines[:-1]:
        w = line.split()
        if w[0] == "id" and len(w) >= 3:
            ids[w[1]] = " ".join(w[2:])
        elif w[0] == "option":
            # option name NAME type float default D min LOW max HIGH
            if len(w) != 11 or w[1] != "name" or w[3:5] != ["type", "float"] \
                    or w[5] != "default" or w[7] != "min" or w[9] != "max":
                problem(f"option line not understood: {line!r}")
                continue
            d, lo, hi = float(w[6]), float(w[8]), float(w[10])
            if not lo <= d <= hi:
                problem(f"option default outside its bounds: {line!r}")
            opts[w[2]] = (d, lo, hi)
        else:
            problem(f"unexpected handshake line: {line!r}")
    if ids.get("name") != "c-isolation" or ids.get("game") != "isolation":
        problem(f"ids: {ids}")
    for name in ("own", "opp", "centre"):
        if name not in opts:
            problem(f"option {name!r} missing")
    engine.send("isready")
    if engine.read() != "readyok":
        problem("no readyok")
    return opts


def set_options(engine: Engine, values: dict[str, float]) -> None:
    for name, value in values.items():
        engine.send(f"setoption name {name} value {value}")
    engine.send("isready")
    if engine.read() != "readyok":
        problem("no readyok after setoption")


def play_games(engine: Engine, n_games: int, nodes: int, rng: random.Random,
               stats: dict[str, int]) -> None:
    kernel = get_game("isolation")
    defaults = {"own": 1.0, "opp": -1.0, "centre": 0.0}
    for game in range(n_games):
        kind = ("random", "random", "self")[game % 3]
        engine_side = game % 2  # against the random mover
        # some games with other weights, to exercise the whole evaluation
        weights = defaults if game % 4 < 2 else {
            "own": round(rng.uniform(-5, 5), 2), "opp": round(rng.uniform(-5, 5), 2),
            "centre": round(rng.uniform(-2, 2), 2)}
        set_options(engine, weights)
        engine.send("ucinewgame")
        state = kernel.new_state()
        moves: list[str] = []
        while kernel.outcome(state) == ONGOING:
            legal = {kernel.move_to_str(m): m for m in kernel.legal_moves(state)}
            side = len(moves) % 2
            if kind == "random" and side != engine_side:
                text = rng.choice(sorted(legal))
            else:
                seed = rng.randrange(2**62)
                limits = f"nodes {nodes} seed {seed}"
                text, depth, n, _ = engine.go(moves, limits)
                stats["engine_moves"] += 1
                if text not in legal:
                    problem(f"game {game}: illegal bestmove {text!r} after {moves} "
                            f"(legal: {sorted(legal)})")
                    break
                if depth < 1 or n < 1 or (depth > 1 and n > nodes):
                    problem(f"game {game}: info depth {depth} nodes {n} for {limits}")
                again, depth2, n2, _ = engine.go(moves, limits)
                stats["determinism_checks"] += 1
                if (again, depth2, n2) != (text, depth, n):
                    problem(f"game {game}: not deterministic after {moves}: "
                            f"{text} d{depth} n{n} then {again} d{depth2} n{n2}")
                stats["max_depth"] = max(stats["max_depth"], depth)
            kernel.make_move(state, legal[text])
            moves.append(text)
        else:
            loser = len(moves) % 2  # the side to move is stuck
            if kind == "random":
                key = "default" if weights is defaults else "other"
                stats[f"{key}_wins" if loser != engine_side else f"{key}_losses"] += 1
            stats["games"] += 1
            stats["plies"] += len(moves)


def check_movegen(engine: Engine, rng: random.Random, stats: dict[str, int]) -> None:
    """All weights 0, depth 1: the engine's move is the seed's pick among equals."""
    kernel = get_game("isolation")
    set_options(engine, {"own": 0, "opp": 0, "centre": 0})
    openings: list[list[str]] = [[], ["d4"], ["a1"], ["d4", "e6"], ["d4", "c3"], ["g7", "a1"]]
    # random positions further in (knight moves only)
    for _ in range(12):
        state = kernel.new_state()
        moves = []
        for _ in range(rng.randrange(2, 30)):
            legal = kernel.legal_moves(state)
            if not legal:
                break
            m = rng.choice(legal)
            kernel.make_move(state, m)
            moves.append(kernel.move_to_str(m))
        if kernel.outcome(state) == ONGOING:
            openings.append(moves)
    for moves in openings:
        state = kernel.new_state()
        for text in moves:
            kernel.make_move(state, kernel.parse_move(state, text))
        legal_names = {kernel.move_to_str(m) for m in kernel.legal_moves(state)}
        # depth 1 scores a move that leaves the opponent stuck as won, one after
        # which the mover is stuck (and the opponent is not) as lost, the rest 0
        score: dict[str, int] = {}
        for m in kernel.legal_moves(state):
            mover = int(state[STM])
            kernel.make_move(state, m)
            theirs = len(kernel.legal_moves(state))
            mine = bin(int(iso.targets(state, mover))).count("1")
            kernel.unmake_move(state, m)
            score[kernel.move_to_str(m)] = 1 if not theirs else -1 if not mine else 0
        expected = {t for t, v in score.items() if v == max(score.values())}
        seen: set[str] = set()
        for seed in range(40 * len(legal_names)):
            text, _, _, _ = engine.go(moves, f"depth 1 seed {seed}")
            stats["movegen_probes"] += 1
            if text not in legal_names:
                problem(f"movegen: illegal {text!r} after {moves}")
                break
            seen.add(text)
            if seen == expected:
                break
        if seen != expected:
            problem(f"movegen after {moves}: engine picked {sorted(seen)}, "
                    f"expected {sorted(expected)} (missing {sorted(expected - seen)})")
        stats["movegen_positions"] += 1


def check_robustness(stats: dict[str, int]) -> None:
    engine = Engine(quiet=True)  # it warns on stderr about the bad moves
    handshake(engine)
    engine.send("hello world")
    engine.send("x" * 70000)
    engine.send("setoption name own value banana")
    engine.send("setoption name nosuch value 1")
    engine.send("ucinewgame SIZE=9 whatever")
    engine.send("position startpos moves d4 zz9 c3 d4")  # zz9, d4 again: skipped
    engine.send("isready")
    if engine.read() != "readyok":
        problem("robustness: no readyok after garbage")
    text, _, _, _ = engine.go(["d4", "c3"], "nodes 500 seed 7")
    if text not in {"b3", "b5", "c2", "c6", "e2", "e6", "f3", "f5"}:  # knight jumps from d4
        problem(f"robustness: bestmove {text!r}")
    engine.send("go")  # no limits: the engine picks its own (a second)
    engine.until("bestmove")
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()  # EOF means quit
    code = engine.proc.wait(timeout=10)
    if code != 0:
        problem(f"robustness: exit code {code} at EOF")
    stats["robustness"] = 1


def check_fresh_process(samples: list[tuple[list[str], str, str]]) -> None:
    engine = Engine()
    handshake(engine)
    for moves, limits, expected in samples:
        text, _, _, _ = engine.go(moves, limits)
        if text != expected:
            problem(f"fresh process: {text} != {expected} after {moves} ({limits})")
    if engine.quit() != 0:
        problem("fresh process: non-zero exit code after quit")


def measure_nps(engine: Engine, ms: int) -> list[tuple[str, int, int, float]]:
    set_options(engine, {"own": 1, "opp": -1, "centre": 0})
    out = []
    for moves in (["d4", "c3"], ["d4", "c3", "e6", "a4"], ["a1", "g7", "b3", "f5", "d4", "d6"]):
        _, depth, nodes, seconds = engine.go(moves, f"movetime {ms} seed 1")
        out.append((" ".join(moves), depth, nodes, seconds))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--movetime", type=int, default=1000, help="ms per nodes/s measurement")
    args = ap.parse_args()

    if not BINARY.exists():
        subprocess.run(["make", "-C", str(HERE)], check=True)
    rng = random.Random(args.seed)
    stats = dict.fromkeys(("games", "plies", "engine_moves", "determinism_checks", "max_depth",
                           "default_wins", "default_losses", "other_wins", "other_losses",
                           "movegen_positions", "movegen_probes", "robustness"), 0)

    engine = Engine()
    opts = handshake(engine)
    t0 = time.perf_counter()
    play_games(engine, args.games, args.nodes, rng, stats)
    games_s = time.perf_counter() - t0
    check_movegen(engine, rng, stats)
    samples = [(["d4", "c3"], "nodes 4000 seed 881726345", ""),
               (["d4", "c3", "e6", "a4"], "nodes 4000 seed 20231119", ""),
               ([], "nodes 3000 seed 5", "")]
    set_options(engine, {"own": 1, "opp": -1, "centre": 0})
    samples = [(m, lim, engine.go(m, lim)[0]) for m, lim, _ in samples]
    nps = measure_nps(engine, args.movetime)
    if engine.quit() != 0:
        problem("non-zero exit code after quit")
    check_fresh_process(samples)
    check_robustness(stats)

    print(f"options: {opts}")
    print(f"games: {stats['games']} played ({stats['plies']} plies, {games_s:.1f} s); "
          f"engine moves: {stats['engine_moves']}, every one legal: "
          f"{'yes' if not any('illegal' in p for p in problems) else 'NO'}; "
          f"deepest search: {stats['max_depth']}")
    print(f"vs random: default weights won {stats['default_wins']}, lost "
          f"{stats['default_losses']}; random weights won {stats['other_wins']}, "
          f"lost {stats['other_losses']}")
    print(f"determinism: {stats['determinism_checks']} positions asked twice, plus "
          f"{len(samples)} in a fresh process: "
          f"{'ok' if not any('determin' in p or 'fresh' in p for p in problems) else 'FAILED'}")
    print(f"move generation: {stats['movegen_positions']} positions, "
          f"{stats['movegen_probes']} depth-1 probes, legal sets matched: "
          f"{'yes' if not any('movegen' in p for p in problems) else 'NO'}")
    print(f"robustness (garbage, 70 KB line, bad moves, EOF): "
          f"{'ok' if not any('robustness' in p for p in problems) else 'FAILED'}")
    for moves, depth, nodes, seconds in nps:
        print(f"speed after [{moves}]: depth {depth}, {nodes} nodes in {seconds:.3f} s "
              f"= {nodes / seconds / 1e6:.1f} M nodes/s")
    total_nodes = sum(n for _, _, n, _ in nps)
    total_s = sum(s for _, _, _, s in nps)
    print(f"nodes/s: {total_nodes / total_s / 1e6:.1f} M")
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
