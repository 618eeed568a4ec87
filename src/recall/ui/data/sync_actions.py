"""File > Sync Now (Ctrl+Y), syncs at start, every few minutes and on close, and the status line.

Each round runs on the task runner through ``Operations`` (a progress dialog only if it
takes long). A timed round waits while a study session is on screen, so it never meets
an answer being written; the others say in the status bar what came in and went out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from recall.core.errors import CancelledError, RecallError
from recall.core.i18n import number, tr, trn
from recall.core.progress import Cancelled, Progress
from recall.sync import settings
from recall.sync.report import MEDIA_COUNTED, SyncReport, changes
from recall.ui.context import WindowContext, WindowPart
from recall.ui.plain_text import plain_label, plain_tooltip

INTERVAL_MS = 5 * 60 * 1000


class SyncActions(WindowPart):
    """Sync Now, the timer, and the status label the window puts in its status bar.

    Args:
        database: The collection.
        schedulers: Replay the cards a round touched.
        clock: The current time, aware UTC.
        operations: Runs each round with progress.
        tasks: Runs the round made while the window closes.
        studying: Whether a study session is on screen (timed rounds wait then).
        window: The main window, parent of the action and the label.
    """

    synced = Signal(object)  # SyncReport
    message = Signal(str, int)

    def __init__(
        self,
        context: WindowContext,
        studying: Callable[[], bool],
        window: QWidget,
    ) -> None:
        super().__init__(context, window)
        self._studying = studying
        self.sync_action = QAction(tr("S&ync Now"), window)
        self.sync_action.setShortcut(QKeySequence("Ctrl+Y"))
        self.label = plain_label()
        self.label.setObjectName("syncStatus")
        self.label.setAccessibleName(tr("Sync status"))
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.sync_action.triggered.connect(lambda: self.sync_now())
        self.timer.timeout.connect(self._on_timer)
        # One operation at a time: Sync Now waits while another (an import, a check) runs.
        context.operations.busy_changed.connect(lambda busy: self.sync_action.setEnabled(not busy))
        self._not_sent: str | None = None  # why the last round could not send, if it could not
        self._folder = settings.status(self._database).folder  # to see a new one chosen
        self.show_status()

    @property
    def configured(self) -> bool:
        """Whether a sync folder is chosen."""
        return settings.status(self._database).folder is not None

    def start(self) -> None:
        """Sync once now (when a folder is chosen) and every few minutes after."""
        self.timer.start()
        if self.configured:
            self.sync_now(quiet=True)

    def sync_now(self, quiet: bool = False) -> bool:
        """Run one round; without a folder chosen, say where to choose one.

        Args:
            quiet: A round the learner did not ask for (at start, timed): a failure is
                said in the status bar instead of a message box, and tried again later.
        """
        if not self.configured:
            if not quiet:
                self.message.emit(tr("Choose a sync folder in Edit > Preferences first"), 10_000)
            return False
        database, schedulers, now = self._database, self._schedulers, self._clock()
        describe = self._operations.describe

        def work(progress: Progress, cancelled: Cancelled) -> SyncReport | str:
            from recall.sync.rounds import sync  # merging's modules load with the first round

            try:
                return sync(
                    database,
                    now,
                    schedulers=schedulers,
                    progress=progress,
                    cancelled=cancelled,
                    describe=describe,
                )
            except CancelledError:
                raise
            except RecallError as error:
                if not quiet:
                    raise
                return str(error)

        return self._operations.run(
            tr("Syncing..."),
            work,
            self._on_synced,
            failure=tr("Sync failed"),
            preface=tr("Nothing was lost; the next sync tries again. "),
            cancellable=True,
            on_error=lambda _error: self.show_status(),
            writes_cards=True,  # received answers and edits are merged in
        )

    def sync_on_close(self) -> None:
        """Queue a last round before the window closes (the window waits for its tasks)."""
        if not self.configured:
            return
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work() -> None:
            from recall.sync.rounds import sync

            # A round that fails here is made next time: nothing is lost by it.
            with contextlib.suppress(RecallError):
                sync(database, now, schedulers=schedulers)

        self.timer.stop()
        self._tasks.run(work)

    def show_status(self) -> None:
        """Put when this device last synced, and the devices seen, in the label."""
        status = settings.status(self._database)
        local = status.last_sync.astimezone() if status.last_sync else None
        self.label.setText(
            status.summary(local) + (tr(" · your changes not sent") if self._not_sent else "")
        )
        if status.folder is None:
            self.label.setToolTip(
                plain_tooltip(
                    tr(
                        "To study on another computer too, choose a folder both share in "
                        "Edit > Preferences > Sync folder (Syncthing, Dropbox, a network share)."
                    )
                )
            )
            return
        names = "\n".join(f"• {name} ({device[:8]})" for device, name in status.devices)
        self.label.setToolTip(
            plain_tooltip(
                (f"{self._not_sent[0].upper()}{self._not_sent[1:]}\n\n" if self._not_sent else "")
                + tr("This device: {device}\nSync folder: {folder}").format(
                    device=status.name, folder=status.folder
                )
                + (
                    "\n" + tr("Other devices seen:\n{devices}").format(devices=names)
                    if names
                    else ""
                )
            )
        )

    def settings_changed(self) -> None:
        """After Preferences were saved: show the new settings, and make a round at once when
        a folder was just chosen (the first, or another in place of the one before)."""
        self.show_status()
        status = settings.status(self._database)
        chosen, self._folder = status.folder != self._folder, status.folder
        if status.folder is not None and (chosen or status.last_sync is None):
            self.sync_now(quiet=True)

    def _on_timer(self) -> None:
        if self._studying() or self._operations.busy:
            return  # never beside an answer being written; the next tick tries again
        self.sync_now(quiet=True)

    def _on_synced(self, report: SyncReport | str) -> None:
        if not isinstance(report, str):
            self._not_sent = report.not_sent()
        self.show_status()
        if isinstance(report, str):
            self.message.emit(
                tr("Sync failed, tried again in a few minutes: {problem}").format(problem=report),
                60_000,
            )
            return
        received = changes(report.received)
        if report.reason is not None:
            # Short enough for the status bar; the file's name and the system's words are
            # in the sync status's tooltip.
            if report.kept < 0:
                failed = tr(
                    "Sending failed: {problem}. Everything is kept and sent when it can be written."
                )
            else:
                failed = trn(
                    "Sending failed: {problem}. Your {count} change is kept and sent when it can "
                    "be written.",
                    "Sending failed: {problem}. Your {count} changes are kept and sent when it "
                    "can be written.",
                    report.kept,
                )
            got = (
                trn("Received {count} change.", "Received {count} changes.", received).format(
                    count=number(received)
                )
                + " "
                if received
                else ""
            )
            self.message.emit(
                got + failed.format(problem=report.reason, count=number(report.kept)),
                60_000,
            )
            self.synced.emit(report)
            return
        sent = changes(report.sent)
        files = report.received[MEDIA_COUNTED]
        synced = (
            trn(
                "Synced: {count} change sent, {received} received, with {files}",
                "Synced: {count} changes sent, {received} received, with {files}",
                sent,
            )
            if files
            else trn(
                "Synced: {count} change sent, {received} received",
                "Synced: {count} changes sent, {received} received",
                sent,
            )
        )
        media = trn("{count} image or sound", "{count} images and sounds", files).format(
            count=number(files)
        )
        self.message.emit(
            synced.format(count=number(sent), received=number(received), files=media),
            5_000,
        )
        self.synced.emit(report)
