"""Which part of the tuned HeuristicScore agent matters: its kappas or the rest?

Plays variants between the seed agent and the tuned one (studies/exported/gomoku.toml)
against ``gomoku:seed`` on openings that studies/gomoku.toml never tuned on (mirror
images excluded). Usage:

    python docs/results/gomoku_ablation.py [--pairs 300] [--seed 41] [--jobs 2]
"""

from __future__ import annotations

import argparse

from heurtune.engine.config import EngineConfig, preset
from heurtune.engine.heuristics.gomoku import crossing_threes_score
from heurtune.match.runner import MatchRunner, MatchSpec
from heurtune.tuning.studyfile import load_study_file


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    seed = preset("gomoku:seed")
    tuned = EngineConfig.load("studies/exported/gomoku.toml")
    t = dict(tuned.params)
    seed_kappas = {"kappa0": 1.6, "kappa1": 5.0}
    variants = [
        ("tuned (exported)", tuned),
        ("tuned, seed kappas (1.6, 5)", tuned.with_params(seed_kappas)),
        ("tuned, seed kappas, threshold = crossing threes under them",
         tuned.with_params({**seed_kappas, "threshold": crossing_threes_score(1.6, 5.0, t["cap"])})),
        ("seed, tuned cap and defence", seed.with_params({"cap": t["cap"], "defence": t["defence"]})),
        ("seed, tuned kappas (threshold = crossing threes under them)",
         seed.with_params({"kappa0": t["kappa0"], "kappa1": t["kappa1"],
                           "threshold": crossing_threes_score(t["kappa0"], t["kappa1"], 2)})),
        ("seed, tuned defence only", seed.with_params({"defence": t["defence"]})),
        ("seed, tuned cap only", seed.with_params({"cap": t["cap"]})),
    ]
    exclude = tuple(load_study_file("studies/gomoku.toml").match_spec().openings())
    print(f"against gomoku:seed, {args.pairs} pairs, seed {args.seed}, "
          f"none of the {len(exclude)} study openings (nor their mirror images)\n")
    print("| variant | params | score [95% CI] |")
    print("|---|---|---|")
    with MatchRunner(args.jobs) as runner:
        for label, cfg in variants:
            spec = MatchSpec(cfg.with_params({}, name=label), seed, args.pairs, args.seed,
                             None, exclude)
            st = runner.run(spec).stats
            lo, hi = st.score_ci
            shown = ", ".join(f"{k} {float(v):.3g}" for k, v in cfg.params.items())
            print(f"| {label} | {shown} | {st.score:.3f} [{lo:.3f}, {hi:.3f}] |", flush=True)


if __name__ == "__main__":
    main()
