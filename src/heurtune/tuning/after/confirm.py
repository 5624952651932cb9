"""``heurtune confirm``: the best trials re-played on fresh openings before export.

The best of many noisy trials is optimistic (the winner's curse): its tuning
score partly measures its luck on the study's openings. Confirmation re-plays
the ``top`` best completed trials, the study's other answers (the mean of the
best trials, the quadratic model's answer, a duel sampler's own answer: see
heurtune.tuning.after.answers) and the baseline against the study's
opponent on new openings (none of the study's, nor their mirror images, where
the game declares its symmetries), all candidates on the same openings, and
picks the winner on those new games only. With an SPRT, the winner then plays
a sequential test on further openings that neither the tuning nor the
selection saw, so its verdict carries no selection bias at all.

The verdict is stored in the study's user attribute
:data:`heurtune.tuning.study.schema.CONFIRMATION` (read back as a
:class:`heurtune.tuning.study.Verdict`), which ``heurtune export`` reads.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from heurtune.engine import EngineConfig
from heurtune.errors import HeurtuneError
from heurtune.match import (
    SEED_MAX,
    MatchRunner,
    MatchSpec,
    Sprt,
    pair_variance,
    paired_difference,
    stats_of,
)
from heurtune.match.books import Book, cached_book
from heurtune.match.openings import opening_record
from heurtune.match.pgn import append_pgn, match_pgn, write_pgn
from heurtune.match.play import Adjudication
from heurtune.match.runner import MAX_PAIRS
from heurtune.match.simultaneous import simultaneous_differences
from heurtune.match.stats import score_differences, sprt_pair_cap
from heurtune.tomlio import check_writable
from heurtune.tuning.after.answers import study_answers
from heurtune.tuning.study import (
    StudySetup,
    Verdict,
    duel_of,
    duel_seed,
    is_baseline,
    load_tuned_study,
    match_trials,
    ranked,
    schema,
    study_command,
    trial_score,
)
from heurtune.tuning.studyfile import ConfirmOptions, StudyFile


def needs_confirmation(study: optuna.Study) -> bool:
    """Whether the study has no confirmation yet, or one older than its latest
    completed trial (what a study file's ``[confirm]`` section acts on)."""
    verdict = Verdict.of(study.user_attrs)
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return verdict is None or verdict.completed_trials != len(complete)


@dataclass(frozen=True)
class Contender:
    """What confirmation re-plays: a trial, or an answer that is no trial."""

    label: str
    params: dict[str, Any]
    trial: int | None = None
    answer: str = "trial"
    baseline: bool = False
    tuning_score: float | None = None


def _candidates(study: optuna.Study, base: EngineConfig, complete: Sequence[FrozenTrial],
                top: int) -> list[Contender]:
    """The ``top`` best match trials, the study's other answers, the baseline last;
    no parameter set twice."""
    matches = match_trials(complete)
    out = [Contender(f"trial {t.number}", dict(t.params), t.number, tuning_score=trial_score(t))
           for t in ranked(study, matches) if not is_baseline(t)][:top]
    for a in study_answers(study, base):
        if a.name != "best":
            out.append(Contender(a.label, dict(a.params), answer=a.name))
    baseline = next((t for t in matches if is_baseline(t)), None)
    if baseline is not None:
        out.append(Contender(f"baseline (trial {baseline.number})", dict(baseline.params),
                             baseline.number, baseline=True, tuning_score=trial_score(baseline)))
    else:  # its trial failed (interrupted) or is still to run: played here all the same
        enqueued = next((t for t in study.get_trials(deepcopy=False) if is_baseline(t)), None)
        if enqueued is not None:
            params = dict(enqueued.params or enqueued.system_attrs.get("fixed_params", {}))
            out.append(Contender("baseline (unplayed)", params, None, baseline=True))
    unique: list[Contender] = []
    for c in out:  # a repeat of an earlier one is dropped, unless it is the baseline
        twin = next((u for u in unique if u.params == c.params), None)
        if twin is None:
            unique.append(c)
        elif c.baseline:
            unique[unique.index(twin)] = c
    return unique


def tuning_spec(setup: StudySetup, base: EngineConfig, opponent: EngineConfig,
                book: Book | None = None) -> MatchSpec:
    """The match every trial of the study played (its openings are the ones to avoid),
    from ``book`` when the study drew from one."""
    adjudication = Adjudication(**setup.adjudication) if setup.adjudication else None
    return MatchSpec(base, opponent, setup.pairs, setup.seed, setup.opening_plies,
                     by_symmetry=setup.by_symmetry, every_class=setup.every_class,
                     book=book, adjudication=adjudication)


def study_file_openings(sf: StudyFile) -> tuple[tuple[int, ...], ...]:
    """The openings a study file's study plays: its tuning's, and where it has a
    ``[confirm]`` section its confirmation's selection and check (as
    :func:`confirm_study` draws them), so that a later match can leave them all
    out. A duel sampler's trials draw more of their own, which only its storage
    knows; those are not among them."""
    tuning = sf.match_spec()
    openings = tuple(tuning.openings())
    options = sf.confirm
    if options is None or sf.positions is not None:
        return openings
    seed = options.seed if options.seed is not None else (sf.seed + 1) % (SEED_MAX + 1)
    plies = options.opening_plies if options.opening_plies is not None else tuning.plies
    fresh = MatchSpec(sf.base, sf.opponent, options.pairs, seed, plies, openings,
                      book=sf.book, adjudication=sf.adjudication)
    seen = openings + tuple(fresh.openings())
    if options.check:
        check = replace(fresh, pairs=options.check, seed=(seed + 1) % (SEED_MAX + 1),
                        exclude=seen)
        seen += tuple(check.openings())
    return seen


def study_book(study: optuna.Study, setup: StudySetup, base: EngineConfig,
               given: str | None = None) -> tuple[Book | None, Book | None]:
    """The book the study's tuning drew from (checked against the digest its setup
    recorded), and the one fresh openings come from: ``given`` (a file or
    heurtune:NAME), else the study's own. (None, None) for a study of random
    openings and no book given."""
    recorded = setup.book
    own = None
    if recorded is not None:
        where = str(study.user_attrs.get(schema.BOOK_PATH, recorded["name"]))
        name = recorded["name"]
        try:
            own = cached_book(where, base.game, base.rules)
        except HeurtuneError:
            raise HeurtuneError(f"study {study.study_name!r} drew its openings from the book "
                                f"{name}, which cannot be read at {where} any more (copy it "
                                "back; `--openings FILE` draws fresh openings from another "
                                "book, but the study's own are needed to leave them out)"
                                ) from None
        if own.digest != recorded["sha256"]:
            raise HeurtuneError(f"the opening book at {where} is not the one study "
                                f"{study.study_name!r} drew from (its openings changed since)")
    fresh = cached_book(given, base.game, base.rules) if given else own
    return own, fresh


def duel_openings(study: optuna.Study, setup: StudySetup,
                  tuning: MatchSpec) -> tuple[tuple[int, ...], ...]:
    """The openings the study's duel trials played (each drew its own): the fresh
    openings leave them out too, so a duel sampler's answer is confirmed on
    positions its duels never saw."""
    out: list[tuple[int, ...]] = []
    for t in study.get_trials(deepcopy=False):
        if duel_of(t) is None or t.state != TrialState.COMPLETE:
            continue
        spec = replace(tuning, seed=duel_seed(setup.seed, t.number), every_class=False)
        out.extend(spec.openings())
    return tuple(out)


def study_pool(setup: StudySetup, study_name: str) -> list[tuple[EngineConfig, float]]:
    """The study's opponents and their weights (one, weight 1, unless it tunes
    against a pool)."""
    where = f"study {study_name!r}"
    if setup.pool:
        return [(EngineConfig.from_dict(m.opponent, source=where), m.weight) for m in setup.pool]
    return [(EngineConfig.from_dict(setup.opponent, source=where), 1.0)]


def confirm_study(
    storage_url: str,
    study_name: str,
    options: ConfirmOptions,
    on_line: Callable[[str], None] = lambda _line: None,
    on_pair: Callable[[], None] | None = None,
    runner: MatchRunner | None = None,
    openings_file: str | None = None,
    pgn: str | None = None,
    pgn_append: bool = False,
    on_start: Callable[[], None] | None = None,
) -> Verdict:
    """Confirm a study's best trials on fresh openings and store the verdict.

    Returns the verdict (also stored as the study's ``confirmation`` user
    attribute). ``on_line`` receives one line per finished match.
    ``openings_file``: a book the fresh openings come from (default: the study's
    own book, else random ones); ``pgn``: a file that gets every game played,
    as PGN (written at the end; added to what it holds with ``pgn_append``).
    ``on_start`` is called once the study and the options have been checked, before
    the first game (a bad name or option is an error before it).
    """
    study, setup, complete = load_tuned_study(storage_url, study_name, "confirm")
    if len(study.directions) > 1:
        raise HeurtuneError(f"study {study_name!r} has two objectives (score and cost): it has a "
                            "Pareto front, not one winner; "
                            f"`{study_command('export', study_name, storage_url, '--pareto')}` "
                            "writes it, `heurtune match` tests a member")
    base = EngineConfig.from_dict(setup.engine, source=f"study {study_name!r}")
    pool = study_pool(setup, study_name)
    opponent = pool[0][0]
    if options.sprt is not None and len(pool) > 1:
        raise HeurtuneError(f"study {study_name!r} tunes against a pool of {len(pool)} "
                            "opponents: an SPRT tests against one (confirm without --sprt)")
    candidates = _candidates(study, base, complete, options.top)
    if not candidates:
        raise HeurtuneError(f"study {study_name!r} has no completed trial to confirm")
    baseline = next((c for c in candidates if c.baseline), None)

    own_book, book = study_book(study, setup, base, openings_file)
    tuning = tuning_spec(setup, base, opponent, own_book)
    tuning_openings = tuple(tuning.openings()) + duel_openings(study, setup, tuning)
    seed = options.seed if options.seed is not None else (setup.seed + 1) % (SEED_MAX + 1)
    plies = options.opening_plies if options.opening_plies is not None else tuning.plies
    fresh = MatchSpec(base, opponent, options.pairs, seed, plies, tuning_openings, book=book,
                      adjudication=tuning.adjudication)
    openings = fresh.openings()
    seen = tuning_openings + tuple(openings)
    # the two-stage check's (none with max-t), drawn before any game is played: an
    # opening space too small fails now
    check_spec = (replace(fresh, pairs=options.check, seed=(seed + 1) % (SEED_MAX + 1),
                          exclude=seen) if options.check else None)
    check_openings = check_spec.openings() if check_spec is not None else []
    if pgn:
        check_writable(pgn)  # before the games, which would be lost
    games: list[tuple[MatchSpec, list[Any]]] = []  # what the PGN file gets
    keep = bool(pgn)
    if on_start is not None:
        on_start()
    results: list[dict[str, Any]] = []
    played: dict[str, list[Any]] = {}
    labels = [opp.label for opp, _w in pool]
    with (MatchRunner(options.jobs) if runner is None else contextlib.nullcontext(runner)) as play:
        for cand in candidates:
            config = base.with_params(cand.params, name=f"{study_name}-{cand.label.split(' (')[0]}"
                                      .replace(" ", "-"))
            pairs = _play(play, config, pool, fresh, openings, on_pair, keep, games)
            played[cand.label] = pairs
            stats = stats_of(pairs, labels)
            entry = {"label": cand.label, "trial": cand.trial, "answer": cand.answer,
                     "baseline": cand.baseline, "params": cand.params,
                     "tuning_score": cand.tuning_score, **stats.to_dict()}
            results.append({k: v for k, v in entry.items() if v is not None})
            tuning_text = "   -  " if cand.tuning_score is None else f"{cand.tuning_score:.3f}"
            faults = f"; {stats.faults_text()}" if stats.faults or stats.opponent_faults else ""
            on_line(f"{cand.label:<20} tuning {tuning_text}  fresh {stats.summary()}{faults}")
        # the highest fresh score; on a tie the baseline (a candidate must beat it),
        # then the earlier candidate (trials by rank, then answers)
        winner = max(results, key=lambda e: (e["score"], bool(e["baseline"]),
                                             -results.index(e)))
        verdict: dict[str, Any] = {
            "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "method": options.method,
            "opponent": (setup.raw.get("opponent_spec", opponent.label) if len(pool) == 1 else
                         ", ".join(f"{opp.label} x{w:g}" for opp, w in pool)),
            "pairs": options.pairs,
            "seed": seed,
            "opening_plies": plies,
            "openings": [opening_record(op) for op in openings],
            "excluded_study_openings": len(tuning_openings),
            **({"book": book.name} if book is not None else {}),
            "completed_trials": len(complete),
            "candidates": results,
            "winner": winner.get("trial"),
            "winner_label": winner["label"],
            "winner_params": winner["params"],
            "winner_is_baseline": bool(winner["baseline"]),
        }
        if verdict["winner"] is None:
            del verdict["winner"]  # an answer that is no trial
        if baseline is not None and not winner["baseline"]:
            diff, lo, hi = paired_difference(played[winner["label"]], played[baseline.label])
            # measured on the games that picked the winner: optimistic
            verdict["selection_vs_baseline"] = {"difference": diff, "difference_ci": [lo, hi]}
            if options.method == "max-t":
                verdict["max_t"] = _max_t(results, played, baseline.label, winner["label"])
                on_line(f"winner {winner['label']}: {_max_t_text(verdict['max_t'])}")
        if check_spec is not None and not winner["baseline"]:
            check = _check(play, base, study_name, winner, baseline, pool, labels,
                           check_spec, check_openings, on_pair, keep, games)
            seen += tuple(check_openings)
            verdict["check"] = check
            on_line(f"check  {winner['label']:<13} {check['pairs']} further fresh pairs: "
                    f"{_check_text(check)}")
        if options.sprt is not None:
            sprt = Sprt(*options.sprt)
            config = base.with_params(winner["params"], name=f"{study_name}-winner")
            cap = options.max_pairs
            if cap is None:  # 95% of such tests decide, at the winner's measured spread
                measured = pair_variance([p.score for p in played[winner["label"]]])
                cap = min(sprt_pair_cap(sprt, pair_var=min(max(measured, 1e-3), 0.25)),
                          MAX_PAIRS)
            spec = replace(fresh, a=config, pairs=cap, seed=(seed + 2) % (SEED_MAX + 1),
                           exclude=seen, fewer_ok=True)
            result, outcome = play.run_sprt(
                spec, sprt, on_pair=(lambda _p, _l: on_pair()) if on_pair else None,
                keep_games=keep)
            games.append((spec, result.pairs))
            verdict["sprt"] = {**outcome.to_dict(), **result.stats.to_dict(),
                               "seed": spec.seed, "max_pairs": cap}
            on_line(f"winner {winner['label']}: {outcome.summary()}")
    study.set_user_attr(schema.CONFIRMATION, verdict)
    if pgn:
        event = f"heurtune study {study_name} confirmation"
        text = "\n".join(match_pgn(spec, [p for p in pairs if len(p.games) == 2], event=event)
                         for spec, pairs in games if pairs)
        if pgn_append:
            append_pgn(pgn, text)
        else:
            write_pgn(pgn, text)
    return Verdict(verdict)


def _play(play: MatchRunner, config: EngineConfig, pool: list[tuple[EngineConfig, float]],
          spec: MatchSpec, openings: list[tuple[int, ...]],
          on_pair: Callable[[], None] | None, keep: bool = False,
          games: list[tuple[MatchSpec, list[Any]]] | None = None) -> list[Any]:
    """``config`` against the study's opponent on ``openings`` (with ``spec``'s
    seed and plies), or against every opponent of a pool on each of them; the
    pairs in index order. With ``keep``, each opponent's pairs keep their games
    and go into ``games``."""
    specs = [replace(spec, a=config, b=opp) for opp, _w in pool]
    if len(pool) == 1:
        pairs = list(play.run(specs[0], on_pair=(lambda _p: on_pair()) if on_pair else None,
                              openings=openings, keep_games=keep).pairs)
        if keep and games is not None:
            games.append((specs[0], pairs))
        return pairs
    pooled: list[Any] = []
    for pool_pair in play.iter_pool(specs, [w for _o, w in pool], openings, keep_games=keep):
        pooled.append(pool_pair)
        if on_pair is not None:
            on_pair()
    pooled.sort(key=lambda p: p.index)
    if keep and games is not None:
        games.extend((s, [p.pairs[k] for p in pooled]) for k, s in enumerate(specs))
    return pooled


def _check(play: MatchRunner, base: EngineConfig, study_name: str, winner: dict[str, Any],
           baseline: Contender | None, pool: list[tuple[EngineConfig, float]],
           labels: list[str], spec: MatchSpec, openings: list[tuple[int, ...]],
           on_pair: Callable[[], None] | None, keep: bool = False,
           games: list[tuple[MatchSpec, list[Any]]] | None = None) -> dict[str, Any]:
    """The second stage: the winner and the baseline against the study's
    opponents on further fresh ``openings`` (drawn by ``spec``: none of the
    tuning's or the selection's, nor their images). These games did not pick the
    winner, so its figures on them, and its paired difference from the
    baseline, carry no selection bias."""
    played: dict[str, list[Any]] = {}
    contenders = [("winner", winner["params"])]
    if baseline is not None:
        contenders.append(("baseline", dict(baseline.params)))
    for role, params in contenders:
        config = base.with_params(params, name=f"{study_name}-{role}")
        played[role] = _play(play, config, pool, spec, openings, on_pair, keep, games)
    check: dict[str, Any] = {
        "pairs": spec.pairs,
        "seed": spec.seed,
        "openings": [opening_record(op) for op in openings],
        "excluded_openings": len(spec.exclude),
        "winner": stats_of(played["winner"], labels).to_dict(),
    }
    if baseline is not None:
        check["baseline"] = stats_of(played["baseline"], labels).to_dict()
        diff, lo, hi = paired_difference(played["winner"], played["baseline"])
        check["vs_baseline"] = {"difference": diff, "difference_ci": [lo, hi]}
    return check


def _check_text(check: dict[str, Any]) -> str:
    w = check["winner"]
    lo, hi = w["score_ci"]
    text = f"{w['score']:.3f} [{lo:.3f}, {hi:.3f}]"
    if "vs_baseline" in check:
        d = check["vs_baseline"]
        dlo, dhi = d["difference_ci"]
        text += (f", baseline {check['baseline']['score']:.3f}, paired "
                 f"{d['difference']:+.3f} [{dlo:+.3f}, {dhi:+.3f}]")
    return text


def _max_t(results: list[dict[str, Any]], played: dict[str, list[Any]], baseline: str,
           winner: str) -> dict[str, Any]:
    """The cheaper method: simultaneous (max-t) intervals for every candidate's
    paired difference from the baseline on the selection's own games; the
    winner's holds whichever candidate won. No point score: the winner's own is
    still the luckiest of K."""
    others = [e["label"] for e in results if not e["baseline"]]
    # every candidate played the same openings, its pairs in index order
    sim = simultaneous_differences([score_differences(played[label], played[baseline])
                                    for label in others])
    lo, hi = sim.interval(others.index(winner))
    return {"comparisons": len(others), "critical": sim.critical, "pairs": sim.pairs,
            "confidence": sim.confidence, "difference_ci": [lo, hi]}


def _max_t_text(max_t: dict[str, Any]) -> str:
    lo, hi = max_t["difference_ci"]
    return (f"vs baseline [{lo:+.3f}, {hi:+.3f}] (max-t over {max_t['comparisons']} "
            f"comparisons, critical value {max_t['critical']:.2f}; no point score)")
