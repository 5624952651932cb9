"""The study-file format: what to tune, against whom, with how much evidence.

:func:`load_study_file` parses and validates a file into a :class:`StudyFile`;
docs/study-file.md documents every key (a test checks it against
:data:`SECTION_KEYS`). Nothing here touches a storage."""

from heurtune.tuning.studyfile._parse import check_study_name, load_study_file
from heurtune.tuning.studyfile._spec import (
    ANSWERS,
    BUDGETS,
    DEFAULT_JOBS,
    DEFAULT_PAIRS,
    DEFAULT_SEED,
    DEFAULT_TOP,
    DEFAULT_TRIALS,
    DISTINCT_OPENINGS,
    NAME_MAX,
    OBJECTIVES,
    PERSPECTIVES,
    POSITION_LOSSES,
    PRUNERS,
    SAMPLER_SEEDINGS,
    SEARCH_DEFAULTS,
    SECTION_KEYS,
    STUDY_PREFIX,
    ConfirmOptions,
    PoolMember,
    PositionsSpec,
    PrunerSpec,
    StudyFile,
)

__all__ = [
    "ANSWERS",
    "BUDGETS",
    "DEFAULT_JOBS",
    "DEFAULT_PAIRS",
    "DEFAULT_SEED",
    "DEFAULT_TOP",
    "DEFAULT_TRIALS",
    "DISTINCT_OPENINGS",
    "NAME_MAX",
    "PRUNERS",
    "SAMPLER_SEEDINGS",
    "SEARCH_DEFAULTS",
    "SECTION_KEYS",
    "STUDY_PREFIX",
    "ConfirmOptions",
    "OBJECTIVES",
    "PERSPECTIVES",
    "POSITION_LOSSES",
    "PoolMember",
    "PositionsSpec",
    "PrunerSpec",
    "StudyFile",
    "check_study_name",
    "load_study_file",
]
