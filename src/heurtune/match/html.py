"""Self-contained HTML pages of plotly figures: tournaments, game replays, and
the pieces the study report (heurtune.tuning.report) is built from.

A page embeds plotly.js once, in its head, so it works offline (no CDN); each
figure is a ``<div>`` drawn by it. A game replay is a board picture (a plotly
scatter of the kernel's ``board_rows``, one trace per kind of cell) with
buttons and a slider that step through the game's positions; its positions
travel in the page as JSON and a small script redraws the picture with
``Plotly.restyle``.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from heurtune.games import GameKernel
from heurtune.games.base import EMPTY_CELL, FILE_LETTERS
from heurtune.match.records import Position, describe, replay_positions
from heurtune.match.tournament import TournamentResult
from heurtune.tomlio import write_atomic

PLOT_CONFIG = {"displaylogo": False, "responsive": True}
BOARD_PIXELS = 460  # width of a board picture
EMPTY_MARKER = 5  # size of an empty cell's dot
LAST_MOVE_COLOUR = "#ff9f1c"
BOARD_LINE_COLOUR = "#8c8270"  # the lines a board draws between cells (Morris's)
OUTLINE = "#333333"  # the ring around every piece (white pieces on a light board)
INTERVAL_COLOUR = "#1f77b4"
FLAGGED_COLOUR = "#d62728"  # a perfect record: the rating rests on the prior
SCORE_SCALE = "RdBu"  # heat maps of scores: red below 0.5, blue above

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
table.facts { border-collapse: collapse; margin: .5em 0; }
table.facts td, table.facts th { border: 1px solid #ddd; padding: .25em .6em; text-align: left; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: .85em; }
.replay-controls { margin: .4em 0; display: flex; gap: .4em; align-items: center; flex-wrap: wrap; }
.replay-controls input[type=range] { flex: 1; min-width: 200px; }
.replay-label { font-family: monospace; min-height: 1.3em; }
.note { color: #666; font-style: italic; }
"""  # noqa: E501 - the page's CSS, one rule a line

# Steps a replay through its positions: one function for every replay of the page.
REPLAY_SCRIPT = """
function heurtuneReplay(id) {
  const data = JSON.parse(document.getElementById(id + "-data").textContent);
  const board = document.getElementById(id + "-board");
  const slider = document.getElementById(id + "-ply");
  const label = document.getElementById(id + "-label");
  function cells(k) {
    const rows = data.rows[k], before = data.rows[Math.max(k - 1, 0)], h = rows.length;
    const xs = data.chars.map(() => []), ys = data.chars.map(() => []), cx = [], cy = [];
    for (let r = 0; r < h; r++) {
      for (let c = 0; c < rows[r].length; c++) {
        const i = data.chars.indexOf(rows[r][c]);
        if (i >= 0) { xs[i].push(c); ys[i].push(h - 1 - r); }
        if (k > 0 && rows[r][c] !== before[r][c]) { cx.push(c); cy.push(h - 1 - r); }
      }
    }
    xs.push(cx); ys.push(cy);
    return {x: xs, y: ys};
  }
  function show(k) {
    k = Math.max(0, Math.min(data.rows.length - 1, k));
    slider.value = k;
    board.dataset.ply = k;
    label.textContent = data.labels[k];
    Plotly.restyle(board, cells(k));
  }
  const step = {first: () => 0, back: k => k - 1, next: k => k + 1, last: () => data.rows.length - 1};
  for (const [name, to] of Object.entries(step)) {
    document.getElementById(id + "-" + name).addEventListener("click", () => show(to(+slider.value)));
  }
  slider.addEventListener("input", () => show(+slider.value));
  show(0);
}
"""  # noqa: E501 - the page's JavaScript


