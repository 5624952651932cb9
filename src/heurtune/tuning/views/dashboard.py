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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import optuna
from optuna.artifacts import FileSystemArtifactStore, upload_artifact
from optuna_dashboard import save_note

from heurtune.engine import EngineConfig
from heurtune.engine.params import value_text
from heurtune.errors import HeurtuneError
from heurtune.match import stats_of
from heurtune.match.records import pair_records, write_records
from heurtune.tomlio import check_folder_writable
from heurtune.tuning.after import export_choice
from heurtune.tuning.samplers import is_holdout
from heurtune.tuning.study import (
    Verdict,
    best_match_trial,
    load_study,
    open_storage,
    schema,
    sqlite_path,
    trial_score,
)
from heurtune.tuning.studyfile import StudyFile
from heurtune.tuning.views.text import command_text, study_facts, trial_note

ARTIFACTS_SUFFIX = "-artifacts"  # studies/heurtune.db -> studies/heurtune-artifacts
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
    """Writes the notes, and the artifacts when there is a ``folder``; the
    commands a note names give ``--storage storage_url`` (where it is not the
    default storage)."""

    folder: Path | None = None
    warn: Callable[[str], None] = _warn
    storage_url: str | None = None
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
        return cls(folder, storage_url=storage_url)

    @property
    def sample_pairs(self) -> tuple[int, ...]:
        """The openings (by index) whose games a trial's match keeps for its artifacts."""
        return tuple(range(schema.SAMPLE_PAIRS)) if self.folder is not None else ()

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
        study.set_user_attr(schema.TUNING, {"study_file": str(sf.path), "trials": target,
                                          "sampler": sf.sampler.kind, "pruner": sf.pruner.kind,
                                          "artifacts": folder})
        save_note(study, study_note(study, self.folder, self.storage_url))

    @_never_fails
    def trial_finished(self, trial: optuna.Trial, config: EngineConfig, sf: StudyFile,
                       pairs: Sequence[Any], pruned: bool,
                       duel: dict[str, Any] | None = None, pgn: str = "",
                       failed: str = "") -> None:
        """While the trial still runs: its note, and for a complete trial that
        beats every completed one its engine file and sample games as artifacts
        (a duel, which played the sampler's other weights, has a note only).
        ``duel``: a duel trial's record (its other side under ``minus``); ``pgn``:
        every game of the trial as PGN, an artifact of its own (a study with
        ``pgn = true``); ``failed``: why the trial failed (its engine's faults)."""
        stats = stats_of(sorted(pairs, key=lambda p: p.index))
        if duel is None:
            against = (f"`{sf.opponent_spec}`" if len(sf.pool) == 1
                       else f"the {sf.opponents_text}")
        elif is_holdout(duel):  # the answer against the baseline, which the model never sees
            against = ("the baseline (a held-out duel: the sampler's answer measured, left out "
                       "of its model; the model-based prediction of this gain "
                       f"{duel['model_gain'] + 0.0:+.1f} Elo, sd {duel['model_gain_sd']:.1f})")
        else:
            against = "the sampler's other weights (" + ", ".join(
                f"{k} = {value_text(v)}" for k, v in duel["minus"].items()) + ")"
        save_note(trial, trial_note(trial.number, stats, sf.pairs, against,
                                    dict(trial.params), pruned, failed))
        store = self.store()
        if store is not None and pgn:
            with tempfile.TemporaryDirectory(prefix="heurtune-artifacts-") as tmp:
                games_pgn = Path(tmp) / f"trial-{trial.number}.pgn"
                games_pgn.write_text(pgn, encoding="utf-8")
                upload_artifact(artifact_store=store, file_path=str(games_pgn),
                                study_or_trial=trial, mimetype=TEXT)
        sample = [p for p in pairs if p.games]  # the pairs of self.sample_pairs
        if (store is None or pruned or failed or duel is not None or not sample
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
        save_note(study, study_note(study, self.folder, self.storage_url))

    # -- confirm, export ---------------------------------------------------------
    @_never_fails
    def confirmed(self, storage_url: str, study_name: str) -> None:
        """After a confirmation: the study note with its verdict."""
        study = load_study(open_storage(storage_url, create=False), study_name, storage_url)
        save_note(study, study_note(study, self.folder, storage_url))

    @_never_fails
    def exported(self, storage_url: str, study_name: str, path: Path, what: str) -> None:
        """After an export: the engine file as a study artifact (each export adds
        its own: the files differ at least by their date) and the study note
        naming it."""
        study = load_study(open_storage(storage_url, create=False), study_name, storage_url)
        study.set_user_attr(schema.EXPORTED, {
            "path": str(path), "what": what,
            "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()})
        store = self.store()
        if store is not None:
            upload_artifact(artifact_store=store, file_path=str(path), study_or_trial=study,
                            mimetype=TEXT)
        save_note(study, study_note(study, self.folder, storage_url))


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


def dashboard_app(storage_url: str, artifacts: str | os.PathLike[str] | None, *,
                  writable: bool = False, host: str = "127.0.0.1",
                  port: int = 8080) -> tuple[Any, Path | None]:
    """optuna-dashboard's WSGI app for a storage and its artifacts (read-only unless
    ``writable``), answering only requests addressed to ``host:port`` where it is
    served (see :func:`same_site`), and the artifact folder it serves (None: no
    artifacts)."""
    import optuna_dashboard

    storage = open_storage(storage_url, create=False)
    store, folder = serve_artifacts(storage_url, artifacts)
    app = optuna_dashboard.wsgi(storage, artifact_store=store)
    return same_site(app if writable else read_only(app), host, port), folder


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # the methods that change nothing
LOOPBACK_NAMES = {"127.0.0.1": ("127.0.0.1", "localhost"), "localhost": ("127.0.0.1", "localhost"),
                  "::1": ("::1", "localhost")}  # bound host -> the names that reach it


def _forbidden(start_response: Any, why: str) -> list[bytes]:
    start_response("403 Forbidden", [("Content-Type", "text/plain; charset=utf-8")])
    return [f"heurtune dashboard: {why}\n".encode()]


def read_only(app: Any) -> Any:
    """The dashboard's WSGI app, refusing every request that would change a study."""

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("REQUEST_METHOD", "GET").upper() not in SAFE_METHODS:
            return _forbidden(start_response, "read-only; start it with --writable to change "
                                              "studies")
        return app(environ, start_response)

    return guarded


def _address(netloc: str) -> tuple[str, int] | None:
    """``host[:port]`` (an HTTP ``Host`` header, a URL's authority) as (lower-case
    host without IPv6 brackets, port; 80 when absent), None when malformed."""
    try:
        parts = urlsplit("//" + netloc.strip())
        port = parts.port
    except ValueError:
        return None
    if (not parts.hostname or parts.username is not None or parts.password is not None
            or parts.path or parts.query or parts.fragment):
        return None
    return parts.hostname, 80 if port is None else port


def _origin(url: str) -> tuple[str, int] | None:
    """An ``Origin`` or ``Referer`` header's address when it is an http URL, else None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    return _address(parts.netloc) if parts.scheme.lower() == "http" else None


def same_site(app: Any, host: str, port: int) -> Any:
    """The dashboard's WSGI app, answering only its own address and its own pages.

    * The ``Host`` header must name the address it is served on, ``host:port``
      (bound to 127.0.0.1 or localhost: either name; ``::1``: ``[::1]`` or
      localhost), else HTTP 403: a page of another site that makes its name
      resolve to 127.0.0.1 (DNS rebinding) neither reads nor changes studies.
      Bound to any other address (``0.0.0.0``, ``--allow-remote``) the dashboard
      is exposed on purpose, under names this cannot know: any ``Host`` goes.
    * A request that may change a study (any method but GET, HEAD and OPTIONS)
      must come from the dashboard's own pages: its ``Origin`` (else its
      ``Referer``) must be ``http://`` an accepted address (exposed: the request's
      own ``Host``), else HTTP 403. A request with neither header (curl, scripts:
      browsers send ``Origin`` with every cross-site POST, PUT, PATCH and DELETE)
      goes.
    """
    names = LOOPBACK_NAMES.get(host.lower())
    allowed = {(name, port) for name in names} if names is not None else None

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        given = environ.get("HTTP_HOST")
        addressed = _address(given) if given is not None else None
        if allowed is not None and given is not None and addressed not in allowed:
            return _forbidden(start_response, f"refused a request for host {given!r}: the "
                                              f"dashboard answers only to {host}:{port}")
        if environ.get("REQUEST_METHOD", "GET").upper() not in SAFE_METHODS:
            header = "Origin" if "HTTP_ORIGIN" in environ else (
                "Referer" if "HTTP_REFERER" in environ else None)
            if header is not None:
                source = environ["HTTP_" + header.upper()]
                accepted = allowed if allowed is not None else (
                    {addressed} if addressed is not None else set())
                if _origin(source) not in accepted:
                    return _forbidden(start_response, f"refused a change requested by another "
                                                      f"site ({header} {source!r})")
        return app(environ, start_response)

    return guarded


def _is_new_best(trial: optuna.Trial, score: float) -> bool:
    """Whether a running trial's score beats every completed match trial's."""
    best = best_match_trial(trial.study)
    return best is None or score > trial_score(best)


def study_note(study: optuna.Study, folder: Path | None, storage_url: str | None = None) -> str:
    """The study's note as Markdown, from its state in the storage: its facts and
    the parameters that ``export`` writes (the confirmation's winner, else the
    study's answer) against the defaults. The commands it names give
    ``--storage`` where ``storage_url`` is given and not the default storage."""
    name = study.study_name
    lines = [f"# Study `{name}`", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in study_facts(study, folder, storage_url)]
    choice = export_choice(study)
    if choice is not None:
        label, params = choice
        export = command_text("export", name, storage_url)
        why = (f"the confirmation's winner, which `{export}` writes"
               if Verdict.of(study.user_attrs) is not None else
               f"the study's answer while unconfirmed, which `{export} --force` writes; "
               "the confirmation may pick another")
        defaults = study.user_attrs.get(schema.SETUP, {}).get("engine", {}).get("params", {})
        lines += ["", f"{label[0].upper() + label[1:]}'s parameters ({why}) against the "
                      "heuristic's defaults (the baseline):", "",
                  f"| parameter | {label} | default |", "|---|---|---|"]
        lines += [f"| {k} | {value_text(v)} | {value_text(defaults.get(k, '-'))} |"
                  for k, v in params.items()]
    lines += ["", "Plots, the confirmation and a sample game: "
                  f"`{command_text('report', name, storage_url)}`."]
    return "\n".join(lines) + "\n"
