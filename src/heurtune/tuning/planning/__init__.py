"""Before a study: how noisy its matches are and what that costs (calibrate), and
which parameters matter at all (screen). No Optuna here: they play matches."""

from heurtune.tuning.planning._common import baseline, draw_openings, fresh_seed, play
from heurtune.tuning.planning.calibrate import (
    CALIBRATION_PAIRS,
    DEFAULT_ELO,
    Calibration,
    Plan,
    calibrate,
    calibration_path,
    load_calibration,
    pairs_needed,
    plan,
    resolved_elo,
    save_calibration,
    study_estimate,
)
from heurtune.tuning.planning.screen import (
    DEFAULT_INERT_ELO,
    DEFAULT_POINTS,
    DEFAULT_STEEP_ELO,
    SCREEN_PAIRS,
    Lopsided,
    ScreenResult,
    save_png,
    screen,
    screen_games,
    screen_points,
)

__all__ = [
    "CALIBRATION_PAIRS",
    "DEFAULT_ELO",
    "DEFAULT_INERT_ELO",
    "DEFAULT_POINTS",
    "DEFAULT_STEEP_ELO",
    "SCREEN_PAIRS",
    "Calibration",
    "Lopsided",
    "Plan",
    "ScreenResult",
    "baseline",
    "calibrate",
    "calibration_path",
    "draw_openings",
    "fresh_seed",
    "load_calibration",
    "pairs_needed",
    "plan",
    "play",
    "resolved_elo",
    "save_calibration",
    "save_png",
    "screen",
    "screen_games",
    "screen_points",
    "study_estimate",
]
