"""The Gomoku kernel against perft counts and the plain-Python reference."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from heurtune.errors import HeurtuneError
from heurtune.games import DRAW, LOSS, ONGOING, get_game
from heurtune.games.perft import perft
from tests.games import reference_gomoku as ref

K = get_game("gomoku")

# the reference's result -> the kernel's outcome for the side to move
OUTCOME = {"ongoing": ONGOING, "win_previous": LOSS, "draw": DRAW}


def _new(size: int = 15, exact_five: int = 0) -> tuple[ref.Board, np.ndarray]:
    return ref.Board(size, exact_five), K.new_state({"size": size, "exact_five": exact_five})


def _check(board: ref.Board, state: np.ndarray, where: object) -> str:
    """Kernel == reference here: result, side to move, ply, and (unless won) the legal moves."""
    expected = board.result()
    assert K.outcome(state) == OUTCOME[expected], (where, expected)
    assert K.side_to_move(state) == board.to_move, where
    assert K.ply(state) == board.plies, where
    if expected != "win_previous":  # no further play from a won position
        assert K.legal_moves(state) == [ref.encode(m) for m in board.legal_moves()], where
    return expected


def _play(board: ref.Board, state: np.ndarray, move: ref.Move) -> None:
    K.make_move(state, ref.encode(move))
    board.play(move)


# -- perft -----------------------------------------------------------------------
def _ref_perft(board: ref.Board, depth: int) -> int:
    if depth == 0:
        return 1
    if board.result() != "ongoing":
        return 0
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        child = board.copy()
        child.play(m)
        total += _ref_perft(child, depth - 1)
    return total


def _kernel_perft_by_hand(state: np.ndarray, depth: int) -> int:
    """Perft through the kernel's legal_moves + make/unmake (not the compiled perft)."""
    if depth == 0:
        return 1
    if K.outcome(state) != ONGOING:
        return 0
    moves = K.legal_moves(state)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        K.make_move(state, m)
        total += _kernel_perft_by_hand(state, depth - 1)
        K.unmake_move(state, m)
    return total


@pytest.mark.slow
def test_perft_start_15x15() -> None:
    board = ref.Board()
    assert _ref_perft(board, 1) == 225 and perft(K, 1) == 225
    assert _kernel_perft_by_hand(K.new_state(), 2) == _ref_perft(board, 2) == 50_400
    assert perft(K, 2, K.new_state()) == 50_400


@pytest.mark.slow
@pytest.mark.parametrize("size", [7, 19])
def test_perft_start_other_sizes(size: int) -> None:
    n = size * size
    state = K.new_state({"size": size})
    assert perft(K, 2, state) == n * (n - 1) == _ref_perft(ref.Board(size), 2)
    if size == 7:
        assert perft(K, 3, state) == n * (n - 1) * (n - 2) == _ref_perft(ref.Board(size), 3)


@pytest.mark.slow
def test_perft_near_the_end_of_dense_games() -> None:
    """Perft 3 a few plies before a five: won children count as leaves, both ways."""
    positions = 0
    for seed in range(12):
        exact = seed % 2
        history = _dense_game_moves(seed, 9, exact, 5)
        board, state = _new(9, exact)
        for move in history[: max(0, len(history) - 3)]:
            _play(board, state, move)
        assert board.result() == "ongoing"
        assert perft(K, 3, state) == _ref_perft(board, 3), seed
        positions += 1
    assert positions == 12


