"""FSRS scheduling: the only package that imports ``fsrs`` and ``fsrs_rs_python``.

``review`` applies and replays reviews with py-fsrs; ``optimize`` fits parameters and
``simulate`` runs the workload simulator, both with fsrs-rs-python.
"""

from __future__ import annotations

from recall.scheduling.review import (
    DEFAULT_PARAMETERS,
    PastReview,
    Scheduler,
    Schedulers,
    fuzz_draw,
)

__all__ = ["DEFAULT_PARAMETERS", "PastReview", "Scheduler", "Schedulers", "fuzz_draw"]
