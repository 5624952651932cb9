"""What an answer's ``detail`` says of its gain over the baseline: the model's
prediction under model-based keys (the ``model`` answer here; the ``duels``
answer's measured gain: tests/tuning/samplers/test_duels_holdout.py)."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from heurtune.engine.params import FloatParam, ParamSpace
from heurtune.tuning.after.answers import _model


def _match_trial(x: float, y: float, score: float) -> optuna.trial.FrozenTrial:
    dist = optuna.distributions.FloatDistribution(0.0, 10.0)
    return optuna.trial.create_trial(
        params={"x": x, "y": y}, distributions={"x": dist, "y": dist}, value=score,
        user_attrs={"score": score, "games": 2000})


def test_the_model_answer_labels_its_gain_model_based() -> None:
    space = ParamSpace("s", (FloatParam("x", 0.0, 10.0, 2.0), FloatParam("y", 0.0, 10.0, 2.0)))
    rng = np.random.default_rng(0)
    trials = []
    for _ in range(40):  # scores peaking at (6, 6), 10+ Elo above the baseline at (2, 2)
        x, y = rng.uniform(0, 10, 2)
        elo = -0.8 * ((x - 6) ** 2 + (y - 6) ** 2)
        trials.append(_match_trial(x, y, 1 / (1 + 10 ** (-elo / 400))))
    found = _model(space, {"x": 2.0, "y": 2.0}, trials)
    assert found is not None and found.name == "model"
    assert {"model_gain", "model_gain_sd", "is_baseline"} <= set(found.detail)
    assert not {"gain", "gain_sd"} & set(found.detail)  # never an unlabelled gain
    assert found.detail["is_baseline"] is False and found.detail["model_gain"] > 0
    assert found.params["x"] == pytest.approx(6.0, abs=1.5)


def test_an_unconfirmed_exports_gain_keys_say_measured_or_model_based(monkeypatch) -> None:
    from heurtune.tuning.after import export
    from heurtune.tuning.after.answers import Answer

    detail = {"measured_gain": 3.5, "measured_gain_ci": [-1.0, 8.0], "measured_duels": 12,
              "measured_games": 384, "model_gain": 6.0, "model_gain_sd": 1.5,
              "is_baseline": False}
    monkeypatch.setattr(export, "default_answer",
                        lambda _study, _base: Answer("duels", {"x": 1.0}, None, detail))
    assert export._answer_gain(None, None) == {  # type: ignore[arg-type]
        "measured_gain_elo": 3.5, "measured_gain_elo_ci": [-1.0, 8.0], "measured_duels": 12,
        "model_based_gain_elo": 6.0, "model_based_gain_elo_sd": 1.5}
    detail.update(measured_gain=None)  # no held-out duel near it yet: nothing measured
    assert "measured_gain_elo" not in export._answer_gain(None, None)  # type: ignore[arg-type]