# -- hand-made positions -----------------------------------------------------------
# (description, size, exact_five, moves alternating from Black, expected final result);
# every earlier ply must be "ongoing".
HAND_MADE = [
    ("horizontal five", 15, 0, "a1 a3 b1 b3 c1 c3 d1 d3 e1", "win_previous"),
    ("horizontal five, exact", 15, 1, "a1 a3 b1 b3 c1 c3 d1 d3 e1", "win_previous"),
    ("vertical five", 15, 1, "h4 a1 h5 a2 h6 a3 h7 a4 h8", "win_previous"),
    ("diagonal five", 15, 0, "c3 a1 d4 a2 e5 a3 f6 a4 g7", "win_previous"),
    ("anti-diagonal five into the corner", 15, 1, "a15 o1 b14 o2 c13 o3 d12 o4 e11", "win_previous"),
    ("white's five", 15, 0, "a1 b5 c1 c5 e1 d5 g1 e5 i1 f5", "win_previous"),
    ("five blocked at both ends", 15, 1, "b1 a1 c1 g1 d1 o15 e1 o14 f1", "win_previous"),
    ("five filled in the middle", 15, 1, "a1 a3 b1 b3 d1 c3 e1 d3 c1", "win_previous"),
    ("six by filling a gap", 15, 0, "a1 a3 b1 b3 c1 c3 e1 d3 f1 f3 d1", "win_previous"),
    ("six by filling a gap, exact", 15, 1, "a1 a3 b1 b3 c1 c3 e1 d3 f1 f3 d1", "ongoing"),
    ("seven, exact", 15, 1, "a1 a3 b1 b3 c1 c3 e1 d3 f1 f3 g1 g3 d1", "ongoing"),
    ("seven", 15, 0, "a1 a3 b1 b3 c1 c3 e1 d3 f1 f3 g1 g3 d1", "win_previous"),
    ("six across plus exactly five up, exact", 15, 1,
     "a1 k10 b1 k12 c1 k14 e1 m10 f1 m12 d2 m14 d3 o10 d4 o12 d5 o14 d1", "win_previous"),
    ("six across plus a four up, exact", 15, 1,
     "a1 k10 b1 k12 c1 k14 e1 m10 f1 m12 d2 m14 d3 o10 d4 o12 a15 o14 d1", "ongoing"),
    ("six across plus a four up", 15, 0,
     "a1 k10 b1 k12 c1 k14 e1 m10 f1 m12 d2 m14 d3 o10 d4 o12 a15 o14 d1", "win_previous"),
    ("two sixes through one stone, exact", 15, 1,
     "e8 a1 f8 a3 g8 a5 i8 a7 j8 a9 h5 a11 h6 a13 h7 a15 h9 c1 h10 c3 h8", "ongoing"),
    ("two sixes through one stone", 15, 0,
     "e8 a1 f8 a3 g8 a5 i8 a7 j8 a9 h5 a11 h6 a13 h7 a15 h9 c1 h10 c3 h8", "win_previous"),
    ("five on 7x7", 7, 1, "c1 a2 c2 b2 c3 a3 c4 b3 c5", "win_previous"),
    ("the whole row of 7x7, exact", 7, 1, "a1 a2 b1 b2 c1 c2 e1 e2 f1 f2 g1 g2 d1", "ongoing"),
    ("the whole row of 7x7", 7, 0, "a1 a2 b1 b2 c1 c2 e1 e2 f1 f2 g1 g2 d1", "win_previous"),
    ("diagonal five at the far corner of 19x19", 19, 1, "s19 s1 r18 r1 q17 q1 p16 p1 o15", "win_previous"),
    ("four is not five", 15, 0, "h8 a1 i8 a2 j8 a3 k8", "ongoing"),
]


@pytest.mark.parametrize("desc,size,exact,moves,expected", HAND_MADE, ids=[h[0] for h in HAND_MADE])
def test_hand_made_positions(desc: str, size: int, exact: int, moves: str, expected: str) -> None:
    # the reference on its own first, then the kernel along the same moves
    board = ref.Board(size, exact)
    names = moves.split()
    for name in names[:-1]:
        board.play(ref.parse_name(name))
        assert board.result() == "ongoing", (desc, name)
    board.play(ref.parse_name(names[-1]))
    assert board.result() == expected, desc

    board, state = _new(size, exact)
    for name in names:
        _check(board, state, (desc, board.plies))
        move = K.parse_move(state, name)
        assert move == ref.encode(ref.parse_name(name))
        _play(board, state, ref.parse_name(name))
    assert _check(board, state, desc) == expected


def test_reference_runs_through_the_last_move() -> None:
    """The reference's run lengths, which the random games use to count overlines."""
    board = ref.Board(15, 1)
    board.play_names("a1 k10 b1 k12 c1 k14 e1 m10 f1 m12 d2 m14 d3 o10 d4 o12 d5 o14 d1")
    assert sorted(board.runs_through_last()) == [1, 1, 5, 6]  # both diagonals: d1 alone
    board = ref.Board(15, 0)
    board.play_names("h8")
    assert board.runs_through_last() == [1, 1, 1, 1]