class HtmlPage:
    """An HTML page assembled from headings, text, tables, plotly figures and
    game replays; :meth:`render` embeds plotly.js once."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._parts: list[str] = [f"<h1>{html.escape(title)}</h1>"]
        self._figures = 0
        self._replays = 0

    def heading(self, text: str) -> None:
        self._parts.append(f"<h2>{html.escape(text)}</h2>")

    def text(self, text: str, note: bool = False) -> None:
        css = ' class="note"' if note else ""
        self._parts.append(f"<p{css}>{html.escape(text)}</p>")

    def preformatted(self, text: str) -> None:
        self._parts.append(f"<pre>{html.escape(text)}</pre>")

    def facts(self, rows: Sequence[tuple[str, str]]) -> None:
        """A two-column table of names and values."""
        body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                       for k, v in rows)
        self._parts.append(f'<table class="facts">{body}</table>')

    def figure(self, fig: go.Figure) -> str:
        """Add a plotly figure; returns its element id."""
        self._figures += 1
        div_id = f"figure-{self._figures}"
        self._parts.append(fig.to_html(full_html=False, include_plotlyjs=False,
                                       config=PLOT_CONFIG, div_id=div_id))
        return div_id

    def replay(self, record: Mapping[str, Any], title: str) -> str:
        """Add a game replay of a recorded game (see heurtune.match.records);
        returns its element id prefix. A game whose kernel has no ``board_rows``
        hook gets its move list instead."""
        kernel, positions = replay_positions(record)
        self._replays += 1
        rid = f"replay-{self._replays}"
        self._parts.append(f"<h3>{html.escape(title)}</h3>")
        self.text(describe(record))
        if kernel.board_rows is None:
            self.preformatted(" ".join(p.move or "" for p in positions[1:]))
            return rid
        rows = [kernel.board_rows(p.state) for p in positions]
        data = {"rows": rows, "chars": list(kernel.board_legend),
                "labels": _replay_labels(kernel, record, positions)}
        payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
        fig = board_figure(kernel, rows[0])
        board = fig.to_html(full_html=False, include_plotlyjs=False, config=PLOT_CONFIG,
                            div_id=f"{rid}-board")
        last = len(positions) - 1
        buttons = "".join(f'<button id="{rid}-{name}" type="button">{text}</button>'
                          for name, text in (("first", "&laquo; start"), ("back", "&lsaquo; back"),
                                             ("next", "next &rsaquo;"), ("last", "end &raquo;")))
        self._parts.append(
            f'<div class="replay" id="{rid}">{board}'
            f'<div class="replay-controls">{buttons}'
            f'<input type="range" id="{rid}-ply" min="0" max="{last}" value="0" step="1"></div>'
            f'<div class="replay-label" id="{rid}-label"></div>'
            f'<script type="application/json" id="{rid}-data">{payload}</script>'
            f'<script>heurtuneReplay("{rid}");</script></div>')
        return rid

    def render(self) -> str:
        body = "\n".join(self._parts)
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"<title>{html.escape(self.title)}</title><style>{STYLE}</style>"
                f"<script>{get_plotlyjs()}</script><script>{REPLAY_SCRIPT}</script>"
                f"</head><body>\n{body}\n</body></html>\n")

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the page atomically."""
        write_atomic(path, self.render())


def _replay_labels(kernel: GameKernel, record: Mapping[str, Any],
                   positions: Sequence[Position]) -> list[str]:
    """The line under the board at each position: ply, move, nodes, caption."""
    labels = []
    last = len(positions) - 1
    for pos in positions:
        caption = kernel.board_caption(pos.state) if kernel.board_caption is not None else ""
        if pos.move is None:
            text = f"start ({last} plies follow)"
        else:
            text = f"ply {pos.ply} of {last}: {pos.move_text(kernel)}"
        if caption:
            text += f"; {caption}"
        if pos.ply == last:
            text += f"; {record['result']}: {record['termination']}"
        labels.append(text)
    return labels


def cell_place(name: str) -> tuple[int, int]:
    """A cell's place in a board picture, from its name (``c5``: file c, rank 5):
    (file, rank) counted from 0 at a1."""
    return FILE_LETTERS.index(name[0]), int(name[1:]) - 1


def board_figure(kernel: GameKernel, rows: Sequence[str]) -> go.Figure:
    """The picture of one position (``board_rows`` of the kernel): the board's
    lines (``board_lines``) under the cells, one marker trace per legend entry,
    in legend order, then the cells the last move changed; a replay restyles the
    traces' coordinates (the lines are shapes, which it leaves alone). The
    legend sits at the bottom right, clear of the plot's toolbar at the top."""
    height, width = len(rows), max(len(r) for r in rows)
    size = max(8, int(0.7 * BOARD_PIXELS / max(width, height)))
    fig = go.Figure()
    for start, end in kernel.board_lines:
        (x0, y0), (x1, y1) = cell_place(start), cell_place(end)
        fig.add_shape(type="line", x0=x0, y0=y0, x1=x1, y1=y1, layer="below",
                      line={"color": BOARD_LINE_COLOUR, "width": 3})
    for char, (meaning, colour) in kernel.board_legend.items():
        empty = char == EMPTY_CELL
        xs = [c for r in rows for c, ch in enumerate(r) if ch == char]
        ys = [height - 1 - i for i, r in enumerate(rows) for ch in r if ch == char]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="markers", name=meaning, hoverinfo="skip",
            marker={"size": EMPTY_MARKER if empty else size, "color": colour,
                    "line": {"width": 0 if empty else 1, "color": OUTLINE}}))
    fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="last move", hoverinfo="skip",
                             marker={"size": size + 6, "color": "rgba(0,0,0,0)",
                                     "line": {"width": 3, "color": LAST_MOVE_COLOUR}}))
    axis = {"showgrid": False, "zeroline": False, "fixedrange": True}
    fig.update_layout(
        width=BOARD_PIXELS + 200, height=BOARD_PIXELS, plot_bgcolor="#f4f1ea",
        margin={"l": 30, "r": 10, "t": 10, "b": 30},
        xaxis={**axis, "range": [-0.7, width - 0.3], "tickvals": list(range(width)),
               "ticktext": list(FILE_LETTERS[:width])},
        yaxis={**axis, "range": [-0.7, height - 0.3], "tickvals": list(range(height)),
               "ticktext": [str(i + 1) for i in range(height)], "scaleanchor": "x"},
        showlegend=True, legend={"x": 1.02, "y": 0, "yanchor": "bottom"})
    return fig


