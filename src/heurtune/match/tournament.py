"""Tournaments: every agent plays every opponent over the same paired openings."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from heurtune.engine.config import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match.play import PairResult
from heurtune.match.runner import MatchRunner, MatchSpec, stats_of
from heurtune.match.stats import MatchStats, Rating, bradley_terry, stratified_interval


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

    def agent_score(self, a: int) -> tuple[float, float, float]:
        """(score, low, high) over all the agent's cells (stratified by opponent)."""
        return stratified_interval(
            [[p.score for p in self.cells.get((a, o), [])] for o in range(len(self.opponents))]
        )

    def agent_totals(self, a: int) -> MatchStats:
        return stats_of([p for o in range(len(self.opponents)) for p in self.cells.get((a, o), [])])

    def participants(self) -> list[str]:
        names: list[str] = []
        for cfg in self.agents + self.opponents:
            if cfg.label not in names:
                names.append(cfg.label)
        return names

    def ratings(self) -> list[Rating]:
        names = self.participants()
        records = []
        for (a, o), pairs in self.cells.items():
            st = stats_of(pairs)
            i, j = names.index(self.agents[a].label), names.index(self.opponents[o].label)
            if i != j:
                records.append((i, j, st.wins + 0.5 * st.draws, st.games))
        return bradley_terry(names, records)

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
        ratings = [{"name": r.name, "games": r.games, "elo": r.elo, "elo_ci": list(r.elo_ci)}
                   for r in self.ratings()]
        return {"pairs": self.pairs, "seed": self.seed, "cells": cells, "agents": agents,
                "ratings": ratings}

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
        lines.append("")
        lines.append("Ratings (Bradley-Terry Elo, mean 0, 95% interval):")
        for r in sorted(self.ratings(), key=lambda r: -r.elo):
            lines.append(f"  {_short(r.name):<{max(ow, cw)}}  {r.elo:+8.1f} "
                         f"[{r.elo_ci[0]:+8.1f}, {r.elo_ci[1]:+8.1f}]  {r.games} games")
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
                cell: list[PairResult] = []
                for pair in runner.iter_pairs(spec, openings):
                    cell.append(pair)
                    if on_pair is not None:
                        on_pair(pair)
                result.cells[(a, o)] = sorted(cell, key=lambda p: p.index)
    return result
