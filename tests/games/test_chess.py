"""Chess on python-chess: perft against the published counts, every way a game
ends with its reason, UCI notation, Chess960, opening books (EPD, PGN and their
faults) and PGN records that python-chess reads back."""

from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from heurtune.engine import Engine, preset
from heurtune.engine.conformance import check_game
from heurtune.errors import HeurtuneError
from heurtune.games import DRAW, LOSS, ONGOING, get_game
from heurtune.games.chess import encode
from heurtune.games.perft import perft
from heurtune.match.books import book_path, load_book
from heurtune.match.openings import Opening, random_openings
from heurtune.match.pgn import match_pgn
from heurtune.match.records import pair_records, replay_moves
from heurtune.match.runner import MatchRunner, MatchSpec
from tests.helpers import cli

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# the Chess Programming Wiki's perft results: the start position and "position 2"
START_COUNTS = {1: 20, 2: 400, 3: 8_902, 4: 197_281}
KIWIPETE_COUNTS = {1: 48, 2: 2_039, 3: 97_862}


@pytest.fixture(scope="module")
def kernel():
    return get_game("chess")


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_from_the_start(kernel, depth: int) -> None:
    assert perft(kernel, depth) == START_COUNTS[depth]


@pytest.mark.parametrize("depth", [1, 2])
def test_perft_from_kiwipete(kernel, depth: int) -> None:
    assert perft(kernel, depth, kernel.new_state({}, KIWIPETE)) == KIWIPETE_COUNTS[depth]


@pytest.mark.slow
def test_perft_deeper(kernel) -> None:
    assert perft(kernel, 4) == START_COUNTS[4]
    assert perft(kernel, 3, kernel.new_state({}, KIWIPETE)) == KIWIPETE_COUNTS[3]


def test_perft_command_from_a_position(capsys) -> None:
    code, out, _ = cli(capsys, "perft", "chess", "2", "--position", KIWIPETE)
    assert code == 0 and out.strip() == "2039"


def _play(kernel, start: str, moves: list[str]):
    state = kernel.new_state({}, start)
    for text in moves:
        kernel.make_move(state, kernel.parse_move(state, text))
    return state


@pytest.mark.parametrize("start,moves,result,reason", [
    ("", ["f2f3", "e7e5", "g2g4", "d8h4"], LOSS, "Black won by checkmate"),
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", [], DRAW, "draw by stalemate"),
    ("", ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"], DRAW,
     "draw by threefold repetition"),
    ("8/8/8/4k3/8/8/3K4/7R w - - 99 80", ["h1h2"], DRAW, "draw by fifty-move rule"),
    ("8/8/8/4k3/8/8/3K4/8 w - - 0 1", [], DRAW, "draw by insufficient material"),
    ("8/8/8/4k3/8/8/3K4/6N1 w - - 0 1", [], DRAW, "draw by insufficient material"),
])
def test_every_ending_says_why(kernel, start: str, moves: list[str], result: int,
                               reason: str) -> None:
    state = _play(kernel, start, moves)
    assert kernel.outcome(state) == result
    assert kernel.termination_reason(state) == reason


def test_mate_on_the_hundredth_ply_stands(kernel) -> None:
    # the fifty-move rule would draw, but the move that reaches it mates
    state = _play(kernel, "7k/8/6K1/8/8/8/8/R7 w - - 99 80", ["a1a8"])
    assert kernel.outcome(state) == LOSS
    assert kernel.termination_reason(state) == "White won by checkmate"


def test_uci_notation(kernel) -> None:
    state = kernel.new_state({}, "r3k2r/pPpppppp/8/8/8/8/P1PPPPPP/R3K2R w KQkq - 0 1")
    texts = {kernel.move_to_str(m) for m in kernel.legal_moves(state)}
    assert {"e1g1", "e1c1", "b7a8q", "b7b8n"} <= texts
    assert kernel.parse_move(state, "e1g1") == encode(chess.Move.from_uci("e1g1"))
    with pytest.raises(HeurtuneError, match="illegal or malformed chess move"):
        kernel.parse_move(state, "e1e3")
    with pytest.raises(HeurtuneError):
        kernel.parse_move(state, "zz")
    with pytest.raises(HeurtuneError):  # UCI's null move is no chess move
        kernel.parse_move(state, "0000")
    chess960 = kernel.new_state({"chess960": 1}, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w "
                                                "KQkq - 0 1")
    texts960 = {kernel.move_to_str(m) for m in kernel.legal_moves(chess960)}
    assert "e1h1" in texts960 and "e1g1" not in texts960  # castling: king takes rook


def test_chess960_openings_start_from_its_arrangements(kernel) -> None:
    openings = random_openings(kernel, {"chess960": 1}, 12, 2, seed=3)
    starts = {op.start for op in openings if isinstance(op, Opening)}
    assert len(starts) > 6  # drawn among the 960
    for op in openings:
        board = kernel.new_state({"chess960": 1}, op.start).state
        assert board.chess960 and board.is_valid()
    assert kernel.engine_options({"chess960": 1}) == {"UCI_Chess960": True}
    assert kernel.engine_options({}) == {}


