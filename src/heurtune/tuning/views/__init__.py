"""Views of a study: text (the CLI's and the notes' lines), optuna-dashboard's
notes and artifacts, and the self-contained HTML report."""

from heurtune.tuning.views.dashboard import (
    ARTIFACTS_SUFFIX,
    Dashboard,
    artifact_folder,
    dashboard_app,
    read_only,
    serve_artifacts,
    study_note,
)
from heurtune.tuning.views.report import REPORTS, build_report, report_path, write_report
from heurtune.tuning.views.text import (
    bounds_text,
    confirmation_line,
    environment_text,
    fit_text,
    gain_text,
    params_text,
    positions_text,
    reach_text,
    study_facts,
    trial_note,
    trials_table,
    verdict_text,
)

__all__ = [
    "ARTIFACTS_SUFFIX",
    "REPORTS",
    "Dashboard",
    "artifact_folder",
    "dashboard_app",
    "read_only",
    "bounds_text",
    "build_report",
    "confirmation_line",
    "environment_text",
    "fit_text",
    "gain_text",
    "params_text",
    "positions_text",
    "reach_text",
    "report_path",
    "serve_artifacts",
    "study_facts",
    "study_note",
    "trial_note",
    "trials_table",
    "verdict_text",
    "write_report",
]
