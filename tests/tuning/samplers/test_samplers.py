"""Every sampler end to end on a real game, the duel samplers (SPSA, duels), the
study's answers, the quadratic model, and bad sampler input."""

from __future__ import annotations

import importlib.util
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import optuna
import pytest
from scipy.stats import chi2

from heurtune.engine.config import EngineConfig
from heurtune.engine.heuristics.oracle import CASES, loss
from heurtune.engine.params import CategoricalParam, FloatParam, IntParam, ParamSpace
from heurtune.errors import HeurtuneError
from heurtune.match.oracle import OracleRunner
from heurtune.tomlio import read_toml, write_toml
from heurtune.tuning import tune
from heurtune.tuning.after.answers import _top_mean, default_answer, study_answers
from heurtune.tuning.samplers import SAMPLERS, SamplerSpec, SpsaSampler, check_space
from heurtune.tuning.samplers.quadratic import Observation, QuadraticModel, UnitBox, features
from heurtune.tuning.study import duel_of, load_study, open_storage
from heurtune.tuning.study.schema import CONFIRMATION as CONFIRM_ATTR
from heurtune.tuning.study.schema import DUEL as DUEL_ATTR
from heurtune.tuning.study.schema import Verdict
from heurtune.tuning.studyfile import StudyFile, load_study_file
from tests.helpers import ISOLATION_PINS, ROOT, cli

HAVE_TORCH = importlib.util.find_spec("torch") is not None

STUDY = """
[study]
name = "s"
game = "isolation"
opponent = "isolation:mm_improved"
trials = {trials}
pairs = 3
seed = 7
jobs = 1
opening_plies = 3
{study_extra}

[engine]
heuristic = "weighted"
[engine.search]
algorithm = "alphabeta"
depth = 2

""" + ISOLATION_PINS + """{extra}
"""


def write(tmp_path: Path, sampler: str, trials: int = 4, extra: str = "",
          study_extra: str = "") -> str:
    path = tmp_path / f"{sampler}.toml"
    path.write_text(STUDY.format(trials=trials, extra=extra,
                                 study_extra=f'sampler = "{sampler}"\n{study_extra}'))
    return str(path)


@pytest.mark.slow
# (lbfgs minimises a positions study's loss: tests/tuning/test_positions.py runs it)
@pytest.mark.parametrize("sampler", [s for s, kind in SAMPLERS.items()
                                     if s != "gp" and not kind.positions_only] + ["gp"])
def test_every_sampler_runs_a_real_study_then_confirm_and_export(
        sampler: str, tmp_path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}"
    path = write(tmp_path, sampler)
    if sampler == "gp" and not HAVE_TORCH:  # the optional extra is missing: one clear line
        code, out, err = cli(capsys, "tune", path, "--storage", url)
        assert code == 2 and "needs PyTorch" in err and "heurtune[gp]" in err
        assert err.count("\n") == 1 and not (tmp_path / "h.db").exists()
        return
    code, out, err = cli(capsys, "tune", path, "--storage", url)
    assert code == 0, err
    study = optuna.load_study(study_name="s", storage=url)
    finished = [t for t in study.trials if t.state.is_finished()]
    assert len(finished) == 4
    duels = [t for t in finished if DUEL_ATTR in t.system_attrs]
    if sampler in ("spsa", "duels"):
        # trial 0 plays the baseline against the opponent, the others duel
        assert [t.number for t in duels] == [1, 2, 3]
        for t in duels:
            minus = duel_of(t)["minus"]
            assert set(minus) == {"own_end", "opp_start", "opp_end"} and minus != t.params
    else:
        assert not duels
    if sampler == "duels":  # unconfirmed, the duels answer: its gain labelled model-based
        unconfirmed = tmp_path / "u.toml"
        assert cli(capsys, "export", "s", "--storage", url, "--out", str(unconfirmed),
                   "--force")[0] == 0
        prov = EngineConfig.load(unconfirmed).provenance
        assert not {"gain", "model_gain"} & set(prov)  # never an unlabelled gain
        if "answer" in prov:  # the model's answer moved: its prediction, labelled
            assert prov["answer"] == "duels" and "model_based_gain_elo" in prov
        else:  # after three duels the answer is still the baseline, trial 0
            assert prov["trial"] == 0
    code, out, err = cli(capsys, "confirm", "s", "--storage", url, "--pairs", "3", "--top", "1")
    assert code == 0, err
    verdict = optuna.load_study(study_name="s", storage=url).user_attrs[CONFIRM_ATTR]
    answers = {c["answer"] for c in verdict["candidates"]}
    if sampler in ("spsa", "duels"):
        assert sampler in answers or verdict["winner_is_baseline"]
    out_file = tmp_path / "e.toml"
    # (3 pairs each rarely show a gain: --force, the mechanics are the point here)
    code, out, err = cli(capsys, "export", "s", "--storage", url, "--out", str(out_file),
                         "--force")
    assert code == 0, err
    cfg = EngineConfig.load(out_file)
    # confirmed: the confirmation found the winner better than the baseline (3 pairs
    # rarely do); the fresh evidence is written either way
    assert "confirmation" in cfg.provenance
    assert cfg.provenance["confirmed"] is (Verdict(verdict).no_gain() is None)
    assert {k: cfg.params[k] for k in verdict["winner_params"]} == pytest.approx(
        verdict["winner_params"])


