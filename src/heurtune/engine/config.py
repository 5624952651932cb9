"""Engine configurations: game + heuristic + weights + search settings.

Saved and loaded as TOML (``heurtune export`` writes one with provenance);
built-in presets are addressed as ``GAME:NAME``, e.g. ``morris:seed``. A
configuration file looks like::

    game = "morris"
    heuristic = "seed"

    [params]
    stones = 1.0
    mills = 4.0

    [search]
    algorithm = "alphabeta"   # or "minimax"
    depth = 64                # maximum depth (plies)
    nodes = 20000             # node budget per move, 0 = none
    time_ms = 0               # time limit per move in ms (fractions too), 0 = none
    # table = true            # transposition table (default: the game's)
    # tt_min_depth = 0        # probe it only with this many plies left
    # leaf_order = "full"     # leaf parents' move order: full | killers | none
    # candidates = false      # search the game's candidate moves only (default: the game's)
    # root_ties = "first"     # alpha-beta among equal root moves: first | random

    [rules]                   # optional game rule options
    flying = true

An engine in another process (docs/engine-protocol.md) has a ``[process]``
table instead of a heuristic: its options are its parameters::

    game = "isolation"
    name = "c-isolation"

    [process]
    command = ["./isolation-engine"]   # run in this file's folder

    [params]
    own = 1.5
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from heurtune.engine.heuristic import Heuristic, get_heuristic, heuristics_module
from heurtune.engine.params import Value
from heurtune.engine.process import ProcessSpec, TimeControl, describe, process_heuristic
from heurtune.engine.search import ALGORITHMS, LEAF_ORDERS, MAX_PLY, ROOT_TIES
from heurtune.errors import HeurtuneError
from heurtune.games import game_names, get_game
from heurtune.tomlio import read_toml, write_toml

DEFAULT_TIME_MARGIN_MS = 50.0  # a clock's margin (cutechess's timemargin)
_TOP_KEYS = {"game", "heuristic", "name", "description", "params", "search", "rules",
             "provenance", "process"}


def _int(section: str, key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise HeurtuneError(f"{section}.{key} must be an integer in [{low}, {high}], got {value!r}")
    return value


def _number(section: str, key: str, value: Any, low: float, high: float) -> float | int:
    """A number in [low, high] (an integer stays one, so engine files keep ``0``)."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or not low <= value <= high):
        raise HeurtuneError(f"{section}.{key} must be a number in [{low:g}, {high:g}], "
                            f"got {value!r}")
    return value


