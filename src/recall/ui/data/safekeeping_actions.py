"""The window's care of the database: File > Backups, Tools > Check Database, timed backups.

Kept apart from the main window, which puts the actions in its menus and listens to what
they report: a restore (the screens start again from the deck list), a repair (fresh
counts) and a line for the status bar.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from recall.core.i18n import number, tr, trn
from recall.core.progress import Cancelled, Progress
from recall.safekeeping import backups, integrity
from recall.safekeeping import repair as upkeep
from recall.safekeeping.integrity import CheckReport
from recall.ui.context import WindowContext, WindowPart


class SafekeepingActions(WindowPart):
    """Backups, the check with its repair, and the backup timer.

    Args:
        database: The collection.
        schedulers: FSRS per preset, for the check's replay and the repair.
        clock: The current time, aware UTC.
        operations: Runs the check and the repair with progress.
        tasks: Runs the timed backup in the background.
        prompts: Asks and tells the learner.
        backup_interval: How often a changed collection is backed up.
        window: The main window, parent of the actions and dialogs.
    """

    restored = Signal()
    repaired = Signal()
    message = Signal(str, int)  # text, milliseconds to show it

    def __init__(
        self,
        context: WindowContext,
        backup_interval: timedelta,
        window: QWidget,
    ) -> None:
        super().__init__(context, window)
        self.backups_action = QAction(tr("&Backups..."), window)
        self.backups_action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.check_action = QAction(tr("&Check Database"), window)
        self.check_action.setShortcut(QKeySequence("Ctrl+Shift+K"))
        self.backup_timer = QTimer(self)
        self.set_backup_interval(backup_interval)
        self._connect_signals()

    @property
    def actions(self) -> tuple[QAction, QAction]:
        """Backups and Check Database."""
        return self.backups_action, self.check_action

    def set_backup_interval(self, interval: timedelta) -> None:
        """Back up a changed collection this often from now on."""
        self.backup_timer.setInterval(int(interval.total_seconds() * 1000))

    def back_up_if_changed(self) -> None:
        """Back up in the background if anything changed since the newest backup."""
        database, now = self._database, self._clock()

        def work() -> Path | None:
            if not backups.changed_since_last_backup(database):
                return None
            return backups.make_backup(database, now)

        self._tasks.run(work, self._on_backup_done, self._on_backup_failed)

    def check_database(self) -> None:
        """Check every schedule against its history off the window's thread, then offer repair."""
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(progress: Progress, cancelled: Cancelled) -> CheckReport:
            return integrity.check(database, schedulers, now, progress, cancelled)

        self._operations.run(
            tr("Checking the database..."),
            work,
            self._on_checked,
            failure=tr("Check failed"),
            cancellable=True,
        )

    def _connect_signals(self) -> None:
        self.check_action.triggered.connect(self.check_database)
        self.backups_action.triggered.connect(self._on_backups)
        self.backup_timer.timeout.connect(self.back_up_if_changed)

    def _on_checked(self, report: CheckReport) -> None:
        if report.healthy:
            cards = trn("{count} card", "{count} cards", report.cards).format(
                count=number(report.cards)
            )
            reviews = trn("{count} review", "{count} reviews", report.reviews).format(
                count=number(report.reviews)
            )
            healthy = (
                tr(
                    "The database is healthy: {cards} and {reviews} checked, every schedule "
                    "equal to its history."
                )
                if report.replayed >= report.cards
                else tr(
                    "The database is healthy: {cards} and {reviews} checked, every schedule "
                    "equal to its history ({replayed} changed since the last full check "
                    "replayed; `recall check --full` replays every card)."
                )
            )
            self._prompts.tell(
                tr("Check Database"),
                healthy.format(cards=cards, reviews=reviews, replayed=number(report.replayed)),
            )
            return
        found = "\n".join(f"• {problem}" for problem in report.problems[:8])
        more = len(report.problems) - 8
        if more > 0:
            found += "\n" + tr("… and {count} more").format(count=number(more))
        problems = len(report.problems)
        if not upkeep.can_repair(report):
            self._prompts.tell(
                tr("Check Database"),
                trn(
                    "{count} problem found:\n\n{found}\n\nRecall cannot rebuild it; "
                    "File > Backups can restore an earlier copy.",
                    "{count} problems found:\n\n{found}\n\nRecall cannot rebuild these; "
                    "File > Backups can restore an earlier copy.",
                    problems,
                ).format(count=number(problems), found=found),
                warning=True,
            )
            return
        if not self._prompts.confirm(
            tr("Check Database"),
            trn(
                "{count} problem found:\n\n{found}\n\nRebuild the schedules from the review "
                "history? A backup is made first; no review is changed.",
                "{count} problems found:\n\n{found}\n\nRebuild the schedules from the review "
                "history? A backup is made first; no review is changed.",
                problems,
            ).format(count=number(problems), found=found),
        ):
            return
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(_progress: Progress, _cancelled: Cancelled) -> upkeep.Repaired:
            return upkeep.repair(database, schedulers, report, now)

        self._operations.run(
            tr("Repairing..."),
            work,
            self._on_repaired,
            failure=tr("Repair failed"),
            writes_cards=True,
        )

    def _on_repaired(self, repaired: upkeep.Repaired) -> None:
        state = (
            tr("The database is healthy now.")
            if repaired.after.healthy
            else "\n".join(repaired.after.problems[:5])
        )
        rebuilt = len(repaired.changes)
        self._prompts.tell(
            tr("Check Database"),
            trn(
                "Rebuilt {count} schedule from its history. The database as it was is saved "
                "as {file}.\n\n{state}",
                "Rebuilt {count} schedules from their history. The database as it was is saved "
                "as {file}.\n\n{state}",
                rebuilt,
            ).format(count=number(rebuilt), file=repaired.backup.name, state=state),
        )
        self.repaired.emit()

    def _on_backups(self) -> None:
        from recall.ui.data.backups_dialog import BackupsDialog  # when first asked for

        dialog = BackupsDialog(
            self._database,
            self._schedulers,
            self._clock,
            self._prompts,
            parent=self._window,
            tasks=self._tasks,
        )
        dialog.restored.connect(self.restored)
        dialog.exec()

    def _on_backup_done(self, path: Path | None) -> None:
        if path is not None:
            self.message.emit(tr("Backed up to {path}").format(path=path), 5_000)

    def _on_backup_failed(self, error: Exception) -> None:
        self.message.emit(tr("Backup failed: {problem}").format(problem=error), 30_000)