@pytest.mark.parametrize("study_lines,tail,message", [
    ('sampler = "annealing"', "", "unknown sampler 'annealing'"),
    ('sampler = "spsa"', '[sampler]\nprecision = "high"', "precision must be a number"),
    ('sampler = "spsa"', "[sampler]\nprecision = -1.0", "precision must be in"),
    ('sampler = "spsa"', '[sampler]\nschedule = "fast"', "schedule must be one of"),
    ('sampler = "tpe"', "[sampler]\nprecision = 0.5", "sampler 'tpe' has no option(s) ['precision']"),
    ('sampler = "tpe"', '[sampler]\nkind = "spsa"', "name it once"),
    ("", "[sampler]\nscramble = true", "missing 'kind'"),
    ('sampler = "qmc"', "[sampler]\nscramble = 1", "scramble must be true or false"),
    ('sampler = "duels"\nanswer = "luckiest"', "", "answer must be one of"),
    # a constant of duels (an option of heurtune 0.2.0): one line names it and where it
    # is documented
    ('sampler = "duels"', "[sampler]\nreach = 0",
     "[sampler]: reach is a fixed constant of sampler 'duels' now (-1.0), not an option: "
     'remove it from the study file (docs/duels.md, "Constants", says why)'),
    ('sampler = "duels"', "[sampler]\nradius = 0.5\nguard_z = 0\nholdout_every = 5",
     "guard_z and holdout_every are fixed constants of sampler 'duels' now (3.0, 10)"),
])
def test_bad_sampler_input_is_one_line_and_stores_nothing(
        study_lines: str, tail: str, message: str, tmp_path, capsys) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(STUDY.format(trials=2, extra="", study_extra=study_lines) + "\n" + tail + "\n")
    code, out, err = cli(capsys, "tune", str(path), "--storage", f"sqlite:///{tmp_path / 'b.db'}")
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "b.db").exists()


def test_the_duel_samplers_refuse_a_categorical_parameter() -> None:
    # no shipped heuristic has one, so the check is shown on a space that has
    space = ParamSpace("t", (FloatParam("a", 0, 1, 0.5), CategoricalParam("c", ("x", "y"), "x")))
    for kind in ("spsa", "duels"):
        with pytest.raises(HeurtuneError, match=f"sampler '{kind}' searches numeric "
                                                "parameters only; 'c' is categorical"):
            check_space(SamplerSpec.parse(kind, {}, "f.toml"), space, "f.toml")
    check_space(SamplerSpec.parse("tpe", {}, "f.toml"), space, "f.toml")  # TPE takes it


