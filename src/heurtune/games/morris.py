"""Nine Men's Morris rules kernel (bitboards over 24 points).

Points are numbered 0..23 in the order of :data:`POINTS` (a1, a4, a7, b2, ...);
a player's stones are one 24-bit mask.

Rules (defaults follow the seed tournaments):

* White places first; each side places 9 stones, then slides a stone to an
  adjacent empty point. With ``flying`` on, a side with exactly 3 stones on the
  board and none left to place may move a stone to any empty point.
* A move that closes a mill also removes one opponent stone (part of the same
  move). Stones in mills are protected unless every opponent stone on the board
  is in a mill. With ``double_removal`` on, closing two mills at once removes
  two stones (the seeds' behaviour).
* A side with fewer than 3 stones (board plus stash) loses; the side to move
  with no legal move loses.
* Draws: ``max_plies`` plies in all, a position occurring for the
  ``repetition_limit``-th time, or ``no_removal_limit`` plies without a removal
  once both sides have placed all their stones.

Move encoding (int64): ``from | to << 5 | remove1 << 10 | remove2 << 15`` with
31 meaning "none" (``from`` is none for a placement).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np
from numba import njit

from heurtune.games.base import (
    DRAW,
    EMPTY_CELL,
    HASH,
    HEADER,
    LOSS,
    NO_CELL,
    ONGOING,
    PLY,
    STM,
    UNFINISHED,
    GameKernel,
    RuleOption,
)
from heurtune.games.bits import lsb, permute_mask, popcount

POINTS = (
    "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7"
).split()
NONE = 31
FULL = (1 << 24) - 1
MAX_STONES = 9


def _geometry() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mills (16 masks), per-point adjacency masks and per-point mill indices."""
    coords = [(ord(p[0]) - ord("a"), int(p[1])) for p in POINTS]
    lines: list[list[int]] = []
    for axis in (0, 1):
        for value in range(8):
            pts = sorted(
                (i for i, c in enumerate(coords) if c[axis] == value),
                key=lambda i: coords[i][1 - axis],
            )
            if len(pts) == 6:  # the d-file and the 4th rank are split by the centre
                lines += [pts[:3], pts[3:]]
            elif pts:
                lines.append(pts)
    mills = np.array([sum(1 << p for p in line) for line in lines], dtype=np.int64)
    adj = np.zeros(24, dtype=np.int64)
    point_mills = np.zeros((24, 2), dtype=np.int64)
    seen = np.zeros(24, dtype=np.int64)
    for m, line in enumerate(lines):
        for a, b in zip(line, line[1:], strict=False):
            adj[a] |= 1 << b
            adj[b] |= 1 << a
        for p in line:
            point_mills[p, seen[p]] = m
            seen[p] += 1
    assert len(lines) == 16 and bin(int(np.bitwise_or.reduce(mills))).count("1") == 24
    return mills, adj, point_mills


MILLS, ADJ, POINT_MILLS = _geometry()


def _byte_tables() -> tuple[np.ndarray, np.ndarray]:
    """Lookup tables indexed by one byte of a 24-point stone mask.

    ``LANES[k, b]``: the stones of byte ``k`` with value ``b`` as three 16-bit
    lanes, bit ``j`` of lane ``i`` (bit ``16 * i + j``) set when the ``i``-th point
    of mill ``j`` holds a stone; so all 16 mills are counted with a few bit
    operations instead of a loop. ``NEIGHBOURS[k, b]``: the union of the
    adjacent points of those stones.
    """
    lanes = np.zeros((3, 256), dtype=np.int64)
    neighbours = np.zeros((3, 256), dtype=np.int64)
    slot = {}
    for j, m in enumerate(MILLS):
        for i, p in enumerate(q for q in range(24) if int(m) >> q & 1):
            slot[(p, j)] = 16 * i + j
    for k in range(3):
        for b in range(256):
            for bit in range(8):
                if b >> bit & 1:
                    p = 8 * k + bit
                    neighbours[k, b] |= ADJ[p]
                    for j in POINT_MILLS[p]:
                        lanes[k, b] |= 1 << slot[(p, int(j))]
    return lanes, neighbours


