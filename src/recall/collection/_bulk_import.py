"""What makes a large import fast without changing what it stores.

Python's garbage collector is paused while an import builds and writes its rows: an import
makes hundreds of thousands of short-lived objects that reference counting frees, and the
collector's passes over them found nothing to free and took a sixth of an import's time
(cycles wait for the next pass). From ``BULK_FROM_CARDS`` cards on, the rows are written with
the per-row insert triggers lifted and their work done once per set (``storage.bulk_rows``).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from recall.storage import Transaction
from recall.storage.bulk_rows import triggers_lifted

BULK_FROM_CARDS = 500  # from this many cards an import writes its rows set-wise

_lock = threading.Lock()
_paused = 0  # imports running with the collector paused (the app runs them on workers)
_was_enabled = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic garbage collection until the last import running has finished.

    Nested or concurrent uses count: the collector is enabled again, if it was before the
    first, when the last one ends.
    """
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()


def rows_written(transaction: Transaction, bulk: bool) -> contextlib.AbstractContextManager[None]:
    """Set-wise trigger work for a bulk import (``bulk_rows``), else the triggers per row."""
    return triggers_lifted(transaction.sql) if bulk else contextlib.nullcontext()