def test_spsa_autoselect_reproduces_fishtest_figures() -> None:
    """fishtest's formula for 4 parameters, draw ratio 0.61, 0.5 Elo at 95%:
    r = 0.003111, c = a sixth of the range, 376,868 games planned."""
    space = ParamSpace("p", tuple(FloatParam(f"x{i}", 0.0, 200.0, 150.0) for i in range(4)))
    spec = SamplerSpec.parse("spsa", {}, "test")
    sampler = SpsaSampler(space, {f"x{i}": 150.0 for i in range(4)}, dict(spec.options), 1, 0)
    assert sampler.r == pytest.approx(0.5 / (800 / math.log(10) * chi2.ppf(0.95, 4) * 0.39 / 8))
    assert round(sampler.r, 6) == 0.003111
    assert sampler.c == pytest.approx(2 / 6)  # a sixth of the range, in unit coordinates
    assert abs(sampler.planned_games - 376_868) <= 60  # fishtest rounds r for display


def oracle_dir(tmp_path: Path, name: str) -> Path:
    """A folder of its own: a study file's path names its (in-memory) storage, so two
    studies of one case, sampler and seed in a test each need one."""
    (tmp_path / name).mkdir()
    return tmp_path / name


def oracle_study(tmp_path: Path, case: str, sampler: str, pairs: int, seed: int,
                 options: str = "") -> str:
    path = tmp_path / f"{case}-{sampler}-{seed}.toml"
    path.write_text(f"""
[study]
name = "o"
game = "oracle"
opponent = "oracle:{case}"
trials = 100000
pairs = {pairs}
seed = {seed}
[engine]
heuristic = "{case}"
[sampler]
kind = "{sampler}"
{options}
""")
    return str(path)


def load_oracle_study(path: str | Path) -> StudyFile:
    """The study file at ``path``, whose ``[sampler]`` table may also set the sampler's
    constants (``duels``' ``narrow``, ``guard_z``, ...), which a study file may not: the
    file is read without them and they are set on its sampler as research code sets them
    (``SamplerSpec.parse(..., internal=True)``), so a test can vary them."""
    data = read_toml(path)
    table = dict(data.get("sampler", {}))
    kind = table.pop("kind")
    constants = SAMPLERS[kind].constants
    if not set(table) & set(constants):
        return load_study_file(path)
    plain = Path(f"{path}.file.toml")
    write_toml(plain, {**data, "sampler": {"kind": kind, **{k: v for k, v in table.items()
                                                            if k not in constants}}})
    return replace(load_study_file(plain),
                   sampler=SamplerSpec.parse(kind, table, str(path), internal=True))


def run_oracle(path: str, games: int, seed: int) -> tuple[optuna.Study, EngineConfig]:
    sf = load_oracle_study(path)
    runner = OracleRunner(seed=seed)
    url = f"memory:{path}"
    tune(sf, storage_url=url, runner=runner, until=lambda _s: runner.games >= games)
    return load_study(open_storage(url), "o"), sf.base


def test_spsa_iterate_is_fishtests_update_of_the_stored_duels(oracle, tmp_path) -> None:
    study, base = run_oracle(oracle_study(tmp_path, "fishtest", "spsa", 4, 3), 2000, 3)
    box = UnitBox(base.heuristic_obj.space)
    theta = box.to_unit(dict(base.params))
    duels = [t for t in study.trials if DUEL_ATTR in t.system_attrs]
    assert len(duels) >= 200
    for t in duels:
        duel = duel_of(t)
        # each duel: theta +- c * flips, and theta moves by R c (wins - losses) flips
        plus = np.clip(theta + duel["c"] * np.array(duel["flips"]), -1, 1)
        assert box.to_unit(t.params) == pytest.approx(plus, abs=1e-9)
        result = t.user_attrs["wins"] - t.user_attrs["losses"]
        theta = np.clip(theta + duel["step"] / duel["c"] * result * np.array(duel["flips"]), -1, 1)
    answer = next(a for a in study_answers(study, base) if a.name == "spsa")
    assert box.to_unit(answer.params) == pytest.approx(theta, abs=1e-9)
    assert default_answer(study, base).name == "spsa"  # answer = "auto": the sampler's own