LANES, NEIGHBOURS = _byte_tables()
LANE = 0xFFFF

# state layout: the common header (STM, PLY, HASH), then
BB = HEADER  # BB + side: stones of white (0) / black (1)
STASH = BB + 2  # STASH + side
QUIET = STASH + 2  # plies without a removal once both stashes are empty
R_FLY = 8
R_DOUBLE = 9
R_MAXPLY = 10
R_REPS = 11
R_QUIET = 12
HIST = 16  # per ply: hash and quiet counter before the move

_rng = np.random.default_rng(0x4D6F72726973)
Z_POINT = _rng.integers(-(2**63), 2**63 - 1, size=(2, 24), dtype=np.int64)
Z_STASH = _rng.integers(-(2**63), 2**63 - 1, size=(2, MAX_STONES + 1), dtype=np.int64)
Z_STM = np.int64(_rng.integers(-(2**63), 2**63 - 1, dtype=np.int64))


def new_state(rules: Mapping[str, int]) -> np.ndarray:
    """The empty board, white to move, 9 stones in each stash."""
    max_plies = int(rules["max_plies"])
    s = np.zeros(HIST + 2 * (max_plies + 2), dtype=np.int64)
    s[STASH] = s[STASH + 1] = MAX_STONES
    s[R_FLY] = rules["flying"]
    s[R_DOUBLE] = rules["double_removal"]
    s[R_MAXPLY] = max_plies
    s[R_REPS] = rules["repetition_limit"]
    s[R_QUIET] = rules["no_removal_limit"]
    s[HASH] = Z_STASH[0, MAX_STONES] ^ Z_STASH[1, MAX_STONES]
    return s


@njit(cache=True, nogil=True, error_model="numpy")
def lanes(bb: int) -> int:
    """``bb`` as three 16-bit lanes, one bit per mill (see :data:`LANES`)."""
    return LANES[0, bb & 255] | LANES[1, (bb >> 8) & 255] | LANES[2, (bb >> 16) & 255]  # type: ignore[no-any-return]


@njit(cache=True, nogil=True, error_model="numpy")
def neighbours(bb: int) -> int:
    """Points adjacent to any stone of ``bb``."""
    return NEIGHBOURS[0, bb & 255] | NEIGHBOURS[1, (bb >> 8) & 255] | NEIGHBOURS[2, (bb >> 16) & 255]  # type: ignore[no-any-return]  # noqa: E501


@njit(cache=True, nogil=True, error_model="numpy")
def closed_mill_bits(bb: int) -> int:
    """Bit ``j`` set when ``bb`` holds all three points of mill ``j``."""
    a = lanes(bb)
    return a & (a >> 16) & (a >> 32) & LANE


@njit(cache=True, nogil=True, error_model="numpy")
def mill_counts(own: int, opp: int) -> tuple[int, int]:
    """(closed mills of ``own``, mills with two ``own`` stones and one empty point)."""
    a = lanes(own)
    x, y, z = a & LANE, (a >> 16) & LANE, a >> 32
    o = lanes(opp)
    free = ~(o | (o >> 16) | (o >> 32)) & LANE  # mills without an opponent stone
    three = x & y & z
    two = ((x & y) | (y & z) | (x & z)) & ~three
    return popcount(three), popcount(two & free)


@njit(cache=True, nogil=True, error_model="numpy")
def mills_mask(bb: int) -> int:
    """Union of the complete mills of ``bb``."""
    out = 0
    closed = closed_mill_bits(bb)
    while closed:
        out |= MILLS[lsb(closed)]
        closed &= closed - 1
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def closed_mills(bb: int, point: int) -> int:
    """Number of mills of ``bb`` that run through ``point`` (0, 1 or 2)."""
    k = 0
    for j in range(2):
        m = MILLS[POINT_MILLS[point, j]]
        if bb & m == m:
            k += 1
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def removable(opp: int) -> int:
    """Opponent stones that may be removed: those outside mills, else all."""
    free = opp & ~mills_mask(opp)
    return free if free != 0 else opp


