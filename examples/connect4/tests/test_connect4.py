"""Tests of the Connect Four plugin: move generation (perft, and move for move
against a plain 2-D reference written here), known positions, undo, keys,
symmetry, the ``lines`` heuristic and the rule options.

Run them with ``python -m pytest examples/connect4/tests`` (the package
installed, or ``examples/connect4/src`` on ``sys.path``).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

try:
    import heurtune_connect4
except ImportError:  # not installed: run from the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import heurtune_connect4

from heurtune.engine import FloatParam, ParamSpace
from heurtune.games import PythonGame
from heurtune.games.base import DRAW, LOSS, ONGOING, WIN

from heurtune_connect4 import GAME, HEURISTICS, LINES, LINES_SPACE, PRESETS, Board
from heurtune_connect4.heuristics import evaluate_lines, evaluate_lines_slow, line_counts

FILES = "abcdefghi"
DEFAULTS = LINES_SPACE.defaults()


# -- an independent reference: a 2-D list board, no bits ---------------------------
class Ref:
    """Connect Four the plain way: ``grid[row][column]`` (row 0 at the bottom)
    holding 0 (empty), 1 (first player) or 2 (second player)."""

    def __init__(self, columns: int = 7, rows: int = 6) -> None:
        self.columns, self.rows = columns, rows
        self.grid = [[0] * columns for _ in range(rows)]
        self.heights = [0] * columns
        self.plies = 0
        self.winner = 0  # 1 or 2 once somebody has four in a row

    def to_move(self) -> int:
        return self.plies % 2

    def legal_moves(self) -> list[int]:
        if self.winner:
            return []
        return [c for c in range(self.columns) if self.heights[c] < self.rows]

    def play(self, column: int) -> None:
        assert column in self.legal_moves()
        row = self.heights[column]
        piece = self.to_move() + 1
        self.grid[row][column] = piece
        self.heights[column] += 1
        self.plies += 1
        for dr, dc in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                r, c = row + sign * dr, column + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.columns and self.grid[r][c] == piece:
                    run += 1
                    r, c = r + sign * dr, c + sign * dc
            if run >= 4:
                self.winner = piece

    def result(self) -> int:
        if self.winner:
            return WIN if self.winner == self.to_move() + 1 else LOSS
        if self.plies == self.rows * self.columns:
            return DRAW
        return ONGOING

    def rows_text(self) -> list[str]:
        return ["".join(".RY"[v] for v in self.grid[r]) for r in range(self.rows - 1, -1, -1)]


# -- helpers ---------------------------------------------------------------------
def perft(state: Board, depth: int) -> int:
    """Leaves ``depth`` plies down; finished positions are not expanded."""
    if depth == 0:
        return 1
    if GAME.result(state) != ONGOING:
        return 0
    n = 0
    for move in GAME.legal_moves(state):
        GAME.play(state, move)
        n += perft(state, depth - 1)
        GAME.undo(state, move)
    return n


def random_position(rng: random.Random, plies: int, rules: dict[str, int] | None = None,
                    ) -> Board:
    """A position after up to ``plies`` random moves, the game still going on."""
    state = GAME.new_state(rules or {})
    while state.ply < plies and GAME.result(state) == ONGOING:
        move = rng.choice(GAME.legal_moves(state))
        GAME.play(state, move)
        if GAME.result(state) != ONGOING:
            GAME.undo(state, move)
            break
    return state


def play_out(moves: str, rules: dict[str, int] | None = None) -> tuple[Board, Ref]:
    """Both implementations after ``moves``, checking that every move but the last
    leaves the game going on."""
    rules = rules or {}
    state = GAME.new_state(rules)
    ref = Ref(rules.get("columns", 7), rules.get("rows", 6))
    for i, letter in enumerate(moves):
        assert GAME.result(state) == ONGOING == ref.result(), f"over before move {i}"
        GAME.play(state, FILES.index(letter))
        ref.play(FILES.index(letter))
    return state, ref


# -- the declarations --------------------------------------------------------------
def test_declarations() -> None:
    assert isinstance(GAME, PythonGame)
    assert GAME.name == "connect4"
    assert GAME.side_names == ("Red", "Yellow")
    assert [(r.name, r.default, r.low, r.high) for r in GAME.rules] == [
        ("columns", 7, 4, 9), ("rows", 6, 4, 8)]
    assert GAME.opening_plies == 4
    assert HEURISTICS == (LINES,)
    assert isinstance(LINES.space, ParamSpace)
    assert LINES.name == "lines" and LINES.evaluate is evaluate_lines
    names = {h.name for h in HEURISTICS}
    assert {"baseline", "weak", "random"} <= set(PRESETS)
    for preset in PRESETS.values():
        assert preset["heuristic"] in names
        assert "algorithm" in preset["search"]
        assert preset["description"]
    assert PRESETS["baseline"]["search"] == {"algorithm": "alphabeta", "depth": 64, "nodes": 2000}


def test_python_kernel_accepts_the_game() -> None:
    from heurtune.games.python import python_kernel

    kernel = python_kernel(GAME, heurtune_connect4)
    assert kernel.board_rows is not None and kernel.max_game_plies is not None
    box = kernel.new_state({})
    assert kernel.legal_moves(box) == list(range(7))
    kernel.make_move(box, 3)
    assert kernel.ply(box) == 1 and kernel.side_to_move(box) == 1
    assert kernel.board_rows(box)[-1] == "...R..."
    assert kernel.move_to_str(3) == "d"
    assert kernel.max_game_plies({"columns": 5, "rows": 4}) == 20


# -- move generation ------------------------------------------------------------------
@pytest.mark.parametrize("depth, leaves", [
    (1, 7), (2, 49), (3, 343), (4, 2401), (5, 16807), (6, 117649)])
def test_perft(depth: int, leaves: int) -> None:
    state = GAME.new_state({})
    start = state.snapshot()
    assert perft(state, depth) == leaves
    assert state.snapshot() == start


@pytest.mark.parametrize("rules", [{}, {"columns": 5, "rows": 4}, {"columns": 4, "rows": 4},
                                   {"columns": 9, "rows": 8}, {"columns": 8, "rows": 5}])
def test_random_games_match_the_reference(rules: dict[str, int]) -> None:
    rng = random.Random(20240601 + len(rules))
    games = 300 if not rules else 80
    results = {WIN: 0, DRAW: 0, LOSS: 0}
    for _ in range(games):
        state = GAME.new_state(rules)
        ref = Ref(rules.get("columns", 7), rules.get("rows", 6))
        played = []
        while True:
            assert list(GAME.legal_moves(state)) == ref.legal_moves()
            assert GAME.result(state) == ref.result()
            assert GAME.to_move(state) == ref.to_move()
            assert GAME.board_rows(state) == ref.rows_text()
            if ref.result() != ONGOING:
                break
            move = rng.choice(ref.legal_moves())
            GAME.play(state, move)
            ref.play(move)
            played.append(move)
        results[ref.result()] += 1
        # and back to the start
        for move in reversed(played):
            GAME.undo(state, move)
        assert state == GAME.new_state(rules)
    assert results[LOSS] > 0  # somebody won (and no result is ever WIN for the mover)
    assert results[WIN] == 0


def test_legal_moves_in_column_order_and_full_columns_drop_out() -> None:
    state, _ = play_out("aaaaaa")
    assert list(GAME.legal_moves(state)) == [1, 2, 3, 4, 5, 6]
    state, _ = play_out("gggggg" + "dddddd")
    assert list(GAME.legal_moves(state)) == [0, 1, 2, 4, 5]
    assert [GAME.move_to_str(m) for m in range(7)] == list("abcdefg")


# -- known positions -----------------------------------------------------------------
@pytest.mark.parametrize("moves, winner, ply", [
    ("abababa", "Red", 7),             # vertical, column a
    ("abababcb", "Yellow", 8),         # vertical, column b
    ("aabbccd", "Red", 7),             # horizontal, bottom row a-d
    ("gaffeed", "Red", 7),             # horizontal, bottom row d-g
    ("abbcgccdddd", "Red", 11),        # diagonal a1 b2 c3 d4 (rising to the right)
    ("gffeaeeddd" + "d", "Red", 11),   # its mirror image: g1 f2 e3 d4 (falling to the right)
    ("dccbabbagaa", "Red", 11),        # diagonal a4 b3 c2 d1
])
def test_wins(moves: str, winner: str, ply: int) -> None:
    state, ref = play_out(moves)
    assert state.ply == ply
    assert GAME.result(state) == ref.result() == LOSS  # the side to move has lost
    assert GAME.legal_moves(state) == ()
    assert GAME.termination(state) == f"{winner} connected four"
    assert GAME.board_rows(state) == ref.rows_text()
    # one move earlier the game went on
    GAME.undo(state, FILES.index(moves[-1]))
    assert GAME.result(state) == ONGOING
    assert GAME.termination(state) is None


def test_a_known_draw() -> None:
    moves = "ddbgfabbecggbebcdbedeefcdgdagecgaffffcacaa"  # 42 plies, nobody connects four
    state, ref = play_out(moves)
    assert GAME.result(state) == ref.result() == DRAW
    assert GAME.termination(state) == "board full"
    assert GAME.legal_moves(state) == ()
    assert GAME.board_rows(state) == [
        "YYYRYRY",
        "RRYRYYR",
        "RRRYRRY",
        "RYYRRYY",
        "YRYYYRR",
        "YRYRRRY",
    ]


def test_a_win_with_the_last_stone_is_a_win_not_a_draw() -> None:
    # 4x4: games where the 16th stone (Yellow's) fills the board and connects four
    rng = random.Random(3)
    found = 0
    for _ in range(20000):
        state = GAME.new_state({"columns": 4, "rows": 4})
        while GAME.result(state) == ONGOING:
            GAME.play(state, rng.choice(GAME.legal_moves(state)))
        if state.ply == 16 and state.won:
            assert GAME.result(state) == LOSS
            assert GAME.termination(state) == "Yellow connected four"
            found += 1
            if found == 3:
                break
    assert found == 3


# -- undo, keys, symmetry ------------------------------------------------------------
def test_undo_restores_the_state_exactly() -> None:
    rng = random.Random(7)
    for _ in range(200):
        state = GAME.new_state({})
        while GAME.result(state) == ONGOING:
            before = state.snapshot()
            key = GAME.key(state)
            move = rng.choice(GAME.legal_moves(state))
            GAME.play(state, move)
            after = state.snapshot()
            GAME.undo(state, move)
            assert state.snapshot() == before
            assert GAME.key(state) == key
            GAME.play(state, move)
            assert state.snapshot() == after


def test_copy_is_independent() -> None:
    import copy

    state, _ = play_out("dde")
    for twin in (GAME.copy(state), copy.deepcopy(state), copy.copy(state)):
        assert twin == state and twin is not state
        GAME.play(twin, 0)
        assert twin != state and state.ply == 3
        assert twin.g is state.g  # the geometry is shared


def test_transpositions_share_a_key() -> None:
    a, _ = play_out("abcd")
    b, _ = play_out("cbad")
    c, _ = play_out("badc")
    assert a == b and GAME.key(a) == GAME.key(b)
    assert GAME.key(a) != GAME.key(c)  # the same cells, the colours swapped
    d, _ = play_out("abc")
    assert GAME.key(d) not in (GAME.key(a), GAME.key(c))


def test_keys_are_unique_over_every_position_five_plies_deep() -> None:
    seen: dict[int, tuple[int, int, int]] = {}

    def walk(state: Board, depth: int) -> None:
        position = (state.stones[0], state.stones[1], state.ply)
        key = GAME.key(state)
        assert seen.setdefault(key, position) == position
        if depth == 0:
            return
        for move in GAME.legal_moves(state):
            GAME.play(state, move)
            walk(state, depth - 1)
            GAME.undo(state, move)

    walk(GAME.new_state({}), 5)
    # 1 + 7 + 49 + 238 + 1120 + 4263 distinct positions (OEIS A212693)
    assert len(seen) == 1 + 7 + 49 + 238 + 1120 + 4263


def test_mirror_keys() -> None:
    rng = random.Random(11)
    mirror = {c: 6 - c for c in range(7)}
    for _ in range(100):
        state = GAME.new_state({})
        image = GAME.new_state({})
        while GAME.result(state) == ONGOING:
            keys = GAME.symmetric_keys(state)
            assert keys[0] == GAME.key(state)
            assert sorted(GAME.symmetric_keys(image)) == sorted(keys)
            assert keys[1] == GAME.key(image)
            assert GAME.mirrored(state) == image
            assert [row[::-1] for row in GAME.board_rows(state)] == GAME.board_rows(image)
            move = rng.choice(GAME.legal_moves(state))
            GAME.play(state, move)
            GAME.play(image, mirror[move])
        assert GAME.result(image) == GAME.result(state)
    # a symmetric position is its own image
    centre, _ = play_out("dd")
    assert len(set(GAME.symmetric_keys(centre))) == 1


# -- the heuristic -------------------------------------------------------------------
def _positions(count: int, seed: int, rules: dict[str, int] | None = None) -> list[Board]:
    rng = random.Random(seed)
    return [random_position(rng, rng.randrange(0, 40), rules) for _ in range(count)]


def test_empty_board_scores_zero_for_both_players() -> None:
    empty = GAME.new_state({})
    assert evaluate_lines(empty, 0, DEFAULTS) == evaluate_lines(empty, 1, DEFAULTS) == 0.0


def test_heuristic_is_mirror_symmetric() -> None:
    for state in _positions(300, 1):
        image = GAME.mirrored(state)
        for player in (0, 1):
            score = evaluate_lines(state, player, DEFAULTS)
            assert score == evaluate_lines(image, player, DEFAULTS)


@pytest.mark.parametrize("rules", [{}, {"columns": 5, "rows": 4}, {"columns": 9, "rows": 8},
                                   {"columns": 6, "rows": 7}])
def test_heuristic_matches_the_window_by_window_count(rules: dict[str, int]) -> None:
    rng = random.Random(5)
    for state in _positions(200, 2, rules):
        params = {p.name: rng.uniform(p.low, p.high) for p in _bounds()}
        for player in (0, 1):
            fast = evaluate_lines(state, player, params)
            assert fast == pytest.approx(evaluate_lines_slow(state, player, params), abs=1e-9)


def test_heuristic_is_zero_sum_at_symmetric_weights() -> None:
    for state in _positions(200, 3):
        assert evaluate_lines(state, 0, DEFAULTS) == -evaluate_lines(state, 1, DEFAULTS)


def test_line_counts_by_hand() -> None:
    # Red d1 e1 f1 (an open three, bottom row c-f and d-g), Yellow d2 e2
    state, _ = play_out("ddeef")
    two, three, otwo, othree = line_counts(state, 0)
    assert three == 2  # windows c1-f1 and d1-g1
    assert othree == 0
    assert (otwo, othree) == line_counts(state, 1)[:2]
    assert (two, three) == line_counts(state, 1)[2:]
    # centre: Red d1, Yellow d2 -> 0; weights by name
    only_three = {**{p: 0.0 for p in DEFAULTS}, "own_three": 1.0}
    assert evaluate_lines(state, 0, only_three) == 2.0
    assert evaluate_lines(state, 1, {**only_three, "own_three": 0.0, "opp_three": 1.0}) == -2.0


def _bounds() -> list[FloatParam]:
    params = [p for p in LINES_SPACE if isinstance(p, FloatParam)]
    assert len(params) == len(LINES_SPACE)  # every weight is a FloatParam
    return params


def test_parameter_space() -> None:
    assert LINES_SPACE.names == ["own_two", "own_three", "opp_two", "opp_three", "centre"]
    assert LINES_SPACE.validate({}) == DEFAULTS
    for p in _bounds():
        assert p.low <= p.default <= p.high
    # scores stay far below the decided games' 1e9, whatever the weights
    state, _ = play_out("abcdefgabcdefgabcdefg")
    top = {p.name: p.high for p in _bounds()}
    assert abs(evaluate_lines(state, 0, top)) < 1e5


# -- rule options ---------------------------------------------------------------------
def test_a_5x4_board() -> None:
    rules = {"columns": 5, "rows": 4}
    state = GAME.new_state(rules)
    assert list(GAME.legal_moves(state)) == [0, 1, 2, 3, 4]
    assert perft(state, 4) == 5 ** 4
    assert GAME.max_game_plies(rules) == 20
    assert GAME.board_rows(state) == ["....."] * 4
    state, ref = play_out("aaaa", rules)
    assert list(GAME.legal_moves(state)) == [1, 2, 3, 4]
    state, ref = play_out("abcdeabcde", rules)
    assert GAME.board_rows(state) == ref.rows_text() == ["....."] * 2 + ["YRYRY", "RYRYR"]
    # a horizontal four on a 5-wide board: Red b1 c1 d1 e1
    state, _ = play_out("bbccdde", rules)
    assert GAME.result(state) == LOSS and GAME.termination(state) == "Red connected four"


def test_rule_bounds() -> None:
    with pytest.raises(ValueError):
        GAME.new_state({"columns": 10, "rows": 6})
    with pytest.raises(ValueError):
        GAME.new_state({"columns": 7, "rows": 3})
    assert GAME.max_game_plies({}) == 42
    big = GAME.new_state({"columns": 9, "rows": 8})
    assert list(GAME.legal_moves(big)) == list(range(9))
    assert [GAME.move_to_str(m) for m in range(9)] == list("abcdefghi")


def test_heurtune_conformance() -> None:
    """heurtune's own check of a game (needs this package installed: the entry point
    is how heurtune finds it)."""
    from heurtune.engine.conformance import check_game

    report = check_game("connect4", rules=({}, {"columns": 5, "rows": 4}), games=6)
    assert report.games == 12 and report.searches > 0
