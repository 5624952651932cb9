"""Tuning: the only layer that imports Optuna.

Sub-packages, each with one job (their modules are private unless named here):

``studyfile``
    the study-file format: parse and validate (no storage, no Optuna);
``study``
    what a study stores (``schema``: every attribute key, typed records), the
    storage, and reading trials;
``samplers``
    the sampler registry, one module per sampler family, the quadratic model;
``pruners``
    the checkpoint rule as an Optuna pruner;
``run``
    the objective and :func:`tune`, which tells a :class:`TuneObserver` as it goes;
``after``
    answers, :func:`confirm_study`, :func:`export_best`;
``planning``
    calibrate and screen, before a study;
``views``
    text, optuna-dashboard's notes and artifacts, the HTML report.

The library API is the names below; the command line calls nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heurtune.tuning.after import (
        Answer,
        best_config,
        confirm_study,
        default_answer,
        export_best,
        export_pareto,
        needs_confirmation,
        study_answers,
    )
    from heurtune.tuning.run import TuneObserver, TuneSummary, tune
    from heurtune.tuning.study import (
        DEFAULT_PROXY_HOST,
        DEFAULT_PROXY_PORT,
        DEFAULT_STORAGE,
        StudySetup,
        TrialResult,
        Verdict,
        load_study,
        open_storage,
        serve_proxy,
        storage_failure,
    )
    from heurtune.tuning.studyfile import ConfirmOptions, StudyFile, load_study_file
    from heurtune.tuning.views import Dashboard, trials_table, write_report

# the face is lazy (PEP 562): ``import heurtune.tuning.studyfile`` or the command
# line's start do not import the report's plotting or the dashboard
_FACE = {
    "Answer": "heurtune.tuning.after",
    "ConfirmOptions": "heurtune.tuning.studyfile",
    "DEFAULT_PROXY_HOST": "heurtune.tuning.study",
    "DEFAULT_PROXY_PORT": "heurtune.tuning.study",
    "DEFAULT_STORAGE": "heurtune.tuning.study",
    "Dashboard": "heurtune.tuning.views",
    "StudyFile": "heurtune.tuning.studyfile",
    "StudySetup": "heurtune.tuning.study",
    "TrialResult": "heurtune.tuning.study",
    "TuneObserver": "heurtune.tuning.run",
    "TuneSummary": "heurtune.tuning.run",
    "Verdict": "heurtune.tuning.study",
    "best_config": "heurtune.tuning.after",
    "confirm_study": "heurtune.tuning.after",
    "default_answer": "heurtune.tuning.after",
    "export_best": "heurtune.tuning.after",
    "export_pareto": "heurtune.tuning.after",
    "load_study": "heurtune.tuning.study",
    "load_study_file": "heurtune.tuning.studyfile",
    "needs_confirmation": "heurtune.tuning.after",
    "open_storage": "heurtune.tuning.study",
    "serve_proxy": "heurtune.tuning.study",
    "storage_failure": "heurtune.tuning.study",
    "study_answers": "heurtune.tuning.after",
    "trials_table": "heurtune.tuning.views",
    "tune": "heurtune.tuning.run",
    "write_report": "heurtune.tuning.views",
}


def __getattr__(name: str) -> Any:
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module 'heurtune.tuning' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_PROXY_HOST",
    "DEFAULT_PROXY_PORT",
    "DEFAULT_STORAGE",
    "Answer",
    "ConfirmOptions",
    "Dashboard",
    "StudyFile",
    "StudySetup",
    "TrialResult",
    "TuneObserver",
    "TuneSummary",
    "Verdict",
    "best_config",
    "confirm_study",
    "default_answer",
    "export_best",
    "export_pareto",
    "load_study",
    "load_study_file",
    "needs_confirmation",
    "open_storage",
    "serve_proxy",
    "storage_failure",
    "study_answers",
    "trials_table",
    "tune",
    "write_report",
]