# -- random games -------------------------------------------------------------------
def _square(rng: np.random.Generator, size: int, side: int, centred: bool) -> set[ref.Move]:
    if centred:
        r0 = c0 = (size - side) // 2
    else:
        r0, c0 = (int(x) for x in rng.integers(size - side + 1, size=2))
    return {(r, c) for r in range(r0, r0 + side) for c in range(c0, c0 + side)}


def _choose(rng: np.random.Generator, moves: list[ref.Move], square: set[ref.Move] | None) -> ref.Move:
    """A uniformly random move, from ``square`` while it has an empty point."""
    if square is not None:
        inside = [m for m in moves if m in square]
        moves = inside or moves
    return moves[int(rng.integers(len(moves)))]


def _dense_game_moves(seed: int, size: int, exact: int, side: int) -> list[ref.Move]:
    """The moves of a dense random game (reference only), to its end."""
    rng = np.random.default_rng(seed)
    board = ref.Board(size, exact)
    square = _square(rng, size, side, centred=seed % 3 == 0)
    moves = []
    while board.result() == "ongoing":
        move = _choose(rng, board.legal_moves(), square)
        board.play(move)
        moves.append(move)
    return moves


def _random_game(seed: int, size: int, exact: int, side: int | None = None) -> Counter:
    """One seeded random game, kernel == reference at every ply; what happened in it.

    ``side``: draw the moves from a side x side square (centred in every third
    game, elsewhere at a random place, edges included) while it has room.
    """
    rng = np.random.default_rng(seed)
    board, state = _new(size, exact)
    square = None if side is None else _square(rng, size, side, centred=seed % 3 == 0)
    seen: Counter = Counter(games=1)
    while True:
        result = _check(board, state, (size, exact, side, seed, board.plies))
        if result == "draw":
            seen["draw"] += 1
            return seen
        if result == "win_previous":
            seen["black_win" if board.to_move == 1 else "white_win"] += 1
            lengths = board.runs_through_last()
            if max(lengths) >= 6:  # freestyle overline win, or exact five across an overline
                seen["overline_win" if not exact else "overline_and_five"] += 1
            if board.plies == size * size:
                seen["win_on_last_point"] += 1
            return seen
        _play(board, state, _choose(rng, board.legal_moves(), square))
        seen["plies"] += 1
        if exact and max(board.runs_through_last()) >= 6 and board.result() == "ongoing":
            seen["overline_refused"] += 1


def _games(seeds: range, size: int, exact: int, side: int | None = None) -> Counter:
    total: Counter = Counter()
    for seed in seeds:
        total += _random_game(seed, size, exact, side)
    return total


@pytest.mark.slow
@pytest.mark.parametrize("size,exact,games", [(15, 0, 30), (15, 1, 30), (9, 0, 200), (9, 1, 200)])
def test_uniform_random_games(size: int, exact: int, games: int) -> None:
    seen = _games(range(games), size, exact)
    assert seen["games"] == games
    assert seen["black_win"] >= games // 5 and seen["white_win"] >= games // 5
    assert seen["plies"] > games * (60 if size == 15 else 25)
    if exact:
        assert seen["overline_refused"] >= 3
    else:
        assert seen["overline_win"] >= 3


@pytest.mark.slow
@pytest.mark.parametrize("exact", [0, 1])
def test_full_board_games_on_7x7(exact: int) -> None:
    """Uniform random games on the smallest board, many of them to a full board."""
    games = 500
    seen = _games(range(1000 + 1000 * exact, 1000 + 1000 * exact + games), 7, exact)
    assert seen["draw"] >= 10
    assert seen["black_win"] >= 100 and seen["white_win"] >= 100
    assert seen["win_on_last_point"] >= 1  # a five with the last empty point is a win, not a draw
    if exact:
        assert seen["overline_refused"] >= 20
    else:
        assert seen["overline_win"] >= 20


