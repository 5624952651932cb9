"""Heat maps of the Halma heuristics' per-cell weights, as the seed drew them.

For every cell, the score one piece of player 0 (aiming at p16) contributes there
under the heuristic's per-piece terms (each Halma heuristic's ``cell_weights``
hook, which ``heurtune report`` draws as plotly heat maps): the distance and
near terms, the dead and golden cells, the edge and home tables, the family's
pieces-at-home term (the spread, opponent and straggler terms depend on the
whole position and are left out; terms that do not depend on the pieces, such
as wall_corner's table as the seed's code adds it, drop out). Writes one PNG per
heuristic (the seed's four with their constants, and the tuned family from
``studies/exported/halma.toml``) with plain numpy and zlib, no plotting library:
a 16x16 grid, a1 at the bottom left, blue (low) to red (high), each map scaled
to its own range. Usage:

    python docs/results/halma_heatmaps.py [--out docs/results]
"""

from __future__ import annotations

import argparse
import struct
import zlib
from pathlib import Path

import numpy as np

from heurtune.engine.config import EngineConfig
from heurtune.engine.heuristic import get_heuristic
from heurtune.games.halma import SIZE

CELL_PX = 24


def per_cell(name: str, values: dict[str, float]) -> np.ndarray:
    """Score of one player-0 piece on each cell (the heuristic's ``cell_weights``)."""
    weights = get_heuristic("halma", name).cell_weights
    assert weights is not None
    return weights(values)


def colour(x: float) -> tuple[int, int, int]:
    """Blue (0) through white (0.5) to red (1)."""
    if x < 0.5:
        t = x / 0.5
        return int(40 + 215 * t), int(80 + 175 * t), 255
    t = (x - 0.5) / 0.5
    return 255, int(255 - 200 * t), int(255 - 215 * t)


def write_png(path: Path, grid: np.ndarray) -> None:
    lo, hi = float(grid.min()), float(grid.max())
    norm = (grid - lo) / (hi - lo) if hi > lo else np.full_like(grid, 0.5)
    h = w = SIZE * CELL_PX
    rows = []
    for y in range(h):
        r = SIZE - 1 - y // CELL_PX  # rank 16 at the top
        line = bytearray([0])
        for x in range(w):
            c = x // CELL_PX
            edge = y % CELL_PX == 0 or x % CELL_PX == 0
            line += bytes((90, 90, 90) if edge else colour(float(norm[r, c])))
        rows.append(bytes(line))
    raw = b"".join(rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    path.write_bytes(png)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="docs/results")
    args = ap.parse_args()
    out = Path(args.out)
    tuned = EngineConfig.load("studies/exported/halma.toml")
    maps = {name: per_cell(name, {}) for name in ("distance", "wall_corner", "dispersion",
                                                  "manhattan")}
    maps["wall_corner (intent)"] = per_cell("wall_corner", {"edges_need_piece": 1})
    maps["tuned family"] = per_cell("family", dict(tuned.params))  # whole-position terms left out
    for name, grid in maps.items():
        slug = name.replace(" (intent)", "-intent").replace(" ", "-")
        path = out / f"halma-heatmap-{slug}.png"
        write_png(path, grid)
        print(f"{path}: per-piece score from {grid.min():+.1f} (blue) to {grid.max():+.1f} (red)")


if __name__ == "__main__":
    main()
