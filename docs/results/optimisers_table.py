"""The per-case tables of research/optimisers-log.md ("Every optimiser and answer"),
which docs/results/optimisers.md condenses, from the benchmark's JSON files.

    python docs/results/optimisers_table.py research/optimisers/*.json

Each file is what ``python benchmarks/oracle.py --case CASE --out FILE`` wrote.
Prints, per case, one row per optimiser and answer: games until the median answer
is within 1 and 0.5 Elo of the optimum, the median loss at a few budgets, and the
largest share of seeds whose answer was worse than the baseline at any budget.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BUDGETS = (4000, 16000, 64000)
DUEL_SAMPLERS = ("spsa", "duels")


def games(value: int | None) -> str:
    return f"{value:,}" if value is not None else "not within the budget"


def loss_at(result: dict, answer: dict, budget: int) -> str:
    marks = result["checkpoints"]
    if budget > marks[-1]:
        return "-"
    k = max(i for i, m in enumerate(marks) if m <= budget)
    return f"{answer['median'][k]:.2f}"


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = [f"### Case `{data['case']}` ({data['seeds']} seeds)", "",
             "| optimiser | pairs per trial | answer | games to 1 Elo | games to 0.5 Elo | "
             + " | ".join(f"loss at {b // 1000}k" for b in BUDGETS)
             + " | worse than the baseline (most seeds at any budget) |",
             "|---|---:|---|---:|---:|" + "---:|" * len(BUDGETS) + "---:|"]
    for name, r in data["results"].items():
        ranked = sorted(r["answers"].items(), key=lambda kv: (kv[0] != r["answer"], kv[0]))
        for answer_name, a in ranked:
            if r["sampler"] in DUEL_SAMPLERS and answer_name == "best":
                continue  # the duel samplers' only match trial is the baseline
            mark = "**" if answer_name == r["answer"] else ""
            lines.append(
                f"| {name} | {r['pairs_per_trial']} | {mark}{answer_name}{mark} | "
                f"{games(a['games_to_1_elo'])} | {games(a['games_to_half_elo'])} | "
                + " | ".join(loss_at(r, a, b) for b in BUDGETS)
                + f" | {max(a['worse_than_baseline']):.0%} |")
    seconds = sum(r["seconds"] for r in data["results"].values())
    budgets = ", ".join(f"{n} {r['budget']:,}" for n, r in data["results"].items())
    lines += ["", f"Budget per optimiser (games): {budgets}; {seconds / 60:.1f} minutes of runs. "
                  "Bold: the optimiser's best answer (fewest games to 1 Elo)."]
    if data.get("skipped"):
        lines.append("Skipped: " + ", ".join(f"{k} ({v})" for k, v in data["skipped"].items()))
    return "\n".join(lines)


def main() -> None:
    print("\n\n".join(table(Path(p)) for p in sys.argv[1:]))


if __name__ == "__main__":
    main()
