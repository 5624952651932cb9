"""Tournaments: every agent plays every opponent over the same paired openings.

Because every cell plays the same openings, an agent's results against
different opponents, and two agents' results against the same opponent, are
correlated through the openings. The per-agent interval therefore averages the
agent's pair scores over its opponents *per opening* and takes the interval
over openings, and two agents are compared opening by opening (the pairwise
difference and LOS matrix). The Bradley-Terry ratings and their differences
take intervals grouped by opening, with a small-sample correction (a tournament
rarely has many openings). An agent that is also an opponent is not played
against itself: that cell is exactly 0.5, with no variance.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from heurtune.engine.config import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match.play import PairResult
from heurtune.match.runner import MatchRunner, MatchSpec, stats_of
from heurtune.match.stats import (
    MatchStats,
    Rating,
    RatingDifference,
    bradley_terry,
    bradley_terry_differences,
    pair_variance,
    t_value,
)


@dataclass
class TournamentResult:
    """Pairs per (agent, opponent) cell, and what follows from them."""

    agents: list[EngineConfig]
    opponents: list[EngineConfig]
    pairs: int
    seed: int
    cells: dict[tuple[int, int], list[PairResult]] = field(default_factory=dict)

    def cell(self, a: int, o: int) -> MatchStats:
        return stats_of(self.cells.get((a, o), []))

    def is_self(self, a: int, o: int) -> bool:
        return self.agents[a].label == self.opponents[o].label

    def opening_scores(self, a: int) -> list[float]:
        """The agent's pair score per opening, averaged over its opponents (a cell
        against itself counts as exactly 0.5)."""
        per: list[list[float]] = [[] for _ in range(self.pairs)]
        for o in range(len(self.opponents)):
            if self.is_self(a, o):
                for row in per:
                    row.append(0.5)
                continue
            for p in self.cells.get((a, o), []):
                per[p.index].append(p.score)
        return [sum(row) / len(row) for row in per if row]

    def agent_score(self, a: int) -> tuple[float, float, float]:
        """(score, low, high) over all the agent's cells: a t interval over openings of
        the agent's per-opening average, which accounts for the openings being shared
        by its cells; its variance comes from the openings' spread, floored by the
        pentanomial pseudo-count variance per cell so a perfect record has one."""
        per = self.opening_scores(a)
        n = len(per)
        if n == 0:
            return 0.5, 0.0, 1.0
        mean = sum(per) / n
        spread = sum((x - mean) ** 2 for x in per) / (n - 1) if n > 1 else 0.0
        played = [o for o in range(len(self.opponents)) if not self.is_self(a, o)]
        floor = (sum(pair_variance([p.score for p in self.cells.get((a, o), [])])
                     for o in played) / len(self.opponents) ** 2) if played else 0.0
        half = t_value(n) * math.sqrt(max(spread / n, floor / n))
        return mean, max(0.0, mean - half), min(1.0, mean + half)

    def difference(self, a: int, b: int) -> tuple[float, float, float, float]:
        """(mean, low, high, LOS) of agent ``a``'s score minus agent ``b``'s, opening
        by opening over the opponents both played (the openings' difficulty cancels)."""
        common = [o for o in range(len(self.opponents))
                  if not self.is_self(a, o) and not self.is_self(b, o)]
        diffs = []
        for i in range(self.pairs):
            da = [s.score for o in common for s in self.cells.get((a, o), []) if s.index == i]
            db = [s.score for o in common for s in self.cells.get((b, o), []) if s.index == i]
            if da and len(da) == len(db):
                diffs.append(sum(da) / len(da) - sum(db) / len(db))
        n = len(diffs)
        if n < 2:
            return 0.0, -1.0, 1.0, 0.5
        mean = sum(diffs) / n
        var = max(sum((d - mean) ** 2 for d in diffs) / (n - 1), 1.0 / (16 * n * len(common)))
        se = math.sqrt(var / n)
        half = t_value(n) * se
        return mean, mean - half, mean + half, NormalDist().cdf(mean / se)

    def perfect_records(self) -> list[str]:
        """Participants with a perfect record (all won or all lost): their ratings
        rest on the prior, not on the games, and are flagged."""
        names = self.participants()
        points = {n: [0.0, 0] for n in names}
        for (a, o), pairs in self.cells.items():
            st = stats_of(pairs)
            for name, pts in ((self.agents[a].label, st.wins + 0.5 * st.draws),
                              (self.opponents[o].label, st.losses + 0.5 * st.draws)):
                points[name][0] += pts
                points[name][1] += st.games
        return [n for n, (pts, g) in points.items() if g and pts in (0.0, float(g))]

    def agent_totals(self, a: int) -> MatchStats:
        return stats_of([p for o in range(len(self.opponents)) for p in self.cells.get((a, o), [])])

    def participants(self) -> list[str]:
        names: list[str] = []
        for cfg in self.agents + self.opponents:
            if cfg.label not in names:
                names.append(cfg.label)
        return names

    def _rating_records(self) -> tuple[list[str], list[tuple[int, int, float, int]], list[int]]:
        """Participants, one Bradley-Terry record per pair (two games) and its opening."""
        names = self.participants()
        records: list[tuple[int, int, float, int]] = []
        groups: list[int] = []
        for (a, o), pairs in self.cells.items():
            i, j = names.index(self.agents[a].label), names.index(self.opponents[o].label)
            if i == j:
                continue
            for p in pairs:
                records.append((i, j, p.a_scores[0] + p.a_scores[1], 2))
                groups.append(p.index)
        return names, records, groups

    def ratings(self) -> list[Rating]:
        """Bradley-Terry ratings of all participants, intervals grouped by opening
        (the games of an opening, in every cell, are correlated)."""
        names, records, groups = self._rating_records()
        return bradley_terry(names, records, groups=groups)

    def rating_differences(self) -> list[RatingDifference]:
        """Every difference of two Bradley-Terry ratings (in participant order), with
        an interval from the same fit grouped by opening: whether one participant is
        stronger than another, which two ratings' own intervals cannot tell."""
        names, records, groups = self._rating_records()
        return bradley_terry_differences(names, records, groups=groups)

    # -- output ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        cells = []
        for a, agent in enumerate(self.agents):
            for o, opp in enumerate(self.opponents):
                st = self.cell(a, o)
                cells.append({"agent": agent.label, "opponent": opp.label, **st.to_dict()})
        agents = []
        for a, agent in enumerate(self.agents):
            score, lo, hi = self.agent_score(a)
            t = self.agent_totals(a)
            agents.append({"agent": agent.label, "wins": t.wins, "draws": t.draws,
                           "losses": t.losses, "games": t.games, "score": score,
                           "score_ci": [lo, hi]})
        perfect = self.perfect_records()
        ratings = [{"name": r.name, "games": r.games, "elo": r.elo, "elo_ci": list(r.elo_ci),
                    "perfect_record": r.name in perfect}
                   for r in self.ratings()]
        differences = []
        for a in range(len(self.agents)):
            for b in range(len(self.agents)):
                if a != b:
                    d, lo, hi, los = self.difference(a, b)
                    differences.append({"agent": self.agents[a].label,
                                        "other": self.agents[b].label, "difference": d,
                                        "difference_ci": [lo, hi], "los": los})
        rating_differences = [{"name": d.first, "other": d.second, "elo": d.elo,
                               "elo_ci": list(d.elo_ci)} for d in self.rating_differences()]
        return {"pairs": self.pairs, "seed": self.seed, "cells": cells, "agents": agents,
                "differences": differences, "ratings": ratings,
                "rating_differences": rating_differences}

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["agent", "opponent", "wins", "draws", "losses", "games", "score",
                    "score_low", "score_high"])
        for a, agent in enumerate(self.agents):
            for o, opp in enumerate(self.opponents):
                st = self.cell(a, o)
                lo, hi = st.score_ci
                w.writerow([agent.label, opp.label, st.wins, st.draws, st.losses, st.games,
                            f"{st.score:.4f}", f"{lo:.4f}", f"{hi:.4f}"])
        return buf.getvalue()

    def to_table(self) -> str:
        """The seed's table (won / lost per cell, win ratio per agent), then intervals
        and ratings."""
        short = [_short(c.label) for c in self.agents]
        opp_names = [_short(c.label) for c in self.opponents]
        ow = max([8] + [len(n) for n in opp_names])
        cw = max([11] + [len(n) for n in short])
        lines = []
        head = f"{'Match #':>7}  {'Opponent':<{ow}}" + "".join(f"  {n:^{cw}}" for n in short)
        sub = f"{'':>7}  {'':<{ow}}" + "".join(f"  {'Won | Lost':^{cw}}" for _ in short)
        lines += [head, sub]
        for o, name in enumerate(opp_names):
            row = f"{o + 1:>7}  {name:<{ow}}"
            for a in range(len(self.agents)):
                if self.is_self(a, o):
                    row += f"  {'(itself)':^{cw}}"
                    continue
                st = self.cell(a, o)
                won = st.wins + 0.5 * st.draws
                lost = st.losses + 0.5 * st.draws
                row += f"  {_num(won):>{cw // 2 - 1}} | {_num(lost):<{cw - cw // 2 - 2}}"
            lines.append(row)
        ratio = f"{'':>7}  {'Win Rate:':<{ow}}" + "".join(
            f"  {f'{100 * self.agent_totals(a).score:.1f}%':^{cw}}" for a in range(len(self.agents))
        )
        lines += ["", ratio, ""]
        lines.append(f"Score per agent ({self.pairs} pairs = {2 * self.pairs} games per cell, "
                     "95% interval):")
        for a, name in enumerate(short):
            score, lo, hi = self.agent_score(a)
            t = self.agent_totals(a)
            lines.append(f"  {name:<{cw}}  {score:.3f} [{lo:.3f}, {hi:.3f}]  "
                         f"+{t.wins} ={t.draws} -{t.losses}")
        if len(self.agents) > 1:
            lines.append("")
            lines.append("Paired differences (row minus column, same openings; LOS in %):")
            lines.append(f"  {'':<{cw}}" + "".join(f"  {n:>{cw}}" for n in short))
            for a, name in enumerate(short):
                row = f"  {name:<{cw}}"
                for b in range(len(self.agents)):
                    if a == b:
                        row += f"  {'-':>{cw}}"
                        continue
                    d, _lo, _hi, los = self.difference(a, b)
                    row += f"  {f'{d:+.3f} ({100 * los:.0f})':>{cw}}"
                lines.append(row)
        lines.append("")
        lines.append("Ratings (Bradley-Terry Elo, mean 0, 95% interval):")
        perfect = self.perfect_records()
        for r in sorted(self.ratings(), key=lambda r: -r.elo):
            flag = "  (perfect record: the rating rests on the prior)" if r.name in perfect else ""
            lines.append(f"  {_short(r.name):<{max(ow, cw)}}  {r.elo:+8.1f} "
                         f"[{r.elo_ci[0]:+8.1f}, {r.elo_ci[1]:+8.1f}]  {r.games} games{flag}")
        return "\n".join(lines)