@njit(cache=True, nogil=True, error_model="numpy")
def _emit(out, row, n, frm, to, own_after, opp, double):
    base = frm | (to << 5)
    k = closed_mills(own_after, to)
    if k == 0 or opp == 0:
        out[row, n] = base | (NONE << 10) | (NONE << 15)
        return n + 1
    rem = removable(opp)
    if k == 1 or double == 0 or popcount(opp) == 1:
        while rem:
            r = lsb(rem)
            rem &= rem - 1
            out[row, n] = base | (r << 10) | (NONE << 15)
            n += 1
        return n
    # two mills closed, two removals: unordered pairs reachable in either order
    start = n
    while rem:
        r1 = lsb(rem)
        rem &= rem - 1
        rem2 = removable(opp & ~(1 << r1))
        while rem2:
            r2 = lsb(rem2)
            rem2 &= rem2 - 1
            lo, hi = min(r1, r2), max(r1, r2)
            code = base | (lo << 10) | (hi << 15)
            dup = False
            for i in range(start, n):
                if out[row, i] == code:
                    dup = True
                    break
            if not dup:
                out[row, n] = code
                n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def gen_moves(state, out, row):
    """Write the legal moves of the side to move into ``out[row]``; return their number."""
    s = state[STM]
    own = state[BB + s]
    opp = state[BB + 1 - s]
    empty = FULL & ~(own | opp)
    double = state[R_DOUBLE]
    n = 0
    if state[STASH + s] > 0:
        e = empty
        while e:
            to = lsb(e)
            e &= e - 1
            n = _emit(out, row, n, NONE, to, own | (1 << to), opp, double)
        return n
    fly = state[R_FLY] != 0 and popcount(own) == 3
    src = own
    while src:
        frm = lsb(src)
        src &= src - 1
        dst = empty if fly else ADJ[frm] & empty
        while dst:
            to = lsb(dst)
            dst &= dst - 1
            n = _emit(out, row, n, frm, to, (own & ~(1 << frm)) | (1 << to), opp, double)
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def make_move(state, move):
    """Play ``move`` in place."""
    s = state[STM]
    o = 1 - s
    ply = state[PLY]
    state[HIST + 2 * ply] = state[HASH]
    state[HIST + 2 * ply + 1] = state[QUIET]
    h = state[HASH]
    frm = move & 31
    to = (move >> 5) & 31
    r1 = (move >> 10) & 31
    r2 = (move >> 15) & 31
    if frm == NONE:
        k = state[STASH + s]
        h ^= Z_STASH[s, k] ^ Z_STASH[s, k - 1]
        state[STASH + s] = k - 1
    else:
        state[BB + s] ^= 1 << frm
        h ^= Z_POINT[s, frm]
    state[BB + s] |= 1 << to
    h ^= Z_POINT[s, to]
    if r1 != NONE:
        state[BB + o] ^= 1 << r1
        h ^= Z_POINT[o, r1]
        if r2 != NONE:
            state[BB + o] ^= 1 << r2
            h ^= Z_POINT[o, r2]
        state[QUIET] = 0
    elif state[STASH] == 0 and state[STASH + 1] == 0:
        state[QUIET] += 1
    state[STM] = o
    state[HASH] = h ^ Z_STM
    state[PLY] = ply + 1


@njit(cache=True, nogil=True, error_model="numpy")
def unmake_move(state, move):
    """Take back ``move``, the last move played."""
    o = state[STM]
    s = 1 - o
    ply = state[PLY] - 1
    frm = move & 31
    to = (move >> 5) & 31
    r1 = (move >> 10) & 31
    r2 = (move >> 15) & 31
    state[BB + s] ^= 1 << to
    if frm == NONE:
        state[STASH + s] += 1
    else:
        state[BB + s] |= 1 << frm
    if r1 != NONE:
        state[BB + o] |= 1 << r1
        if r2 != NONE:
            state[BB + o] |= 1 << r2
    state[STM] = s
    state[PLY] = ply
    state[HASH] = state[HIST + 2 * ply]
    state[QUIET] = state[HIST + 2 * ply + 1]


