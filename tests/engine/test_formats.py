"""An engine configuration written for other engines: the four formats carry the same
weights and provenance, and the JSON one reads back."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from heurtune.engine import EngineConfig, preset
from heurtune.engine.formats import FORMATS, constant_name, render
from heurtune.errors import HeurtuneError


def _config() -> EngineConfig:
    cfg = preset("morris:seed").with_params({"mills": 4.5}, name="tuned")
    return replace(cfg, provenance={"study": "s", "score": 0.61,
                                    "confirmation": {"score_ci": [0.55, 0.67]}})


def test_every_format() -> None:
    cfg = _config()
    texts = {fmt: render(cfg, fmt, "# exported from study 's'\n") for fmt in FORMATS}
    assert EngineConfig.from_dict(json.loads(texts["json"])) == cfg
    namespace: dict[str, object] = {}
    exec(compile(texts["python"], "tuned.py", "exec"), namespace)  # noqa: S102
    assert namespace["MILLS"] == 4.5 and namespace["GAME"] == "morris"
    assert namespace["PARAMS"] == dict(cfg.params)
    assert namespace["PROVENANCE"] == dict(cfg.provenance)
    # only lines an engine reads: a heuristic's every weight (the provenance goes in a
    # sidecar, which export writes)
    assert texts["uci"].splitlines() == [
        f"setoption name {k} value {float(v)!r}" for k, v in cfg.params.items()]
    assert texts["toml"].startswith("# exported from study 's'\n")
    with pytest.raises(HeurtuneError, match="unknown export format"):
        render(cfg, "yaml")


def test_constant_names() -> None:
    assert constant_name("own_start") == "OWN_START"
    assert constant_name("2x") == "P_2X"
    assert constant_name("a-b") == "A_B"
