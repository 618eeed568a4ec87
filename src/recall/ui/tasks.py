"""A small task runner: plain functions run off the GUI thread, results come back as signals.

From the moment a job is queued until its callback runs on the window's thread, Python's
automatic garbage collection waits; the window's thread turns it on again. A collection on
a worker thread could free the window's own Qt objects there (a wrapper in a reference
cycle, made by the window moments before): Qt deletes them on the wrong thread, and the
process crashed (seen in the statistics window's tests, a collection inside a job reading
the presets, and once after the sync window's tests). Enabling the collector again on the
worker as its job ended was not enough: the worker's own next allocation, emitting the
result, could start a collection there (a test sees none start on a worker since). A full
collection on a worker also kept the interpreter lock for all of its walk: a frozen
window, over 200 ms measured during an import of 10,000 notes. Reference counting frees
what a job drops meanwhile; only cycles wait.

The window's own objects (about 85,000 once it shows: Qt wrappers, modules, classes)
live as long as the process; ``keep_out_of_full_collections`` takes them out of every
later full collection, which then walks only what was made since (40 to 110 ms saved each
time on a busy machine).
"""

from __future__ import annotations

import gc
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from recall.core.collector import pause as _pause
from recall.core.collector import resume as _resume
from recall.ui.override_errors import reports_errors


def keep_out_of_full_collections() -> None:
    """Leave every object alive now out of later garbage collections (``gc.freeze``).

    Call it once the window shows: what exists then lives as long as the process, and
    reference counting still frees any of it that is dropped.
    """
    gc.freeze()


class _Signals(QObject):
    """The runner's one channel from its worker: each job's result or error, by number."""

    finished = Signal(int, object)
    failed = Signal(int, object)


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
    def __init__(
        self, work: Callable[[], Any], signals: _Signals, number: int, ticket: _Ticket
    ) -> None:
        super().__init__()
        self._work = work
        self._signals = signals
        self._number = number
        self._ticket = ticket

    def run(self) -> None:
        if not self._ticket.start():
            return
        try:
            result = self._work()  # the runner paused the collector when it queued the job
        except Exception as error:
            self._signals.failed.emit(self._number, error)
        else:
            self._signals.finished.emit(self._number, result)


@dataclass
class _Queued:
    """A job the runner waits for: whether it may still start, and what follows it."""

    ticket: _Ticket
    on_done: Callable[[Any], None] | None
    on_error: Callable[[Exception], None] | None


class TaskRunner(QObject):
    """Runs one job at a time on a worker thread; callbacks run on the GUI thread.

    The work is a plain core function: it never touches a widget. The results come back
    through one signals object that lives as long as the runner (no object is made and
    deleted per job).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals(self)  # lives on the GUI thread, so its slots run there
        self._signals.finished.connect(self._finished)
        self._signals.failed.connect(self._failed)
        self._jobs: dict[int, _Queued] = {}  # queued or running, in order
        self._numbers = itertools.count()
        # The jobs that keep the collector paused: from being queued until their callback
        # (or a wait that saw them all end, or the runner's end, its callbacks then lost).
        self._holding: set[int] = set()
        holding = self._holding
        self.destroyed.connect(lambda: _release_all(holding))

    def run(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Queue ``work``; ``on_done(result)`` or ``on_error(exception)`` follows."""
        number = next(self._numbers)
        ticket = _Ticket()
        self._jobs[number] = _Queued(ticket, on_done, on_error)
        _pause()
        self._holding.add(number)
        self._pool.start(_Job(work, self._signals, number, ticket))

    # The job is forgotten before its callback runs, so that a callback that starts
    # another job (a search typed while one ran) sees the runner free of this one.
    def _finished(self, number: int, result: object) -> None:
        queued = self._forget(number)
        if queued is not None and queued.on_done is not None:
            queued.on_done(result)

    def _failed(self, number: int, error: Exception) -> None:
        queued = self._forget(number)
        if queued is not None and queued.on_error is not None:
            queued.on_error(error)

    def drop_queued(self) -> int:
        """Forget every job that has not started: it never runs, and no callback of it
        follows. The one running, if any, finishes as usual. Returns how many were dropped.
        """
        dropped = [number for number, queued in self._jobs.items() if queued.ticket.drop()]
        for number in dropped:
            self._forget(number)
        return len(dropped)

    @property
    def busy(self) -> bool:
        """Whether a job is queued or running."""
        return bool(self._jobs)

    def wait(self, milliseconds: int = -1) -> bool:
        """Block until every job has run (or the time is up); True if all finished.

        Once all have, no worker runs Python code, and the collector may run again before
        their callbacks come (a window that waits as it closes never sees them).
        """
        done = self._pool.waitForDone(milliseconds)
        if done:
            _release_all(self._holding)
        return done

    def _forget(self, number: int) -> _Queued | None:
        if number in self._holding:
            self._holding.discard(number)
            _resume()
        return self._jobs.pop(number, None)


def _release_all(holding: set[int]) -> None:
    """Let go of the collector for every job in ``holding``."""
    while holding:
        holding.pop()
        _resume()
