"""Rules kernels and the registry that finds them by name.

A game is a numba kernel (:class:`GameKernel`, the fast path: the four built-in
games) or a plain-Python one (:class:`PythonGame`); either joins through the
registry (:mod:`heurtune.games.registry`): an entry point of group
``heurtune.games`` in any installed package, or :func:`register_game`.
"""

from __future__ import annotations

from heurtune.games.base import (
    DRAW,
    LOSS,
    ONGOING,
    WIN,
    BookError,
    BookLine,
    GameKernel,
    RuleOption,
)
from heurtune.games.python import PyState, PythonGame, PythonKernel, python_kernel
from heurtune.games.registry import (
    ENTRY_POINT_GROUP,
    GameEntry,
    game_entry,
    game_names,
    get_game,
    register_game,
    registry_problems,
    unregister_game,
)

__all__ = [
    "DRAW",
    "ENTRY_POINT_GROUP",
    "LOSS",
    "ONGOING",
    "WIN",
    "BookError",
    "BookLine",
    "GameEntry",
    "GameKernel",
    "PyState",
    "PythonGame",
    "PythonKernel",
    "RuleOption",
    "game_entry",
    "game_names",
    "get_game",
    "python_kernel",
    "register_game",
    "registry_problems",
    "unregister_game",
]
