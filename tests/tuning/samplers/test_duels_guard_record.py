"""``duels``' ``guard_record`` option: where no held-out duel has measured the answer
yet, the guard's test on the model's record, its latest held-out duels against the
gains it predicted for the answers they played."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import optuna
import pytest

from heurtune.engine.heuristics.oracle import CASES, loss
from heurtune.tuning.after.answers import default_answer
from heurtune.tuning.samplers import GUARDED, RECORD, MeasuredGain, duels
from heurtune.tuning.samplers.duels import DuelsSampler, record_gain
from heurtune.tuning.samplers.registry import SAMPLERS, SamplerSpec
from heurtune.tuning.study import schema
from heurtune.tuning.views import fit_text
from tests.helpers import ROOT
from tests.tuning.samplers.test_samplers import oracle_dir, oracle_study, run_oracle


def held_out(number: int, pair_scores: list[float], model_gain: float | None = 100.0,
             model_gain_sd: float = 10.0, answer: float = 0.1
             ) -> tuple[optuna.trial.FrozenTrial, np.ndarray]:
    """A finished held-out duel (trial ``number``) whose pairs scored ``pair_scores``
    (0 to 1 each, two games a pair), with the model's gain recorded when it was
    proposed (None: none recorded, as a study older than the record might hold), and
    the answer it played (relative unit coordinates; 0: the baseline itself)."""
    duel: dict[str, object] = {"holdout": True}
    if model_gain is not None:
        duel.update(model_gain=model_gain, model_gain_sd=model_gain_sd)
    games = 2 * len(pair_scores)
    score = sum(pair_scores) / len(pair_scores)
    t = optuna.trial.create_trial(
        value=score, system_attrs={schema.DUEL: duel},
        user_attrs={"score": score, "games": games, "pair_scores": pair_scores})
    t.number = number
    return t, np.full(2, answer)


def sampler(options: dict[str, float], duels: list[tuple[optuna.trial.FrozenTrial, np.ndarray]]
            ) -> DuelsSampler:
    """A DuelsSampler holding only what its guards read."""
    me = DuelsSampler.__new__(DuelsSampler)
    me.options, me.held_out = options, duels
    return me


LOSING = [0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.0, 0.5] * 4  # 32 pairs scoring 0.3125
EVEN = [0.5] * 32  # 32 pairs scoring 0.5 (each a win and a loss, or two draws)


def test_the_record_pools_the_latest_share_by_trial_number() -> None:
    duels = [held_out(40, EVEN, 20.0, 4.0), held_out(10, LOSING, 200.0, 40.0),
             held_out(30, EVEN, 10.0, 2.0), held_out(20, LOSING, 300.0, 50.0)]
    latest = record_gain(duels, 0.5)  # trials 30 and 40, whatever the order they came in
    assert latest is not None and latest.measured.duels == 2 and latest.measured.games == 128
    assert latest.measured.elo == pytest.approx(0.0, abs=1e-9)
    assert latest.model_gain == pytest.approx(15.0) and latest.model_gain_sd == pytest.approx(3.0)
    every = record_gain(duels, 1.0)
    assert every is not None and every.measured.duels == 4 and every.measured.elo < 0.0
    assert every.model_gain == pytest.approx(132.5)
    one = record_gain(duels, 0.01)  # at least one duel: the latest
    assert one is not None and one.measured.duels == 1 and one.model_gain == 20.0
    assert record_gain(duels, 0.0) is None and record_gain([], 0.5) is None
    # a duel recorded without the model's prediction is left out of the record
    older = [held_out(50, LOSING, None), *duels]
    assert record_gain(older, 0.2) is None  # the latest is that one
    kept = record_gain(older, 0.4)
    assert kept is not None and kept.measured.duels == 1 and kept.model_gain == 20.0
    # ... and so is one with a prediction not finite
    odd = [held_out(60, LOSING, float("inf")), held_out(70, LOSING, 50.0, float("nan")), *duels]
    assert record_gain(odd, 0.3) is None  # the latest two (of six)
    # a duel whose answer, rounded as played, was the baseline measured nothing: left out
    itself = [held_out(80, EVEN, 500.0, 1.0, answer=0.0), *duels]
    latest = record_gain(itself, 0.2)
    assert latest is not None and latest.model_gain == 20.0
    assert record_gain([held_out(80, EVEN, 500.0, 1.0, answer=0.0)], 1.0) is None


@pytest.mark.parametrize("scores, predicted, bar, share, fires", [
    (LOSING, 100.0, 3.0, 0.5, True),   # measured below the baseline, far below the model
    (LOSING, 100.0, 0.0, 0.5, False),  # guard_z = 0: never
    (LOSING, 100.0, 3.0, 0.0, False),  # guard_record = 0: never
    (EVEN, 100.0, 3.0, 0.5, True),     # exactly no gain, far below the model
    (LOSING, -150.0, 3.0, 0.5, False),  # the model predicted a loss: not overrated
    ([1.0, 0.5] * 16, 100.0, 3.0, 0.5, False),  # measured a gain: the answer stands
])
def test_the_record_withdraws_an_unmeasured_answer_only_where_it_shows_no_gain(
        scores: list[float], predicted: float, bar: float, share: float, fires: bool) -> None:
    me = sampler({"guard_z": bar, "guard_record": share},
                 [held_out(n, scores, predicted, 5.0) for n in (10, 20)])
    got = me.guard_on_record({"x1": 3.0}, 80.0, 6.0)
    assert (got is not None) == fires
    if got is not None:
        assert got["basis"] == RECORD and got["params"] == {"x1": 3.0}
        assert got["model_gain"] == 80.0 and got["record_model_gain"] == predicted
        assert got["measured_gain"] <= 0.0 and got["apart"] <= -bar
        assert got["measured_duels"] == 1 and got["measured_games"] == 64


def test_a_measured_answer_is_judged_on_its_measurement_however_thin() -> None:
    """The record decides only where no held-out duel has measured the answer: one
    near duel measuring a gain keeps it, whatever the record (``isolation-eight`` seed 3
    at 8,000 games); one measuring it far below withdraws it on the near test."""
    me = sampler({"guard_z": 3.0, "guard_record": 0.5},
                 [held_out(n, LOSING, 100.0, 5.0) for n in (10, 20, 30)])
    gain, loss_ = MeasuredGain(65.9, 0.0, 131.8, 1, 32), MeasuredGain(-90.0, -130.0, -50.0, 4, 128)
    assert me.withdrawn({"x1": 3.0}, 80.0, 6.0, gain) is None
    near = me.withdrawn({"x1": 3.0}, 80.0, 6.0, loss_)
    assert near is not None and "basis" not in near and near["measured_gain"] == -90.0
    on_record = me.withdrawn({"x1": 3.0}, 80.0, 6.0, None)
    assert on_record is not None and on_record["basis"] == RECORD
    me.options["guard_record"] = 0.0
    assert me.withdrawn({"x1": 3.0}, 80.0, 6.0, None) is None


def test_the_sentence_says_the_answer_was_not_measured_and_what_the_record_shows() -> None:
    me = sampler({"guard_z": 3.0, "guard_record": 0.5},
                 [held_out(n, LOSING) for n in (10, 20, 30, 40)])
    withdrawn = me.guard_on_record({"x1": 3.0}, 80.0, 6.0)
    assert withdrawn is not None
    text = fit_text({"is_baseline": True, "model_gain": 0.0, "model_gain_sd": 0.0,
                     GUARDED: withdrawn})
    assert text.startswith("no held-out duel has measured the model's answer (+80.0 Elo "
                           "predicted), and the latest 2 held-out duels measured the answers "
                           f"they played at {withdrawn['measured_gain']:+.1f} Elo")
    assert "where the model predicted +100.0" in text
    assert "(guard_z, guard_record)" in text and 'search = "broad"' in text
    one = fit_text({"is_baseline": True, GUARDED: {**withdrawn, "measured_duels": 1}})
    assert "and the latest held-out duel measured the answer it played at" in one
    assert fit_text({"is_baseline": True,
                     GUARDED: {**withdrawn, "measured_duels": float("inf")}}) == ""
    # the near guard's sentence as it was
    near = {**withdrawn, "basis": None}
    assert fit_text({"is_baseline": True, GUARDED: near}).startswith(
        "the held-out duels measure the model's answer at")


def test_the_default_is_the_latest_half_and_older_studies_keep_it_off() -> None:
    option = SAMPLERS["duels"].options["guard_record"]
    assert option.default == 0.5 and (option.low, option.high) == (0.0, 1.0)
    assert SamplerSpec.from_record("duels", {"z": 1.0}, "test").options["guard_record"] == 0.0
    # a study recorded before the option, or with it off by the day's default, resumed
    # by a file that does not set it goes on without it; one that set it keeps the file's
    fresh = SamplerSpec.parse("duels", {}, "file")
    assert fresh.resuming({"z": 1.0}).options["guard_record"] == 0.0
    assert fresh.resuming({"guard_record": 0.0}).options["guard_record"] == 0.0
    assert fresh.resuming({"guard_record": 0.25}).options["guard_record"] == 0.5


@pytest.mark.slow
def test_on_a_spike_an_answer_with_no_held_out_duel_near_it_is_judged_on_the_record(
        oracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``spike`` (benchmarks/cases/real_shapes.py), 3,000 games, with no held-out duel
    counted as near any answer (``NEAR`` below zero, as where the answer has just
    moved): the near guard has nothing to test, so without the record the model's
    answer stands, far below the baseline; with it the study answers the baseline,
    naming the answer withdrawn and the record that withdrew it. Both studies play
    the same duels."""
    runpy.run_path(str(ROOT / "benchmarks" / "cases" / "real_shapes.py"))
    monkeypatch.setattr(duels, "NEAR", -1.0)
    on, base = run_oracle(oracle_study(oracle_dir(tmp_path, "on"), "spike", "duels", 16, 0,
                                       "guard_record = 0.5"), 3000, 0)
    off, _ = run_oracle(oracle_study(oracle_dir(tmp_path, "off"), "spike", "duels", 16, 0,
                                     "guard_record = 0.0"), 3000, 0)
    assert [t.params for t in on.trials] == [t.params for t in off.trials]
    kept, withdrawn = default_answer(off, base), default_answer(on, base)
    case = CASES["spike"]
    assert GUARDED not in kept.detail and kept.detail["measured_duels"] == 0
    assert loss(case, kept.params) > case.start_elo + 100.0  # far below the baseline
    assert withdrawn.detail["is_baseline"] and withdrawn.detail["guard_record"] == 0.5
    assert loss(case, withdrawn.params) == pytest.approx(case.start_elo)
    g = withdrawn.detail[GUARDED]
    assert g["basis"] == RECORD and g["params"] == kept.params
    assert g["measured_gain"] <= 0.0 and g["apart"] <= -3.0 and g["record_model_gain"] > 0.0
    assert "(guard_z, guard_record)" in fit_text(withdrawn.detail)
