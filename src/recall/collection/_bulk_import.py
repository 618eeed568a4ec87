"""What makes a large import fast without changing what it stores.

Python's garbage collector is paused while an import builds and writes its rows
(``core.collector``). From ``BULK_FROM_CARDS`` cards on, the rows are written with
the per-row insert triggers lifted and their work done once per set (``storage.bulk_rows``).
"""

from __future__ import annotations

import contextlib

from recall.storage import Transaction
from recall.storage.bulk_rows import triggers_lifted

BULK_FROM_CARDS = 500  # from this many cards an import writes its rows set-wise


def rows_written(transaction: Transaction, bulk: bool) -> contextlib.AbstractContextManager[None]:
    """Set-wise trigger work for a bulk import (``bulk_rows``), else the triggers per row."""
    return triggers_lifted(transaction.sql) if bulk else contextlib.nullcontext()
