"""What ``tune``, ``confirm`` and ``export`` write for optuna-dashboard.

* A **study note** (Markdown, optuna-dashboard's ``save_note``): the study
  file, engine, opponent, openings, budget, trials by state, the current best
  with its interval, the confirmation's verdict and the exported engine. It is
  rebuilt from the study's state whenever one of them changes (every finished
  trial, a confirmation, an export), so every command writes the same note.
* A **trial note** per finished trial: its match summary (pairs won / even /
  lost, games, score with interval, Elo, nElo, LOS, pentanomial counts) and
  its parameters.
* **Artifacts** in an artifact store (optuna's ``FileSystemArtifactStore``): a
  trial that becomes the best so far gets its engine file and sample games
  (the two games it played on the study's first opening, kept by its match)
  as a JSON Lines file ``heurtune replay`` reads; ``export`` adds the
  exported engine file to the study. Trial
  artifacts are uploaded while the trial runs (optuna-dashboard lists only
  those).

The store is a folder: ``--artifacts DIR``, else for a SQLite storage the
folder beside the database named after it (``studies/heurtune.db`` ->
``studies/heurtune-artifacts``); other storages get notes only unless given
one. An unwritable folder is an error before anything is stored. Once a study
runs, dashboard content never fails a trial: a failure to write it is one
warning line, and the trial goes on.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import optuna
from optuna.artifacts import FileSystemArtifactStore, upload_artifact
from optuna.trial import FrozenTrial, TrialState
from optuna_dashboard import save_note

from heurtune.engine.config import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match.play import PairResult
from heurtune.match.records import pair_records, write_records
from heurtune.match.runner import stats_of
from heurtune.match.stats import MatchStats, elo_text
from heurtune.tomlio import check_folder_writable
from heurtune.tuning.confirm import CONFIRM_ATTR, candidate_label, winner_candidate
from heurtune.tuning.samplers import best_match_trial, trial_score
from heurtune.tuning.storage import load_study, open_storage, sqlite_path
from heurtune.tuning.studyfile import StudyFile
from heurtune.tuning.tune import SETUP_ATTR

ARTIFACTS_SUFFIX = "-artifacts"  # studies/heurtune.db -> studies/heurtune-artifacts
SAMPLE_PAIRS = 1  # opening pairs (two games each) kept as a new best trial's sample games
TUNING_ATTR = "tuning"  # study user attribute: the study file, target trials, sampler, pruner
EXPORTED_ATTR = "exported"  # study user attribute: the last export's file, trial and date
TEXT = "text/plain"  # artifacts' MIME type: the browser shows them as they are

F = TypeVar("F", bound=Callable[..., Any])


def artifact_folder(storage_url: str, given: str | os.PathLike[str] | None) -> Path | None:
    """The artifact folder: ``given``, else the one beside a SQLite database,
    else none (notes only)."""
    if given:
        return Path(given)
    db = sqlite_path(storage_url)
    return db.with_name(db.stem + ARTIFACTS_SUFFIX) if db is not None else None


def _never_fails(method: F) -> F:
    """Dashboard content is a view of the study: a failure to write it is a
    warning, never a failed trial or command."""

    @functools.wraps(method)
    def safe(self: Dashboard, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # anything: the trial must go on
            self.warn(f"dashboard content not written ({method.__name__}): "
                      f"{type(exc).__name__}: {exc}")
            return None

    return safe  # type: ignore[return-value]


def _warn(message: str) -> None:
    print(f"heurtune: warning: {message}", file=sys.stderr)


@dataclass
class Dashboard:
    """Writes the notes, and the artifacts when there is a ``folder``."""

    folder: Path | None = None
    warn: Callable[[str], None] = _warn
    _store: FileSystemArtifactStore | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, storage_url: str, artifacts: str | os.PathLike[str] | None) -> Dashboard:
        """The dashboard writer for a storage (see :func:`artifact_folder`),
        its folder checked writable before anything is stored."""
        folder = artifact_folder(storage_url, artifacts)
        if folder is not None:
            try:
                check_folder_writable(folder)
            except HeurtuneError as exc:
                raise HeurtuneError(f"artifact folder {exc}") from None
        return cls(folder)

    @property
    def sample_pairs(self) -> tuple[int, ...]:
        """The openings (by index) whose games a trial's match keeps for its artifacts."""
        return tuple(range(SAMPLE_PAIRS)) if self.folder is not None else ()

    def store(self) -> FileSystemArtifactStore | None:
        """The artifact store, its folder made on first use."""
        if self.folder is None:
            return None
        if self._store is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._store = FileSystemArtifactStore(self.folder.resolve())
        return self._store

    # -- tune ----------------------------------------------------------------
    @_never_fails
    def study_started(self, study: optuna.Study, sf: StudyFile, target: int) -> None:
        """Record where the study comes from and write its note."""
        folder = str(self.folder) if self.folder is not None else None
        study.set_user_attr(TUNING_ATTR, {"study_file": str(sf.path), "trials": target,
                                          "sampler": sf.sampler.kind, "pruner": sf.pruner.kind,
                                          "artifacts": folder})
        save_note(study, study_note(study, self.folder))

    @_never_fails
    def trial_finished(self, trial: optuna.Trial, config: EngineConfig, sf: StudyFile,
                       pairs: Sequence[PairResult], pruned: bool,
                       duel: dict[str, Any] | None = None) -> None:
        """While the trial still runs: its note, and for a complete trial that
        beats every completed one its engine file and sample games as artifacts
        (a duel, which played the sampler's other weights, has a note only)."""
        stats = stats_of(sorted(pairs, key=lambda p: p.index))
        against = ("the sampler's other weights (" + ", ".join(
            f"{k} = {_value(v)}" for k, v in duel.items()) + ")" if duel is not None
            else f"`{sf.opponent_spec}`" if len(sf.pool) == 1 else f"the {sf.opponents_text}")
        save_note(trial, trial_note(trial.number, stats, sf.pairs, against,
                                    dict(trial.params), pruned))
        store = self.store()
        sample = [p for p in pairs if p.games]  # the pairs of self.sample_pairs
        if (store is None or pruned or duel is not None or not sample
                or not _is_new_best(trial, stats.score)):
            return
        spec = sf.match_spec(config)
        with tempfile.TemporaryDirectory(prefix="heurtune-artifacts-") as tmp:
            engine = Path(tmp) / f"trial-{trial.number}.toml"
            config.save(engine, f"# heurtune: the engine of trial {trial.number} of study "
                                f"{trial.study.study_name!r}\n")
            games = Path(tmp) / f"trial-{trial.number}-games.jsonl"
            write_records(games, pair_records(spec, sample))
            for path in (engine, games):
                upload_artifact(artifact_store=store, file_path=str(path), study_or_trial=trial,
                                mimetype=TEXT)

    @_never_fails
    def refresh(self, study: optuna.Study) -> None:
        """Rewrite the study note from the study's state."""
        save_note(study, study_note(study, self.folder))

    # -- confirm, export ---------------------------------------------------------
    @_never_fails
    def confirmed(self, storage_url: str, study_name: str) -> None:
        """After a confirmation: the study note with its verdict."""
        self.refresh(load_study(open_storage(storage_url, create=False), study_name))

    @_never_fails
    def exported(self, storage_url: str, study_name: str, path: Path, what: str) -> None:
        """After an export: the engine file as a study artifact (each export adds
        its own: the files differ at least by their date) and the study note
        naming it."""
        study = load_study(open_storage(storage_url, create=False), study_name)
        study.set_user_attr(EXPORTED_ATTR, {
            "path": str(path), "what": what,
            "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()})
        store = self.store()
        if store is not None:
            upload_artifact(artifact_store=store, file_path=str(path), study_or_trial=study,
                            mimetype=TEXT)
        self.refresh(study)


def serve_artifacts(storage_url: str, artifacts: str | os.PathLike[str] | None
                    ) -> tuple[FileSystemArtifactStore | None, Path | None]:
    """The store ``heurtune dashboard`` serves and its folder: the given folder
    (which must exist), else the default one if it exists, else none."""
    folder = artifact_folder(storage_url, artifacts)
    if folder is None or (artifacts is None and not folder.is_dir()):
        return None, None
    if not folder.is_dir():
        raise HeurtuneError(f"artifact folder {folder}: no such folder")
    return FileSystemArtifactStore(folder.resolve()), folder


def _is_new_best(trial: optuna.Trial, score: float) -> bool:
    """Whether a running trial's score beats every completed match trial's."""
    best = best_match_trial(trial.study)
    return best is None or score > trial_score(best)



# -- the notes ----------------------------------------------------------------------
def _interval(stats: MatchStats) -> str:
    lo, hi = stats.score_ci
    return f"{stats.score:.3f} [{lo:.3f}, {hi:.3f}]"


def _elo(stats: MatchStats) -> str:
    lo, hi = stats.score_ci
    elo_lo, elo_hi = stats.elo_ci
    return f"{stats.elo + 0.0:+.1f} [{elo_text(lo, elo_lo)}, {elo_text(hi, elo_hi)}]"


def _value(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def trial_note(number: int, stats: MatchStats, planned: int, opponent: str,
               params: dict[str, Any], pruned: bool) -> str:
    """A finished trial's match summary as Markdown."""
    played = len(stats.pair_scores)
    state = f"pruned after {played} of {planned} opening pairs" if pruned else "complete"
    won, even, lost = stats.pair_outcomes
    ll, ld, dd, wd, ww = stats.pentanomial
    lines = [
        f"## Trial {number}: {state}", "",
        f"Against {opponent} on {played} opening pairs ({stats.games} games), "
        "every figure over pairs (95% intervals).", "",
        "| | |", "|---|---|",
        f"| pairs won / even / lost | {won} / {even} / {lost} |",
        f"| games | +{stats.wins} ={stats.draws} -{stats.losses} |",
        f"| score | {_interval(stats)} |",
        f"| Elo | {_elo(stats)} |",
        f"| nElo, LOS | {stats.nelo + 0.0:+.1f}, {stats.los:.1%} |",
        f"| pentanomial LL, LD, DD/WL, WD, WW | {ll}, {ld}, {dd}, {wd}, {ww} |",
        "", "Parameters: " + ", ".join(f"{k} = {_value(v)}" for k, v in params.items()),
    ]
    return "\n".join(lines) + "\n"


def _exported_what(exported: dict[str, Any]) -> str:
    """What the last export wrote ("trial 7", "answer duels"; older notes: a trial number)."""
    return str(exported.get("what") or f"trial {exported.get('trial')}")


def _trial_line(trial: FrozenTrial) -> str:
    a = trial.user_attrs
    ci = a.get("score_ci") or [0.0, 0.0]
    return (f"trial {trial.number}: score {trial_score(trial):.3f} [{ci[0]:.3f}, {ci[1]:.3f}] "
            f"over {a.get('games', 0)} games (+{a.get('wins', 0)} ={a.get('draws', 0)} "
            f"-{a.get('losses', 0)}), Elo {a.get('elo', 0.0) + 0.0:+.1f}")  # no -0.0


def confirmation_line(study: optuna.Study, name: str, completed: int) -> str:
    verdict = study.user_attrs.get(CONFIRM_ATTR)
    if verdict is None:
        return f"not confirmed yet (heurtune confirm {name})"
    winner = winner_candidate(verdict)
    lo, hi = winner["score_ci"]
    line = (f"winner {candidate_label(winner)}"
            f"{' (the baseline: no candidate beat it)' if verdict['winner_is_baseline'] else ''}: "
            f"fresh score {winner['score']:.3f} [{lo:.3f}, {hi:.3f}] over {winner['games']} "
            f"games ({len(verdict['candidates'])} candidates, {verdict['pairs']} fresh opening "
            "pairs each)")
    if "vs_baseline" in verdict:
        d = verdict["vs_baseline"]
        line += (f"; vs the baseline {d['difference']:+.3f} [{d['difference_ci'][0]:+.3f}, "
                 f"{d['difference_ci'][1]:+.3f}] (paired)")
    if "sprt" in verdict:
        s = verdict["sprt"]
        line += (f"; SPRT [{s['elo0']:g}, {s['elo1']:g}]: {s['verdict'] or 'no verdict'} "
                 f"after {s['pairs']} pairs")
    if verdict.get("completed_trials") != completed:
        line += (f" (confirmed when the study had {verdict.get('completed_trials')} completed "
                 "trials: confirm again)")
    return line


def study_facts(study: optuna.Study, folder: Path | None) -> list[tuple[str, str]]:
    """What a study is and where it stands, as (name, value) rows: its study
    file, engine, opponent, openings, budget, trials, best trial,
    confirmation, exported engine and artifact folder."""
    name = study.study_name
    setup = study.user_attrs.get(SETUP_ATTR, {})
    tuning = study.user_attrs.get(TUNING_ATTR, {})
    engine = setup.get("engine", {})
    search = engine.get("search", {})
    trials = study.get_trials(deepcopy=False)
    count = {s: sum(1 for t in trials if t.state == s) for s in TrialState}
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    best = best_match_trial(study)
    pairs = setup.get("pairs", "?")
    openings = ("one of every symmetry class" if setup.get("openings") == "all"
                else f"{pairs} pairs ({2 * pairs if isinstance(pairs, int) else '?'} games)")
    exported = study.user_attrs.get(EXPORTED_ATTR)
    where = folder if folder is not None else tuning.get("artifacts")
    return [
        ("study file", tuning.get("study_file") or "-"),
        ("engine", f"{engine.get('game', '?')} heuristic {engine.get('heuristic', '?')}, "
                   + ", ".join(f"{k} {v}" for k, v in search.items()
                               if k in ("algorithm", "depth", "nodes", "time_ms") and v)),
        ("opponent", str(setup.get("opponent_spec", "?"))),
        ("openings", f"{openings} per trial, {setup.get('opening_plies', '?')} plies, "
                     f"seed {setup.get('seed', '?')}"),
        ("budget", f"{tuning.get('trials', '?')} trials, sampler {tuning.get('sampler', '?')}, "
                   f"pruner {tuning.get('pruner', '?')}"),
        ("trials", f"{count[TrialState.COMPLETE]} complete, {count[TrialState.PRUNED]} pruned, "
                   f"{count[TrialState.FAIL]} failed, {count[TrialState.RUNNING]} running"),
        ("best", _trial_line(best) if best is not None else "no completed trial yet"),
        ("confirmation", confirmation_line(study, name, len(complete))),
        ("exported engine", f"{exported['path']} ({_exported_what(exported)}, {exported['date']})"
         if exported else f"not exported yet (heurtune export {name})"),
        ("artifacts", str(where) if where
         else "none (give --artifacts DIR to keep engines and sample games)"),
    ]


def study_note(study: optuna.Study, folder: Path | None) -> str:
    """The study's note as Markdown, from its state in the storage."""
    name = study.study_name
    lines = [f"# Study `{name}`", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in study_facts(study, folder)]
    best = best_match_trial(study)
    if best is not None:
        defaults = study.user_attrs.get(SETUP_ATTR, {}).get("engine", {}).get("params", {})
        lines += ["", f"Trial {best.number}'s parameters against the heuristic's defaults "
                      "(the baseline):", "", "| parameter | best | default |", "|---|---|---|"]
        lines += [f"| {k} | {_value(v)} | {_value(defaults.get(k, '-'))} |"
                  for k, v in best.params.items()]
    lines += ["", f"Plots, the confirmation and a sample game: `heurtune report {name}`."]
    return "\n".join(lines) + "\n"
