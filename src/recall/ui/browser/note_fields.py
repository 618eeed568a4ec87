"""The fields of an Anki note in the card editor: one box per field, named as in Anki.

A card imported from Anki is its note shown through a template, so the editor edits the
note's fields (HTML, as Anki keeps them) rather than the card's rendered sides; saving
renders every card of the note again (``changes.note_editing``).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QWidget

from recall.core.i18n import tr
from recall.ui.browser.markdown_box import MarkdownBox


class NoteFieldsEditor(QWidget):
    """One box per field of an Anki note, in the note type's order."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noteFields")
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.boxes: dict[str, MarkdownBox] = {}

    def set_fields(self, fields: dict[str, str]) -> None:
        """Show these fields (name: HTML), each in a box named after it."""
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self.boxes = {}
        for name, text in fields.items():
            box = MarkdownBox(tr("Field {name} (HTML)").format(name=name), 2)
            box.setObjectName(f"noteField:{name}")
            box.setPlainText(text)
            box.textChanged.connect(self.changed)
            self._layout.addRow(name, box)
            self.boxes[name] = box

    def fields(self) -> dict[str, str]:
        """The fields as written now, in order."""
        return {name: box.toPlainText() for name, box in self.boxes.items()}

    def has_text(self) -> bool:
        """Whether any field holds text."""
        return any(box.toPlainText().strip() for box in self.boxes.values())
