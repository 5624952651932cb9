"""An engine configuration written for other engines: TOML, JSON, a Python module, UCI.

heurtune's own engines read the TOML engine file (:meth:`EngineConfig.save`).
An engine that lives elsewhere reads its weights the way it already reads
settings: a JSON object, a Python module of named constants, or the UCI
``setoption`` lines an engine that speaks the protocol accepts on its
standard input. Every format carries the same provenance (the study, the
trial or answer, the games and score that support it).
"""

from __future__ import annotations

import json
import keyword
import pprint
import re
from collections.abc import Mapping
from typing import Any

from heurtune.engine.config import EngineConfig
from heurtune.engine.process import option_value
from heurtune.errors import HeurtuneError
from heurtune.tomlio import toml_text

FORMATS = ("toml", "json", "python", "uci")
SUFFIXES = {"toml": ".toml", "json": ".json", "python": ".py", "uci": ".uci"}


def _comment(header: str) -> list[str]:
    return [line if line.startswith("#") else f"# {line}" for line in header.splitlines()
            if line.strip()]


def _flat(prefix: str, data: Mapping[str, Any]) -> list[str]:
    """Provenance as ``# key: value`` lines (nested tables dotted)."""
    out = []
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.extend(_flat(f"{prefix}{key}.", value))
        else:
            out.append(f"# {prefix}{key}: {json.dumps(value, default=str)}")
    return out


def constant_name(name: str) -> str:
    """A parameter's name as a Python constant (``own_start`` -> ``OWN_START``)."""
    text = re.sub(r"\W", "_", name).upper()
    if not text or text[0].isdigit() or keyword.iskeyword(text):
        text = f"P_{text}"
    return text


def render(config: EngineConfig, fmt: str, header: str = "") -> str:
    """``config`` as the text of a file in format ``fmt`` (one of :data:`FORMATS`)."""
    data = config.to_dict()
    if fmt == "toml":
        return toml_text(data, header)
    if fmt == "json":
        return json.dumps(data, indent=2, default=str) + "\n"
    if fmt == "uci":
        lines = _comment(header)
        lines.append(f"# {config.label}: {config.game}, {config.heuristic}")
        lines.extend(_flat("provenance.", config.provenance))
        lines.extend(f"setoption name {name} value {option_value(value)}"
                     for name, value in config.params.items())
        return "\n".join(lines) + "\n"
    if fmt == "python":
        names = {name: constant_name(name) for name in config.params}
        if len(set(names.values())) != len(names):
            raise HeurtuneError(f"{config.label}: parameter names collide as Python constants")
        doc = (header.replace("#", "").strip() or f"Weights of {config.label}").replace('"""', "'")
        lines = [f'"""{doc}\n\nExported by heurtune (provenance below). """', "",
                 f"GAME = {config.game!r}", f"HEURISTIC = {config.heuristic!r}", ""]
        lines.extend(f"{names[name]} = {value!r}" for name, value in config.params.items())
        lines += ["", "PARAMS = " + pprint.pformat(dict(config.params), sort_dicts=False),
                  "SEARCH = " + pprint.pformat(data["search"], sort_dicts=False),
                  "RULES = " + pprint.pformat(data["rules"], sort_dicts=False),
                  "PROVENANCE = " + pprint.pformat(dict(config.provenance), sort_dicts=False,
                                                   width=96)]
        return "\n".join(lines) + "\n"
    raise HeurtuneError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
