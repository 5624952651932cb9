"""Connect Four's heuristic: weighted open lines and the centre.

``lines`` looks at every window of four cells in a row (vertical,
horizontal, both diagonals; 69 of them on the 7x6 board). A window that holds
stones of one side only is still open for that side; the score counts them::

    own_two * (own open twos)   + own_three * (own open threes)
  - opp_two * (their open twos) - opp_three * (their open threes)
  + centre * (own stones - their stones in the centre column(s))

(the centre column, or the two middle ones on an even width). Finished games
never reach it (the search scores them itself), so a window with four stones
of one side does not occur.

The count is bit-parallel, no loop over the windows: for a direction ``d``
the four cells of the window starting at cell ``s`` are ``s, s+d, s+2d,
s+3d``, so shifting a side's stones right by 0, d, 2d and 3d lines the
window's cells up at bit ``s``, and two half adders give, at every start,
the window's stone count in binary (``s1 s0``): ``s1 & ~s0`` marks windows
with exactly two stones, ``s1 & s0`` exactly three. A window is open for a
side when the other side's four shifted boards are all zero there; the
geometry's ``starts`` mask keeps windows that lie on the board.
:func:`evaluate_lines_slow` is the same score window by window (the tests
compare the two).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from heurtune.engine import FloatParam, ParamSpace, PythonHeuristic

from heurtune_connect4.game import Board

LINES_SPACE = ParamSpace(
    "lines",
    (
        FloatParam("own_two", 0.0, 10.0, 2.0, help="per own open two (2 own stones, 2 empty)"),
        FloatParam("own_three", 0.0, 30.0, 5.0, help="per own open three (3 own stones, 1 empty)"),
        FloatParam("opp_two", 0.0, 10.0, 2.0, help="per opponent open two (subtracted)"),
        FloatParam("opp_three", 0.0, 30.0, 5.0, help="per opponent open three (subtracted)"),
        FloatParam("centre", 0.0, 10.0, 3.0,
                   help="per own stone in the centre column(s), minus the opponent's"),
    ),
)


def line_counts(state: Board, player: int) -> tuple[int, int, int, int]:
    """(own twos, own threes, opponent twos, opponent threes): the open
    windows of four holding 2 or 3 stones of one side only."""
    own = state.stones[player]
    opp = state.stones[1 - player]
    two = three = otwo = othree = 0
    for d, d2, d3, start in state.g.shifts:
        # own stones per window, in binary (s1 s0), by two half adders
        a, b, c, e = own, own >> d, own >> d2, own >> d3
        x, z = a ^ b, c ^ e
        s0 = x ^ z
        s1 = (a & b) ^ (c & e) ^ (x & z)
        own_any = a | b | c | e
        # the opponent's (t1 t0)
        a, b, c, e = opp, opp >> d, opp >> d2, opp >> d3
        x, z = a ^ b, c ^ e
        t0 = x ^ z
        t1 = (a & b) ^ (c & e) ^ (x & z)
        mine = start & s1 & ~(a | b | c | e)  # no opponent stone, 2 or 3 own
        two += (mine & ~s0).bit_count()
        three += (mine & s0).bit_count()
        theirs = start & t1 & ~own_any
        otwo += (theirs & ~t0).bit_count()
        othree += (theirs & t0).bit_count()
    return two, three, otwo, othree


def evaluate_lines(state: Board, player: int, params: Mapping[str, Any]) -> float:
    """The ``lines`` score of ``state`` for ``player`` (see the module docstring)."""
    two, three, otwo, othree = line_counts(state, player)
    centre = state.g.centre
    score: float = (params["own_two"] * two + params["own_three"] * three
                    - params["opp_two"] * otwo - params["opp_three"] * othree
                    + params["centre"] * ((state.stones[player] & centre).bit_count()
                                          - (state.stones[1 - player] & centre).bit_count()))
    return score


def evaluate_lines_slow(state: Board, player: int, params: Mapping[str, Any]) -> float:
    """:func:`evaluate_lines` window by window (a reference for the tests)."""
    g = state.g
    own = state.stones[player]
    opp = state.stones[1 - player]
    counts = {("own", 2): 0, ("own", 3): 0, ("opp", 2): 0, ("opp", 3): 0}
    for window in g.windows:
        mine, theirs = (own & window).bit_count(), (opp & window).bit_count()
        if theirs == 0 and mine in (2, 3):
            counts["own", mine] += 1
        elif mine == 0 and theirs in (2, 3):
            counts["opp", theirs] += 1
    centre = sum(1 if own & g.cell(c, r) else -1 if opp & g.cell(c, r) else 0
                 for c in sorted({(g.columns - 1) // 2, g.columns // 2}) for r in range(g.rows))
    return float(params["own_two"] * counts["own", 2]
                 + params["own_three"] * counts["own", 3]
                 - params["opp_two"] * counts["opp", 2]
                 - params["opp_three"] * counts["opp", 3]
                 + params["centre"] * centre)


LINES = PythonHeuristic(
    "lines",
    LINES_SPACE,
    evaluate_lines,
    "open twos and threes of both sides, weighted, and stones in the centre column",
)

HEURISTICS = (LINES,)

#: alpha-beta's node budget per move for the presets
AB_NODES = 2000

PRESETS = {
    "baseline": {
        "heuristic": "lines",
        "search": {"algorithm": "alphabeta", "depth": 64, "nodes": AB_NODES},
        "description": f"lines at its defaults: iterative-deepening alpha-beta, "
                       f"{AB_NODES} nodes per move",
    },
    "weak": {
        "heuristic": "lines",
        "search": {"algorithm": "alphabeta", "depth": 2},
        "description": "lines at its defaults: alpha-beta 2 plies deep",
    },
    "random": {
        "heuristic": "lines",
        "search": {"algorithm": "random"},
        "description": "Random: a uniformly random legal move",
    },
}
