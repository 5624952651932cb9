"""What a study stores and how it is read: the schema, the storage, the trials."""

from heurtune.tuning.study import schema
from heurtune.tuning.study.batching import flush_trial
from heurtune.tuning.study.proxy import (
    DEFAULT_PROXY_HOST,
    DEFAULT_PROXY_PORT,
    GRPC_PREFIX,
    ProxyStorage,
)
from heurtune.tuning.study.schema import Candidate, PoolEntry, StudySetup, TrialResult, Verdict
from heurtune.tuning.study.storage import (
    DEFAULT_STORAGE,
    MEMORY_PREFIX,
    load_study,
    open_storage,
    serve_proxy,
    sqlite_path,
    storage_failure,
    study_names,
)
from heurtune.tuning.study.trials import (
    FINISHED,
    SEED_MASK,
    best_match_trial,
    duel_of,
    duel_seed,
    is_baseline,
    load_tuned_study,
    match_trials,
    minimises,
    ranked,
    trial_score,
)

__all__ = [
    "DEFAULT_PROXY_HOST",
    "DEFAULT_PROXY_PORT",
    "DEFAULT_STORAGE",
    "FINISHED",
    "GRPC_PREFIX",
    "MEMORY_PREFIX",
    "SEED_MASK",
    "Candidate",
    "PoolEntry",
    "ProxyStorage",
    "StudySetup",
    "TrialResult",
    "Verdict",
    "best_match_trial",
    "duel_of",
    "duel_seed",
    "flush_trial",
    "is_baseline",
    "load_study",
    "load_tuned_study",
    "match_trials",
    "minimises",
    "open_storage",
    "storage_failure",
    "schema",
    "serve_proxy",
    "sqlite_path",
    "study_names",
    "ranked",
    "trial_score",
]
