"""The example plugin packages of ``examples/``, registered for these tests
without installing them (CI also installs them and runs them as a user would)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from heurtune.games import register_game, unregister_game
from tests.helpers import ROOT

EXAMPLES = ROOT / "examples"
PLUGINS = {"pyisolation": ("isolation-python", "heurtune_pyisolation"),
           "connect4": ("connect4", "heurtune_connect4")}


def use_plugin(game: str) -> None:
    folder, module = PLUGINS[game]
    src = str(EXAMPLES / folder / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    register_game(game, module)


@pytest.fixture(scope="session", autouse=True)
def example_plugins() -> Iterator[None]:
    for game in PLUGINS:
        use_plugin(game)
    yield
    for game in PLUGINS:
        unregister_game(game)
