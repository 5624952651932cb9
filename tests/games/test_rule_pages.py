"""The rule pages (docs/rules/): one per built-in game, each naming the game's rule
options as the kernel declares them, and every perft count on them is the one
heurtune's perft computes.

A perft table is a Markdown table whose first column is ``depth``; each further
column's head is "default rules" or the rule options that differ from their
defaults (```flying=0```). Its start is the last ```position ...``` named before
it (``position startpos``, ``position startpos moves ...`` or ``position fen
FEN``), as an engine would be sent it. Counts whose parent depth holds many
positions take seconds to minutes and are marked slow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from heurtune.games import PythonKernel, game_entry, game_names, get_game
from heurtune.games.base import GameKernel
from heurtune.games.perft import perft

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
HEURTUNE = "entry point of heurtune"  # how the registry names heurtune's own games
BUILT_IN = sorted(name for name in game_names() if game_entry(name).source == HEURTUNE)
POSITION = re.compile(r"`(position (?:startpos|fen [^`]+?)(?: moves [^`]+)?)`")
# a count is quick when the positions one ply above it are few (perft's work)
QUICK_PARENTS = {"kernel": 1_000_000, "python": 5_000}


@dataclass(frozen=True)
class Count:
    game: str
    start: str  # the position command
    rules: tuple[tuple[str, int], ...]
    depth: int
    count: int
    parent: int  # the count one ply less deep in the same column (0: unknown)

    @property
    def id(self) -> str:
        rules = ",".join(f"{k}={v}" for k, v in self.rules) or "default"
        start = self.start[9:] if len(self.start) < 40 else self.start[9:30] + "..."
        return f"{self.game}-{start}-{rules}-d{self.depth}"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _column_rules(head: str) -> tuple[tuple[str, int], ...]:
    if head == "default rules":
        return ()
    words = re.fullmatch(r"`([^`]+)`", head)
    assert words, f"a perft column head is 'default rules' or `key=value ...`: {head!r}"
    return tuple((k, int(v)) for k, v in (w.split("=") for w in words.group(1).split()))


def perft_counts(game: str, text: str) -> list[Count]:
    """Every count of every perft table of a page."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = _cells(line) if line.startswith("|") else []
        if not cells or cells[0] != "depth" or (i and lines[i - 1].startswith("|")):
            continue
        starts = POSITION.findall("\n".join(lines[:i]))
        assert starts, f"{game}: the perft table on line {i + 1} names no position before it"
        columns = [_column_rules(h) for h in cells[1:]]
        previous: dict[int, int] = {}
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            depth, *values = _cells(row)
            for c, value in enumerate(values):
                if value:
                    count = int(value.replace(",", ""))
                    out.append(Count(game, starts[-1], columns[c], int(depth), count,
                                     previous.get(c, 0)))
                    previous[c] = count
    return out


def _state(kernel: GameKernel, rules: dict[str, int], command: str) -> Any:
    words = command.split()
    moves = words.index("moves") if "moves" in words else len(words)
    start = " ".join(words[2:moves]) if words[1] == "fen" else ""
    state = kernel.new_state(rules, start)
    for text in words[moves + 1:]:
        kernel.make_move(state, kernel.parse_move(state, text))
    return state


def _cases() -> list[Any]:
    cases = []
    for game in BUILT_IN:
        page = RULES / f"{game}.md"
        if not page.exists():
            continue  # test_every_built_in_game_has_a_rules_page says so
        kind = "python" if isinstance(get_game(game), PythonKernel) else "kernel"
        for c in perft_counts(game, page.read_text()):
            quick = 0 < c.parent <= QUICK_PARENTS[kind] or c.depth <= 2
            marks = () if quick else (pytest.mark.slow,)
            cases.append(pytest.param(c, id=c.id, marks=marks))
    return cases


def test_every_built_in_game_has_a_rules_page() -> None:
    assert {"morris", "isolation", "gomoku", "halma", "chess"} <= set(BUILT_IN)
    index = (RULES / "README.md").read_text()
    for game in BUILT_IN:
        assert (RULES / f"{game}.md").exists(), f"docs/rules/{game}.md is missing"
        assert f"]({game}.md)" in index, f"docs/rules/README.md does not link {game}.md"


@pytest.mark.parametrize("game", BUILT_IN)
def test_a_page_gives_every_rule_option_as_the_kernel_declares_it(game: str) -> None:
    kernel = get_game(game)
    text = (RULES / f"{game}.md").read_text()
    rows = {cells[0]: cells for cells in (_cells(line) for line in text.splitlines()
                                          if line.startswith("| `"))}
    for opt in kernel.rules:
        name = f"`{opt.name}`"
        assert name in rows, f"{game}: no row for rule option {opt.name}"
        default, bounds = rows[name][1], rows[name][2].replace(",", "")
        low, high = re.fullmatch(r"(\d+) (?:or|to) (\d+)", bounds).groups()  # type: ignore[union-attr]
        assert (int(default), int(low), int(high)) == (opt.default, opt.low, opt.high), name
    counts = perft_counts(game, text)
    assert any(c.start == "position startpos" and not c.rules for c in counts), \
        f"{game}: no perft from the start under the default rules"
    if kernel.rules:
        assert any(c.rules for c in counts), f"{game}: no perft under a rule variant"
    if kernel.engine_protocol == "heurtune":
        words = " ".join(f"{o.name}={o.default}" for o in sorted(kernel.rules,
                                                                 key=lambda o: o.name))
        assert f"ucinewgame {words}".strip() in text, f"{game}: the ucinewgame line"


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_position_on_a_page_is_legal(game: str) -> None:
    """The examples' move sequences are games heurtune plays: under the default
    rules, or where a perft table counts from them, under each of its rules."""
    kernel = get_game(game)
    text = (RULES / f"{game}.md").read_text()
    tables: dict[str, set[tuple[tuple[str, int], ...]]] = {}
    for c in perft_counts(game, text):
        tables.setdefault(c.start, set()).add(c.rules)
    for command in set(POSITION.findall(text)):
        if "..." not in command and "FEN" not in command:
            for rules in tables.get(command, {()}):
                _state(kernel, dict(rules), command)


def test_the_morris_board_is_the_kernels() -> None:
    from heurtune.games import morris

    rows = {}
    for line in (RULES / "morris.md").read_text().splitlines():
        cells = _cells(line) if line.startswith("| `") else []
        if len(cells) == 3 and cells[0].strip("`") in morris.POINTS:
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    names = morris.POINTS
    assert list(rows) == list(names)
    for p, (adjacent, mills) in rows.items():
        i = names.index(p)
        assert adjacent == ", ".join(names[j] for j in range(24) if int(morris.ADJ[i]) >> j & 1)
        assert sorted(mills.split(", ")) == sorted(
            "-".join(names[j] for j in range(24) if int(morris.MILLS[m]) >> j & 1)
            for m in morris.POINT_MILLS[i])


@pytest.mark.parametrize("case", _cases())
def test_a_pages_perft_count_is_heurtunes(case: Count) -> None:
    kernel = get_game(case.game)
    state = _state(kernel, dict(case.rules), case.start)
    assert perft(kernel, case.depth, state) == case.count
