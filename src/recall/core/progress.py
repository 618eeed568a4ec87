"""How long work reports progress and learns it should stop: two plain callables.

Core functions that can run for more than a moment (import, check, export, backup,
restore, statistics, optimizing) take ``progress`` and ``cancelled``; the window passes
ones that move a progress dialog and read its Cancel button, the command line passes
the defaults below.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while long work runs; ``total`` 0 when unknown."""

Cancelled = Callable[[], bool]
"""True once the learner has asked to stop; the work then raises ``CancelledError``."""


def no_progress(_done: int, _total: int) -> None:
    """A progress callback that shows nothing."""


def never_cancelled() -> bool:
    """A cancel check for work nobody can cancel."""
    return False