def _short(label: str) -> str:
    return label.split(":", 1)[1] if ":" in label else label


def _num(x: float) -> str:
    return f"{x:g}"


def run_tournament(
    agents: Sequence[EngineConfig],
    opponents: Sequence[EngineConfig],
    pairs: int,
    seed: int = 0,
    jobs: int = 1,
    opening_plies: int | None = None,
    on_pair: Callable[[PairResult], None] | None = None,
) -> TournamentResult:
    """Play every (agent, opponent) cell over the same ``pairs`` openings."""
    if not agents or not opponents:
        raise HeurtuneError("a tournament needs at least one agent and one opponent")
    games = {c.game for c in list(agents) + list(opponents)}
    if len(games) != 1:
        raise HeurtuneError(f"all engines must play the same game, got {sorted(games)}")
    result = TournamentResult(list(agents), list(opponents), pairs, seed)
    openings = None
    with MatchRunner(jobs) as runner:
        for a, agent in enumerate(agents):
            for o, opp in enumerate(opponents):
                spec = MatchSpec(agent, opp, pairs, seed, opening_plies)
                if openings is None:
                    openings = spec.openings()
                if agent.label == opp.label:  # itself: exactly 0.5 by construction
                    continue
                cell: list[PairResult] = []
                for pair in runner.iter_pairs(spec, openings):
                    cell.append(pair)
                    if on_pair is not None:
                        on_pair(pair)
                result.cells[(a, o)] = sorted(cell, key=lambda p: p.index)
    return result
