"""Fixtures shared by the sampler tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from heurtune.match.oracle import oracle_game


@pytest.fixture
def oracle() -> Iterator[None]:
    """The simulated oracle registered as a game for the test (and gone after)."""
    with oracle_game():
        yield