@pytest.mark.slow
def test_duels_gets_closer_to_the_optimum_than_the_baseline(oracle, tmp_path) -> None:
    """The fishtest case (the baseline 2 Elo below the optimum): after 16,000 games
    the duels answer is better than the baseline in every seed, and within about
    1 Elo of the optimum in most (docs/results/optimisers.md: its median over 20
    seeds reaches 1 Elo at about 14,000 games)."""
    losses = []
    for seed in range(3):
        study, base = run_oracle(oracle_study(tmp_path, "fishtest", "duels", 16, seed), 16_000,
                                 seed)
        answer = next(a for a in study_answers(study, base) if a.name == "duels")
        losses.append(loss(CASES["fishtest"], answer.params))
    assert max(losses) < 2.0 and sorted(losses)[1] < 1.3, losses


def test_oracle_games_follow_the_logistic_curve_and_the_draw_ratio(oracle) -> None:
    from heurtune.engine.config import preset
    from heurtune.match.runner import MatchSpec

    base = preset("oracle:fishtest")
    better = base.with_params({"x1": 100.0, "x2": 100.0, "x3": 100.0, "x4": 100.0})  # +2 Elo
    far = base.with_params({"x1": 0.0, "x2": 0.0, "x3": 0.0, "x4": 0.0})  # -8 Elo vs optimum
    runner = OracleRunner(seed=1)
    spec = MatchSpec(better, far, 20_000, seed=2)
    pairs = list(runner.iter_pairs(spec, [()] * 20_000))
    games = [s for p in pairs for s in p.a_scores]
    expected = 1 / (1 + 10 ** (-8 / 400))  # the optimum is 8 Elo above the corner
    assert sum(games) / len(games) == pytest.approx(expected, abs=0.004)
    assert games.count(0.5) / len(games) == pytest.approx(0.61, abs=0.01)
    again = list(OracleRunner(seed=1).iter_pairs(spec, [()] * 20_000))
    assert [p.a_scores for p in again] == [p.a_scores for p in pairs]  # reproducible


def test_the_quadratic_model_recovers_a_landscape_and_answers_conservatively() -> None:
    rng = np.random.default_rng(0)
    dim = 2
    g, H = np.array([3.0, -2.0]), np.array([[-8.0, 1.0], [1.0, -6.0]])

    def f(d: np.ndarray) -> float:
        return float(g @ d + 0.5 * d @ H @ d)

    empty = QuadraticModel(dim)
    empty.fit()
    point, gain, sd = empty.recommend(-np.ones(dim), np.ones(dim), 1.0)
    assert not point.any() and gain == 0.0  # no data: the baseline
    model = QuadraticModel(dim)
    for _ in range(3000):  # nearly noiseless duels: exact scores of 4,000 games each
        a, b = rng.uniform(-1, 1, dim), rng.uniform(-1, 1, dim)
        score = 1 / (1 + 10 ** (-(f(a) - f(b)) / 400))
        model.add(Observation(a, b, score, 4000))
    model.fit()
    truth = np.concatenate([g, np.diag(H) / 2, [H[0, 1]]])
    assert model.mean == pytest.approx(truth, abs=0.15)
    best = np.linalg.solve(-H, g)
    point, gain, sd = model.recommend(-np.ones(dim), np.ones(dim), 1.0)
    assert point == pytest.approx(best, abs=0.03) and gain == pytest.approx(f(best), abs=0.2)
    assert features(np.array([1.0, 2.0])).tolist() == [1.0, 2.0, 1.0, 4.0, 2.0]