@njit(cache=True, nogil=True, error_model="numpy")
def has_moves(state) -> bool:
    """Whether the side to move has a legal move (cheaper than generating them)."""
    s = state[STM]
    own = state[BB + s]
    empty = FULL & ~(own | state[BB + 1 - s])
    if state[STASH + s] > 0 or (state[R_FLY] != 0 and popcount(own) == 3):
        return empty != 0  # type: ignore[no-any-return]
    return neighbours(own) & empty != 0  # type: ignore[no-any-return]


@njit(cache=True, nogil=True, error_model="numpy")
def outcome(state) -> int:
    """ONGOING, or the result for the side to move."""
    s = state[STM]
    if popcount(state[BB + s]) + state[STASH + s] < 3:
        return LOSS
    if not has_moves(state):
        return LOSS
    ply = state[PLY]
    if ply >= state[R_MAXPLY]:
        return DRAW
    quiet = state[QUIET]
    if quiet >= state[R_QUIET]:
        return DRAW
    reps = state[R_REPS]
    # a position recurs at the earliest 4 plies later (both sides move away and
    # back), so its reps-th occurrence needs 4 * (reps - 1) quiet plies
    if quiet < 4 * (reps - 1):
        return ONGOING
    h = state[HASH]
    seen = 1
    p = ply - 4
    while p >= ply - quiet:
        if state[HIST + 2 * p] == h:
            seen += 1
        p -= 2
    if seen >= reps:
        return DRAW
    return ONGOING


def hash_from_scratch(state: np.ndarray) -> int:
    """Zobrist hash of the stones, both stashes and the side to move."""
    h = int(Z_STASH[0, int(state[STASH])]) ^ int(Z_STASH[1, int(state[STASH + 1])])
    for side in range(2):
        for p in range(24):
            if int(state[BB + side]) >> p & 1:
                h ^= int(Z_POINT[side, p])
    if state[STM] == 1:
        h ^= int(Z_STM)
    return int(np.int64(h))


def _board_symmetries() -> tuple[tuple[int, ...], ...]:
    """The 16 symmetries of the board as point permutations, the identity first:
    the 8 rotations and reflections of the square, each with or without swapping
    the outer and inner rings (the middle ring stays). Each maps adjacent points
    to adjacent points and mills to mills."""
    coords = [(ord(p[0]) - ord("a") - 3, int(p[1]) - 4) for p in POINTS]  # centre (0, 0)
    index = {c: i for i, c in enumerate(coords)}
    square = (lambda x, y: (x, y), lambda x, y: (y, -x), lambda x, y: (-x, -y),
              lambda x, y: (-y, x), lambda x, y: (-x, y), lambda x, y: (x, -y),
              lambda x, y: (y, x), lambda x, y: (-y, -x))
    out = []
    for swap in (False, True):
        for f in square:
            perm = []
            for x, y in coords:
                x, y = f(x, y)
                ring = max(abs(x), abs(y))  # 3 outer, 2 middle, 1 inner
                if swap and ring != 2:
                    x, y = x * (4 - ring) // ring, y * (4 - ring) // ring
                perm.append(index[(x, y)])
            out.append(tuple(perm))
    return tuple(out)


SYMMETRIES = _board_symmetries()


def symmetry_hashes(state: np.ndarray) -> list[int]:
    """The hashes of the position under the board's 16 symmetries; the first is its own."""
    out = []
    for perm in SYMMETRIES:
        image = state.copy()
        for side in range(2):
            image[BB + side] = permute_mask(int(state[BB + side]), perm)
        out.append(hash_from_scratch(image))
    return out


