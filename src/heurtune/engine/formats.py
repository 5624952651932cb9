"""An engine configuration written for other engines: TOML, JSON, a Python module, UCI.

heurtune's own engines read the TOML engine file (:meth:`EngineConfig.save`).
An engine that lives elsewhere reads its weights the way it already reads
settings:

``toml``
    heurtune's engine file: game, heuristic (or ``[process]``), ``[params]``,
    ``[search]``, ``[rules]`` and ``[provenance]``; ``heurtune match`` plays it.
``json``
    the same configuration as one JSON object (``provenance`` included).
``python``
    a module of named constants (``OWN = 1.5``; names made into valid
    identifiers), then ``PARAMS``, ``SEARCH``, ``RULES`` and ``PROVENANCE``.
``uci``
    ``setoption name NAME value VALUE`` lines and nothing else, so that the file
    pipes into an engine as it is: an engine in another process gets its fixed
    options and the parameters that differ from its declared defaults; any
    other configuration every parameter. The provenance, which UCI has no line
    for, goes to a sidecar (``heurtune export`` writes it beside the ``.uci``
    file as the TOML engine file, ``NAME.provenance.toml``).

Every format but ``uci`` carries the provenance itself (the study, the trial or
answer, the games and score that support it).
"""

from __future__ import annotations

import json
import keyword
import pprint
import re
from collections.abc import Mapping
from pathlib import Path
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


def uci_options(config: EngineConfig) -> dict[str, Any]:
    """The options a ``.uci`` export sets: for an engine in another process, its
    fixed options (``[process] options``) and the parameters whose value differs
    from the engine's declared default (an engine needs no line to keep a
    default); for any other configuration, every parameter."""
    if config.process is None:
        return dict(config.params)
    defaults = config.heuristic_obj.space.defaults()
    return {**dict(config.process.options),
            **{k: v for k, v in config.params.items() if defaults.get(k) != v}}


def provenance_path(path: Path) -> Path:
    """Where a ``.uci`` export's provenance goes: ``NAME.provenance.toml`` beside it."""
    return path.with_name(f"{path.stem}.provenance.toml")


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
        return "".join(f"setoption name {name} value {option_value(value)}\n"
                       for name, value in uci_options(config).items())
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
