"""A plain-Python plugin game (Connect Four) through the positions road: its games
become a position file (quiet lines by its plain-Python search), the evaluator's
values are its heuristic's own on the replayed states, and a positions study on it
lowers the loss and confirms by games, like the built-in games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest

from heurtune.engine import EngineConfig
from heurtune.engine.batch import PositionEvaluator
from heurtune.games import get_game
from heurtune.match.positions import load_positions
from heurtune.tuning.study import schema
from tests.helpers import cli

pytestmark = pytest.mark.slow  # left out of the quick run


def test_connect4_positions_and_a_study_on_them(tmp_path: Path, capsys: Any,
                                                 study_file: Any) -> None:
    out = tmp_path / "c4.npz"
    code, text, err = cli(capsys, "positions", "connect4:weak", "--opponent", "connect4:random",
                          "--games", "8", "--seed", "2", "--quiet", "--out", str(out))
    assert code == 0, err
    s = load_positions(out, "connect4")
    assert s.games == 8 and s.extra.size > 0
    kernel = get_game("connect4")
    h = EngineConfig(game="connect4", heuristic="lines").heuristic_obj
    params = h.to_array()
    values = dict(h.space.defaults())
    boxes = [s.state(i) for i in range(s.size)]
    mine = np.array([h.evaluate(b.state, int(kernel.side_to_move(b)), values) for b in boxes])
    theirs = np.array([h.evaluate(b.state, 1 - int(kernel.side_to_move(b)), values)
                       for b in boxes])
    assert np.allclose(PositionEvaluator(kernel, h, s.rules, s.arrays())(params), mine)
    both = PositionEvaluator(kernel, h, s.rules, s.arrays(), difference=True)
    assert np.allclose(both(params), mine - theirs)

    url = f"sqlite:///{tmp_path / 's.db'}"
    sf = study_file("c4", study={"game": "connect4", "opponent": "connect4:random",
                                 "objective": "positions", "positions": str(out),
                                 "trials": 6, "sampler": "lbfgs"},
                    engine={"heuristic": "lines"}, search={"algorithm": "alphabeta", "depth": 2},
                    confirm={"top": 1, "pairs": 2, "check_pairs": 2})
    code, text, err = cli(capsys, "tune", str(sf), "--storage", url)
    assert code == 0, err
    study = optuna.load_study(study_name="c4", storage=url)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert min(t.values[0] for t in done) < done[0].values[0]  # the loss fell
    assert schema.CONFIRMATION in study.user_attrs  # confirmed by games


def test_a_damaged_plain_python_position_file_is_refused(tmp_path: Path) -> None:
    """Moves are checked against the game when the file is read, replayed in
    Python for a plain-Python game as in numba for a kernel."""
    import dataclasses

    import pytest

    from heurtune.errors import HeurtuneError
    from heurtune.match.positions import sample_positions
    from tests.match.test_positions import random_lines

    s = sample_positions("connect4", {}, random_lines("connect4", 3, 5), seed=1)
    s.save(tmp_path / "good.npz")
    assert load_positions(tmp_path / "good.npz", "connect4").games == 3
    for value in (7, -1, 10**6):  # columns are 0 to 6
        moves = s.moves.copy()
        moves[int(s.game_start[1]) + 2] = value
        dataclasses.replace(s, moves=moves).save(tmp_path / "bad.npz")
        with pytest.raises(HeurtuneError, match=rf"bad.npz: connect4 game 1, ply 3: move "
                                                rf"{value} is not a legal connect4 move there"):
            load_positions(tmp_path / "bad.npz")
