"""The checkpoint pruner: its corrected threshold, its error rate by simulation,
the trial-seeded opening order, and a real study that prunes a hopeless trial."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from heurtune.cli import main
from heurtune.match.stats import PAIR_VALUES
from heurtune.tuning.pruners import (
    checkpoint_steps,
    pocock_critical_value,
    should_prune,
    trial_order,
)


def test_pocock_constants_match_the_published_ones() -> None:
    # Pocock (1977), three equally spaced looks: 2.289 for two-sided 0.05 (one-sided
    # 0.025) and 1.993 for two-sided 0.10 (one-sided 0.05); one look is the z quantile
    assert pocock_critical_value((0.5,), 0.05) == pytest.approx(1.6449, abs=1e-3)
    assert pocock_critical_value((1 / 3, 2 / 3, 1.0), 0.05) == pytest.approx(1.992, abs=2e-3)
    assert pocock_critical_value((1 / 3, 2 / 3, 1.0), 0.025) == pytest.approx(2.289, abs=2e-3)
    # three looks cost more than one, and fewer than Bonferroni's three separate tests
    c = pocock_critical_value((0.25, 0.5, 0.75), 0.05)
    assert 1.6449 < c < 2.128


def test_checkpoint_steps() -> None:
    assert checkpoint_steps(200) == [50, 100, 150]
    assert checkpoint_steps(8) == [4, 6]
    assert checkpoint_steps(4) == []


def test_trial_order_is_a_reproducible_permutation_per_trial() -> None:
    a = trial_order(50, 7, 3)
    assert sorted(a) == list(range(50)) and a == trial_order(50, 7, 3)
    assert a != trial_order(50, 7, 4) and a != trial_order(50, 8, 3)


def _simulate(probs_trial: np.ndarray, probs_best: np.ndarray, runs: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    pruned = 0
    pairs = 100
    for _ in range(runs):
        best = dict(enumerate(rng.choice(PAIR_VALUES, size=pairs, p=probs_best).tolist()))
        trial = rng.choice(PAIR_VALUES, size=pairs, p=probs_trial)
        played: dict[int, float] = {}
        for k in range(pairs - 1):
            played[k] = float(trial[k])
            if should_prune(played, best, pairs):
                pruned += 1
                break
    return pruned / runs


@pytest.mark.slow
def test_false_prune_rate_against_a_fixed_best_is_alpha() -> None:
    """A trial exactly as strong as the (fixed, not selected) best one is pruned at
    any of the three looks about 5% of the time; a much weaker one mostly."""
    equal = np.array([0.1, 0.1, 0.5, 0.1, 0.2])
    rate = _simulate(equal, equal, 1500, 1)
    assert 0.02 <= rate <= 0.075, rate
    weaker = np.array([0.3, 0.1, 0.5, 0.1, 0.0])  # 0.225 below
    assert _simulate(weaker, equal, 300, 2) >= 0.9


@pytest.mark.slow
def test_a_hopeless_trial_is_pruned_at_a_checkpoint_and_reports_its_running_score(
        tmp_path, capsys, study_file) -> None:
    sf = study_file("q", study={"game": "morris", "opponent": "morris:seed-ab", "trials": 1,
                                "pairs": 40, "seed": 3, "jobs": 1, "sampler": "tpe"},
                    engine={"heuristic": "seed"}, search={"algorithm": "alphabeta", "depth": 3})
    url = f"sqlite:///{tmp_path / 'q.db'}"
    assert main(["tune", str(sf), "--storage", url]) == 0
    study = optuna.load_study(study_name="q", storage=url)
    baseline = study.trials[0]
    scores = baseline.user_attrs["pair_scores"]  # kept for later trials' comparisons
    assert len(scores) == 40 and sum(scores) / 40 == pytest.approx(baseline.value)
    # the intermediate values are the running score in the trial's own opening order
    order = trial_order(40, 3, 0)
    for k in (1, 10, 40):
        expected = sum(scores[i] for i in order[:k]) / k
        assert baseline.intermediate_values[k] == pytest.approx(expected)
    study.enqueue_trial({"stones": 0.0, "stash": 0.0, "mills": 0.0, "possible_mills": 0.0})
    assert main(["tune", str(sf), "--storage", url, "--trials", "2"]) == 0
    hopeless = optuna.load_study(study_name="q", storage=url).trials[1]
    assert hopeless.state == TrialState.PRUNED
    played = hopeless.user_attrs["games"] // 2
    assert played in checkpoint_steps(40)  # decided at a checkpoint, not before
    assert max(hopeless.intermediate_values) == played
    assert hopeless.user_attrs["score"] == pytest.approx(hopeless.intermediate_values[played])
    capsys.readouterr()
