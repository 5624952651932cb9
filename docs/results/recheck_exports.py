"""The shipped engines re-measured by confirmation's second stage.

The engines in ``studies/exported/`` were confirmed before two-stage
confirmation: their ``[provenance.confirmation]`` figures are the selection's,
measured on the games that picked the winner (optimistic). This script plays
each winner and its study's baseline against the study's opponent on a third
set of fresh openings (none of the study's tuning openings, none of the
selection's, regenerated from the recorded seeds, nor their images), as
``heurtune confirm`` now does, rewrites the provenance with those figures (the
old ones kept under ``[provenance.confirmation.selection]``) and prints the
old and new figures side by side as a Markdown table.

    python docs/results/recheck_exports.py --pairs 200 --jobs 2 [FILE...]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match import SEED_MAX, MatchRunner, MatchSpec, paired_difference, stats_of
from heurtune.tomlio import read_toml
from heurtune.tuning.after.export import FIGURES
from heurtune.tuning.studyfile import load_study_file

ROOT = Path(__file__).resolve().parents[2]
SELECTION_KEYS = ("date", "pairs", "seed", "opening_plies", "excluded_study_openings",
                  "candidates", "candidate_scores", "note")


def recheck(path: Path, pairs: int, jobs: int) -> float | None:
    """Play the check for one exported file and rewrite its provenance; the
    seconds it took (None: nothing to re-measure)."""
    cfg = EngineConfig.load(path)
    prov = dict(cfg.provenance)
    conf = prov.get("confirmation")
    if conf is not None and conf.get("method") is not None:
        return None  # confirmed by two-stage confirmation already
    sf = load_study_file(ROOT / "studies" / f"{prov['study']}.toml")
    base, opponent = sf.base, sf.opponent
    tuning = tuple(sf.match_spec().openings())
    if conf is None:  # exported before confirm existed: the tuning alone picked it
        conf = {"opening_plies": sf.opening_plies, "seed": sf.seed, "pairs": 0,
                "winner_is_baseline": False, "score": prov["score"],
                "score_ci": prov["score_ci"],
                "note": "no confirmation was run: the study's tuning picked the winner, "
                        "and these are its tuning figures"}
    plies = int(conf["opening_plies"])
    selection = (MatchSpec(base, opponent, int(conf["pairs"]), int(conf["seed"]), plies,
                           tuning).openings() if conf["pairs"] else [])
    seen = tuning + tuple(selection)
    seed = (int(conf["seed"]) + 1) % (SEED_MAX + 1)
    try:
        spec = MatchSpec(base, opponent, pairs, seed, plies, seen)
        openings = spec.openings()
    except HeurtuneError:  # the study used up most of a small opening space: longer ones
        plies += 1
        spec = MatchSpec(base, opponent, pairs, seed, plies, seen)
        openings = spec.openings()
    new_conf: dict[str, Any] = {
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "method": "two-stage",
    }
    start = time.monotonic()
    if not conf["winner_is_baseline"]:
        played = {}
        with MatchRunner(jobs) as runner:
            for role, engine in (("winner", replace(cfg, provenance={})),
                                 ("baseline", base.with_params(sf.baseline_params,
                                                               name="baseline"))):
                played[role] = runner.run(replace(spec, a=engine), openings=openings).pairs
        w, b = stats_of(played["winner"]).to_dict(), stats_of(played["baseline"]).to_dict()
        d, lo, hi = paired_difference(played["winner"], played["baseline"])
        new_conf.update({"pairs": pairs, "seed": seed, "opening_plies": plies,
                         "excluded_openings": len(seen),
                         **{k: w[k] for k in FIGURES if k in w},
                         "baseline_score": b["score"], "baseline_score_ci": b["score_ci"],
                         "difference_vs_baseline": d, "difference_vs_baseline_ci": [lo, hi]})
    new_conf["winner_is_baseline"] = conf["winner_is_baseline"]
    new_conf["note"] = (
        "re-measured after export by docs/results/recheck_exports.py: the winner's figures "
        "on further fresh openings that did not pick it (the check); [selection] keeps the "
        "confirmation's own figures, measured on the games that picked it (optimistic)"
        if not conf["winner_is_baseline"] else
        "no candidate beat the baseline in the selection; no further games were played")
    if not conf["winner_is_baseline"] and new_conf["difference_vs_baseline_ci"][0] <= 0:
        new_conf["no_gain"] = ("the winner is not better than the baseline for sure on the "
                               "check's games")
    new_conf["selection"] = {**{k: conf[k] for k in SELECTION_KEYS if k in conf},
                             **{f"winner_{k}": conf[k] for k in FIGURES if k in conf}}
    if "difference_vs_baseline" in conf:
        new_conf["selection"]["difference_vs_baseline"] = conf["difference_vs_baseline"]
        new_conf["selection"]["difference_vs_baseline_ci"] = conf["difference_vs_baseline_ci"]
    if "sprt" in conf:
        new_conf["sprt"] = conf["sprt"]
    prov["confirmation"] = new_conf
    prov["confirmed"] = True
    header = "".join(line + "\n" for line in path.read_text().splitlines()
                     if line.startswith("#"))
    replace(cfg, provenance=prov).save(path, header)
    read_toml(path)  # written whole and readable
    return time.monotonic() - start


def interval(x: Any) -> str:
    return f"[{x[0]:.3f}, {x[1]:.3f}]"


def table(files: list[Path]) -> None:
    """The old (selection) and new (check) figures of re-measured files, as Markdown."""
    print("| engine | study | before: score (picked on these games) | after: score on the "
          "check | before: vs baseline | after: vs baseline, check |")
    print("|---|---|---|---|---|---|")
    for path in files:
        prov = EngineConfig.load(path).provenance
        conf = prov.get("confirmation", {})
        if conf.get("method") != "two-stage":
            continue
        sel = conf["selection"]
        picked = "tuning" if not sel.get("pairs") else f"{sel['pairs']} pairs"
        before = f"{sel['winner_score']:.3f} {interval(sel['winner_score_ci'])} ({picked})"
        if conf["winner_is_baseline"]:
            print(f"| {path.name} | {prov['study']} | {before} | - (the baseline won) | - | - |")
            continue
        old_d = (f"{sel['difference_vs_baseline']:+.3f} "
                 f"{interval(sel['difference_vs_baseline_ci'])}"
                 if "difference_vs_baseline" in sel else "-")
        print(f"| {path.name} | {prov['study']} | {before} | {conf['score']:.3f} "
              f"{interval(conf['score_ci'])} ({conf['pairs']} pairs) | {old_d} | "
              f"{conf['difference_vs_baseline']:+.3f} "
              f"{interval(conf['difference_vs_baseline_ci'])} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table", action="store_true",
                    help="only print the table of the files re-measured already")
    args = ap.parse_args()
    files = args.files or sorted((ROOT / "studies" / "exported").glob("*.toml"))
    if not args.table:
        for path in files:
            r = recheck(path, args.pairs, args.jobs)
            state = "nothing to re-measure" if r is None else f"done in {r:.0f} s"
            print(f"{path.name}: {state}", file=sys.stderr, flush=True)
    table(files)


if __name__ == "__main__":
    main()
