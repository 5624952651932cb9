"""Perft: the number of move sequences of a given length, the rules' fingerprint."""

from __future__ import annotations

from typing import Any

import numpy as np

from heurtune.games.base import ONGOING, GameKernel
from heurtune.games.python import PythonKernel
from heurtune.games.specialise import specialise

# Free names bound per game by :func:`specialise` (Any to mypy: numba dispatchers).
gen_moves: Any = None
make_move: Any = None
unmake_move: Any = None
outcome: Any = None


def _perft(state, depth, moves):
    if depth == 0:
        return 1
    if outcome(state) != ONGOING:  # noqa: F821 - bound per game
        return 0
    n = gen_moves(state, moves, depth)  # noqa: F821
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        make_move(state, moves[depth, i])  # noqa: F821
        total += _perft(state, depth - 1, moves)
        unmake_move(state, moves[depth, i])  # noqa: F821
    return total


def _python_perft(kernel: GameKernel, state: Any, depth: int) -> int:
    """The same count for a plain-Python game (through its kernel's wrappers)."""
    if depth == 0:
        return 1
    if kernel.outcome(state) != ONGOING:
        return 0
    moves = kernel.legal_moves(state)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        kernel.make_move(state, m)
        total += _python_perft(kernel, state, depth - 1)
        kernel.unmake_move(state, m)
    return total


def perft(kernel: GameKernel, depth: int, state: Any | None = None) -> int:
    """Count the move sequences of ``depth`` plies from ``state`` (default: the start)."""
    if isinstance(kernel, PythonKernel):
        return _python_perft(kernel, kernel.new_state() if state is None else state.copy(),
                             depth)
    fns = specialise(
        [_perft],
        {
            "gen_moves": kernel.gen_moves,
            "make_move": kernel.make_move,
            "unmake_move": kernel.unmake_move,
            "outcome": kernel.outcome,
        },
        kernel.name,
    )
    pos = kernel.new_state() if state is None else state.copy()
    moves = np.empty((depth + 1, kernel.max_moves), dtype=np.int64)
    return int(fns["_perft"](pos, depth, moves))
