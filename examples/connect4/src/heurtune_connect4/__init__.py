"""Connect Four for heurtune: an example game plugin written in plain Python.

heurtune finds it through the entry point this package declares (group
``heurtune.games``, name ``connect4``, value this module), and reads here:

``GAME``
    the game, a :class:`heurtune.games.PythonGame` (:mod:`.game`: bitboards
    in Python ints);
``HEURISTICS``
    its heuristics, :class:`heurtune.engine.PythonHeuristic` values
    (:mod:`.heuristics`: ``lines``, weighted open twos and threes and the
    centre column);
``PRESETS``
    engines by name (``connect4:baseline``, ``connect4:weak``,
    ``connect4:random``).
"""

from heurtune_connect4.game import GAME, Board, ConnectFour, Geometry, geometry
from heurtune_connect4.heuristics import (
    HEURISTICS,
    LINES,
    LINES_SPACE,
    PRESETS,
    evaluate_lines,
    line_counts,
)

__version__ = "0.1.0"

__all__ = [
    "GAME",
    "HEURISTICS",
    "LINES",
    "LINES_SPACE",
    "PRESETS",
    "Board",
    "ConnectFour",
    "Geometry",
    "evaluate_lines",
    "geometry",
    "line_counts",
]
