"""Python's garbage collector held off while an import builds its many small objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """Run the block without the cyclic garbage collector.

    An import allocates millions of objects that all stay alive until it ends (parsed
    JSON, cards, rows), so each collection the allocations trigger walks them all again
    and finds nothing to free: a third of a large deck's import. Reference counting
    still frees what the block drops. A collector already off stays off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
