"""``heurtune screen`` on the real boxes of benchmarks/real_optimisers.py: which weights
it calls lopsided (a cliff beside the baseline, where narrower duels did better).

    python benchmarks/screen_boxes.py --setups morris-fine,morris-fine-2,isolation-fine,isolation-fine-far \\
        --pairs 500 --seed 29 --out docs/results/optimisers/screen-fine-boxes.json

For each setup, the study file that real_optimisers.py writes for the default
``duels`` (its box, its baseline, every other weight pinned) is screened as ``heurtune
screen`` screens it (:func:`heurtune.tuning.planning.screen`: five points per weight
across its range and the baseline's value, each against the baseline on the same
fresh openings). Per setup and weight the verdict, the lopsided reading and every
point's Elo go to stderr; ``--out`` writes every screen's JSON with the command.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_optimisers import SETUPS, config_of, write_study  # noqa: E402

from heurtune.errors import HeurtuneError  # noqa: E402
from heurtune.tuning import load_study_file  # noqa: E402
from heurtune.tuning.planning import screen  # noqa: E402
from heurtune.tuning.study.environment import environment  # noqa: E402


def screen_setup(name: str, pairs: int, seed: int, jobs: int) -> dict[str, Any]:
    """The screen of one setup's default-``duels`` study, as JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_study(Path(tmp), SETUPS[name], config_of("duels"), seed, 8000)
        result = screen(load_study_file(path), pairs=pairs, seed=seed, jobs=jobs)
    out = result.to_dict()
    out["study"] = name
    out["summary"] = result.summary()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--setups", default="morris-fine,morris-fine-2,isolation-fine,"
                                        "isolation-fine-far",
                    help=f"comma-separated setups of real_optimisers.py, of {sorted(SETUPS)}")
    ap.add_argument("--pairs", type=int, default=500, help="opening pairs per point")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="", help="write the screens as JSON here")
    args = ap.parse_args()
    names = [s for s in args.setups.split(",") if s]
    unknown = [s for s in names if s not in SETUPS]
    if unknown or not names:
        print(f"screen_boxes.py: error: unknown setup(s) {unknown} (known: {sorted(SETUPS)})",
              file=sys.stderr)
        return 2
    screens = []
    for name in names:
        try:
            data = screen_setup(name, args.pairs, args.seed, args.jobs)
        except HeurtuneError as e:
            print(f"screen_boxes.py: error: {name}: {e}", file=sys.stderr)
            return 2
        screens.append(data)
        print(f"== {name}: {data['summary']}", file=sys.stderr)
        for p in data["params"]:
            side = p["lopsided"]
            said = ("" if side is None else
                    f"  LOPSIDED ({side['side']}: {side['elo']:+.1f} at {side['value']:g})")
            points = "  ".join(f"{q['value']:g}: {q['elo']:+.1f}" for q in p["points"])
            print(f"{p['name']:<20} {p['verdict']:<8} {points}{said}", file=sys.stderr)
        if data["advice"]:
            print(data["advice"], file=sys.stderr)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv),
                                              "versions": environment(),
                                              "screens": screens}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
