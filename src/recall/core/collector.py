"""Python's garbage collector paused while a long job makes its objects.

An import makes hundreds of thousands of short-lived objects that reference counting frees;
the collector's passes over them find nothing to free and took a sixth of an import's time.
The item analysis of 100,000 cards keeps 600,000 objects it makes, and each of the
collector's full passes walks all of them again (nine passes, a fifth of its time).
Reference counting still frees everything dropped meanwhile; cycles wait for the next pass.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0  # jobs running with the collector paused (the app runs them on workers)
_was_enabled = True


def pause() -> None:
    """One more job for automatic garbage collection to wait for, on any thread."""
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1


def resume() -> None:
    """One job fewer; the collector is enabled again, if it was before the first, when the
    last has finished."""
    global _paused
    with _lock:
        _paused -= 1
        if _paused == 0 and _was_enabled:
            gc.enable()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic garbage collection until the last job running with it has finished.

    Nested or concurrent uses count, the task runner's jobs among them (one count for
    every pause): the collector is enabled again, if it was before the first, when the
    last one ends.
    """
    pause()
    try:
        yield
    finally:
        resume()
