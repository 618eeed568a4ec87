"""FSRS scheduling: the only package that imports ``fsrs`` and ``fsrs_rs_python``.

``review`` applies reviews with py-fsrs and ``replay`` replays whole histories with
its formulas on plain numbers, both reading the history entries and stored schedules of
``history``; ``parameters`` holds FSRS's defaults and their bounds; ``optimize`` fits parameters and
``simulate`` runs the workload simulator, both with fsrs-rs-python; ``guessing`` measures
whether a guess term for choice cards (fitted by ``fitting``) predicts later reviews better.
"""

from __future__ import annotations

from recall.core.presets import PARAMETER_BOUNDS
from recall.scheduling.history import PastReview, chosen, memory_of
from recall.scheduling.parameters import DEFAULT_PARAMETERS, parameter_problem
from recall.scheduling.replay import (
    REPLAY_VERSION,
    RawEntry,
    RawMemory,
    fuzz_draw,
    replay_key,
)
from recall.scheduling.review import Scheduler, Schedulers

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
