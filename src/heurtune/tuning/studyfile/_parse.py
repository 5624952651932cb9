"""Reading a study file: parse, validate, one error line naming the file and the key."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Set
from dataclasses import replace
from pathlib import Path
from typing import Any

from heurtune.engine import MAX_PLY, EngineConfig, ProcessSpec, SearchSettings, resolve_engine
from heurtune.errors import HeurtuneError
from heurtune.games import get_game
from heurtune.match import SEED_MAX, check_jobs
from heurtune.match.books import SHIPPED_PREFIX, Book, cached_book
from heurtune.match.openings import opening_classes
from heurtune.match.play import Adjudication
from heurtune.tomlio import read_toml
from heurtune.tuning.samplers.registry import SamplerSpec, check_space
from heurtune.tuning.studyfile._spec import (
    ANSWERS,
    BUDGETS,
    DEFAULT_FAULT_SHARE,
    DEFAULT_JOBS,
    DEFAULT_PAIRS,
    DEFAULT_POSITION_TRIALS,
    DEFAULT_SEED,
    DEFAULT_TOP,
    DEFAULT_TRIALS,
    DISTINCT_OPENINGS,
    NAME_MAX,
    OBJECTIVES,
    PERSPECTIVES,
    POSITION_LOSSES,
    PRUNERS,
    SAMPLER_SEEDINGS,
    SEARCH_DEFAULTS,
    SECTION_KEYS,
    STUDY_PREFIX,
    ConfirmOptions,
    PoolMember,
    PositionsSpec,
    PrunerSpec,
    StudyFile,
)


def _need(table: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in table:
        raise HeurtuneError(f"{where}: missing {key!r}")
    return _typed(table[key], kind, f"{where}: {key}")


def _typed(value: Any, kind: type, what: str) -> Any:
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise HeurtuneError(f"{what} must be {kind.__name__}, got {value!r}")
    return value


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise HeurtuneError(f"{where}: [{key}] must be a table")
    return value


def _check_keys(table: Mapping[str, Any], allowed: Set[str], where: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise HeurtuneError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})")


def _beside(study_path: str | os.PathLike[str], ref: str) -> str:
    """A file named in a study file: as given if it exists, else next to the study file."""
    if os.path.isabs(ref) or Path(ref).is_file():
        return ref
    candidate = Path(study_path).parent / ref
    return str(candidate) if candidate.is_file() else ref


def load_study_file(path: str | os.PathLike[str]) -> StudyFile:
    """Parse and validate a study file; every error names the file."""
    where = str(path)
    data = read_toml(path)
    _check_keys(data, SECTION_KEYS[""], where)
    study = _table(data, "study", where)
    if not study:
        raise HeurtuneError(f"{where}: missing [study] table")
    _check_keys(study, SECTION_KEYS["study"], f"{where} [study]")
    w = f"{where} [study]"
    game = _need(study, "game", str, w)
    kernel = get_game(game)
    engine = _table(data, "engine", where)
    _check_keys(engine, SECTION_KEYS["engine"], f"{where} [engine]")
    process = None
    if "process" in engine:  # an engine in another process: its options are the space
        heuristic = _typed(engine.get("heuristic", ""), str, f"{where} [engine]: heuristic")
    else:
        heuristic = _need(engine, "heuristic", str, f"{where} [engine]")
    try:
        if "process" in engine:
            process = ProcessSpec.from_dict(_table(engine, "process", f"{where} [engine]"),
                                            Path(path).resolve().parent, "[engine.process]")
        search = SearchSettings.from_dict(_table(engine, "search", f"{where} [engine]"))
        base = EngineConfig(
            game=game,
            heuristic=heuristic,
            search=search,
            rules=dict(_table(engine, "rules", f"{where} [engine]")),
            name="tuned",
            process=process,
        )
        named = _table(data, "params", where)
        declared = base.heuristic_obj.space
        if process is not None and process.dialect(game) == "uci":
            # a UCI engine declares its hash size, threads and much more that no study
            # should search: only the options [params] names are searched
            named = {**{p.name: {"fixed": p.default} for p in declared.params
                        if p.name not in named}, **named}
        space = declared.narrowed(named)
    except HeurtuneError as exc:
        raise HeurtuneError(f"{where}: {exc}") from None
    base = base.with_params(space.defaults())
    pool = _pool(study, path, w, game, base)
    budget = _typed(study.get("budget", "nodes"), str, f"{w}: budget")
    if budget not in BUDGETS:
        raise HeurtuneError(f"{w}: budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
    if budget == "time":  # every engine the same time per move, no other limit
        time_ms = _typed(study.get("time_ms", 0), float, f"{w}: time_ms")
        if not 0.05 <= time_ms <= 600_000:
            raise HeurtuneError(f"{w}: budget = \"time\" needs time_ms in [0.05, 600000], "
                                f"got {time_ms:g}")
        try:
            base = _timed(base, time_ms)
            pool = [PoolMember(_timed(m.engine, time_ms), m.spec, m.weight) for m in pool]
        except HeurtuneError as exc:
            raise HeurtuneError(f"{w}: {exc}") from None
    elif "time_ms" in study:
        raise HeurtuneError(f"{w}: time_ms goes with budget = \"time\"")
    opponent, opponent_spec = pool[0].engine, pool[0].spec
    objectives = tuple(_typed(study.get("objectives", ["score"]), list, f"{w}: objectives"))
    if objectives not in (("score",), ("score", "cost")):
        raise HeurtuneError(f"{w}: objectives must be [\"score\"] or [\"score\", \"cost\"], "
                            f"got {list(objectives)!r}")
    objective = _typed(study.get("objective", "match"), str, f"{w}: objective")
    if objective not in OBJECTIVES:
        raise HeurtuneError(f"{w}: objective must be one of {', '.join(OBJECTIVES)}, "
                            f"got {objective!r}")
    positions = _positions(data, study, path, w, base) if objective == "positions" else None
    if positions is None and ("positions" in study or "positions" in data):
        raise HeurtuneError(f"{w}: positions go with objective = \"positions\"")
    if positions is not None and len(objectives) > 1:
        raise HeurtuneError(f"{w}: objective = \"positions\" has one objective, the loss")
    trials = _typed(study.get("trials", DEFAULT_POSITION_TRIALS if positions else DEFAULT_TRIALS),
                    int, f"{w}: trials")
    every_class = study.get("pairs") == "all"
    search = _typed(study.get("search", "fine"), str, f"{w}: search")
    if search not in SEARCH_DEFAULTS:
        raise HeurtuneError(f"{w}: search must be one of {', '.join(SEARCH_DEFAULTS)}, "
                            f"got {search!r}")
    defaults = SEARCH_DEFAULTS[search]
    pairs = 1 if every_class else _typed(study.get("pairs", defaults["pairs"]), int, f"{w}: pairs")
    jobs = _typed(study.get("jobs", DEFAULT_JOBS), int, f"{w}: jobs")
    plies = _typed(study.get("opening_plies", kernel.opening_plies), int, f"{w}: opening_plies")
    for key, value, low in (("trials", trials, 1), ("pairs", pairs, 1), ("jobs", jobs, 1),
                            ("opening_plies", plies, 0)):
        if value < low:
            raise HeurtuneError(f"{w}: {key} must be at least {low}, got {value}")
    try:
        check_jobs(jobs)
    except HeurtuneError as exc:
        raise HeurtuneError(f"{w}: {exc}") from None
    if every_class:  # one opening of every symmetry class, each trial all of them
        if plies > 64:
            raise HeurtuneError(f"{w}: opening_plies must be at most 64, got {plies}")
        try:
            pairs = len(opening_classes(kernel, base.rules, plies))
        except HeurtuneError as exc:
            raise HeurtuneError(f"{w}: pairs = \"all\": {exc}") from None
        if pairs == 0:
            raise HeurtuneError(f"{w}: pairs = \"all\": no {plies}-ply opening to play")
    sampler = _sampler_section(data, study, where, defaults["sampler"])
    seeding = _typed(study.get("sampler_seeding", "per-trial"), str, f"{w}: sampler_seeding")
    if seeding not in SAMPLER_SEEDINGS:
        raise HeurtuneError(f"{w}: sampler_seeding must be one of {', '.join(SAMPLER_SEEDINGS)}, "
                            f"got {seeding!r}")
    distinct = _typed(study.get("distinct_openings", "symmetry"), str, f"{w}: distinct_openings")
    if distinct not in DISTINCT_OPENINGS:
        raise HeurtuneError(f"{w}: distinct_openings must be one of "
                            f"{', '.join(DISTINCT_OPENINGS)}, got {distinct!r}")
    seed = _typed(study.get("seed", DEFAULT_SEED), int, f"{w}: seed")
    if not 0 <= seed <= SEED_MAX:
        raise HeurtuneError(f"{w}: seed must be in [0, {SEED_MAX}], got {seed}")
    confirm = _confirm_section(data, where, jobs) if "confirm" in data else None
    pr = _table(data, "pruner", where)
    _check_keys(pr, SECTION_KEYS["pruner"], f"{where} [pruner]")
    # Optuna prunes no multi-objective trial
    # Optuna prunes no multi-objective trial; a positions trial has no steps
    kind = _typed(pr.get("kind", "none" if len(objectives) > 1 or positions else "checkpoint"),
                  str, f"{where} [pruner]: kind")
    if positions is not None and kind != "none":
        raise HeurtuneError(f"{where} [pruner]: a positions trial is one loss, nothing to prune "
                            f"early (kind = \"none\"), got {kind!r}")
    if len(objectives) > 1 and kind != "none":
        raise HeurtuneError(f"{where} [pruner]: a multi-objective study cannot prune "
                            f"(kind = \"none\"), got {kind!r}")
    if kind not in PRUNERS:
        raise HeurtuneError(f"{where} [pruner]: unknown kind {kind!r} "
                            f"(known: {', '.join(PRUNERS)})")
    pruner = PrunerSpec(
        kind=kind,
        p_threshold=_typed(pr.get("p_threshold", 0.1), float, f"{where} [pruner]: p_threshold"),
        n_startup_steps=_typed(pr.get("n_startup_steps", 4), int,
                               f"{where} [pruner]: n_startup_steps"),
        n_warmup_steps=_typed(pr.get("n_warmup_steps", 4), int,
                              f"{where} [pruner]: n_warmup_steps"),
        alpha=_typed(pr.get("alpha", 0.05), float, f"{where} [pruner]: alpha"),
        margin=_typed(pr.get("margin", 0.0), float, f"{where} [pruner]: margin"),
        checkpoints=_checkpoints(pr.get("checkpoints", [0.25, 0.5, 0.75]), f"{where} [pruner]"),
        selection=_typed(pr.get("selection", True), bool, f"{where} [pruner]: selection"),
    )
    if not 0.0 < pruner.alpha < 0.5:
        raise HeurtuneError(f"{where} [pruner]: alpha must be in (0, 0.5), got {pruner.alpha}")
    if not 0.0 <= pruner.margin <= 1.0:
        raise HeurtuneError(f"{where} [pruner]: margin must be in [0, 1], got {pruner.margin}")
    if not 0.0 <= pruner.p_threshold <= 1.0:
        raise HeurtuneError(f"{where} [pruner]: p_threshold must be in [0, 1]")
    if pruner.n_startup_steps < 0 or pruner.n_warmup_steps < 0:
        raise HeurtuneError(f"{where} [pruner]: step counts must be non-negative")
    start_from = _typed(study.get("start_from", ""), str, f"{w}: start_from")
    start_params: dict[str, Any] = {}
    if start_from.startswith(STUDY_PREFIX):  # another study's answer: read at tune time
        if not start_from[len(STUDY_PREFIX):].strip():
            raise HeurtuneError(f"{w}: start_from = \"study:NAME\" needs a study name")
    elif start_from:
        start_from = _beside(path, start_from)
        start = EngineConfig.load(start_from)
        if (start.game, start.heuristic) != (game, base.heuristic):
            raise HeurtuneError(
                f"{w}: start_from {start_from} is a {start.game}:{start.heuristic} engine, "
                f"not {game}:{heuristic}"
            )
        try:
            start_params = space.validate(
                {p.name: start.params[p.name] for p in space.searched}
            )
        except HeurtuneError as exc:
            raise HeurtuneError(f"{w}: start_from {start_from}: {exc}") from None
        start_params = {p.name: start_params[p.name] for p in space.searched}
    name = _typed(study.get("name", Path(path).stem), str, f"{w}: name")
    check_study_name(name, w)
    check_space(sampler, space, where)
    if sampler.duels and positions is not None:
        raise HeurtuneError(f"{w}: sampler {sampler.kind!r} duels weights in games; "
                            "objective = \"positions\" takes tpe, cmaes, gp, random, qmc or lbfgs")
    if sampler.positions_only and positions is None:
        raise HeurtuneError(f"{w}: sampler {sampler.kind!r} minimises a deterministic loss: it "
                            "needs objective = \"positions\"")
    if sampler.duels and len(objectives) > 1:
        raise HeurtuneError(f"{w}: sampler {sampler.kind!r} duels weights against weights; a "
                            "multi-objective study needs a sampler that plays the opponent")
    answer = _typed(study.get("answer", defaults["answer"]), str, f"{w}: answer")
    if answer not in ANSWERS:
        raise HeurtuneError(f"{w}: answer must be one of {', '.join(ANSWERS)}, got {answer!r}")
    adjudication = _adjudication(data, where)
    pgn = _typed(study.get("pgn", False), bool, f"{w}: pgn")
    fault_share = _typed(study.get("fault_share", DEFAULT_FAULT_SHARE), float,
                         f"{w}: fault_share")
    if not 0.0 <= fault_share <= 1.0:
        raise HeurtuneError(f"{w}: fault_share must be in [0, 1], got {fault_share:g}")
    book, book_sha256 = None, ""
    if "openings" in study:
        if every_class:
            raise HeurtuneError(f"{w}: openings (a book) and pairs = \"all\" do not go "
                                "together")
        if positions is not None:
            raise HeurtuneError(f"{w}: openings (a book) are for matches; a positions study's "
                                "openings are its positions' games'")
        book, book_sha256 = _book(study, path, w, base, pairs, sampler.duels, confirm)
    return StudyFile(
        path=where, name=name, base=base, space=space, opponent=opponent,
        opponent_spec=opponent_spec, pool=tuple(pool), objectives=objectives, budget=budget,
        trials=trials, pairs=pairs,
        seed=seed, sampler=sampler, jobs=jobs,
        opening_plies=plies, pruner=pruner, start_from=start_from, start_params=start_params,
        sampler_seeding=seeding, distinct_openings=distinct, confirm=confirm,
        every_class=every_class, answer=answer, positions=positions,
        book=book, book_sha256=book_sha256, adjudication=adjudication, pgn=pgn,
        fault_share=fault_share,
    )


def _book(study: Mapping[str, Any], path: str | os.PathLike[str], w: str, base: EngineConfig,
          pairs: int, duels: bool, confirm: ConfirmOptions | None) -> tuple[Book, str]:
    """``[study] openings = FILE``: the book, read and checked now (before any game),
    and its digest; a book with fewer distinct openings than the study's tuning and
    its ``[confirm]`` section draw is refused here."""
    name = _need(study, "openings", str, w)
    reference = name if name.startswith(SHIPPED_PREFIX) else _beside(path, name)
    book = cached_book(reference, base.game, base.rules)
    needed = pairs + (confirm.pairs + confirm.check if confirm is not None else 0)
    what = (f"{pairs} pairs per trial" + (" (each duel trial its own)" if duels else "")
            + (f", and its confirmation {confirm.pairs} + {confirm.check}"
               if confirm is not None else ""))
    if book.distinct < needed:
        raise HeurtuneError(f"{w}: opening book {name} holds {book.distinct} distinct openings; "
                            f"the study needs {needed} ({what})")
    return book, book.digest


def _adjudication(data: Mapping[str, Any], where: str) -> Adjudication | None:
    """The ``[adjudication]`` section (None without one)."""
    if "adjudication" not in data:
        return None
    table = _table(data, "adjudication", where)
    w = f"{where} [adjudication]"
    _check_keys(table, SECTION_KEYS["adjudication"], w)
    try:
        return Adjudication(**{k: _typed(v, int, f"{w}: {k}") for k, v in table.items()})
    except HeurtuneError as exc:
        raise HeurtuneError(f"{w}: {exc}") from None


def _positions(data: Mapping[str, Any], study: Mapping[str, Any], path: str | os.PathLike[str],
               w: str, base: EngineConfig) -> PositionsSpec:
    """``objective = "positions"``: ``[study] positions = FILE`` (checked now: a
    position file of this game, under these rules) and the ``[positions]`` table."""
    import hashlib

    from heurtune.match.positions import load_positions

    file = _beside(path, _need(study, "positions", str, w))
    if base.process is not None:
        raise HeurtuneError(f"{w}: objective = \"positions\" evaluates the heuristic itself; "
                            "an engine in another process has none to evaluate")
    loaded = load_positions(file, base.game)
    if dict(loaded.rules) != get_game(base.game).resolve_rules(base.rules):
        raise HeurtuneError(f"{w}: {file} was played under other rules than [engine.rules]")
    table = _table(data, "positions", str(path))
    _check_keys(table, SECTION_KEYS["positions"], f"{path} [positions]")
    pw = f"{path} [positions]"
    loss = _typed(table.get("loss", POSITION_LOSSES[0]), str, f"{pw}: loss")
    if loss not in POSITION_LOSSES:
        raise HeurtuneError(f"{pw}: loss must be one of {', '.join(POSITION_LOSSES)}, got "
                            f"{loss!r}")
    held_out = _typed(table.get("held_out", 0.2), float, f"{pw}: held_out")
    if not 0.0 <= held_out <= 0.5:
        raise HeurtuneError(f"{pw}: held_out must be in [0, 0.5], got {held_out}")
    threads = _typed(table.get("threads", 0), int, f"{pw}: threads")
    if not 0 <= threads <= 256:
        raise HeurtuneError(f"{pw}: threads must be in [0, 256], got {threads}")
    perspective = _typed(table.get("perspective", PERSPECTIVES[0]), str, f"{pw}: perspective")
    if perspective not in PERSPECTIVES:
        raise HeurtuneError(f"{pw}: perspective must be one of {', '.join(PERSPECTIVES)}, got "
                            f"{perspective!r}")
    digest = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    match = loaded.provenance.get("match")
    return PositionsSpec(file, digest, loss, held_out, threads,
                         dict(match) if isinstance(match, Mapping) else {}, perspective)


def _timed(engine: EngineConfig, time_ms: float) -> EngineConfig:
    """The engine searching ``time_ms`` per move, as deep as that allows (alpha-beta
    only: minimax has no time limit; a random mover needs none)."""
    if engine.search.algorithm == "minimax":
        raise HeurtuneError(f"budget = \"time\" needs alpha-beta engines: {engine.label} "
                            "searches with minimax, which has no time limit")
    return replace(engine, search=replace(engine.search, time_ms=time_ms, nodes=0,
                                          depth=MAX_PLY - 2))


def _pool(study: Mapping[str, Any], path: str | os.PathLike[str], w: str, game: str,
          base: EngineConfig) -> list[PoolMember]:
    """``opponent = SPEC``, or ``opponents``: a list of specs or of
    ``{engine = SPEC, weight = W}`` tables (weights default to 1, must be positive)."""
    if "opponents" in study:
        if "opponent" in study:
            raise HeurtuneError(f"{w}: give opponent or opponents, not both")
        items = study["opponents"]
        if not isinstance(items, list) or not items:
            raise HeurtuneError(f"{w}: opponents must be a non-empty list of engines, got "
                                f"{items!r}")
    else:
        items = [study.get("opponent", f"{game}:seed")]
    pool = []
    for k, item in enumerate(items):
        where = f"{w}: opponent" if "opponents" not in study else f"{w}: opponents[{k}]"
        weight = 1.0
        if isinstance(item, Mapping):
            _check_keys(item, {"engine", "weight"}, where)
            weight = _typed(item.get("weight", 1.0), float, f"{where}: weight")
            if not (weight > 0 and math.isfinite(weight)):
                raise HeurtuneError(f"{where}: weight must be positive, got {weight}")
            item = _need(item, "engine", str, where)
        spec = _typed(item, str, where)
        if spec.endswith(".toml"):
            spec = _beside(path, spec)
        try:
            engine = resolve_engine(spec)
        except HeurtuneError as exc:
            raise HeurtuneError(f"{where}: {exc}") from None
        if engine.game != game:
            raise HeurtuneError(f"{where}: {engine.label} plays {engine.game}, not {game}")
        if dict(engine.rules) != dict(base.rules):
            raise HeurtuneError(f"{where}: {engine.label} and [engine.rules] disagree on the rules")
        pool.append(PoolMember(engine, spec, weight))
    return pool


def _sampler_section(data: Mapping[str, Any], study: Mapping[str, Any],
                     where: str, default: str) -> SamplerSpec:
    """``[study] sampler = "kind"``, or a ``[sampler]`` table: ``kind`` and its options."""
    table = dict(_table(data, "sampler", where))
    named = study.get("sampler")
    if named is not None:
        named = _typed(named, str, f"{where} [study]: sampler")
    kind = table.pop("kind", None)
    if kind is not None:
        kind = _typed(kind, str, f"{where} [sampler]: kind")
        if named is not None and named != kind:
            raise HeurtuneError(f"{where}: [study] sampler = {named!r} but [sampler] kind = "
                                f"{kind!r}: name it once")
    elif table and named is None:
        raise HeurtuneError(f"{where} [sampler]: missing 'kind'")
    return SamplerSpec.parse(kind or named or default, table, f"{where} [sampler]")


def _checkpoints(value: Any, where: str) -> tuple[float, ...]:
    """Checkpoint fractions: an increasing list of numbers strictly between 0 and 1."""
    ok = (isinstance(value, list) and 1 <= len(value) <= 10
          and all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < 1
                  for x in value)
          and all(a < b for a, b in zip(value, value[1:], strict=False)))
    if not ok:
        raise HeurtuneError(f"{where}: checkpoints must be an increasing list of fractions "
                            f"in (0, 1), got {value!r}")
    return tuple(float(x) for x in value)


def _confirm_section(data: Mapping[str, Any], where: str, jobs: int) -> ConfirmOptions:
    """The ``[confirm]`` section: ``heurtune confirm``'s options, run at the end of tune."""
    table = _table(data, "confirm", where)
    w = f"{where} [confirm]"
    _check_keys(table, SECTION_KEYS["confirm"], w)
    sprt = table.get("sprt")
    if sprt is not None:
        if (not isinstance(sprt, list) or len(sprt) != 2
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in sprt)):
            raise HeurtuneError(f"{w}: sprt must be [elo0, elo1], got {sprt!r}")
        sprt = (float(sprt[0]), float(sprt[1]))
    seed = table.get("seed")
    plies = table.get("opening_plies")
    if plies is not None and not 0 <= _typed(plies, int, f"{w}: opening_plies") <= 64:
        raise HeurtuneError(f"{w}: opening_plies must be in [0, 64], got {plies}")
    values = dict(
        top=_typed(table.get("top", DEFAULT_TOP), int, f"{w}: top"),
        pairs=_typed(table.get("pairs", DEFAULT_PAIRS), int, f"{w}: pairs"),
        sprt=sprt,
        max_pairs=(None if table.get("max_pairs") is None
                   else _typed(table["max_pairs"], int, f"{w}: max_pairs")),
        seed=None if seed is None else _typed(seed, int, f"{w}: seed"),
        jobs=jobs,
        opening_plies=None if plies is None else _typed(plies, int, f"{w}: opening_plies"),
        method=_typed(table.get("method", "two-stage"), str, f"{w}: method"),
        check_pairs=(None if table.get("check_pairs") is None
                     else _typed(table["check_pairs"], int, f"{w}: check_pairs")),
    )
    try:
        return ConfirmOptions(**values)
    except HeurtuneError as exc:  # name the file
        raise HeurtuneError(f"{where}: {exc}") from None


def check_study_name(name: str, where: str = "study name") -> None:
    """A name every storage can hold: not empty, at most NAME_MAX characters."""
    if not name.strip():
        raise HeurtuneError(f"{where}: name must not be empty")
    if len(name) > NAME_MAX:
        raise HeurtuneError(f"{where}: name is {len(name)} characters long (at most {NAME_MAX})")
