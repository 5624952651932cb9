"""Rules kernels and the registry that finds them by name."""

from __future__ import annotations

from heurtune.errors import HeurtuneError
from heurtune.games.base import DRAW, LOSS, ONGOING, WIN, GameKernel, RuleOption

_MODULES = {
    "gomoku": "heurtune.games.gomoku",
    "halma": "heurtune.games.halma",
    "isolation": "heurtune.games.isolation",
    "morris": "heurtune.games.morris",
}


def register_game(name: str, module: str) -> None:
    """Register a game kernel module (one that defines ``KERNEL``, with its
    heuristics in ``heurtune.engine.heuristics.<name>``) under ``name``: how a
    game defined outside this list joins, as the simulated oracle does."""
    _MODULES[name] = module


def unregister_game(name: str) -> None:
    """Forget a game added by :func:`register_game`."""
    _MODULES.pop(name, None)


def game_names() -> list[str]:
    """Names of the registered games."""
    return sorted(_MODULES)


def get_game(name: str) -> GameKernel:
    """The kernel registered as ``name``; an unknown name is a :class:`HeurtuneError`."""
    import importlib

    if name not in _MODULES:
        raise HeurtuneError(f"unknown game {name!r} (known: {', '.join(game_names())})")
    return importlib.import_module(_MODULES[name]).KERNEL  # type: ignore[no-any-return]


__all__ = [
    "DRAW",
    "LOSS",
    "ONGOING",
    "WIN",
    "GameKernel",
    "RuleOption",
    "game_names",
    "get_game",
    "register_game",
    "unregister_game",
]