def move_to_str(move: int) -> str:
    """``d2``, ``a1-a4``, with ``xg7`` per removed stone."""
    frm, to, r1, r2 = move & 31, (move >> 5) & 31, (move >> 10) & 31, (move >> 15) & 31
    text = POINTS[to] if frm == NONE else f"{POINTS[frm]}-{POINTS[to]}"
    for r in (r1, r2):
        if r != NONE:
            text += "x" + POINTS[r]
    return text


SIDE_NAMES = ("White", "Black")
STONES = "WB"  # board_rows: White's and Black's stones
LEGEND = {
    "W": ("White stone", "#fafafa"),
    "B": ("Black stone", "#202020"),
    EMPTY_CELL: ("empty point", "#b0b0b0"),
}
GRID = 7  # the points lie on a 7x7 grid, files a-g and ranks 1-7
# the board's lines, end to end: each mill's first and last point (POINTS lists a
# file's points by rank and a rank's by file), so the three squares and the four
# lines that join them, each split at the centre
BOARD_LINES = tuple(
    (POINTS[min(line)], POINTS[max(line)])
    for line in ([p for p in range(24) if int(mill) >> p & 1] for mill in MILLS))


def board_rows(state: np.ndarray) -> list[str]:
    """The 24 points on their 7x7 grid, rank 7 first (spaces between points)."""
    grid = [[NO_CELL] * GRID for _ in range(GRID)]
    for p, name in enumerate(POINTS):
        ch = EMPTY_CELL
        for side in range(2):
            if int(state[BB + side]) >> p & 1:
                ch = STONES[side]
        grid[GRID - int(name[1])][ord(name[0]) - ord("a")] = ch
    return ["".join(row) for row in grid]


def board_caption(state: np.ndarray) -> str:
    """The stones still to place, while any are."""
    if state[STASH] == 0 and state[STASH + 1] == 0:
        return ""
    return f"to place: White {int(state[STASH])}, Black {int(state[STASH + 1])}"


def termination(state: np.ndarray) -> str:
    """Why the game ended: too few stones, no move, or which draw rule."""
    s = int(state[STM])
    if bin(int(state[BB + s])).count("1") + state[STASH + s] < 3:  # popcount is numba-only
        return f"{SIDE_NAMES[s]} has fewer than 3 stones"
    if not has_moves(state):
        return f"{SIDE_NAMES[s]} has no legal move"
    if state[PLY] >= state[R_MAXPLY]:
        return f"draw: {int(state[R_MAXPLY])} plies played"
    if state[QUIET] >= state[R_QUIET]:
        return f"draw: {int(state[QUIET])} plies without a removal"
    if outcome(state) == DRAW:
        return f"draw: a position occurred {int(state[R_REPS])} times"
    return UNFINISHED


# where the registry finds this game's heuristics and presets (engine layer)
HEURISTICS_MODULE = "heurtune.engine.heuristics.morris"

KERNEL = GameKernel(
    name="morris",
    description="Nine Men's Morris (24 points, 9 stones each, flying with 3)",
    module=sys.modules[__name__],
    rules=(
        RuleOption("flying", 1, "a side with exactly 3 stones flies to any empty point", 0, 1),
        RuleOption("double_removal", 0, "closing two mills at once removes two stones", 0, 1),
        RuleOption("max_plies", 250, "draw after this many plies", 1, 100_000),
        RuleOption("repetition_limit", 5, "draw when a position occurs this many times", 2, 1000),
        RuleOption(
            "no_removal_limit", 30, "draw after this many plies without a removal", 1, 100_000
        ),
    ),
    max_moves=3 * 21 * 36 + 64,
    opening_plies=4,
    _new_state=new_state,
    move_to_str=move_to_str,
    gen_moves=gen_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    outcome=outcome,
    symmetry_hashes=symmetry_hashes,
    max_game_plies=lambda rules: int(rules["max_plies"]),
    hash_from_scratch=hash_from_scratch,
    live_length=lambda state: HIST + 2 * int(state[PLY]),
    board_rows=board_rows,
    board_legend=LEGEND,
    board_caption=board_caption,
    board_lines=BOARD_LINES,
    termination=termination,
    side_names=SIDE_NAMES,
)
