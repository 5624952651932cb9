"""Parameter spaces: validation, conversions, narrowing, Optuna distributions."""

from __future__ import annotations

import optuna
import pytest

from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.params import CategoricalParam, FloatParam, IntParam, ParamSpace, value_text
from heurtune.errors import HeurtuneError
from heurtune.tuning.samplers.distributions import suggest, to_optuna

SPACE = ParamSpace(
    "demo",
    (
        FloatParam("w", 0.0, 10.0, 1.0),
        FloatParam("scale", 0.01, 100.0, 1.0, log=True),
        IntParam("depth", 1, 9, 3),
        CategoricalParam("mode", ("a", "b"), "a"),
    ),
)


def test_seed_space_defaults_are_the_seed_weights() -> None:
    space = get_heuristic("morris", "seed").space
    assert space.defaults() == {"stones": 1.0, "stash": 1.0, "mills": 4.0, "possible_mills": 2.0}
    assert list(space.to_array({})) == [1.0, 1.0, 4.0, 2.0]


def test_validation_errors_are_clear() -> None:
    with pytest.raises(HeurtuneError, match=r"w=11 is out of bounds \[0.0, 10.0\]"):
        SPACE.validate({"w": 11})
    with pytest.raises(HeurtuneError, match="unknown parameter 'x'"):
        SPACE.validate({"x": 1})
    with pytest.raises(HeurtuneError, match="must be an integer"):
        SPACE.validate({"depth": 2.5})
    with pytest.raises(HeurtuneError, match="not one of"):
        SPACE.validate({"mode": "c"})
    with pytest.raises(HeurtuneError, match="must be a number"):
        SPACE.validate({"w": "heavy"})
    with pytest.raises(HeurtuneError, match="is missing"):
        SPACE.validate({"w": 1.0}, complete=True)
    with pytest.raises(HeurtuneError, match="log scale"):
        FloatParam("bad", 0.0, 1.0, 0.5, log=True)


def test_array_and_dict_round_trip() -> None:
    values = {"w": 2.5, "scale": 3.0, "depth": 5, "mode": "b"}
    array = SPACE.to_array(values)
    assert list(array) == [2.5, 3.0, 5.0, 1.0]
    assert SPACE.from_array(array) == values


def test_narrowing_and_fixing() -> None:
    narrow = SPACE.narrowed({"w": {"low": 2.0, "high": 3.0}, "depth": 4, "mode": {"fixed": "b"}})
    assert narrow.param("w").low == 2.0 and narrow.param("w").high == 3.0
    assert narrow.param("w").default == 2.0  # clamped into the new bounds
    assert [p.name for p in narrow.searched] == ["w", "scale"]
    assert narrow.defaults()["depth"] == 4 and narrow.defaults()["mode"] == "b"
    with pytest.raises(HeurtuneError, match="out of bounds"):
        SPACE.narrowed({"w": {"low": -1.0, "high": 3.0}})
    with pytest.raises(HeurtuneError, match="above high"):
        SPACE.narrowed({"w": {"low": 5.0, "high": 3.0}})
    with pytest.raises(HeurtuneError, match="unknown keys"):
        SPACE.narrowed({"w": {"min": 1.0}})


def test_optuna_distributions_and_suggest() -> None:
    dists = to_optuna(SPACE.narrowed({"mode": "b"}))
    assert set(dists) == {"w", "scale", "depth"}
    assert dists["scale"].log and dists["depth"].low == 1
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    for _ in range(20):
        trial = study.ask()
        values = suggest(trial, SPACE.narrowed({"mode": "b"}))
        assert values["mode"] == "b"
        assert 0.0 <= values["w"] <= 10.0 and 1 <= values["depth"] <= 9
        study.tell(trial, 0.0)


def test_grid_values_are_snapped() -> None:
    p = FloatParam("g", 0.0, 1.0, 0.0, step=0.05)
    assert p.validate(0.8500000000000001) == 0.85
    assert p.validate(0.3) == 0.3 and p.validate(1.0) == 1.0
    assert p.validate(0.33) == 0.33  # a deliberate value off the tuning grid is kept


def test_a_value_prints_as_every_line_prints_it() -> None:
    """One formatter for the views and the planning screens: floats to 4 significant
    digits, ints, strings and booleans as they are."""
    assert [value_text(v) for v in (1 / 3, 2.0, 12345.678, 7, "leaf", True)] == [
        "0.3333", "2", "1.235e+04", "7", "leaf", "True"]
