"""The checkpoint pruner against a *selected* best: the best completed trial is
the luckiest of M, and the expected-maximum margin b_M keeps the false-prune
rate of an equally strong trial at alpha all the same (issue 21)."""

from __future__ import annotations

import math

import numpy as np
import optuna
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from heurtune.errors import HeurtuneError
from heurtune.tuning.pruners import (
    CheckpointPruner,
    checkpoint_steps,
    expected_maximum,
    make_pruner,
    selection_margin,
    should_prune,
)
from heurtune.tuning.study import schema
from heurtune.tuning.studyfile import load_study_file


def test_expected_maximum_is_blom_and_near_the_exact_value() -> None:
    assert expected_maximum(1) == 0.0
    for m in (2, 5, 15, 50, 200):
        exact = quad(lambda x, m=m: x * m * norm.pdf(x) * norm.cdf(x) ** (m - 1), -12, 12)[0]
        assert expected_maximum(m) == pytest.approx(exact, abs=0.026), m
    assert expected_maximum(15) == pytest.approx(norm.ppf(14.625 / 15.25))


def test_selection_margin_is_e_m_times_the_sd_of_a_trials_mean() -> None:
    tail = 0.0232  # the default looks' (Pocock's c = 1.992)
    rng = np.random.default_rng(0)
    diffs = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5], size=150).tolist()
    sd = float(np.std(diffs, ddof=1))
    # many compared openings: the large-sample formula, e_M * sd / sqrt(2 N)
    assert selection_margin(diffs, 200, 15, tail) == pytest.approx(
        expected_maximum(15) * sd / math.sqrt(2 * 200), rel=0.03)
    assert selection_margin(diffs, 200, 1, tail) == 0.0  # a fixed best: no luck to allow for
    # few: more, since sd(diffs) is uncertain (noncentral t, 3 degrees of freedom)
    few = diffs[:4]
    approx = expected_maximum(15) * float(np.std(few, ddof=1)) / math.sqrt(2 * 8)
    assert selection_margin(few, 8, 15, tail) > 1.5 * approx


def test_the_margin_moves_the_threshold_and_one_completed_trial_is_the_old_rule() -> None:
    pairs = 200
    rng = np.random.default_rng(4)
    best = dict(enumerate(rng.choice([0.0, 0.5, 1.0], size=pairs).tolist()))
    # a trial slightly below the best on the first 50 openings: pruned against a
    # fixed best, not against the best of 15 (whose lead is partly luck)
    for shift in np.linspace(0.0, 0.5, 101):
        trial = {i: best[i] - shift + (0.25 if i % 2 else -0.25) for i in range(50)}
        if should_prune(trial, best, pairs):
            break
    assert should_prune(trial, best, pairs, completed=1)
    assert not should_prune(trial, best, pairs, completed=15)
    far = {i: best[i] - 0.5 + (0.25 if i % 2 else -0.25) for i in range(50)}
    assert should_prune(far, best, pairs, completed=50)


def _false_prune_rate(m: int, completed: int, runs: int, seed: int, pairs: int = 100) -> float:
    """A trial as strong as the other m, against the best of them, simulated game
    by game: every opening has its own win / draw / loss chances for each colour
    (Dirichlet, shared by all trials: correlated pair scores), each trial its own
    games; each trial plays the openings in its own order."""
    rng = np.random.default_rng(seed)
    steps = checkpoint_steps(pairs)
    pruned = 0
    for _ in range(runs):
        chances = rng.dirichlet([2.0, 1.0, 2.0], size=(2, pairs))  # colour, opening: W, D, L
        u = rng.random((m + 1, 2, pairs))
        games = np.where(u < chances[None, :, :, 0], 1.0,
                         np.where(u < chances[None, :, :, 0] + chances[None, :, :, 1], 0.5, 0.0))
        scores = games.mean(axis=1)  # (trials, openings): pair scores
        best = dict(enumerate(scores[int(np.argmax(scores[:m].mean(axis=1)))].tolist()))
        order = rng.permutation(pairs)
        for k in steps:
            played = {int(i): float(scores[m, i]) for i in order[:k]}
            if should_prune(played, best, pairs, completed=completed):
                pruned += 1
                break
    return pruned / runs


@pytest.mark.slow
def test_false_prune_rate_against_the_best_of_15_is_alpha() -> None:
    """The winner's curse is real (the old rule prunes an equal trial about 20% of
    the time against the best of 15) and b_M removes it (at most alpha + 0.01)."""
    before = _false_prune_rate(15, 1, 600, 11)
    after = _false_prune_rate(15, 15, 2000, 12)
    assert before >= 0.12, before
    assert after <= 0.06, after


def _study_with(scores: list[list[float]]) -> optuna.Study:
    study = optuna.create_study(direction="maximize")
    for s in scores:
        study.add_trial(optuna.trial.create_trial(value=sum(s) / len(s),
                                                  user_attrs={schema.PAIR_SCORES: s}))
    return study


def test_the_optuna_pruner_counts_the_completed_match_trials() -> None:
    pairs = 40
    rng = np.random.default_rng(2)
    completed = [rng.choice([0.0, 0.5, 1.0], size=pairs).tolist() for _ in range(15)]
    study = _study_with(completed)
    best = max(completed, key=sum)
    running = study.ask()
    # 0.22 below the best on the first checkpoint's 10 openings, give or take 0.25:
    # the bound is -0.22 + 0.19; b_15 = 0.05 (sd 0.26 / sqrt(2 * 40), times 1.74)
    scores = {i: best[i] - 0.22 + (0.25 if i % 2 else -0.25) for i in range(10)}
    assert checkpoint_steps(pairs)[0] == len(scores)
    assert should_prune(scores, dict(enumerate(best)), pairs)
    assert not should_prune(scores, dict(enumerate(best)), pairs, completed=15)
    for selection, expected in ((True, False), (False, True)):
        pruner = CheckpointPruner(pairs, selection=selection)
        for i, s in scores.items():
            pruner.observe(running.number, i, s)
        assert pruner.prune(study, study.trials[-1]) is expected


def test_a_study_file_can_leave_the_selection_out(study_file) -> None:
    study = {"opponent": "isolation:ab_improved"}
    on = load_study_file(study_file("on", study=study)).pruner
    assert on.selection is True
    assert getattr(make_pruner(on, 40), "selection", None) is True
    off = load_study_file(study_file("off", study=study, pruner={"selection": False})).pruner
    assert getattr(make_pruner(off, 40), "selection", None) is False
    with pytest.raises(HeurtuneError, match=r"\[pruner\]: selection must be bool"):
        load_study_file(study_file("bad", study=study, pruner={"selection": "no"}))