@pytest.mark.slow
@pytest.mark.parametrize("exact", [0, 1])
def test_dense_random_games(exact: int) -> None:
    """Moves from a small square so that fives, overlines and exact-five refusals happen."""
    seen: Counter = Counter()
    offset = 5000 + 10_000 * exact
    for size, side, games in [(15, 5, 150), (15, 6, 150), (15, 7, 100), (19, 6, 60), (9, 5, 150), (7, 6, 100)]:
        seen += _games(range(offset, offset + games), size, exact, side)
        offset += games
    assert seen["games"] == 710
    assert seen["black_win"] >= 200 and seen["white_win"] >= 200
    if exact:
        assert seen["overline_refused"] >= 50
        assert seen["overline_and_five"] >= 1
    else:
        assert seen["overline_win"] >= 50


def test_unmake_restores_the_state() -> None:
    """After every make, unmake gives back the same array (up to the declared undo scratch)."""
    checked = 0
    for seed, (size, exact) in enumerate([(9, 0), (9, 1), (15, 0), (15, 1), (7, 1)]):
        rng = np.random.default_rng(300 + seed)
        board, state = _new(size, exact)
        square = _square(rng, size, 6, centred=True)
        while board.result() == "ongoing":
            live = K.live_length(state)
            before = state.copy()
            # every legal move, made and taken back
            for m in K.legal_moves(state):
                K.make_move(state, m)
                K.unmake_move(state, m)
                assert K.live_length(state) == live
                assert np.array_equal(state[:live], before[:live]), (size, exact, board.plies, m)
                checked += 1
            _play(board, state, _choose(rng, board.legal_moves(), square))
            assert int(K.position_hash(state)) == K.hash_from_scratch(state)
    assert checked > 1000


# -- notation and rules ---------------------------------------------------------------
@pytest.mark.parametrize("size", [15, 19])
def test_notation_round_trip(size: int) -> None:
    state = K.new_state({"size": size})
    for r in range(size):
        for c in range(size):
            name = ref.move_name((r, c))
            assert K.move_to_str(r * 32 + c) == name
            assert K.parse_move(state, name) == r * 32 + c


def test_notation_landmarks() -> None:
    state = K.new_state()
    assert K.parse_move(state, "h8") == 7 * 32 + 7 and ref.move_name((7, 7)) == "h8"
    assert K.parse_move(state, "a1") == 0 and K.move_to_str(0) == "a1"
    assert K.parse_move(state, "o15") == 14 * 32 + 14
    assert K.move_to_str(18 * 32 + 18) == "s19"


@pytest.mark.parametrize("text", ["", "h", "8", "h0", "h16", "p1", "z9", "8h", "hh", "h8h", "a-1"])
def test_malformed_or_off_board_moves_are_errors(text: str) -> None:
    with pytest.raises(HeurtuneError):
        K.parse_move(K.new_state(), text)


def test_occupied_point_is_an_error() -> None:
    state = K.new_state()
    K.make_move(state, K.parse_move(state, "h8"))
    with pytest.raises(HeurtuneError):
        K.parse_move(state, "h8")
    small = K.new_state({"size": 9})
    with pytest.raises(HeurtuneError):
        K.parse_move(small, "j1")  # column j is off a 9x9 board


@pytest.mark.parametrize("rules", [{"size": 6}, {"size": 20}, {"size": 0}, {"colour": 1}])
def test_bad_rules_are_errors(rules: dict) -> None:
    with pytest.raises(HeurtuneError):
        K.new_state(rules)


@pytest.mark.parametrize("size", [7, 8, 15, 19])
def test_sizes_in_range_are_accepted(size: int) -> None:
    state = K.new_state({"size": size, "exact_five": 1})
    assert len(K.legal_moves(state)) == size * size
    assert K.outcome(state) == ONGOING and K.side_to_move(state) == 0 and K.ply(state) == 0


def test_defaults_are_15x15_freestyle() -> None:
    board, state = ref.Board(), K.new_state()
    assert len(K.legal_moves(state)) == 225
    # an overline wins under the default rules
    for name in "a1 a3 b1 b3 c1 c3 e1 d3 f1 f3 d1".split():
        K.make_move(state, K.parse_move(state, name))
        board.play(ref.parse_name(name))
    assert K.outcome(state) == LOSS and board.result() == "win_previous"
