"""heurtune: tune game-AI evaluation heuristics by self-play with Optuna.

Layers, each importing only those below it::

    cli -> tuning -> match -> engine -> games

``games`` holds numba rules kernels, ``engine`` the one search implementation
(specialised per game and heuristic) with heuristics and their parameter
spaces, ``match`` paired self-play and statistics, and ``tuning`` everything
that touches Optuna.
"""

__version__ = "0.3.0"

from heurtune import _numba_cache
from heurtune.errors import HeurtuneError

_numba_cache.install()  # before any submodule jits a function

__all__ = ["HeurtuneError", "__version__"]
