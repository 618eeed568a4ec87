"""The sync part of Preferences: the shared folder (with a chooser) and this device's name."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from recall.core.i18n import tr
from recall.storage import Database
from recall.sync import settings
from recall.ui.plain_text import plain_label, plain_tooltip


class SyncSection(QGroupBox):
    """Where this device syncs, edited in Preferences and stored when they are saved.

    Args:
        database: Where the sync settings are kept (this device's own, never synced).
        parent: The preferences dialog.
    """

    def __init__(self, database: Database, parent: QWidget | None = None) -> None:
        super().__init__(tr("Sync"), parent)
        self._database = database
        status = settings.status(database)
        self.folder = QLineEdit(str(status.folder) if status.folder else "")
        self.folder.setPlaceholderText(tr("a folder shared by Syncthing or Dropbox"))
        self.folder.setAccessibleName(tr("Sync folder"))
        self.folder.setToolTip(
            plain_tooltip(
                tr(
                    "Each device writes its changes into this folder and reads the others'. Choose "
                    "the same shared folder on every device; leave it empty to stop syncing."
                )
            )
        )
        self.choose_button = QPushButton(tr("Choose..."))
        self.choose_button.setAccessibleName(tr("Choose the sync folder"))
        self.name = QLineEdit(status.name)
        self.name.setAccessibleName(tr("This device's name"))
        self.name.setToolTip(plain_tooltip(tr("How the other devices list this one.")))
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(self.choose_button)
        layout = QFormLayout(self)
        layout.addRow(tr("Sync folder"), row)
        layout.addRow(tr("This device"), self.name)
        note = plain_label(tr("See docs/sync.md for setting up Syncthing or Dropbox."))
        note.setObjectName("hint")
        layout.addRow(note)
        self.choose_button.clicked.connect(self._on_choose)

    def chosen_folder(self) -> Path | None:
        """The folder as typed or chosen; None when empty."""
        text = self.folder.text().strip()
        return Path(text) if text else None

    def save(self, now: datetime) -> None:
        """Store the folder and name.

        Raises:
            SyncFolderError: The folder does not exist or cannot be written.
        """
        settings.choose(self._database, self.chosen_folder(), self.name.text(), now)

    def _on_choose(self) -> None:
        start = self.folder.text().strip() or str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self, tr("Choose the sync folder"), start)
        if chosen:
            self.folder.setText(chosen)