def test_a_large_landscape_lifts_the_prior_scale() -> None:
    """Empirical Bayes: differences of hundreds of Elo choose a prior far above the
    fine-tuning guess of 2 Elo per half range."""
    rng = np.random.default_rng(1)
    model = QuadraticModel(2)
    for _ in range(200):
        a, b = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2)
        diff = -150 * (a @ a - b @ b)
        model.add(Observation(a, b, 1 / (1 + 10 ** (-diff / 400)), 200))
    model.fit()
    assert model.scale >= 32


def test_top_mean_averages_the_best_trials_by_kind_of_parameter() -> None:
    space = ParamSpace("s", (FloatParam("f", 0.0, 10.0, 1.0), FloatParam("g", 0.1, 100.0, 1.0,
                                                                           log=True),
                             IntParam("i", 0, 10, 0), CategoricalParam("c", ("x", "y"), "x")))
    trials = [optuna.trial.create_trial(
        params={"f": f, "g": gv, "i": i, "c": c}, value=v,
        distributions={"f": optuna.distributions.FloatDistribution(0, 10),
                       "g": optuna.distributions.FloatDistribution(0.1, 100, log=True),
                       "i": optuna.distributions.IntDistribution(0, 10),
                       "c": optuna.distributions.CategoricalDistribution(("x", "y"))})
        for f, gv, i, c, v in ((1.0, 1.0, 1, "y", 0.9), (2.0, 100.0, 2, "y", 0.8),
                               (6.0, 10.0, 4, "x", 0.7))]
    out = _top_mean(space, trials)
    assert out["f"] == pytest.approx(3.0) and out["g"] == pytest.approx(10.0)
    assert out["i"] == 2 and out["c"] == "y"


@pytest.mark.slow
def test_confirming_a_duel_study_leaves_out_every_duels_openings(oracle, tmp_path) -> None:
    """Each duel trial draws openings of its own; the confirmation's fresh openings
    are none of them (nor the baseline trial's)."""
    from heurtune.match.runner import MatchSpec
    from heurtune.tuning import confirm_study
    from heurtune.tuning.study import duel_seed
    from heurtune.tuning.studyfile import ConfirmOptions

    path = oracle_study(tmp_path, "fishtest", "duels", 4, 5)
    study, base = run_oracle(path, 400, 5)
    sf = load_study_file(path)
    seen = set(sf.match_spec().openings())
    duels = [t for t in study.trials if DUEL_ATTR in t.system_attrs]
    for t in duels:
        seen |= set(MatchSpec(base, base, 4, duel_seed(sf.seed, t.number), 3).openings())
    assert len(seen) == 4 * (len(duels) + 1)  # a million 3-ply openings: no repeats here
    verdict = confirm_study(f"memory:{path}", "o", ConfirmOptions(pairs=30),
                            runner=OracleRunner(seed=5))
    assert verdict.raw["excluded_study_openings"] == len(seen)
    assert not {tuple(op) for op in verdict.raw["openings"]} & seen
    assert {c.answer for c in verdict.candidates} <= {"duels", "trial"}


@pytest.mark.slow
def test_the_oracle_benchmark_runs_from_one_command(tmp_path) -> None:
    """benchmarks/oracle.py --json: one object keyed by sampler name, with the
    default configuration named (a quick run: one seed, a small budget)."""
    import json
    import subprocess
    import sys

    root = ROOT
    out = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "oracle.py"), "--case", "fishtest", "--seeds",
         "1", "--optimisers", "duels,spsa,random", "--budget", "4000", "--json",
         "--plot", str(tmp_path / "p.png")],
        check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    data = json.loads(out.strip().splitlines()[-1])
    assert data["default"] == "duels" and {"duels", "spsa", "random"} <= set(data)
    for name in ("duels", "spsa", "random"):
        assert {"games_to_1_elo", "games_to_half_elo", "answer"} <= set(data[name])
    assert data["spsa"]["answer"] == "spsa" and (tmp_path / "p.png").stat().st_size > 1000
