"""Search (one implementation, specialised per game), heuristics and their parameters.

The face of the layer: engine configurations (presets and engine files), the
heuristic contracts (numba and plain Python) and their parameter spaces, the
engine that plays a move (compiled search, plain-Python search, or an engine
in another process).
The search kernel itself is :mod:`heurtune.engine.search`; speed measurement
is :mod:`heurtune.engine.bench`.
"""

from heurtune.engine.config import (
    EngineConfig,
    SearchSettings,
    preset,
    presets,
    resolve_engine,
    search_defaults,
)

# (``heuristics``, the function listing a game's, stays in heurtune.engine.heuristic:
# the name is this package's sub-package of heuristic modules)
from heurtune.engine.heuristic import Heuristic, PythonHeuristic, get_heuristic
from heurtune.engine.params import (
    CategoricalParam,
    FloatParam,
    IntParam,
    Param,
    ParamSpace,
    Value,
)
from heurtune.engine.player import Engine
from heurtune.engine.process import EngineFault, ProcessSpec
from heurtune.engine.pysearch import PySearcher
from heurtune.engine.search import MAX_PLY

__all__ = [
    "MAX_PLY",
    "CategoricalParam",
    "Engine",
    "EngineConfig",
    "EngineFault",
    "FloatParam",
    "Heuristic",
    "IntParam",
    "Param",
    "ParamSpace",
    "ProcessSpec",
    "PySearcher",
    "PythonHeuristic",
    "SearchSettings",
    "Value",
    "get_heuristic",
    "preset",
    "presets",
    "resolve_engine",
    "search_defaults",
]
