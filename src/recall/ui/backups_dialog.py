"""File > Backups: the list of backups, Back Up Now, and Restore after a confirmation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall import backups
from recall.backups import Backup
from recall.errors import RecallError
from recall.scheduling import Scheduler
from recall.storage import Database
from recall.ui.prompts import Prompts
from recall.ui.rows_model import RowsModel


class BackupListModel(RowsModel[Backup]):
    """Rows of ``Backup`` values, newest first."""

    HEADERS = ("Made", "Size", "Decks", "Cards", "Reviews")

    def set_backups(self, found: Sequence[Backup]) -> None:
        """Replace every row."""
        self.set_rows(found)

    def backup_at(self, row: int) -> Backup:
        """The backup shown in ``row``."""
        return self.row_value(row)

    def cells(self, value: Backup) -> tuple[object, ...]:
        made = f"{value.made_at.astimezone():%Y-%m-%d %H:%M}"
        return (made, value.size_text, value.decks, value.cards, value.reviews)

    def extra(self, value: Backup, column: int, role: int) -> object:
        return str(value.path) if role == Qt.ItemDataRole.ToolTipRole else None


class BackupsDialog(QDialog):
    """Lists the backups; restores the selected one after the learner confirms.

    Args:
        database: The open database.
        scheduler: For checking the database after a restore.
        clock: The current time, aware UTC.
        prompts: Asks and tells the learner; tests answer for them.
    """

    restored = Signal()

    def __init__(
        self,
        database: Database,
        scheduler: Scheduler,
        clock: Callable[[], datetime],
        prompts: Prompts | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Backups")
        self.setObjectName("backupsDialog")
        self.resize(640, 400)
        self._database = database
        self._scheduler = scheduler
        self._clock = clock
        self._prompts = prompts or Prompts(self)
        self.model = BackupListModel(self)
        self.table = QTableView()
        self.table.setAccessibleName("Backups")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.note = QLabel(
            "Recall backs up when it closes and every 30 minutes while you study, if anything "
            "changed. It keeps the 10 newest backups and every backup of the last two days, "
            "then one a day, one a week and one a month, for about a year."
        )
        self.note.setWordWrap(True)
        self.empty = QLabel("No backups yet: Back Up Now makes the first one.")
        self.empty.setObjectName("backupsEmpty")
        self.backup_button = QPushButton("Back Up Now")
        self.backup_button.setAccessibleName("Back up now")
        self.restore_button = QPushButton("Restore...")
        self.restore_button.setAccessibleName("Restore the selected backup")
        self.close_button = QPushButton("Close")
        self.close_button.setAccessibleName("Close")
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

    def refresh(self) -> None:
        """Reload the list from the backups folder."""
        self.model.set_backups(backups.list_backups(backups.backup_folder(self._database)))
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
        question = (
            f"Restore the backup made {chosen.made_at.astimezone():%Y-%m-%d %H:%M} "
            f"({chosen.cards} cards, {chosen.reviews} reviews)?\n\nThe database as it is "
            "now is saved as a backup first, so this can be undone."
        )
        if not self._prompts.confirm("Restore backup", question):
            return False
        try:
            report = backups.restore(self._database, chosen.path, self._scheduler, self._clock())
        except RecallError as error:
            self._prompts.tell("Backups", f"Nothing was restored: {error}", warning=True)
            return False
        self.refresh()
        state = "healthy" if report.check.healthy else "\n".join(report.check.problems[:5])
        self._prompts.tell("Backups", f"Restored. Check: {state}")
        self.restored.emit()
        return True

    def _connect_signals(self) -> None:
        self.backup_button.clicked.connect(self._on_backup)
        self.restore_button.clicked.connect(self.restore_selected)
        self.close_button.clicked.connect(self.accept)

    def _on_backup(self) -> None:
        try:
            backups.make_backup(self._database, self._clock())
        except RecallError as error:
            self._prompts.tell("Backups", str(error), warning=True)
        self.refresh()
