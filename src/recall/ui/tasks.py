"""A small task runner: plain functions run off the GUI thread, results come back as signals.

While a job runs, Python's automatic garbage collection waits, and runs again once the last
job has finished, on the thread that next allocates: the window's, not a worker's. A
collection on a worker thread could free the window's own Qt objects there (a wrapper in a
reference cycle, made by the window moments before): Qt deletes them on the wrong thread,
and the process crashed (seen in the statistics window's tests, a collection inside a job
reading the presets). A full collection on a worker also kept the interpreter lock for all
of its walk: a frozen window, over 200 ms measured during an import of 10,000 notes.
Reference counting frees what a job drops meanwhile; only cycles wait.

The window's own objects (about 85,000 once it shows: Qt wrappers, modules, classes)
live as long as the process; ``keep_out_of_full_collections`` takes them out of every
later full collection, which then walks only what was made since (40 to 110 ms saved each
time on a busy machine).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from recall.ui.override_errors import reports_errors

_pausing = threading.Lock()
_running_jobs = 0
_was_enabled = True


@contextmanager
def collections_paused() -> Iterator[None]:
    """Let no automatic garbage collection start while the block runs, on any thread.

    Nests and overlaps: the collector is enabled again, if it was before the first block,
    when the last one ends.
    """
    global _running_jobs, _was_enabled
    with _pausing:
        if _running_jobs == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _running_jobs += 1
    try:
        yield
    finally:
        with _pausing:
            _running_jobs -= 1
            if _running_jobs == 0 and _was_enabled:
                gc.enable()


def keep_out_of_full_collections() -> None:
    """Leave every object alive now out of later garbage collections (``gc.freeze``).

    Call it once the window shows: what exists then lives as long as the process, and
    reference counting still frees any of it that is dropped.
    """
    gc.freeze()


class _Signals(QObject):
    finished = Signal(object)
    failed = Signal(object)


class _Ticket:
    """Whether a queued job may still start; a plain object, so that the runner can ask
    after the pool has deleted the job itself."""

    def __init__(self) -> None:
        self._state = threading.Lock()
        self._started = False
        self._dropped = False

    def drop(self) -> bool:
        """Keep the job from starting; False if it has started already."""
        with self._state:
            if not self._started:
                self._dropped = True
            return self._dropped

    def start(self) -> bool:
        """Called by the job as it begins; False if it was dropped first."""
        with self._state:
            self._started = not self._dropped
            return self._started


@reports_errors
class _Job(QRunnable):
    def __init__(self, work: Callable[[], Any], signals: _Signals, ticket: _Ticket) -> None:
        super().__init__()
        self._work = work
        self._signals = signals
        self._ticket = ticket

    def run(self) -> None:
        if not self._ticket.start():
            return
        try:
            with collections_paused():
                result = self._work()
        except Exception as error:
            self._signals.failed.emit(error)
        else:
            self._signals.finished.emit(result)


class TaskRunner(QObject):
    """Runs one job at a time on a worker thread; callbacks run on the GUI thread.

    The work is a plain core function: it never touches a widget.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._jobs: dict[_Signals, _Ticket] = {}  # queued or running, in order

    def run(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Queue ``work``; ``on_done(result)`` or ``on_error(exception)`` follows."""
        signals = _Signals(self)  # lives on the GUI thread, so its slots run there

        # The job is forgotten before its callback runs, so that a callback that starts
        # another job (a search typed while one ran) sees the runner free of this one.
        def finished(result: object) -> None:
            self._forget(signals)
            if on_done is not None:
                on_done(result)

        def failed(error: Exception) -> None:
            self._forget(signals)
            if on_error is not None:
                on_error(error)

        signals.finished.connect(finished)
        signals.failed.connect(failed)
        ticket = _Ticket()
        self._jobs[signals] = ticket
        self._pool.start(_Job(work, signals, ticket))

    def drop_queued(self) -> int:
        """Forget every job that has not started: it never runs, and no callback of it
        follows. The one running, if any, finishes as usual. Returns how many were dropped.
        """
        dropped = [signals for signals, ticket in self._jobs.items() if ticket.drop()]
        for signals in dropped:
            self._forget(signals)
        return len(dropped)

    @property
    def busy(self) -> bool:
        """Whether a job is queued or running."""
        return bool(self._jobs)

    def wait(self, milliseconds: int = -1) -> bool:
        """Block until every job has run (or the time is up); True if all finished."""
        return self._pool.waitForDone(milliseconds)

    def _forget(self, signals: _Signals) -> None:
        self._jobs.pop(signals, None)
        signals.deleteLater()
