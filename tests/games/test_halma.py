"""Halma: the kernel against the plain-Python reference (tests/reference_halma.py,
written apart from it), perft, notation, symmetry and the seed's distance heuristic."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from heurtune.cli import main
from heurtune.engine.heuristic import heuristics
from heurtune.games import DRAW, LOSS, ONGOING, WIN, get_game
from heurtune.games.halma import BOARD, HIST, PCOUNT, PIECES, PLIST, SYMMETRIES, set_board
from heurtune.games.perft import perft
from tests.games.reference_halma import RefHalma, camp_greedy_move, cell_name, move_name

HALMA = get_game("halma")


def test_perft_from_the_start() -> None:
    state = HALMA.new_state()
    assert [perft(HALMA, d, state) for d in (1, 2, 3)] == [40, 1600, 85440]
    single = HALMA.new_state({"chain_jumps": 0})
    assert perft(HALMA, 3, single) == 77000  # the seed's generator: single jumps only


def _kernel_moves(state: np.ndarray) -> set[tuple[int, int]]:
    return {(m & 255, (m >> 8) & 255) for m in HALMA.legal_moves(state)}


def _kernel_result(state: np.ndarray) -> str:
    code = int(HALMA.outcome(state))
    stm = int(HALMA.side_to_move(state))
    return {ONGOING: "ongoing", DRAW: "draw", WIN: f"win{stm}", LOSS: f"win{1 - stm}"}[code]


def _encode(move: tuple[int, int]) -> int:
    return move[0] | move[1] << 8


def _agree(rules: dict[str, int], choose, seed: int) -> str:
    """Play one game on both, checking moves, board and result at every ply."""
    ref = RefHalma(**rules)
    state = HALMA.new_state(rules)
    rng = random.Random(seed)
    while True:
        result = ref.result()
        assert _kernel_result(state) == result, (rules, seed, ref.ply)
        board = [int(v) - 1 for v in state[BOARD:BOARD + 256]]
        assert board == ref.board
        for side in (0, 1):  # the piece lists the heuristics walk: the board's cells, in order
            assert state[PCOUNT + side] == PIECES
            cells = [c for c in range(256) if board[c] == side]
            assert list(state[PLIST + side * PIECES:PLIST + (side + 1) * PIECES]) == cells
        if result != "ongoing":
            return result
        moves = ref.legal_moves()
        assert _kernel_moves(state) == moves, (rules, seed, ref.ply)
        move = choose(ref, rng)
        ref.play(move)
        HALMA.make_move(state, _encode(move))


def _random(ref: RefHalma, rng: random.Random) -> tuple[int, int]:
    return rng.choice(sorted(ref.legal_moves()))


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{"max_plies": 150}, {"chain_jumps": 0, "max_plies": 150},
                                   {"camp_rule": 1, "max_plies": 100, "adjudicate": 0}])
def test_random_games_agree_with_the_reference(rules: dict[str, int]) -> None:
    results = {_agree(rules, _random, seed) for seed in range(3)}
    assert results <= {"win0", "win1", "draw"}


@pytest.mark.slow  # over ~20 s: left out of the quick run
def test_greedy_games_reach_real_wins_on_both_camp_rules() -> None:
    """Camp-filling wins, the blocked camp that only camp_rule 1 resolves, and the
    ply-limit adjudication all occur (the reference's greedy mover drives them)."""
    seen = []
    for rules, seed in (({}, 1), ({}, 2), ({"camp_rule": 1}, 0), ({}, 0)):
        seen.append((rules.get("camp_rule", 0), seed, _agree(rules, camp_greedy_move, seed)))
    assert ("win1" in {r for _, _, r in seen}) and ("win0" in {r for _, _, r in seen})
    by_key = {(c, s): r for c, s, r in seen}
    assert by_key[(1, 0)] == "win0"  # seed 0 blocks player 0's camp for good under rule 0 ...
    blocked = RefHalma()
    rng = random.Random(0)
    while blocked.result() == "ongoing":
        blocked.play(camp_greedy_move(blocked, rng))
    assert blocked.ply == 1000  # ... so that game only ends at the ply limit


def test_set_board_derives_what_make_move_keeps() -> None:
    """A position rebuilt from its board alone has the same derived fields (piece
    lists, camp counts, distances) and hash as the one reached by moves."""
    rng = random.Random(11)
    ref = RefHalma()
    state = HALMA.new_state()
    for _ in range(41):
        move = _random(ref, rng)
        ref.play(move)
        HALMA.make_move(state, _encode(move))
    rebuilt = state.copy()
    set_board(rebuilt, np.array(ref.board))
    assert (rebuilt[:HIST] == state[:HIST]).all()
    with pytest.raises(ValueError):
        set_board(rebuilt, np.zeros(256, dtype=np.int64))  # 256 pieces of side 0


def test_notation_matches_the_reference() -> None:
    state = HALMA.new_state()
    for m in HALMA.legal_moves(state):
        frm, to = m & 255, (m >> 8) & 255
        assert HALMA.move_to_str(m) == move_name((frm, to))
        assert HALMA.parse_move(state, move_name((frm, to))) == m
    assert cell_name(0) == "a1" and cell_name(255) == "p16"
    assert {"e1-f1", "c3-d4"} <= {HALMA.move_to_str(m) for m in HALMA.legal_moves(state)}


def test_the_diagonal_mirror_is_a_symmetry() -> None:
    rng = random.Random(4)
    perm = SYMMETRIES[1]
    for _ in range(10):
        ref = RefHalma(max_plies=400)
        state = HALMA.new_state()
        mirror = HALMA.new_state()
        for _ in range(rng.randrange(1, 30)):
            move = _random(ref, rng)
            ref.play(move)
            HALMA.make_move(state, _encode(move))
            image = (perm[move[0]], perm[move[1]])
            assert _encode(image) in HALMA.legal_moves(mirror)
            HALMA.make_move(mirror, _encode(image))
        assert set(HALMA.symmetry_hashes(state)) == {int(state[2]), int(mirror[2])}


def _seed_distance(board: list[int], player: int) -> float:
    """The seed's distance_heuristic, transcribed: its player 1 is our player 0
    (target (15, 15)), its board[x][y] is our (row x, col y)."""
    target = (15, 15) if player == 0 else (0, 0)
    dead = (12, 12) if player == 0 else (3, 3)
    golden = ({(11, 15), (11, 14), (13, 13), (15, 11), (14, 11)} if player == 0
              else {(0, 4), (1, 4), (2, 2), (4, 0), (4, 1)})
    score = 0.0
    for x in range(16):
        for y in range(16):
            if board[x * 16 + y] == player:
                dx, dy = x - target[0], y - target[1]
                distance = math.sqrt(dx * dx + dy * dy)
                score += 22 - distance
                if distance <= 4:
                    score += 5
                if (x, y) == dead:
                    score -= 20
                if (x, y) in golden:
                    score += 15
    return score


# The seed's tables, as its code writes them for its player 1 (our player 0) and
# player 2 (our player 1), in its (x, y) = our (row, col).
SEED_EDGES = ({(11, 14): 9, (11, 15): 4, (12, 15): 4, (13, 15): 5, (14, 15): 6, (15, 15): 10,
               (15, 14): 6, (15, 13): 5, (15, 12): 4, (15, 11): 4, (14, 11): 9},
              {(1, 0): 6, (2, 0): 5, (3, 0): 4, (4, 0): 4, (4, 1): 9, (0, 0): 10, (0, 1): 6,
               (0, 2): 5, (0, 3): 4, (0, 4): 4, (1, 4): 9})
SEED_HOME = ({(0, 0): 10, (0, 1): 8, (0, 2): 6, (0, 3): 4, (0, 4): 2, (1, 0): 8, (1, 1): 6,
              (1, 2): 4, (1, 3): 2, (1, 4): 1, (2, 0): 6, (2, 1): 4, (2, 2): 2, (2, 3): 1,
              (3, 0): 4, (3, 1): 2, (3, 2): 1, (4, 0): 2, (4, 1): 1},
             {(11, 14): 1, (11, 15): 2, (12, 13): 1, (12, 14): 2, (12, 15): 4, (13, 12): 1,
              (13, 13): 2, (13, 14): 4, (13, 15): 6, (14, 11): 1, (14, 12): 2, (14, 13): 4,
              (14, 14): 6, (14, 15): 8, (15, 11): 2, (15, 12): 4, (15, 13): 6, (15, 14): 8,
              (15, 15): 10})


def _seed_wall_corner(board: list[int], player: int) -> float:
    tx, ty = (15, 15) if player == 0 else (0, 0)
    edges = SEED_EDGES[player]
    score = 0.0
    for x in range(16):
        for y in range(16):
            if board[x * 16 + y] == player:
                score += 22 - math.sqrt((x - tx) ** 2 + (y - ty) ** 2)
            if (x, y) in edges:  # (the seed's code: whether or not a piece is there)
                score += edges[(x, y)]
    return score


def _seed_dispersion(board: list[int], player: int) -> float:
    target = (15, 15) if player == 0 else (0, 0)
    dead = (12, 12) if player == 0 else (3, 3)
    golden = ({(11, 15), (11, 14), (13, 13), (15, 11), (14, 11)} if player == 0
              else {(0, 4), (1, 4), (2, 2), (4, 0), (4, 1)})
    penalty = SEED_HOME[player]
    cx = cy = 0.0
    count = 0
    progression = 0.0
    for y in range(16):
        for x in range(16):
            if board[x * 16 + y] == player:
                distance = math.sqrt((x - target[0]) ** 2 + (y - target[1]) ** 2)
                progression += 22 - distance
                if distance <= 4:
                    progression += 5
                if (x, y) == dead:
                    progression -= 20
                if (x, y) in golden:
                    progression += 15
                if (x, y) in penalty:
                    progression -= penalty[(x, y)]
                cx += x
                cy += y
                count += 1
    if count > 0:
        cx /= count
        cy /= count
    dispersion = 0.0
    for y in range(16):
        for x in range(16):
            if board[x * 16 + y] == player:
                dispersion += math.sqrt((x - cx) ** 2 + (y - cy) ** 2)
    return progression * 0.6 + dispersion * 0.4


def _seed_manhattan(board: list[int], player: int) -> float:
    target = (15, 15) if player == 0 else (0, 0)
    dead = [(10, 15), (15, 10)] if player == 0 else [(0, 5), (5, 0)]
    penalty = SEED_HOME[player]
    score = 0.0
    for y in range(16):
        for x in range(16):
            distance = abs(x - target[0]) + abs(y - target[1])
            if board[x * 16 + y] == player:
                score -= distance
                if distance <= 5:
                    score += 10
                if (x, y) in dead:
                    score -= 10
                if (x, y) in penalty:
                    score -= penalty[(x, y)]
    return score


SEED_FORMULAS = {"distance": _seed_distance, "wall_corner": _seed_wall_corner,
                 "dispersion": _seed_dispersion, "manhattan": _seed_manhattan}


@pytest.mark.slow  # over ~20 s: left out of the quick run
@pytest.mark.parametrize("name", sorted(SEED_FORMULAS))
def test_seed_heuristics_reproduce_the_seed_on_random_positions(name: str) -> None:
    h = heuristics("halma")[name]
    params = h.to_array({})
    rng = random.Random(9)
    checked = 0
    for seed in range(4):
        ref = RefHalma()
        state = HALMA.new_state()
        while ref.result() == "ongoing" and ref.ply < 200:
            move = camp_greedy_move(ref, rng) if seed % 2 else _random(ref, rng)
            ref.play(move)
            HALMA.make_move(state, _encode(move))
            if ref.ply % 5 == 0:
                for player in (0, 1):
                    got = h.evaluate(state, params, player)
                    want = SEED_FORMULAS[name](ref.board, player)
                    assert got == pytest.approx(want, rel=1e-12, abs=1e-9)
                    checked += 1
    assert checked > 100


@pytest.mark.slow
def test_wall_corner_as_intended_scores_edges_only_under_own_pieces() -> None:
    h = heuristics("halma")["wall_corner"]
    state = HALMA.new_state()
    as_coded = h.evaluate(state, h.to_array({}), 0)
    intended = h.evaluate(state, h.to_array({"edges_need_piece": 1}), 0)
    assert as_coded - intended == pytest.approx(sum(SEED_EDGES[0].values()))  # none reached yet


@pytest.mark.slow
def test_cli_perft_and_a_match(capsys) -> None:
    assert main(["perft", "halma", "2"]) == 0
    assert capsys.readouterr().out.strip() == "1600"
    assert main(["perft", "halma", "1", "--rule", "chain_jumps=2"]) == 2
    assert "chain_jumps" in capsys.readouterr().err


@pytest.mark.slow
def test_the_family_defaults_are_distance_and_its_terms_move_the_score() -> None:
    hs = heuristics("halma")
    fam, dist = hs["family"], hs["distance"]
    rng = random.Random(3)
    ref = RefHalma()
    state = HALMA.new_state()
    for _ in range(60):
        move = _random(ref, rng)
        ref.play(move)
        HALMA.make_move(state, _encode(move))
    for player in (0, 1):
        same = fam.evaluate(state, fam.to_array({}), player)
        assert same == pytest.approx(dist.evaluate(state, dist.to_array({}), player))
        # the opponent term subtracts the opponent's distance score
        opp = dist.evaluate(state, dist.to_array({}), 1 - player)
        with_opp = fam.evaluate(state, fam.to_array({"opponent": 0.5}), player)
        assert with_opp == pytest.approx(same - 0.5 * opp)
        # the at_home term counts own pieces still in the home camp
        home = sum(1 for c in range(256) if ref.board[c] == player
                   and (c // 16 < 5 if player == 0 else c // 16 > 10)
                   and (c in {r * 16 + k for r, w in enumerate((5, 5, 4, 3, 2)) for k in range(w)}
                        if player == 0 else
                        c in {255 - (r * 16 + k) for r, w in enumerate((5, 5, 4, 3, 2))
                              for k in range(w)}))
        with_home = fam.evaluate(state, fam.to_array({"at_home": 2.0}), player)
        assert with_home == pytest.approx(same - 2.0 * home)
