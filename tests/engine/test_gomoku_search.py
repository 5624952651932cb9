"""Gomoku on the one search: the kernel's incremental line classes, its candidate
moves and ordering key, the ``threats`` evaluation and the ``gomoku:ab`` engine,
each checked against a plain-Python computation over the reference board."""

from __future__ import annotations

import numpy as np
import pytest

from heurtune.engine.config import EngineConfig, preset
from heurtune.engine.heuristic import get_heuristic
from heurtune.engine.heuristics import gomoku as hg
from heurtune.engine.player import Engine
from heurtune.engine.search import Searcher
from heurtune.errors import HeurtuneError
from heurtune.games import ONGOING, get_game
from heurtune.games import gomoku as g
from tests.games import reference_gomoku as ref

KERNEL = get_game("gomoku")
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # the kernel's order: row, column, both diagonals
BLOCKED = 3


def ref_line(board: ref.Board, r: int, c: int, dr: int, dc: int, side: int) -> list[int]:
    """The 8 points around (r, c) for ``side``: 1 own, 0 empty, 3 anything else."""
    out = []
    for k in (-4, -3, -2, -1, 1, 2, 3, 4):
        rr, cc = r + k * dr, c + k * dc
        if not (0 <= rr < board.size and 0 <= cc < board.size):
            out.append(BLOCKED)
        else:
            v = board.cells[rr][cc]
            out.append(0 if v is None else 1 if v == side else BLOCKED)
    return out


def ref_classes(board: ref.Board) -> dict[tuple[int, int, int, int], int]:
    """(side, direction, row, col) -> mag * 8 + mul of the seed's cscore, uncapped."""
    out = {}
    for r in range(board.size):
        for c in range(board.size):
            for d, (dr, dc) in enumerate(DIRECTIONS):
                for side in (0, 1):
                    value = 0
                    if board.cells[r][c] is None:
                        line = np.array(ref_line(board, r, c, dr, dc, side), dtype=np.int64)
                        mag, mul = g.cscore(line, 1, np.int64(8))
                        value = mag * 8 + mul if mag else 0
                    out[side, d, r, c] = value
    return out


def makes_five(board: ref.Board, move: ref.Move, side: int) -> bool:
    trial = board.copy()
    trial.to_move = side
    trial.play(move)
    return trial.result() != "ongoing" and trial.result() != "draw"


