"""The conformance check names the promise a game breaks, in one sentence that says
what to fix: tic-tac-toe kept and broken on purpose (tests/games/conformance_games.py),
each broken game failing on its own promise and on no other one first."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from heurtune.engine import conformance
from heurtune.engine.conformance import PROMISES, ConformanceError, check_game
from heurtune.errors import HeurtuneError
from heurtune.games import register_game, unregister_game
from tests.games import conformance_games
from tests.games.conformance_games import PLUGINS
from tests.helpers import ROOT


@pytest.fixture(scope="module", autouse=True)
def broken_games() -> Iterator[None]:
    for name, target in PLUGINS.items():
        register_game(name, target)
    yield
    for name in PLUGINS:
        unregister_game(name)


def broken(name: str, **options: object) -> ConformanceError:
    with pytest.raises(ConformanceError) as info:
        check_game(name, **options)  # type: ignore[arg-type]
    return info.value


@pytest.mark.parametrize("name", ["ttt", "ttt_copied"])
def test_a_game_that_keeps_every_promise_passes(name: str) -> None:
    report = check_game(name)
    assert report.games == 20 and report.plies > 20 * 5 and report.searches > 0


ORDER = ("legal_moves lists the moves of one position in a different order each time "
         r"\(asked again: \[[a-c1-3 .]+\] then \[[a-c1-3 .]+\]\): heurtune's searches and "
         "paired games rely on a fixed order; sort them, or don't shuffle")


@pytest.mark.parametrize("name", ["ttt_shuffled", "ttt_aind"])
def test_a_shuffled_move_list_is_named_before_undo_and_keys(name: str) -> None:
    """The classic AIND Isolation Board: shuffled moves (and, in ttt_aind, a key
    from Python's string hash too); the order is named, not a broken undo."""
    error = broken(name)
    assert error.promise == "fixed-move-order"
    assert re.fullmatch(ORDER, error.sentence), error.sentence
    assert str(error) == f"{name} {{}} game 0 ply 0: {error.sentence} (promise: fixed-move-order)"
    assert (error.game, error.rules, error.game_number, error.ply) == (name, {}, 0, 0)
    assert "undo" not in str(error) and "restore" not in str(error)


def test_a_key_from_pythons_string_hash_is_named() -> None:
    error = broken("ttt_strhash")
    assert error.promise == "key-across-processes"
    assert (error.rules, error.game_number, error.ply) == ({}, 0, 0)
    assert re.fullmatch(
        r"key\(\) differs between processes for one position \(the start position: -?\d+ here, "
        r"-?\d+ in a fresh process\): worker processes share openings and tables by key, so "
        r"build it from the position's numbers \(an int, a tuple, or "
        r"heurtune\.games\.python\.stable_hash\(text\) for a text\), never from Python's "
        r"hash\(\) of a str or bytes, which changes from one process to the next "
        r"\(PYTHONHASHSEED\)", error.sentence), error.sentence


def test_the_aind_board_with_its_order_skipped_fails_on_its_key() -> None:
    error = broken("ttt_aind", skip=("fixed-move-order",))
    assert error.promise == "key-across-processes"


def test_a_reversed_result_sign_is_named() -> None:
    error = broken("ttt_reversed")
    assert error.promise == "result-sign"
    assert error.sentence.startswith(
        "result() must be from the side to move's view: after X's winning move c1, the side "
        "to move (O) has lost, so result() must return LOSS, got WIN (every one of the ")
    assert error.sentence.endswith(
        "moves seen to end a game at once left the side then to move a WIN; a misère game, "
        "whose mover loses by ending it, skips this promise: skip=('result-sign',))")
    assert (error.game_number, error.ply) == (0, 5)


def test_a_misere_game_skips_the_sign() -> None:
    report = check_game("ttt_reversed", games=5, skip=("result-sign",))
    assert report.games == 5


def test_a_broken_undo_is_named() -> None:
    assert str(broken("ttt_badundo")) == (
        "ttt_badundo {} game 0 ply 0: playing and taking back a1 does not restore the position "
        "(key, legal moves differ): undo must reverse everything play changed (or leave undo "
        "out, and heurtune copies positions instead) (promise: undo-restores)")


def test_a_shared_copy_is_named() -> None:
    assert str(broken("ttt_sharedcopy")) == (
        "ttt_sharedcopy {} game 0 ply 0: playing a1 on a copy changed the original position: "
        "copy() must return an independent copy (copy every list, dict or object of the state "
        "that play changes, or keep the default, a deepcopy) (promise: copy-independent)")


def test_two_moves_written_alike_are_named() -> None:
    assert str(broken("ttt_onename")) == (
        "ttt_onename {} game 0 ply 0: moves 0 and 1 are both written 'x': move_to_str must "
        "give each legal move of a position its own notation (promise: distinct-notation)")


KEY = ("key() must depend on the position alone (its pieces and the side to move), not on "
       "the object (id(), object's own hash), caches or the moves that reached it")


def test_a_key_of_the_object_is_named() -> None:
    error = broken("ttt_idkey")
    assert error.promise == "key-equal-positions" and error.ply == 0
    assert re.fullmatch(r"key\(\) differs between a position and its copy \(\d+ then \d+\): "
                        + re.escape(KEY), error.sentence), error.sentence


def test_a_key_that_undo_does_not_restore_is_named() -> None:
    error = broken("ttt_countingkey")
    assert error.promise == "key-equal-positions" and error.ply == 0
    assert re.fullmatch(r"key\(\) differs for one position before and after playing and taking "
                        r"back a1, which the state's __eq__ calls equal \(\d+ then \d+\): "
                        + re.escape(KEY), error.sentence), error.sentence


def test_a_key_of_the_move_order_is_named() -> None:
    error = broken("ttt_historykey")
    assert error.promise == "key-equal-positions" and error.ply == 3
    assert re.fullmatch(r"key\(\) differs for one position reached by two move orders "
                        r"\(\.\.\. \w\d \w\d \w\d and \.\.\. \w\d \w\d \w\d\), which the "
                        r"state's __eq__ calls equal \(-?\d+ then -?\d+\): " + re.escape(KEY),
                        error.sentence), error.sentence


def test_a_failing_search_is_named_with_its_cause() -> None:
    error = broken("ttt_badheuristic")
    assert error.promise == "search-runs" and error.ply == 0
    assert error.sentence == (
        "a search by ttt_badheuristic:lines raised ZeroDivisionError: float division by zero "
        "(the traceback above): every heuristic must evaluate every position a search "
        "reaches, and the game must play and take back every move there")
    assert isinstance(error.__cause__, ZeroDivisionError)


def test_a_game_a_fresh_process_cannot_load_is_named() -> None:
    class OnlyHere(conformance_games.TicTacToe):
        name = "ttt_only_here"

    module = ModuleType("ttt_only_here")  # a module no other process can import
    module.GAME = OnlyHere()  # type: ignore[attr-defined]
    module.HEURISTICS = conformance_games.HEURISTICS  # type: ignore[attr-defined]
    sys.modules["ttt_only_here"] = module
    register_game("ttt_only_here", "ttt_only_here")
    try:
        error = broken("ttt_only_here", games=2)
    finally:
        unregister_game("ttt_only_here")
        del sys.modules["ttt_only_here"]
    assert error.promise == "loads-in-fresh-process"
    assert error.sentence.startswith("a fresh Python process cannot load the game (")
    assert "No module named 'ttt_only_here'" in error.sentence
    assert error.sentence.endswith(
        "): a match plays in worker processes that load the game by its name, so its module "
        "must be importable there (an installed package's entry point, or register_game with "
        "a module on sys.path, not __main__)")


def test_a_broken_promise_is_an_assertion_error_without_heurtunes_frames() -> None:
    """pytest.raises(AssertionError) still catches it, and pytest shows it at the
    caller's line: no frame of the check itself."""
    with pytest.raises(AssertionError) as info:
        check_game("ttt_badundo")
    assert isinstance(info.value, ConformanceError) and info.value.__cause__ is None
    shown = info.traceback.filter(info)
    assert shown and all(str(entry.path) != conformance.__file__ for entry in shown)
    assert len(info.traceback) > len(shown)  # the check's own frames, hidden


def test_skip_names_known_promises() -> None:
    with pytest.raises(HeurtuneError, match="unknown promise 'sign' in skip"):
        check_game("ttt", skip=("sign",))


def test_every_promise_is_documented() -> None:
    guide = (ROOT / "docs" / "your-game.md").read_text()
    section = guide[guide.index("## What the conformance check checks"):]
    doc = conformance.__doc__ or ""
    for name in PROMISES:
        assert f"`{name}`" in section, name
        assert f"``{name}``" in doc, name
