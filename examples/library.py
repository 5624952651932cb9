"""heurtune as a library: a match, a small study, its confirmation and export,
with no command line in between (the calls ``heurtune match``, ``tune``,
``confirm`` and ``export`` make), the environment and sampler a study records, and
how to read a duels answer's two gains, and a fine-tuning study's baseline.

    python examples/library.py [FOLDER]

writes the study's storage and the exported engine into FOLDER (default: a
temporary folder) and prints what each step found. About a minute on two cores
the first time (numba compiles the Isolation search), seconds after.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import optuna

from heurtune.match import play_match
from heurtune.tuning import ConfirmOptions, confirm_study, export_best, load_study_file, tune
from heurtune.tuning.samplers import (
    GUARDED,
    MANY_PARAMETERS,
    MeasuredGain,
    SamplerSpec,
    disagreement,
    edge_prior_in_effect,
)
from heurtune.tuning.study.environment import environment
from heurtune.tuning.views import fit_text

STUDY = """
[study]
name = "example"
game = "isolation"
opponent = "isolation:ab_open"
trials = 4
pairs = 4
seed = 1
sampler = "random"

[engine]
heuristic = "weighted"
[engine.search]
depth = 64
nodes = 500

[params]
own_end = { low = 0.0, high = 3.0 }
opp_end = { low = 0.0, high = 3.0 }
"""


def main(folder: Path) -> None:
    # a match: two presets, 4 opening pairs
    outcome = play_match("isolation:ab_improved", "isolation:ab_open", pairs=4, seed=1)
    print("match:", outcome.plan.header())
    print("      ", outcome.result.stats.summary())

    # a study: from a study file, into a SQLite storage in the folder
    path = folder / "example.toml"
    path.write_text(STUDY)
    storage = f"sqlite:///{folder / 'example.db'}"
    summary = tune(load_study_file(path), storage_url=storage)
    print(f"tune: {summary.finished} finished trials, best trial {summary.best_number} "
          f"scored {summary.best_value:.3f}")
    # what the study's trials depend on beyond its file (recorded when it was created):
    # on another machine it reproduces trial by trial only with the same OpenBLAS kernel
    attrs = optuna.load_study(study_name="example", storage=storage).user_attrs
    env = attrs["environment"]
    print(f"environment: numpy {env['numpy']}, optuna {env['optuna']}, {env['blas']}; "
          f"this machine now: {environment()['blas']}")
    # and the sampler, every option included: a default changed later does not change
    # what a stored study ran with (an older record, with only the options set, is read
    # with the former defaults); duels' default edge prior waits for two gates below
    # MANY_PARAMETERS searched parameters, and widens at once from there on
    record = attrs["sampler"]
    spec = SamplerSpec.from_record(record["kind"], record["options"], "study 'example'")
    duels = SamplerSpec.parse("duels", {}, "example").options
    few, many = edge_prior_in_effect(duels, 2), edge_prior_in_effect(duels, MANY_PARAMETERS)
    when = f"after {many.after} duels per coefficient" if many.after else "at once"
    print(f"sampler: {spec.kind}, options {dict(spec.options)}; duels' default edge prior "
          f"in 2 parameters: {few.widen} after {few.after} duels per coefficient and "
          f"{few.slope_z} sd, in {MANY_PARAMETERS}: {many.widen} {when}")
    # a duels answer's detail holds its model-based gain and the gain its held-out
    # duels measured; where they lie 3 sd apart, tune says so (here a real Morris
    # answer's, from docs/results/optimisers.md: the model underrates it by half)
    detail = {"model_gain": 133.0, "model_gain_sd": 16.7, "measured_gain": 259.2,
              "measured_gain_ci": [222.1, 302.2]}
    print(f"gains: {disagreement(detail):.1f} sd apart; {fit_text(detail)}")
    # measured at or below the baseline and guard_z (3) sd below the model, duels
    # answers the baseline instead and its detail keeps the answer withdrawn (here a
    # real Isolation answer's, a weight's default on a narrow peak: "A real box with
    # cusps" in docs/results/optimisers.md)
    held_out = MeasuredGain(-24.7, -55.0, 5.3, duels=15, games=480)
    apart = held_out.apart(101.8, 18.6)
    guarded = {"is_baseline": True, GUARDED: {
        "model_gain": 101.8, "model_gain_sd": 18.6, "measured_gain": held_out.elo,
        "measured_gain_ci": [held_out.low, held_out.high], "apart": apart}}
    print(f"guard: {apart:.1f} sd apart; {fit_text(guarded)}")
    # fine-tuning your own engine: the study's baseline (trial 0, what the answers are
    # measured against, where duels start) is the heuristic's defaults unless
    # start_from names the engine; with that engine as the opponent and no start_from,
    # tune warns, naming the weights apart
    mine = folder / "mine.toml"
    mine.write_text('game = "isolation"\nheuristic = "weighted"\n[params]\nown_end = 2.0\n'
                    'opp_end = 1.5\n[search]\ndepth = 64\nnodes = 500\n')
    fine = folder / "fine.toml"
    fine.write_text(STUDY.replace('"isolation:ab_open"', '"mine.toml"'))
    started = folder / "fine-started.toml"
    started.write_text(fine.read_text().replace("trials = 4",
                                                'trials = 4\nstart_from = "mine.toml"'))
    print(f"fine: apart from the opponent {load_study_file(fine).baseline_apart_from_opponent()}; "
          f"with start_from {load_study_file(started).baseline_apart_from_opponent()}")

    # its confirmation: fresh openings pick the winner (the selection, optimistic),
    # further fresh openings measure it against the baseline (the check)
    verdict = confirm_study(storage, "example", ConfirmOptions(top=2, pairs=4, check_pairs=4))
    evidence = verdict.evidence  # the check's figures (None: the baseline won)
    measured = ("the baseline won the selection" if evidence is None else
                f"score {evidence['score']:.3f} over {evidence['games']} further games")
    print(f"confirm: winner {verdict.winner.label} (selection score {verdict.winner.score:.3f}, "
          f"optimistic); {measured}")
    # export writes only a winner found better than the baseline on the check's games;
    # 4 pairs rarely show that, so force=True writes it anyway, marked "unproven"
    no_gain = verdict.no_gain()
    written, config = export_best(storage, "example", folder / "example-tuned.toml",
                                  force=no_gain is not None)
    print(f"export: {written} ({config.provenance.get('unproven', 'a confirmed gain')})")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
