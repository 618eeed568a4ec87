"""FSRS scheduling: the only package that imports ``fsrs`` and ``fsrs_rs_python``.

``review`` applies reviews with py-fsrs and ``replay`` replays whole histories with
its formulas on plain numbers; ``optimize`` fits parameters and
``simulate`` runs the workload simulator, both with fsrs-rs-python; ``guessing`` measures
whether a guess term for choice cards (fitted by ``fitting``) predicts later reviews better.
"""

from __future__ import annotations

from recall.core.presets import PARAMETER_BOUNDS
from recall.scheduling.replay import (
    REPLAY_VERSION,
    RawEntry,
    RawMemory,
    fuzz_draw,
    replay_key,
)
from recall.scheduling.review import (
    DEFAULT_PARAMETERS,
    PastReview,
    Scheduler,
    Schedulers,
    chosen,
    memory_of,
    parameter_problem,
)

__all__ = [
    "DEFAULT_PARAMETERS",
    "PARAMETER_BOUNDS",
    "REPLAY_VERSION",
    "PastReview",
    "RawEntry",
    "RawMemory",
    "Scheduler",
    "Schedulers",
    "chosen",
    "fuzz_draw",
    "memory_of",
    "parameter_problem",
    "replay_key",
]
