"""After the trials: the study's answers, their confirmation on fresh openings,
and the export of the winner as an engine file with its evidence."""

from heurtune.tuning.after.answers import (
    Answer,
    default_answer,
    sampler_spec,
    study_answers,
    study_space,
)
from heurtune.tuning.after.confirm import (
    confirm_study,
    duel_openings,
    needs_confirmation,
    study_pool,
    tuning_spec,
)
from heurtune.tuning.after.export import (
    EXPORTED,
    best_config,
    export_best,
    export_choice,
    export_pareto,
)

__all__ = [
    "EXPORTED",
    "Answer",
    "best_config",
    "confirm_study",
    "default_answer",
    "duel_openings",
    "export_best",
    "export_choice",
    "export_pareto",
    "needs_confirmation",
    "sampler_spec",
    "study_answers",
    "study_pool",
    "study_space",
    "tuning_spec",
]
