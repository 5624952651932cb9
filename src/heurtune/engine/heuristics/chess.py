"""Chess heuristics, in plain Python over python-chess boards.

``material``
    The classical piece values (pawn 100, knight 320, bishop 330, rook 500,
    queen 900 centipawns) summed for the side scored, less the other side's.

Chess engines worth tuning are UCI engines in their own processes
(docs/chess.md); this heuristic gives the game an in-process engine for the
conformance check, tests, and a quick opponent (``chess:material``: alpha-beta
two plies deep, through heurtune's plain-Python search).
"""

from __future__ import annotations

from collections.abc import Mapping

import chess

from heurtune.engine.heuristic import PythonHeuristic
from heurtune.engine.params import FloatParam, ParamSpace, Value

MATERIAL_SPACE = ParamSpace("material", (
    FloatParam("pawn", 0.0, 300.0, 100.0, help="centipawns per pawn"),
    FloatParam("knight", 0.0, 1000.0, 320.0, help="centipawns per knight"),
    FloatParam("bishop", 0.0, 1000.0, 330.0, help="centipawns per bishop"),
    FloatParam("rook", 0.0, 1500.0, 500.0, help="centipawns per rook"),
    FloatParam("queen", 0.0, 2500.0, 900.0, help="centipawns per queen"),
))
_PIECES = ((chess.PAWN, "pawn"), (chess.KNIGHT, "knight"), (chess.BISHOP, "bishop"),
           (chess.ROOK, "rook"), (chess.QUEEN, "queen"))


def evaluate_material(board: chess.Board, player: int, params: Mapping[str, Value]) -> float:
    """Material of ``player`` (0: White) less the other side's, in centipawns."""
    own = board.occupied_co[chess.WHITE if player == 0 else chess.BLACK]
    other = board.occupied_co[chess.BLACK if player == 0 else chess.WHITE]
    score = 0.0
    for piece, name in _PIECES:
        mask = board.pieces_mask(piece, chess.WHITE) | board.pieces_mask(piece, chess.BLACK)
        score += float(params[name]) * (chess.popcount(mask & own) - chess.popcount(mask & other))
    return score


MATERIAL = PythonHeuristic("material", MATERIAL_SPACE, evaluate_material,
                           "material: the classical piece values, own less the other side's")
HEURISTICS = (MATERIAL,)

PRESETS = {
    "material": {
        "heuristic": "material",
        "search": {"algorithm": "alphabeta", "depth": 2},
        "description": "material at its defaults: alpha-beta two plies deep (plain Python)",
    },
    "random": {
        "heuristic": "material",
        "search": {"algorithm": "random"},
        "description": "Random: a uniformly random legal move",
    },
}

__all__ = ["HEURISTICS", "MATERIAL", "MATERIAL_SPACE", "PRESETS", "evaluate_material"]
