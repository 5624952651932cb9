"""Every heuristic's compiled search survives a reload from numba's cache.

numba's cache crashes (segfault) when it reloads a recursive function compiled
with more than one signature (numba #6713); the search and some heuristics are
recursive. Two fresh processes play each heuristic's search: the first
compiles (or loads) it, the second must load it from the cache and agree. In
the full suite it runs last, so the first mostly loads what the other tests
compiled; the second loads all of it either way, which is what is tested.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = r"""
import json
from heurtune.engine.heuristic import heuristics
from heurtune.engine.search import Searcher
from heurtune.games import PythonKernel, game_entry, game_names, get_game, ONGOING

out = {}
for game in game_names():
    if not game_entry(game).target.startswith("heurtune."):
        continue  # a plugin game installed beside heurtune: nothing compiled
    k = get_game(game)
    if isinstance(k, PythonKernel):
        continue  # a game in plain Python (chess): no compiled search to reload
    for name, h in heuristics(game).items():
        s = Searcher(k, h)
        params = h.to_array({})
        # the largest-valued params exercise every feature (e.g. recursive helpers)
        big = {p.name: p.high for p in h.space.params if hasattr(p, "high")}
        hi = h.to_array(big)
        state = k.new_state()
        moves = []
        for i in range(60):  # a whole game: Isolation reaches separated endgames
            if k.outcome(state) != ONGOING:
                break
            r = s.search(state, hi if i % 2 else params, depth=3, seed=i)
            k.make_move(state, r.move)
            moves.append(r.move)
        r = s.search(state, params, algorithm="minimax", depth=2) if k.outcome(state) == ONGOING else None
        out[f"{game}:{name}"] = moves
print(json.dumps(out))
"""


def _run() -> dict[str, list[int]]:
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          check=False, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow  # over ~20 s from a cold cache: left out of the quick run
@pytest.mark.last  # run last, it loads what the other tests compiled (tests/conftest.py)
def test_every_heuristic_reloads_from_the_cache() -> None:
    first = _run()
    second = _run()  # everything now comes from the cache
    assert first == second
    assert len(first) >= 10


def test_heurtune_functions_use_the_package_wide_stamp(tmp_path) -> None:
    import shutil

    from heurtune import _numba_cache
    from heurtune.engine.heuristics.isolation import evaluate_open
    from heurtune.games.morris import gen_moves

    for fn in (evaluate_open, gen_moves):
        locator = fn._cache._impl.locator
        assert isinstance(locator, _numba_cache.HeurtuneCacheLocator)
        assert locator.get_source_stamp() == _numba_cache.DIGEST
    # editing any file (here: a kernel constant) changes the stamp of every function
    copy = tmp_path / "heurtune"
    shutil.copytree(_numba_cache.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _numba_cache.package_digest(copy)
    kernel = copy / "games" / "isolation.py"
    kernel.write_text(kernel.read_text().replace("HIST = 8", "HIST = 9"))
    assert _numba_cache.package_digest(copy) != before
    # the layers above engine hold no compiled code: editing them recompiles nothing
    cli = copy / "cli.py" if (copy / "cli.py").exists() else copy / "cli" / "__init__.py"
    after_kernel = _numba_cache.package_digest(copy)
    cli.write_text(cli.read_text() + "\n# an edit\n")
    (copy / "tuning" / "__init__.py").write_text("# an edit\n")
    assert _numba_cache.package_digest(copy) == after_kernel
