"""Help > Keyboard Shortcuts (F1): every key of the main window and of the card browser.

A dialog of its own, not a message box: it can be resized and scrolled, reads as a table
to a screen reader, and closes with Escape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from recall.core import i18n
from recall.core.i18n import mark, tr

# The card browser's keys (Edit and Cards menus); a test holds them to its actions.
BROWSER_SHORTCUTS = (
    ("Ctrl+F", mark("Find: the search box")),
    ("Ctrl+S", mark("Save the card in the editor")),
    ("Escape", mark("Close the browser")),
    ("Ctrl+Z", mark("Undo the last change of cards")),
    ("Ctrl+E", mark("Add cards")),
    ("Ctrl+G", mark("Study These: a custom session of the selected cards (cram or rescheduled)")),
    ("Ctrl+J", mark("Suspend or unsuspend the selected cards")),
    ("Ctrl+Shift+J", mark("Bury the selected cards until tomorrow")),
    ("Ctrl+D", mark("Move the selected cards to another deck")),
    ("Ctrl+Shift+A", mark("Add tags to the selected cards")),
    ("Ctrl+Alt+Shift+A", mark("Remove tags from the selected cards")),
    ("Ctrl+Alt+N", mark("Forget the selected cards (make them new)")),
    ("Ctrl+Shift+D", mark("Set the due date of the selected cards")),
    ("Ctrl+Del", mark("Delete the selected cards (a backup is made first)")),
    ("Ctrl+Shift+E", mark("Export the selected cards")),
    ("Ctrl+1 … Ctrl+7", mark("Flag the selected cards (again: unflag)")),
)


_KEY_SEPARATORS = re.compile(r"( / | … |, )")


def key_names(keys: str) -> str:
    """Keys as the menus name them in the learner's language ("Ctrl+Z" is "Strg+Z" in
    German): each key Qt reads back exactly as written is named by Qt; others stay."""
    parts = _KEY_SEPARATORS.split(keys)
    for index in range(0, len(parts), 2):
        sequence = QKeySequence(parts[index])
        portable = sequence.toString(QKeySequence.SequenceFormat.PortableText)
        if sequence.count() == 1 and portable == parts[index]:
            parts[index] = sequence.toString(QKeySequence.SequenceFormat.NativeText)
    return "".join(parts)


class ShortcutsDialog(QDialog):
    """The keys, in one table with a heading row per window."""

    def __init__(
        self,
        sections: Sequence[tuple[str, Sequence[tuple[str, str]]]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Keyboard Shortcuts"))
        self.setObjectName("shortcutsDialog")
        rows = sum(1 + len(keys) for _title, keys in sections)
        self.table = QTableWidget(rows, 2)
        self.table.setObjectName("shortcuts")
        self.table.setAccessibleName(tr("Keyboard shortcuts"))
        self.table.setHorizontalHeaderLabels([tr("Key"), tr("What it does")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        row = 0
        for title, keys in sections:
            heading = QTableWidgetItem(title)
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            heading.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, 0, heading)
            self.table.setSpan(row, 0, 1, 2)
            row += 1
            for key, what in keys:
                key_item = QTableWidgetItem(key_names(key))
                key_font = key_item.font()
                key_font.setBold(True)
                key_item.setFont(key_font)
                self.table.setItem(row, 0, key_item)
                self.table.setItem(row, 1, QTableWidgetItem(i18n.tr(what)))
                row += 1
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(720, 560)

    def keys(self) -> list[tuple[str, str]]:
        """Every row as (key, what it does); a heading row has "" for what it does."""
        found = []
        for row in range(self.table.rowCount()):
            key, what = self.table.item(row, 0), self.table.item(row, 1)
            found.append((key.text() if key else "", what.text() if what else ""))
        return found
