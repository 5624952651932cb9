"""How often would the seed's experiment crown each agent?

Re-runs the seed's Isolation tournament at its size (5 paired openings = 10 games
per cell) under many seeds and counts which agent gets the best win ratio, as
the seed did to pick its "recommended" heuristic. Usage:

    python docs/results/seed_size_repeats.py [--runs 20] [--jobs 2]
"""

from __future__ import annotations

import argparse
from collections import Counter

from heurtune.engine.config import preset
from heurtune.match.tournament import run_tournament

AGENTS = ["ab_improved", "ab_custom", "ab_custom_2", "ab_custom_3"]
OPPONENTS = ["random", "mm_open", "mm_center", "mm_improved", "ab_open", "ab_center",
             "ab_improved"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    agents = [preset(f"isolation:{a}") for a in AGENTS]
    opponents = [preset(f"isolation:{o}") for o in OPPONENTS]
    winners: Counter[str] = Counter()
    rows = []
    for seed in range(1, args.runs + 1):
        t = run_tournament(agents, opponents, pairs=5, seed=seed, jobs=args.jobs)
        ratios = [t.agent_totals(a).score for a in range(len(agents))]
        best = max(ratios)
        top = [AGENTS[i] for i, r in enumerate(ratios) if r == best]
        for name in top:
            winners[name] += 1 / len(top)  # ties share the crown
        rows.append((seed, ratios, top))
    print("| seed | " + " | ".join(AGENTS) + " | best |")
    print("|---:|" + "---:|" * len(AGENTS) + "---|")
    for seed, ratios, top in rows:
        print(f"| {seed} | " + " | ".join(f"{100 * r:.1f}%" for r in ratios)
              + f" | {', '.join(top)} |")
    print()
    print("Times crowned (ties shared): "
          + ", ".join(f"{a} {winners[a]:g}" for a in AGENTS))


if __name__ == "__main__":
    main()
