"""Optuna's experimental APIs, used on purpose."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator


@contextlib.contextmanager
def experimental_ok() -> Iterator[None]:
    """Silence Optuna's ExperimentalWarning around the experimental APIs we rely on
    on purpose (heartbeats, WilcoxonPruner, QMC and multivariate TPE, metric names),
    for the command line and library callers alike."""
    import optuna

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        yield
