"""One way to run long work from the window: off its thread, with progress, Cancel and words.

In the spirit of Anki's ``CollectionOp``/``QueryOp``, without its global: the window hands
a plain core function to ``Operations.run``. The function runs on the task runner's worker
thread with a ``progress(done, total)`` callback and a ``cancelled()`` check; a progress
dialog appears only if it takes longer than half a second, determinate once a total is
known, with Cancel where stopping is safe. Its result, or its error in words, comes back
on the window's thread. A bug (anything but a ``RecallError``) still reaches the crash
dialog.

The progress keeps the rest of the window usable: menus open, the window moves, and work
that only reads (a check, an export, a backup) leaves studying alone. Only an operation
that replaces the database (a restore) shows its progress window-modal. The window turns
off what would conflict, from ``busy_changed`` and ``writes_cards``: starting a second
operation always, studying and editing while the running one writes cards.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from recall.core.errors import CancelledError, RecallError
from recall.core.i18n import tr
from recall.core.progress import Cancelled, Progress
from recall.ui.plain_text import plain_label
from recall.ui.prompts import Prompts
from recall.ui.tasks import TaskRunner

PROGRESS_DELAY_MS = 500
"""Work shorter than this shows no dialog at all."""

Result = TypeVar("Result")
Work = Callable[[Progress, Cancelled], Result]


class _ProgressRelay(QObject):
    """Carries progress from the worker thread to the dialog on the window's thread."""

    changed = Signal(int, int)
    described = Signal(str)


class Operations(QObject):
    """Runs the window's long operations one at a time.

    Args:
        tasks: The worker thread.
        prompts: Tells the learner how an operation failed.
        window: The parent of the progress dialog.
    """

    busy_changed = Signal(bool)
    described = Signal(str)  # what the running operation says it does now

    def __init__(self, tasks: TaskRunner, prompts: Prompts, window: QWidget) -> None:
        super().__init__(window)
        self._tasks = tasks
        self._prompts = prompts
        self._window = window
        self._cancel = threading.Event()
        self._dialog: QProgressDialog | None = None
        self._relay: _ProgressRelay | None = None
        self._cancellable = False
        self.busy = False
        self.writes_cards = False
        """Whether the running operation changes cards (False when none runs)."""

    @property
    def dialog(self) -> QProgressDialog | None:
        """The progress dialog of the running operation, if one runs."""
        return self._dialog

    def run(
        self,
        label: str,
        work: Work[Result],
        on_done: Callable[[Result], None],
        *,
        failure: str,
        preface: str = "",
        cancellable: bool = False,
        on_error: Callable[[RecallError], None] | None = None,
        writes_cards: bool = False,
        replaces_database: bool = False,
    ) -> bool:
        """Start ``work(progress, cancelled)`` unless another operation runs.

        Args:
            label: What the progress dialog says ("Checking the database...").
            work: A plain function; it never touches a widget.
            on_done: Gets the result, on the window's thread.
            failure: The title of the message shown when the work raises a
                ``RecallError`` (the message itself is the error's).
            preface: Words put before the error's message ("Nothing was imported...").
            cancellable: Whether the dialog offers Cancel. Only for work that leaves
                everything as it was when stopped.
            on_error: Called after a ``RecallError`` has been shown (or, for a
                cancellation, instead of a message).
            writes_cards: Whether the work changes cards, schedules or history (an
                import, a repair): the window keeps the learner from studying and editing
                until it ends. Work that only reads runs beside them.
            replaces_database: Whether the work swaps the database for another (a
                restore): its progress is window-modal, nothing else runs meanwhile.

        Returns:
            False if another operation was still running (nothing was started).
        """
        if self.busy:
            return False
        self.busy = True
        self.writes_cards = writes_cards or replaces_database
        self.busy_changed.emit(True)
        self._cancel.clear()
        self._cancellable = cancellable
        relay = _ProgressRelay(self)
        dialog = QProgressDialog(label, tr("Cancel") if cancellable else "", 0, 0, self._window)
        # Its own label guesses rich text; what a round describes names other devices.
        dialog.setLabel(plain_label(label))
        dialog.setWindowTitle(label.rstrip(".").rstrip())
        dialog.setAccessibleName(label)
        if not cancellable:
            dialog.setCancelButton(None)
        dialog.setWindowModality(
            Qt.WindowModality.WindowModal if replaces_database else Qt.WindowModality.NonModal
        )
        dialog.setMinimumDuration(PROGRESS_DELAY_MS)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        if cancellable:
            dialog.canceled.connect(self._on_cancel)
        relay.changed.connect(self._on_progress)
        relay.described.connect(self._on_described)
        dialog.setValue(0)
        self._dialog = dialog
        self._relay = relay
        cancel = self._cancel

        def job() -> Result:
            return work(relay.changed.emit, cancel.is_set)

        def finished(result: Any) -> None:
            self._finish(relay)
            on_done(result)

        def failed(error: Exception) -> None:
            self._finish(relay)
            if isinstance(error, CancelledError):
                if on_error is not None:
                    on_error(error)
                return
            if not isinstance(error, RecallError):
                raise error
            self._prompts.tell(failure, f"{preface}{error}", warning=True)
            if on_error is not None:
                on_error(error)

        self._tasks.run(job, finished, failed)
        return True

    def cancel(self) -> None:
        """Stop the running operation if it may be stopped, as its Cancel button would.

        The window asks this when it closes, so quitting never waits for a whole import:
        the work notices within moments (an import even inside SQLite) and writes nothing.
        """
        if self.busy and self._cancellable:
            self._on_cancel()

    def describe(self, text: str) -> None:
        """Say in the running operation's dialog what it is doing now ("Reading laptop's
        changes..."). Called from the work, on its thread."""
        relay = self._relay
        if relay is not None:
            relay.described.emit(text)

    def _on_described(self, text: str) -> None:
        if self._dialog is not None and not self._cancel.is_set():
            self._dialog.setLabelText(text)
        self.described.emit(text)

    def _on_cancel(self) -> None:
        self._cancel.set()
        if self._dialog is not None:
            self._dialog.setLabelText(tr("Stopping..."))

    def _on_progress(self, done: int, total: int) -> None:
        if self._dialog is None:
            return
        if total > 0:
            self._dialog.setMaximum(total)
            self._dialog.setValue(min(done, total))
        elif self._dialog.maximum() > 0 and done == 0:
            self._dialog.setRange(0, 0)  # a step whose size is not known: busy

    def _finish(self, relay: _ProgressRelay) -> None:
        if self._dialog is not None:
            self._dialog.close()
            self._dialog.deleteLater()
            self._dialog = None
        self._relay = None
        relay.deleteLater()
        self.busy = False
        self.writes_cards = False
        self.busy_changed.emit(False)