def ref_candidates(board: ref.Board) -> list[int]:
    """The candidate moves as the kernel documents them, from the reference board."""
    if board.plies == 0:
        return [ref.encode((board.size // 2, board.size // 2))]
    legal = board.legal_moves()
    side = board.to_move
    wins = [m for m in legal if makes_five(board, m, side)]
    if wins:
        return [ref.encode(wins[0])]
    blocks = [m for m in legal if makes_five(board, m, 1 - side)]
    if blocks:
        return [ref.encode(m) for m in blocks]
    return [ref.encode((r, c)) for r, c in legal
            if any(board.cells[r + dr][c + dc] is not None
                   for dr in range(-2, 3) for dc in range(-2, 3)
                   if 0 <= r + dr < board.size and 0 <= c + dc < board.size)]


def random_games(count: int, seed: int, size: int = 9, exact: int = 0):
    """(kernel state, reference board) at every ply of random games played
    mostly on candidate moves, so that fours, blocks and wins occur."""
    rng = np.random.default_rng(seed)
    buf = np.empty((1, KERNEL.max_moves), dtype=np.int64)
    for _ in range(count):
        state = KERNEL.new_state({"size": size, "exact_five": exact})
        board = ref.Board(size, exact)
        while KERNEL.outcome(state) == ONGOING:
            yield state, board
            n = g.gen_candidates(state, buf, 0)
            pool = [int(m) for m in buf[0, :n]] if rng.random() < 0.85 else KERNEL.legal_moves(state)
            move = pool[int(rng.integers(len(pool)))]
            KERNEL.make_move(state, move)
            board.play((move >> 5, move & 31))


def kernel_classes(state: np.ndarray) -> dict[tuple[int, int, int, int], int]:
    n, cells, base = int(state[g.R_SIZE]), int(state[g.R_CELLS]), int(state[g.R_CLS])
    out = {}
    for r in range(n):
        for c in range(n):
            idx = int(g.cell_index(state, r * 32 + c)) - g.GRID
            for d in range(4):
                for side in (0, 1):
                    out[side, d, r, c] = int(state[base + (side * 4 + d) * cells + idx])
    return out


@pytest.mark.slow  # over ~20 s: left out of the quick run
@pytest.mark.parametrize("size,exact", [(9, 0), (9, 1), (15, 0)])
def test_line_classes_candidates_and_key_agree_with_the_reference(size: int, exact: int) -> None:
    buf = np.empty((1, KERNEL.max_moves), dtype=np.int64)
    positions = forced = wins = 0
    for state, board in random_games(5 if size == 9 else 2, 20261122 + size + exact, size, exact):
        classes = ref_classes(board)
        assert kernel_classes(state) == classes
        histo = int(state[g.R_HISTO])
        for side in (0, 1):
            counts = np.bincount([v for (s, *_), v in classes.items() if s == side],
                                 minlength=g.NCLASS)
            assert state[histo + side * g.NCLASS: histo + (side + 1) * g.NCLASS].tolist() == \
                counts.tolist()
        n = g.gen_candidates(state, buf, 0)
        expected = ref_candidates(board)
        assert buf[0, :n].tolist() == expected
        forced += len(expected) < 4 and board.plies > 0
        wins += any(makes_five(board, (m >> 5, m & 31), board.to_move) for m in expected[:1])
        positions += 1
    assert positions > 100 and forced > 5 and wins >= 2  # the forced branches were exercised


def test_move_key_ranks_a_four_above_threes_and_quiet_points() -> None:
    state = KERNEL.new_state()
    # Black h8 i8 j8 k8 (four), White h9 i9 j9: White to move after Black's fourth stone
    for name in "h8 h9 i8 i9 j8 j9 k8".split():
        KERNEL.make_move(state, KERNEL.parse_move(state, name))
    keys = {KERNEL.move_to_str(m): int(g.move_key(state, m)) for m in KERNEL.legal_moves(state)}
    # the points that stop Black's five (and make White's own four) come first
    top = sorted(keys, key=keys.get, reverse=True)[:2]
    assert set(top) == {"g8", "l8"}
    assert keys["g9"] > keys["a1"] and keys["a1"] == 4 * 3  # empty lines: 2 + 1 per direction


def ref_threats(board: ref.Board, weights: dict[str, float], player: int) -> float:
    """The threats evaluation as documented, summed point by point."""
    p = {**hg.THREATS_SPACE.defaults(), **weights}
    mult = {1: p["one"], 2: p["two"], 3: p["three"], 4: p["four"], 5: p["four"]}
    sums = [0.0, 0.0]
    for (side, _d, _r, _c), cls in ref_classes(board).items():
        mag, mul = cls >> 3, cls & 7
        if mag:
            score = min(mul, p["cap"]) ** (1.0 / p["kappa1"]) * mag
            value = score ** p["kappa0"] * mult[mag]
            sums[side] += value * (p["open"] if mag >= 3 and mul >= 2 else 1.0)
    stm = board.to_move
    v = p["to_move"] * sums[stm] - p["waiting"] * sums[1 - stm]
    return v if player == stm else -v


@pytest.mark.slow
def test_threats_evaluation_matches_its_definition() -> None:
    h = get_heuristic("gomoku", "threats")
    rng = np.random.default_rng(5)
    names = hg.THREATS_SPACE.names
    checked = 0
    for i, (state, board) in enumerate(random_games(3, 77, 9)):
        if i % 3:
            continue
        weights = {} if checked % 2 == 0 else {
            n: float(rng.uniform(p.low, p.high)) if n != "cap" else int(rng.integers(1, 6))
            for n, p in zip(names, hg.THREATS_SPACE.params, strict=False)}
        params = h.to_array(weights)
        for player in (0, 1):
            assert h.evaluate(state, params, player) == pytest.approx(
                ref_threats(board, weights, player), rel=1e-9, abs=1e-9)
        checked += 1
    assert checked > 20


@pytest.mark.slow
def test_threats_with_unit_weights_is_the_seeds_total_score_summed() -> None:
    """Every weight 1: a side's sum is the seed's total_score ** kappa0 summed over
    the empty points (the seed's score as a point of the family)."""
    h = get_heuristic("gomoku", "threats")
    unit = {"one": 1.0, "two": 1.0, "three": 1.0, "four": 1.0, "open": 1.0,
            "to_move": 1.0, "waiting": 0.25}
    state = KERNEL.new_state()
    for name in "h8 h9 i9 g7 j10 i8 k8 j8 f6".split():
        KERNEL.make_move(state, KERNEL.parse_move(state, name))
    stm = int(state[0])
    seed_sums = [0.0, 0.0]
    for m in KERNEL.legal_moves(state):
        idx = g.cell_index(state, m)
        for side in (0, 1):
            seed_sums[side] += hg.point_score(state, idx, 1 + side, 1.6, 5.0, np.int64(2)) ** 1.6
    value = h.evaluate(state, h.to_array(unit), stm)
    assert value == pytest.approx(seed_sums[stm] - 0.25 * seed_sums[1 - stm], rel=1e-12)


@pytest.mark.slow
def test_prepare_hook_builds_the_class_table() -> None:
    h = get_heuristic("gomoku", "threats")
    arr = h.to_array({})
    assert arr.shape == (len(hg.THREATS_SPACE.names) + g.NCLASS,)
    assert arr[: len(hg.THREATS_SPACE.names)].tolist() == h.space.to_array({}).tolist()
    # heuristics without the hook read their weights as they are
    seed = get_heuristic("gomoku", "heuristic_score")
    assert seed.to_array({}).tolist() == seed.space.to_array({}).tolist()


@pytest.mark.slow
@pytest.mark.parametrize("setup,expected", [
    ("h8 h9 i8 i9 j8 j9 k8 k9", {"g8", "l8"}),  # Black to move wins at once
    ("h8 h9 i8 i9 j8 j9 k8", {"g8", "l8"}),  # White must block the four (either end)
    ("h8 a1 i8 a3 j8 a5 k9 a7 m10", None),  # quiet: any move, but the search completes
])
def test_candidate_search_wins_and_blocks(setup: str, expected: set[str] | None) -> None:
    engine = Engine(preset("gomoku:ab"))
    state = KERNEL.new_state()
    for name in setup.split():
        KERNEL.make_move(state, KERNEL.parse_move(state, name))
    before = state.copy()
    r = engine.choose(state, seed=3)
    live = KERNEL.live_length(state)
    assert np.array_equal(state[:live], before[:live])
    if expected is not None:
        assert KERNEL.move_to_str(r.move) in expected
        assert r.legal_moves <= 2
    else:
        assert r.depth >= 2 and r.nodes <= 4000 + 500


@pytest.mark.slow
def test_candidates_are_a_subset_of_the_legal_moves_in_the_search() -> None:
    """At depth 1 the best over the candidates is at most the best over every
    point, and it is found with fewer nodes."""
    h = get_heuristic("gomoku", "threats")
    s = Searcher(KERNEL, h)
    params = h.to_array({})
    state = KERNEL.new_state({"size": 9})
    for name in "e5 e6 f5 d4 f6".split():
        KERNEL.make_move(state, KERNEL.parse_move(state, name))
    full = s.search(state, params, depth=1, candidates=False)
    cand = s.search(state, params, depth=1, candidates=True)
    assert cand.legal_moves < full.legal_moves == 76
    assert cand.value <= full.value + 1e-9 and cand.nodes < full.nodes


def test_presets_and_settings() -> None:
    assert preset("gomoku:ab").search.candidates is True
    assert preset("gomoku:seed").search.candidates is False  # the seed agent scans every point
    assert preset("morris:seed").search.candidates is False
    with pytest.raises(HeurtuneError, match="candidates"):
        EngineConfig.from_dict({"game": "gomoku", "heuristic": "threats",
                                "search": {"candidates": "yes"}})
    with pytest.raises(HeurtuneError, match="out of bounds"):
        EngineConfig.from_dict({"game": "gomoku", "heuristic": "threats",
                                "params": {"four": 99.0}})
