"""File > Backups: the list of backups, Back Up Now, and Restore after a confirmation.

Backing up and restoring run off the window's thread through ``Operations``, with a
progress dialog when they take longer than half a second.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall.core.i18n import mark, number, tr, trn
from recall.core.progress import Cancelled, Progress
from recall.safekeeping import backups
from recall.safekeeping.backups import Backup
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.operations import Operations
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.prompts import Prompts
from recall.ui.rows_model import RowsModel
from recall.ui.tasks import TaskRunner


class BackupListModel(RowsModel[Backup]):
    """Rows of ``Backup`` values, newest first."""

    HEADERS = (
        mark("Made"),
        mark("Why"),
        mark("Size"),
        mark("Decks"),
        mark("Cards"),
        mark("Reviews"),
    )

    def set_backups(self, found: Sequence[Backup]) -> None:
        """Replace every row."""
        self.set_rows(found)

    def backup_at(self, row: int) -> Backup:
        """The backup shown in ``row``."""
        return self.row_value(row)

    def cells(self, value: Backup) -> tuple[object, ...]:
        made = f"{value.made_at.astimezone():%Y-%m-%d %H:%M}"
        why = value.made_before or tr("Backup")
        return (made, why, value.size_text, value.decks, value.cards, value.reviews)

    def extra(self, value: Backup, column: int, role: int) -> object:
        return plain_tooltip(str(value.path)) if role == Qt.ItemDataRole.ToolTipRole else None


@reports_errors
class BackupsDialog(QDialog):
    """Lists the backups; restores the selected one after the learner confirms.

    Args:
        database: The open database.
        schedulers: For checking the database after a restore.
        clock: The current time, aware UTC.
        prompts: Asks and tells the learner; tests answer for them.
    """

    restored = Signal()

    def __init__(
        self,
        database: Database,
        schedulers: Schedulers,
        clock: Callable[[], datetime],
        prompts: Prompts | None = None,
        parent: QWidget | None = None,
        tasks: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Backups"))
        self.setObjectName("backupsDialog")
        self.resize(640, 400)
        self._database = database
        self._schedulers = schedulers
        self._clock = clock
        self._prompts = prompts or Prompts(self)
        self.operations = Operations(tasks or TaskRunner(self), self._prompts, self)
        self.model = BackupListModel(self)
        self.table = QTableView()
        self.table.setAccessibleName(tr("Backups"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.note = plain_label(
            tr(
                "Recall backs up when it closes and every 30 minutes while you study, if anything "
                "changed. It keeps the 10 newest backups and every backup of the last two days, "
                "then one a day, one a week and one a month, for about a year."
            )
        )
        self.note.setWordWrap(True)
        self.empty = plain_label(tr("No backups yet: Back Up Now makes the first one."))
        self.empty.setObjectName("backupsEmpty")
        self.backup_button = QPushButton(tr("Back Up Now"))
        self.backup_button.setAccessibleName(tr("Back up now"))
        self.restore_button = QPushButton(tr("Restore..."))
        self.restore_button.setAccessibleName(tr("Restore the selected backup"))
        self.close_button = QPushButton(tr("Close"))
        self.close_button.setAccessibleName(tr("Close"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.backup_button)
        buttons.addStretch(1)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        self._connect_signals()
        self.refresh()

    def refresh(self, found: Sequence[Backup] | None = None) -> None:
        """Reload the list from the backups folder, or show ``found``, read off the thread.

        Reading the list opens every backup to count its cards: about 100 ms at 100,000
        cards, so after a backup or a restore it is read by the work itself.
        """
        if found is None:
            found = backups.list_backups(backups.backup_folder(self._database))
        self.model.set_backups(found)
        if self.model.rowCount():
            self.table.selectRow(0)
        self.restore_button.setEnabled(self.model.rowCount() > 0)
        self.empty.setVisible(self.model.rowCount() == 0)

    def restore_selected(self) -> bool:
        """Restore the selected backup if the learner confirms; True when restored."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return False
        chosen = self.model.backup_at(rows[0].row())
        question = tr(
            "Restore the backup made {made} ({cards}, {reviews})?\n\nThe database as it is "
            "now is saved as a backup first, so this can be undone."
        ).format(
            made=f"{chosen.made_at.astimezone():%Y-%m-%d %H:%M}",
            cards=trn("{count} card", "{count} cards", chosen.cards).format(
                count=number(chosen.cards)
            ),
            reviews=trn("{count} review", "{count} reviews", chosen.reviews).format(
                count=number(chosen.reviews)
            ),
        )
        if not self._prompts.confirm(tr("Restore backup"), question):
            return False
        return self.restore(chosen.path)

    def restore(self, backup_file: Path) -> bool:
        """Restore ``backup_file`` off the window's thread, with progress; True if started.

        ``restored`` is emitted once it is in place and checked.
        """
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(
            _progress: Progress, _cancelled: Cancelled
        ) -> tuple[backups.RestoreReport, list[Backup]]:
            report = backups.restore(database, backup_file, schedulers, now)
            return report, backups.list_backups(backups.backup_folder(database))

        return self.operations.run(
            tr("Restoring the backup..."),
            work,
            self._on_restored,
            failure=tr("Backups"),
            preface=tr("Nothing was restored: "),
            on_error=lambda _error: self.refresh(),
            replaces_database=True,
        )

    def back_up_now(self) -> bool:
        """Make a backup off the window's thread; True if started."""
        database, now = self._database, self._clock()

        def work(_progress: Progress, _cancelled: Cancelled) -> tuple[Path, list[Backup]]:
            made = backups.make_backup(database, now)
            return made, backups.list_backups(backups.backup_folder(database))

        return self.operations.run(
            tr("Backing up..."),
            work,
            self._on_backed_up,
            failure=tr("Backups"),
            on_error=lambda _error: self.refresh(),
        )

    def reject(self) -> None:
        """Close, unless a backup or restore is still running (it finishes first)."""
        if not self.operations.busy:
            super().reject()

    def _on_restored(self, done: tuple[backups.RestoreReport, list[Backup]]) -> None:
        report, found = done
        self.refresh(found)
        state = tr("healthy") if report.check.healthy else "\n".join(report.check.problems[:5])
        self._prompts.tell(
            tr("Backups"),
            tr(
                "Restored. Check: {state}\n\nTools > Check Database also replays every "
                "schedule against its history."
            ).format(state=state),
        )
        self.restored.emit()

    def _on_backed_up(self, done: tuple[Path, list[Backup]]) -> None:
        path, found = done
        self.refresh(found)
        self._prompts.tell(tr("Backups"), tr("Backed up to {file}.").format(file=path.name))

    def _on_busy(self, busy: bool) -> None:
        for button in (self.backup_button, self.restore_button, self.close_button):
            button.setEnabled(not busy)
        if not busy:
            self.restore_button.setEnabled(self.model.rowCount() > 0)

    def _connect_signals(self) -> None:
        self.backup_button.clicked.connect(self.back_up_now)
        self.restore_button.clicked.connect(self.restore_selected)
        self.close_button.clicked.connect(self.accept)
        self.operations.busy_changed.connect(self._on_busy)
