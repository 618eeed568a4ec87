"""A small task runner: plain functions run off the GUI thread, results come back as signals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class _Signals(QObject):
    finished = Signal(object)
    failed = Signal(object)


class _Job(QRunnable):
    def __init__(self, work: Callable[[], Any], signals: _Signals) -> None:
        super().__init__()
        self._work = work
        self._signals = signals

    def run(self) -> None:
        try:
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
        self._signals: list[_Signals] = []

    def run(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Queue ``work``; ``on_done(result)`` or ``on_error(exception)`` follows."""
        signals = _Signals(self)  # lives on the GUI thread, so its slots run there
        self._signals.append(signals)

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
        self._pool.start(_Job(work, signals))

    @property
    def busy(self) -> bool:
        """Whether a job is queued or running."""
        return bool(self._signals)

    def wait(self, milliseconds: int = -1) -> bool:
        """Block until every job has run (or the time is up); True if all finished."""
        return self._pool.waitForDone(milliseconds)

    def _forget(self, signals: _Signals) -> None:
        if signals in self._signals:
            self._signals.remove(signals)
        signals.deleteLater()