def test_mirror_images_are_the_same_opening(kernel) -> None:
    a = _play(kernel, "", ["e2e4"])
    b = _play(kernel, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", ["e7e5"])
    assert kernel.image_hashes(a) & kernel.image_hashes(b)


def test_conformance_and_impossible_positions(kernel) -> None:
    check_game("chess", rules=({}, {"chess960": 1}), games=4, search_plies=2)
    with pytest.raises(HeurtuneError, match="impossible position"):
        kernel.new_state({}, "8/8/8/8/8/8/8/8 w - - 0 1")
    with pytest.raises(HeurtuneError, match="not a chess position"):
        kernel.new_state({}, "not a fen")


# -- opening books ------------------------------------------------------------------
EPD = """# a comment line, skipped
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 "1.e4"; id "e4";
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2

r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3
"""
PGN = """% an escape line, skipped
[Event "a"]
[Result "*"]

1. d4 d5 2. c4 e6 *

[Event "b"]
[SetUp "1"]
[FEN "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]

2. Nf3 Nc6 *
"""


def test_epd_and_pgn_books(tmp_path: Path) -> None:
    epd = tmp_path / "book.epd"
    epd.write_text(EPD)
    book = load_book(epd, "chess")
    assert len(book) == 3 and book.distinct == 3
    assert [op.source for op in book.openings] == [f"{epd}:2", f"{epd}:3", f"{epd}:5"]
    assert book.openings[0].start.startswith("rnbqkbnr/pppppppp/8/8/4P3/")
    pgn = tmp_path / "book.pgn"
    pgn.write_text(PGN)
    book = load_book(pgn, "chess")
    assert len(book) == 2
    assert book.openings[0].start == "" and len(book.openings[0]) == 4
    assert book.openings[1].start.startswith("rnbqkbnr/pppp1ppp") and len(book.openings[1]) == 2
    assert [op.source.rsplit(":", 1)[1] for op in book.openings] == ["2", "7"]


def test_books_draw_disjoint_openings(tmp_path: Path) -> None:
    epd = tmp_path / "book.epd"
    epd.write_text(EPD)
    book = load_book(epd, "chess")
    first = book.draw({}, 2, seed=1)
    rest = book.draw({}, 1, seed=9, exclude=first)
    assert not set(rest) & set(first)
    with pytest.raises(HeurtuneError, match="holds 3 openings .* needs 2"):
        book.draw({}, 2, seed=9, exclude=first)
    assert len(book.draw({}, 5, seed=1, fewer_ok=True)) == 3


@pytest.mark.parametrize("name,text,message", [
    ("bad.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/ppp/8 w - -\n",
     "bad.epd line 2: not an EPD or FEN position"),
    ("illegal.pgn", '[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 Ke7 *\n',
     "illegal.pgn line 5: game 2: illegal san: 'Ke7'"),
    ("empty.epd", "# nothing but a comment\n\n", "empty.epd: no openings in it"),
    ("over.pgn", '[Event "a"]\n\n1. f3 e5 2. g4 Qh4# *\n', "over.pgn line 1: the game is over"),
    ("impossible.epd", "8/8/8/8/8/8/8/8 w - -\n", "impossible.epd line 1: not a chess position"),
])
def test_malformed_books_are_one_line_naming_the_line(tmp_path: Path, capsys, name: str,
                                                     text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(HeurtuneError, match=message.replace("(", r"\(")):
        load_book(path, "chess")
    code, out, err = cli(capsys, "match", "chess:random", "chess:random", "--pairs", "1",
                         "--openings", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_a_missing_book_and_the_shipped_one(tmp_path: Path) -> None:
    with pytest.raises(HeurtuneError, match="no such file"):
        load_book(tmp_path / "none.epd", "chess")
    with pytest.raises(HeurtuneError, match="no book 'heurtune:nope'"):
        book_path("heurtune:nope")
    shipped = load_book("heurtune:chess-balanced", "chess")
    assert len(shipped) >= 500 and shipped.distinct == len(shipped)
    header = book_path("heurtune:chess-balanced").read_text().splitlines()[0]
    assert header.startswith("# ") and "made by heurtune" in header


def test_a_study_needs_enough_openings_in_its_book(tmp_path: Path, capsys) -> None:
    (tmp_path / "book.epd").write_text(EPD)
    (tmp_path / "s.toml").write_text(
        '[study]\ngame = "chess"\nopponent = "chess:random"\npairs = 2\ntrials = 2\n'
        'sampler = "random"\nopenings = "book.epd"\n[engine]\nheuristic = "material"\n'
        '[engine.search]\nalgorithm = "random"\n[confirm]\npairs = 2\n')
    code, _out, err = cli(capsys, "tune", str(tmp_path / "s.toml"), "--storage",
                          f"sqlite:///{tmp_path / 's.db'}")
    assert code == 2 and err.count("\n") == 1
    assert "opening book book.epd holds 3 distinct openings; the study needs 6" in err
    assert not (tmp_path / "s.db").exists()  # refused before the storage was touched


def test_books_for_other_games_are_lines_of_moves(tmp_path: Path, capsys) -> None:
    path = tmp_path / "iso.txt"
    path.write_text("# two Isolation openings\nd4 c2\na1 g7\n")
    book = load_book(path, "isolation")
    assert [len(op) for op in book.openings] == [2, 2]
    code, out, err = cli(capsys, "positions", "isolation:ab_improved", "--games", "4",
                         "--openings", str(path), "--out", str(tmp_path / "p.npz"))
    assert code == 0, err
    assert f"from {path}" in out and "positions of 4 games" in out
    path.write_text("d4 d4\n")
    with pytest.raises(HeurtuneError, match="iso.txt line 1: ply 2 'd4' is not a legal "
                                            "isolation move there"):
        load_book(path, "isolation")


def test_position_files_need_books_from_the_start(tmp_path: Path, capsys) -> None:
    epd = tmp_path / "book.epd"
    epd.write_text(EPD)
    code, out, err = cli(capsys, "positions", "chess:random", "--games", "2", "--openings",
                         str(epd), "--out", str(tmp_path / "p.npz"))
    assert code == 2 and out == "" and "start from other positions" in err


# -- PGN records ---------------------------------------------------------------------
def test_pgn_records_read_back_with_python_chess(tmp_path: Path) -> None:
    epd = tmp_path / "book.epd"
    epd.write_text(EPD)
    book = load_book(epd, "chess")
    a = preset("chess:material")
    b = preset("chess:random")
    spec = MatchSpec(a, b, 2, seed=4, book=book)
    with MatchRunner(1) as runner:
        result = runner.run(spec, keep_games=True)
    records = pair_records(spec, result.pairs)
    assert all("start" in r for r in records)
    text = match_pgn(spec, result.pairs, records)
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    assert len(games) == 4
    for game, record in zip(games, records, strict=True):
        assert not game.errors
        assert game.headers["White"] == record["players"][0]
        assert game.headers["Result"] == record["result"]
        assert game.headers["FEN"] == record["start"] and game.headers["SetUp"] == "1"
        assert game.headers["TerminationDetails"] == record["termination"]
        assert game.headers["Termination"] == "normal"
        assert game.headers["OpeningSource"].startswith(str(epd))
        board = game.end().board()
        assert [m.uci() for m in game.mainline_moves()] == record["opening"] + record["moves"]
        assert board.is_game_over(claim_draw=True)
        assert replay_moves(record) == [encode(m) for m in game.mainline_moves()]


def test_random_chess_games_end_within_reason(kernel) -> None:
    rng = np.random.default_rng(1)
    state = kernel.new_state({})
    plies = 0
    while kernel.outcome(state) == ONGOING:
        moves = kernel.legal_moves(state)
        kernel.make_move(state, moves[int(rng.integers(len(moves)))])
        plies += 1
    assert plies < 2000 and kernel.termination_reason(state)
    engine = Engine(preset("chess:material"))
    found = engine.choose(kernel.new_state({}, KIWIPETE), seed=1)
    assert found.move in kernel.legal_moves(kernel.new_state({}, KIWIPETE))


def test_a_study_confirms_on_its_own_books_openings(tmp_path: Path, capsys) -> None:
    """The confirmation draws from the book the study tuned on and leaves the study's
    openings out; the book is known by its openings, so a changed comment is the same
    book, and a changed opening is not."""
    epd = tmp_path / "book.epd"
    lines = [line for line in
             load_book("heurtune:chess-balanced", "chess").openings[:12]]
    text = "".join(get_game("chess").new_state({}, op.start).state.epd() + "\n" for op in lines)
    epd.write_text("# twelve openings\n" + text)
    (tmp_path / "s.toml").write_text(
        '[study]\nname = "b"\ngame = "chess"\nopponent = "chess:random"\npairs = 2\ntrials = 2\n'
        'sampler = "random"\nopenings = "book.epd"\n[engine]\nheuristic = "material"\n'
        '[engine.search]\nalgorithm = "random"\n[pruner]\nkind = "none"\n')
    storage = f"sqlite:///{tmp_path / 's.db'}"
    code, _out, err = cli(capsys, "tune", str(tmp_path / "s.toml"), "--storage", storage)
    assert code == 0, err
    epd.write_text("# the same twelve, another header\n" + text)
    code, out, err = cli(capsys, "confirm", "b", "--storage", storage, "--pairs", "3",
                         "--top", "1", "--pgn", str(tmp_path / "c.pgn"))
    assert code == 0, err
    games = []
    handle = io.StringIO((tmp_path / "c.pgn").read_text())
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    tuned = {op.start for op in load_book(epd, "chess").draw({}, 2, seed=0)}
    assert games and all(g.headers["FEN"] not in tuned for g in games)
    epd.write_text("# one opening changed\n" + text.replace(text.splitlines()[0],
                                                           "8/8/8/4k3/8/8/3K4/6NN w - -"))
    code, _out, err = cli(capsys, "confirm", "b", "--storage", storage, "--pairs", "3")
    assert code == 2 and "its openings changed since" in err and err.count("\n") == 1