def _choice(section: str, key: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise HeurtuneError(f"{section}.{key} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def _tc(value: Any) -> str:
    """A clock as ``[moves/]seconds[+increment]`` ("" : none), normalised."""
    if value == "":
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = f"{value:g}"  # tc = 60: a minute for the game
    return TimeControl.parse(value, "search.tc").text()


def _bool(section: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise HeurtuneError(f"{section}.{key} must be true or false, got {value!r}")
    return value


# Settings that tune the search's cost per node; their defaults depend on the game
# (``SEARCH_DEFAULTS`` in its heuristics module, chosen by measurement).
TABLE_SETTINGS = ("tt_bits", "table", "tt_min_depth", "leaf_order", "candidates")
# the search before per-game settings: a 2^16-entry table at every depth, ordered leaf
# parents, every legal move searched
LEGACY_SEARCH = {"tt_bits": 16, "table": True, "tt_min_depth": 0, "leaf_order": "full",
                 "candidates": False}


def search_defaults(game: str) -> dict[str, Any]:
    """The game's measured defaults of :data:`TABLE_SETTINGS`."""
    return {**LEGACY_SEARCH, **getattr(heuristics_module(game), "SEARCH_DEFAULTS", {})}


@dataclass(frozen=True)
class SearchSettings:
    """How an engine searches: algorithm, limits and table policy.

    ``tt_bits``, ``table``, ``tt_min_depth`` and ``leaf_order`` left as None take
    the game's defaults when the engine is built (:func:`search_defaults`): the
    table has 2^tt_bits entries of 32 bytes, alpha-beta probes it at nodes with
    at least ``tt_min_depth`` plies left (never without ``table``), and nodes
    whose children are leaves order their moves as ``leaf_order`` says (``full``,
    ``killers``: table move and killers first, ``none``); with ``candidates``
    the search visits only the game's candidate moves (its ``gen_candidates``
    hook: Gomoku's wins, forced blocks and points near stones). Minimax always
    keeps its memo.

    ``root_ties`` says which of the root moves of equal value alpha-beta plays:
    ``first``, the first in its root order (iterative deepening puts the
    previous iteration's best move first: the search as it always was), or
    ``random``, a seeded draw among all of them, the draw minimax makes (the
    root then searches equal moves to their exact value, which costs nodes).
    Minimax always draws; the random mover has no ties.
    """

    algorithm: str = "alphabeta"
    depth: int = 64
    nodes: int = 0
    time_ms: float = 0  # milliseconds per move (0: no limit); fractions allowed
    tt_bits: int | None = None
    table: bool | None = None
    tt_min_depth: int | None = None
    leaf_order: str | None = None
    candidates: bool | None = None
    root_ties: str = "first"
    # a clock for the whole game instead of a limit per move (engines in other
    # processes): "[moves/]seconds[+increment]", and the margin past the time
    # left within which a move still counts
    tc: str = ""
    time_margin_ms: float = DEFAULT_TIME_MARGIN_MS

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchSettings:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise HeurtuneError(
                f"unknown search settings {sorted(unknown)} (known: {sorted(known)})"
            )
        algorithm = data.get("algorithm", cls.algorithm)
        if algorithm not in ALGORITHMS:
            raise HeurtuneError(
                f"unknown search algorithm {algorithm!r} (known: {', '.join(ALGORITHMS)})"
            )
        tt_bits, table, tt_min_depth, leaf_order, candidates = (
            data.get(k) for k in TABLE_SETTINGS)
        return cls(
            algorithm=algorithm,
            depth=_int("search", "depth", data.get("depth", cls.depth), 1, MAX_PLY - 2),
            nodes=_int("search", "nodes", data.get("nodes", cls.nodes), 0, 10**12),
            time_ms=_number("search", "time_ms", data.get("time_ms", cls.time_ms), 0, 10**8),
            tt_bits=None if tt_bits is None else _int("search", "tt_bits", tt_bits, 10, 28),
            table=None if table is None else _bool("search", "table", table),
            tt_min_depth=(None if tt_min_depth is None
                          else _int("search", "tt_min_depth", tt_min_depth, 0, MAX_PLY)),
            leaf_order=None if leaf_order is None else _choice("search", "leaf_order", leaf_order,
                                                               LEAF_ORDERS),
            candidates=None if candidates is None else _bool("search", "candidates", candidates),
            root_ties=_choice("search", "root_ties", data.get("root_ties", cls.root_ties),
                              ROOT_TIES),
            tc=_tc(data.get("tc", cls.tc)),
            time_margin_ms=_number("search", "time_margin_ms",
                                   data.get("time_margin_ms", cls.time_margin_ms), 0, 10**7),
        )

    @property
    def time_control(self) -> TimeControl | None:
        """The clock :attr:`tc` says, or None (a limit per move)."""
        return TimeControl.parse(self.tc, "search.tc") if self.tc else None

    def resolved(self, game: str) -> SearchSettings:
        """These settings with every unset table setting taken from ``game``'s defaults."""
        defaults = search_defaults(game)
        return replace(self, **{k: defaults[k] for k in TABLE_SETTINGS if getattr(self, k) is None})

    def search_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :meth:`heurtune.engine.search.Searcher.search`."""
        return {k: v for k, v in self.to_dict().items()
                if k not in ("tt_bits", "tc", "time_margin_ms")}

    def to_dict(self) -> dict[str, Any]:
        """The settings as a file holds them: unset ones left out, and ``root_ties``
        only when it is not ``first`` (so files and stored study setups written
        before the setting existed read back equal)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("root_ties", "tc", "time_margin_ms"):  # at their defaults
            if out[key] == getattr(SearchSettings, key):
                del out[key]
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True)
class EngineConfig:
    """Everything needed to rebuild an engine, validated on construction."""

    game: str
    heuristic: str
    params: Mapping[str, Value] = field(default_factory=dict)
    search: SearchSettings = field(default_factory=SearchSettings)
    rules: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""
    description: str = ""
    provenance: Mapping[str, Any] = field(default_factory=dict)
    # an engine in another process: how to start it (its options are the
    # space; ``heuristic`` is then only its name, default the engine's own)
    process: ProcessSpec | None = None

    def __post_init__(self) -> None:
        kernel = get_game(self.game)
        if self.process is not None:
            h = process_heuristic(self.game, self.process)
            if not self.heuristic:
                object.__setattr__(self, "heuristic", h.name)
        else:
            h = get_heuristic(self.game, self.heuristic)
        if self.search.tc and self.process is None:
            raise HeurtuneError(f"{self.label}: search.tc (a clock) is for engines in other "
                                "processes; heurtune's own search takes time_ms per move")
        if self.process is not None:
            self._check_process(kernel)
        object.__setattr__(self, "params", h.space.validate(self.params))
        object.__setattr__(self, "rules", kernel.resolve_rules(self.rules))
        object.__setattr__(self, "search", self.search.resolved(self.game))

    def _check_process(self, kernel: Any) -> None:
        """An engine in another process: a limit on each move (without one it would
        search until stopped, and every move would time out), and the fixed options
        and those the rules need among the options it declares: each an error line
        now, not a lost game later."""
        assert self.process is not None
        search = self.search
        if not (search.nodes or search.time_ms or search.tc or search.depth < SearchSettings.depth):
            raise HeurtuneError(f"{self.label}: an engine in another process needs a limit on "
                                "each move: give [search] depth, nodes, time_ms or tc")
        rules = kernel.resolve_rules(self.rules)
        needed = list(dict(self.process.options))
        if kernel.engine_options is not None:
            needed += list(kernel.engine_options(rules))
        describe(self.process, self.game).check_options(needed, self.label)

    @property
    def heuristic_obj(self) -> Heuristic:
        """The heuristic (for an external engine: its options, as a heuristic)."""
        if self.process is not None:
            return process_heuristic(self.game, self.process)
        return get_heuristic(self.game, self.heuristic)

    @property
    def label(self) -> str:
        return self.name or f"{self.game}:{self.heuristic}"

    def with_params(self, params: Mapping[str, Value], name: str = "") -> EngineConfig:
        return replace(self, params={**self.params, **params}, name=name or self.name)

    # -- (de)serialisation -------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "configuration",
                  base_dir: str | os.PathLike[str] = ".") -> EngineConfig:
        """A configuration from a parsed engine file (``base_dir``: the folder a
        ``[process]`` command's relative paths start from)."""
        unknown = set(data) - _TOP_KEYS
        if unknown:
            raise HeurtuneError(f"{source}: unknown keys {sorted(unknown)}")
        external = "process" in data
        for key in ("game", "heuristic"):
            if key == "heuristic" and external and key not in data:
                continue
            if not isinstance(data.get(key), str):
                raise HeurtuneError(f"{source}: missing or invalid {key!r}")
        for key in ("params", "search", "rules", "provenance", "process"):
            if not isinstance(data.get(key, {}), Mapping):
                raise HeurtuneError(f"{source}: [{key}] must be a table")
        try:
            process = (ProcessSpec.from_dict(data["process"], base_dir, "[process]")
                       if external else None)
            return cls(
                game=data["game"],
                heuristic=data.get("heuristic", ""),
                params=dict(data.get("params", {})),
                search=SearchSettings.from_dict(data.get("search", {})),
                rules=dict(data.get("rules", {})),
                name=str(data.get("name", "")),
                description=str(data.get("description", "")),
                provenance=dict(data.get("provenance", {})),
                process=process,
            )
        except HeurtuneError as exc:
            raise HeurtuneError(f"{source}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game, "heuristic": self.heuristic}
        if self.name:
            out["name"] = self.name
        if self.description:
            out["description"] = self.description
        out["params"] = dict(self.params)
        out["search"] = self.search.to_dict()
        out["rules"] = dict(self.rules)
        if self.process is not None:
            out["process"] = self.process.to_dict()
        if self.provenance:
            out["provenance"] = dict(self.provenance)
        return out

    def save(self, path: str | os.PathLike[str], header: str = "") -> None:
        write_toml(path, self.to_dict(), header)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> EngineConfig:
        data = read_toml(path)
        cfg = cls.from_dict(data, source=str(path), base_dir=Path(path).resolve().parent)
        return cfg if cfg.name else replace(cfg, name=Path(path).stem)


def presets(game: str) -> dict[str, dict[str, Any]]:
    """The built-in presets of ``game`` (name -> partial configuration)."""
    table = getattr(heuristics_module(game), "PRESETS", {})
    if not isinstance(table, Mapping):
        raise HeurtuneError(f"game {game!r}: PRESETS must be a mapping of name to configuration")
    return dict(table)


def preset(spec: str) -> EngineConfig:
    """The preset ``GAME:NAME``."""
    game, _, name = spec.partition(":")
    if game not in game_names():
        raise HeurtuneError(f"unknown game {game!r} in {spec!r} (known: {', '.join(game_names())})")
    table = presets(game)
    if name not in table:
        raise HeurtuneError(
            f"unknown preset {spec!r} (known: {', '.join(f'{game}:{n}' for n in sorted(table))})"
        )
    data = dict(table[name])
    return EngineConfig.from_dict({"game": game, "name": spec, **data}, source=spec)


def resolve_engine(spec: str) -> EngineConfig:
    """A configuration file path or a ``GAME:NAME`` preset."""
    if spec.endswith(".toml") or os.sep in spec or Path(spec).is_file():
        return EngineConfig.load(spec)
    if ":" in spec:
        return preset(spec)
    raise HeurtuneError(f"{spec!r} is neither a configuration file nor a GAME:NAME preset")
