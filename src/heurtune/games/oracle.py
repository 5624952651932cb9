"""A game that is never played: the simulated oracle's stand-in.

The simulated-oracle benchmark (heurtune.match.oracle) decides every game from
the engines' parameters alone, but the tuning loop still draws openings from a
game: this one has 100 moves in every position and ends after ``LENGTH``
plies, so 3-ply openings give a million distinct ones. It is plain Python (no
search can run on it) and is registered only while the oracle is in use.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np

from heurtune.games.base import DRAW, HASH, HEADER, ONGOING, PLY, STM, GameKernel

MOVES = 100
LENGTH = 8
_MASK = (1 << 64) - 1
_HIST = HEADER  # one entry per ply: the hash before it


def new_state(rules: Mapping[str, int]) -> np.ndarray:
    return np.zeros(_HIST + LENGTH + 1, dtype=np.int64)


def gen_moves(state: np.ndarray, out: np.ndarray, row: int) -> int:
    if state[PLY] >= LENGTH:
        return 0
    out[row, :MOVES] = np.arange(MOVES)
    return MOVES


def make_move(state: np.ndarray, move: int) -> None:
    ply = int(state[PLY])
    state[_HIST + ply] = state[HASH]
    h = (int(state[HASH]) * 0x100000001B3 + int(move) + 1 + (ply << 40)) & _MASK
    state[HASH] = np.int64(h - (1 << 64) if h >= 1 << 63 else h)
    state[PLY] = ply + 1
    state[STM] = 1 - state[STM]


def unmake_move(state: np.ndarray, move: int) -> None:
    ply = int(state[PLY]) - 1
    state[HASH] = state[_HIST + ply]
    state[PLY] = ply
    state[STM] = 1 - state[STM]


def outcome(state: np.ndarray) -> int:
    return DRAW if state[PLY] >= LENGTH else ONGOING


_ALL = list(range(MOVES))


def opening_moves(state: np.ndarray) -> list[int]:
    return _ALL if state[PLY] < LENGTH else []


KERNEL = GameKernel(
    name="oracle",
    description="the simulated oracle's stand-in: never played (openings only)",
    module=sys.modules[__name__],
    rules=(),
    max_moves=MOVES,
    opening_plies=3,
    _new_state=new_state,
    move_to_str=lambda move: f"m{move}",
    gen_moves=gen_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    outcome=outcome,
    opening_moves=opening_moves,
    max_game_plies=lambda rules: LENGTH,
    live_length=lambda state: _HIST + int(state[PLY]),
)