def score_heatmap(z: Sequence[Sequence[float | None]], rows: Sequence[str],
                  columns: Sequence[str], text: Sequence[Sequence[str]], title: str,
                  hover: Sequence[Sequence[str]] | None = None) -> go.Figure:
    """A heat map of scores in [0, 1] (0.5 white), each cell labelled with ``text``."""
    fig = go.Figure(go.Heatmap(
        z=z, x=list(columns), y=list(rows), text=text, texttemplate="%{text}",
        customdata=hover if hover is not None else text,
        hovertemplate="%{y} vs %{x}<br>%{customdata}<extra></extra>",
        colorscale=SCORE_SCALE, zmin=0.0, zmax=1.0, zmid=0.5,
        colorbar={"title": {"text": "score"}}))
    fig.update_layout(title=title, yaxis={"autorange": "reversed"},
                      height=max(320, 60 * len(rows) + 160))
    return fig


def interval_figure(names: Sequence[str], values: Sequence[float],
                    intervals: Sequence[Sequence[float]], title: str, axis: str,
                    flagged: Sequence[bool] | None = None, reference: float | None = None,
                    ) -> go.Figure:
    """Points with 95% error bars, one row per name (flagged ones in red)."""
    flagged = list(flagged) if flagged is not None else [False] * len(names)
    fig = go.Figure(go.Scatter(
        x=list(values), y=list(names), mode="markers",
        marker={"size": 10, "color": [FLAGGED_COLOUR if f else INTERVAL_COLOUR for f in flagged]},
        error_x={"type": "data", "symmetric": False,
                 "array": [hi - v for v, (_lo, hi) in zip(values, intervals, strict=False)],
                 "arrayminus": [v - lo for v, (lo, _hi) in zip(values, intervals, strict=False)]},
        hovertemplate="%{y}: %{x:.3f}<extra></extra>"))
    if reference is not None:
        fig.add_vline(x=reference, line_dash="dot", line_color="#888")
    fig.update_layout(title=title, xaxis_title=axis, yaxis={"autorange": "reversed"},
                      height=max(260, 40 * len(names) + 140))
    return fig


def tournament_page(result: TournamentResult) -> HtmlPage:
    """A tournament: the cross-table as a heat map with intervals, each agent's
    score with its interval, and the Bradley-Terry ratings with error bars."""
    agents = [a.label for a in result.agents]
    opponents = [o.label for o in result.opponents]
    page = HtmlPage(f"Tournament: {len(agents)} agents, {len(opponents)} opponents")
    page.facts([("pairs per cell", f"{result.pairs} ({2 * result.pairs} games)"),
                ("seed", str(result.seed)), ("game", result.agents[0].game)])
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    hover: list[list[str]] = []
    for a in range(len(agents)):
        z.append([])
        text.append([])
        hover.append([])
        for o in range(len(opponents)):
            if result.is_self(a, o):
                z[a].append(None)
                text[a].append("(itself)")
                hover[a].append("not played")
                continue
            st = result.cell(a, o)
            lo, hi = st.score_ci
            z[a].append(st.score)
            text[a].append(f"{st.score:.2f}<br>[{lo:.2f}, {hi:.2f}]")
            hover[a].append(f"+{st.wins} ={st.draws} -{st.losses}, score {st.score:.3f} "
                            f"[{lo:.3f}, {hi:.3f}]")
    page.heading("Cross-table")
    page.figure(score_heatmap(z, agents, opponents, text,
                              "agent's score against each opponent (95% interval)", hover))
    page.heading("Agents")
    scores = [result.agent_score(a) for a in range(len(agents))]
    page.figure(interval_figure(agents, [s[0] for s in scores], [s[1:] for s in scores],
                                "score over all opponents (95% interval over openings)",
                                "score", reference=0.5))
    page.heading("Ratings")
    ratings = sorted(result.ratings(), key=lambda r: -r.elo)
    perfect = set(result.perfect_records())
    page.figure(interval_figure([r.name for r in ratings], [r.elo for r in ratings],
                                [r.elo_ci for r in ratings],
                                "Bradley-Terry Elo (mean 0, 95% interval; red: a perfect "
                                "record, the rating rests on the prior)", "Elo",
                                flagged=[r.name in perfect for r in ratings], reference=0.0))
    page.heading("Table")
    page.preformatted(result.to_table())
    return page
