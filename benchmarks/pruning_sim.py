"""False prunes and saved games of the checkpoint pruner, by simulation.

Every trial of a study plays the same openings, so the trials' pair scores are
correlated through the openings; and the best trial is the luckiest of the
``M`` completed ones. Both are simulated here, game by game:

* an opening ``i`` has a colour advantage ``a_i`` (the first player's) and a
  difficulty ``c_i`` for the tuned side, both normal and shared by every trial;
* a game of a trial of strength ``theta`` on opening ``i`` is won when
  ``theta + c_i +/- a_i + eps`` (``+`` playing first, ``eps`` standard normal,
  the trial's own) exceeds ``h``, lost below ``-h``, drawn between: an ordered
  probit, whose ``theta``, colour spread and ``h`` are fitted to a pentanomial
  (the pair outcomes LL, LD, DD or WL, WD, WW) for a given opening spread:
  *Isolation-like* (0.10, 0, 0.70, 0, 0.20: most pairs even, no draws) and
  *Morris-like* (0.05, 0.15, 0.40, 0.25, 0.15: 28% of the games drawn).

The pruner is heurtune's (``heurtune.tuning.pruners.should_prune``) at the study
file's defaults (looks after 1/4, 1/2 and 3/4 of the pairs, alpha 0.05, margin
0), *before* (``completed = 1``: the best's scores taken as they are, the rule
up to ``[pruner] selection``) and *after* (``completed = M``: less the best's
expected luck, ``b_M``), on the same simulated games. Three tables:

* ``rates``: a trial as strong as the ``M`` completed ones, against the best of
  them (M = 1, 5, 15, 50): how often it is pruned (a false prune);
* ``weaker``: a trial weaker by ``--delta`` (in expected score) than the ``M``
  equal ones: how often it is pruned, and the share of its games saved;
* ``studies``: whole studies at the recorded studies' settings (trials x pairs
  of ``studies/halma.toml``, ``studies/morris-phased-ab.toml`` and the quick
  studies), trials of random strength (each below a common top by an
  exponential gap whose mean is chosen so that the rule *before* prunes about
  as many trials as the recorded study did): trials pruned, games saved, false
  prunes (a pruned trial truly at least as strong as the best it was compared
  with) and how often the truly strongest trial was pruned.

With ``--wilcoxon-runs N`` the first N runs of each ``rates`` and ``weaker`` row
also go through Optuna's WilcoxonPruner (p_threshold 0.1, 4 startup steps, the
previous default), driven through a real in-memory Optuna study: it is slow.

Usage::

    python benchmarks/pruning_sim.py --runs 2000 --studies 300 --seed 1
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import dataclass

import numpy as np
import optuna
from scipy.optimize import brentq, minimize
from scipy.stats import norm

from heurtune.tuning.pruners import checkpoint_steps, should_prune

ISOLATION_LIKE = (0.10, 0.0, 0.70, 0.0, 0.20)  # LL, LD, DD/WL, WD, WW: mean 0.55
MORRIS_LIKE = (0.05, 0.15, 0.40, 0.25, 0.15)  # mean 0.5875
PAIR_VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
NODES = 48  # Gauss-Hermite nodes per opening variable (the model's expectations)
MS = (1, 5, 15, 50)
# (name, trials, pairs, model, recorded prunes): the recorded studies with the checkpoint
# pruner (docs/results/halma.md: 26 of 40 pruned; docs/results/morris.md: 18 of 40;
# studies/quick/*.toml: 12 trials of 8 pairs, nothing recorded), and the gap mean that
# makes the rule before prune about as many
STUDIES = (
    ("halma (40 x 100)", 40, 100, "Isolation-like", 26, 0.16),
    ("morris-phased-ab (40 x 200)", 40, 200, "Morris-like", 18, 0.04),
    ("quick (12 x 8)", 12, 8, "Morris-like", None, 0.16),
)


@dataclass(frozen=True)
class Model:
    """The ordered-probit game model (see the module's docstring)."""

    name: str
    theta: float  # an equal trial's strength
    color_sd: float
    opening_sd: float
    draw_band: float  # h: a game is drawn when |latent| < h

    def pentanomial(self, shift: float = 0.0) -> tuple[np.ndarray, float, float]:
        """Pair-outcome probabilities at strength ``theta + shift``, the share of
        drawn games and the openings' share of the pair scores' variance."""
        x, w = np.polynomial.hermite_e.hermegauss(NODES)
        w = w / w.sum()
        a = self.color_sd * x[:, None]
        c = self.opening_sd * x[None, :]
        weight = w[:, None] * w[None, :]

        def games(side: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            m = self.theta + shift + c + side * a
            win, loss = norm.sf(self.draw_band - m), norm.cdf(-self.draw_band - m)
            return loss, 1.0 - win - loss, win

        l1, d1, w1 = games(1.0)
        l2, d2, w2 = games(-1.0)
        per = np.stack([l1 * l2, l1 * d2 + d1 * l2, d1 * d2 + w1 * l2 + l1 * w2,
                        w1 * d2 + d1 * w2, w1 * w2])  # (5, nodes, nodes)
        probs = (per * weight).sum(axis=(1, 2))
        mean_by_opening = np.tensordot(PAIR_VALUES, per, axes=1)
        mean = float((mean_by_opening * weight).sum())
        total = float(probs @ PAIR_VALUES**2) - mean**2
        between = float((mean_by_opening**2 * weight).sum()) - mean**2
        draws = float((((d1 + d2) / 2) * weight).sum())
        return probs, draws, between / total

    def score(self, shift: float = 0.0) -> float:
        return float(self.pentanomial(shift)[0] @ PAIR_VALUES)

    def shift_for(self, delta: float) -> float:
        """The strength shift that lowers the expected pair score by ``delta``."""
        if delta == 0.0:
            return 0.0
        top = self.score()
        return float(brentq(lambda s: self.score(s) - (top - delta), -6.0, 0.0, xtol=1e-6))

    def openings(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        return self.color_sd * rng.standard_normal(n), self.opening_sd * rng.standard_normal(n)

    def pair_scores(self, rng: np.random.Generator, shifts: np.ndarray,
                    openings: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """Pair scores (trials x openings) of trials at ``theta + shifts``."""
        a, c = openings
        base = self.theta + shifts[:, None] + c[None, :]
        first = base + a + rng.standard_normal(base.shape)
        second = base - a + rng.standard_normal(base.shape)
        h = self.draw_band
        return (np.where(first > h, 1.0, np.where(first < -h, 0.0, 0.5))
                + np.where(second > h, 1.0, np.where(second < -h, 0.0, 0.5))) / 2.0


def fit(name: str, target: tuple[float, ...], opening_sd: float, draws: bool) -> Model:
    """The model with this opening spread whose pentanomial is nearest ``target``."""
    goal = np.array(target)

    def make(x: np.ndarray) -> Model:
        return Model(name, float(x[0]), abs(float(x[1])), opening_sd,
                     abs(float(x[2])) if draws else 0.0)

    def loss(x: np.ndarray) -> float:
        return float(((make(x).pentanomial()[0] - goal) ** 2).sum())

    starts = ([0.2, 1.5, 0.5], [0.3, 1.0, 0.3], [0.1, 2.5, 1.0])
    best = min((minimize(loss, np.array(x0), method="Nelder-Mead",
                         options={"xatol": 1e-5, "fatol": 1e-12, "maxiter": 4000})
                for x0 in starts), key=lambda r: r.fun)
    return make(best.x)


def decisions(trial: np.ndarray, best: np.ndarray, order: np.ndarray,
              completed: int) -> tuple[bool, int]:
    """Whether the checkpoint rule prunes ``trial`` (pair scores by opening, played
    in ``order``) against ``best``, and after how many pairs."""
    pairs = len(trial)
    best_scores = dict(enumerate(best.tolist()))
    for k in checkpoint_steps(pairs):
        played = {int(i): float(trial[i]) for i in order[:k]}
        if should_prune(played, best_scores, pairs, completed=completed):
            return True, k
    return False, pairs


def wilcoxon_pruned(trial: np.ndarray, best: np.ndarray, order: np.ndarray) -> tuple[bool, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = optuna.create_study(direction="maximize",
                                    pruner=optuna.pruners.WilcoxonPruner(p_threshold=0.1,
                                                                         n_startup_steps=4))
        study.add_trial(optuna.trial.create_trial(
            value=float(best.mean()), intermediate_values=dict(enumerate(best.tolist()))))
        t = study.ask()
        for k, i in enumerate(order.tolist()):
            t.report(float(trial[i]), step=int(i))
            if k + 1 < len(trial) and t.should_prune():
                return True, k + 1
    return False, len(trial)


def rate(count: int, n: int) -> str:
    """A proportion with its 95% half-width."""
    p = count / n
    return f"{p:.3f} ± {1.96 * (max(p * (1 - p), 1.0 / n) / n) ** 0.5:.3f}"


def against_best_of(model: Model, rng: np.random.Generator, m: int, pairs: int, shift: float,
                    runs: int, wilcoxon_runs: int) -> dict[str, list[int]]:
    """Counts (pruned, pairs played) of a trial at ``theta + shift`` against the best of
    ``m`` equal trials: the rule before, after, and Optuna's Wilcoxon pruner."""
    counts = {"before": [0, 0], "after": [0, 0], "wilcoxon": [0, 0]}
    shifts = np.zeros(m + 1)
    shifts[-1] = shift
    for r in range(runs):
        scores = model.pair_scores(rng, shifts, model.openings(rng, pairs))
        best = scores[int(np.argmax(scores[:m].mean(axis=1)))]
        trial = scores[-1]
        order = rng.permutation(pairs)
        for key, completed in (("before", 1), ("after", m)):
            pruned, played = decisions(trial, best, order, completed)
            counts[key][0] += pruned
            counts[key][1] += played
        if r < wilcoxon_runs:
            pruned, played = wilcoxon_pruned(trial, best, order)
            counts["wilcoxon"][0] += pruned
            counts["wilcoxon"][1] += played
    return counts


def study(model: Model, rng: np.random.Generator, trials: int, pairs: int, gap_mean: float,
          score_grid: tuple[np.ndarray, np.ndarray]) -> dict[str, dict[str, int]]:
    """One simulated study, pruned by the rule before and after: per rule the trials
    pruned, pairs played, false prunes and whether the truly strongest was pruned."""
    gaps = rng.exponential(gap_mean, trials)
    scores_at, shifts_at = score_grid  # expected score (increasing) -> strength shift
    shifts = np.interp(model.score() - gaps, scores_at, shifts_at)
    scores = model.pair_scores(rng, shifts, model.openings(rng, pairs))
    strongest = int(np.argmax(shifts))
    out: dict[str, dict[str, int]] = {}
    for key, selection in (("before", False), ("after", True)):
        completed: list[int] = []
        tally = {"pruned": 0, "pairs": 0, "false": 0, "lost": 0}
        for j in range(trials):
            if completed:
                best = max(completed, key=lambda i: (scores[i].mean(), -i))
                pruned, played = decisions(scores[j], scores[best], rng.permutation(pairs),
                                           len(completed) if selection else 1)
            else:
                pruned, played = False, pairs
            tally["pairs"] += played
            if pruned:
                tally["pruned"] += 1
                tally["false"] += int(shifts[j] >= shifts[best])
                tally["lost"] += int(j == strongest)
            else:
                completed.append(j)
        out[key] = tally
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000, help="runs per row of rates and weaker")
    ap.add_argument("--studies", type=int, default=300, help="simulated studies per setting")
    ap.add_argument("--wilcoxon-runs", type=int, default=0,
                    help="runs (of the first) that Optuna's pruner also sees: it is slow")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--delta", type=float, nargs="+", default=[0.05, 0.10],
                    help="score gaps of the weaker trial")
    ap.add_argument("--opening-sd", type=float, default=0.5,
                    help="spread of the openings' difficulty (0: pairs independent across trials)")
    ap.add_argument("--ms", type=int, nargs="+", default=list(MS),
                    help="completed trials the best is chosen from (rates and weaker)")
    ap.add_argument("--tables", default="rates,weaker,studies")
    args = ap.parse_args()
    tables = set(args.tables.split(","))
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    rng = np.random.default_rng(args.seed)
    start = time.time()
    models = {m.name: m for m in (fit("Isolation-like", ISOLATION_LIKE, args.opening_sd, False),
                                  fit("Morris-like", MORRIS_LIKE, args.opening_sd, True))}
    print(f"runs {args.runs}, studies {args.studies}, pairs {args.pairs}, seed {args.seed}, "
          f"opening sd {args.opening_sd}")
    print("\n| model | theta | colour sd | opening sd | draw band | LL, LD, DD/WL, WD, WW | mean "
          "| games drawn | openings' share of the pair-score variance |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m in models.values():
        probs, draws, share = m.pentanomial()
        print(f"| {m.name} | {m.theta:.3f} | {m.color_sd:.3f} | {m.opening_sd:.2f} "
              f"| {m.draw_band:.3f} | {', '.join(f'{abs(p):.3f}' for p in probs)} "
              f"| {probs @ PAIR_VALUES:.4f} | {draws:.3f} | {share:.3f} |")
    wil = args.wilcoxon_runs > 0
    if "rates" in tables:
        print(f"\nA trial as strong as the M completed ones, against the best of them "
              f"({args.pairs} pairs): pruned (false prunes), mean pairs played")
        print("| model | M | before: pruned | pairs | after: pruned | pairs |"
              + (" wilcoxon: pruned | pairs |" if wil else ""))
        print("|---|---|---|---|---|---|" + ("---|---|" if wil else ""))
        for model in models.values():
            for m in args.ms:
                c = against_best_of(model, rng, m, args.pairs, 0.0, args.runs,
                                    args.wilcoxon_runs)
                cells = [f"{rate(c[k][0], args.runs)} | {c[k][1] / args.runs:.0f}"
                         for k in ("before", "after")]
                if wil:
                    n = min(args.runs, args.wilcoxon_runs)
                    cells.append(f"{rate(c['wilcoxon'][0], n)} | {c['wilcoxon'][1] / n:.0f}")
                print(f"| {model.name} | {m} | " + " | ".join(cells) + " |", flush=True)
    if "weaker" in tables:
        print(f"\nA weaker trial against the best of M equal ones ({args.pairs} pairs): "
              "pruned, share of its games saved")
        print("| model | weaker by | M | before: pruned | saved | after: pruned | saved |"
              + (" wilcoxon: pruned | saved |" if wil else ""))
        print("|---|---|---|---|---|---|---|" + ("---|---|" if wil else ""))
        for model in models.values():
            for delta in args.delta:
                shift = model.shift_for(delta)
                for m in args.ms:
                    c = against_best_of(model, rng, m, args.pairs, shift, args.runs,
                                        args.wilcoxon_runs)
                    cells = [f"{rate(c[k][0], args.runs)} | "
                             f"{1 - c[k][1] / (args.runs * args.pairs):.0%}"
                             for k in ("before", "after")]
                    if wil:
                        n = min(args.runs, args.wilcoxon_runs)
                        cells.append(f"{rate(c['wilcoxon'][0], n)} | "
                                     f"{1 - c['wilcoxon'][1] / (n * args.pairs):.0%}")
                    print(f"| {model.name} | {delta} | {m} | " + " | ".join(cells) + " |",
                          flush=True)
    if "studies" in tables:
        print(f"\nWhole studies at the recorded settings ({args.studies} each; trial strengths "
              "below a common top by exponential gaps of the mean shown): per study, trials "
              "pruned, games saved, false prunes, and how often the strongest trial was pruned")
        print("| setting | model | gap mean | recorded pruned | before: pruned | saved | false "
              "| strongest pruned | after: pruned | saved | false | strongest pruned |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, trials, pairs, model_name, recorded, gap_mean in STUDIES:
            model = models[model_name]
            grid_shifts = np.linspace(-4.0, 0.0, 161)
            grid = (np.array([model.score(s) for s in grid_shifts]), grid_shifts)
            totals = {k: {"pruned": 0, "pairs": 0, "false": 0, "lost": 0}
                      for k in ("before", "after")}
            for _ in range(args.studies):
                for key, tally in study(model, rng, trials, pairs, gap_mean, grid).items():
                    for field, v in tally.items():
                        totals[key][field] += v
            n = args.studies
            cells = []
            for key in ("before", "after"):
                t = totals[key]
                cells += [f"{t['pruned'] / n:.1f}", f"{1 - t['pairs'] / (n * trials * pairs):.0%}",
                          f"{t['false'] / n:.2f}", rate(t["lost"], n)]
            print(f"| {name} | {model_name} | {gap_mean} | {recorded or '–'} | "
                  + " | ".join(cells) + " |", flush=True)
    print(f"\n({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
