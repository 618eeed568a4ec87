"""A form built from option declarations: one editor per option, its help as tooltip.

The preferences and deck options windows both use it, so each option's label, limits and
help come from the one place they are declared (``recall.core.fields``), and a value is
checked by the same code the command line uses.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from recall.core import fields, i18n
from recall.core.fields import OptionInfo
from recall.core.i18n import mark, tr
from recall.ui.plain_text import plain_tooltip

# How each choice an option offers is shown (``THEMES``, ``LEECH_ACTIONS``, ...).
CHOICE_LABELS = {
    "system": mark("System"),
    "light": mark("Light"),
    "dark": mark("Dark"),
    "suspend": mark("Suspend"),
    "tag": mark("Tag only"),
    "deck": mark("Deck order"),
    "random": mark("Random order"),
    "normal": mark("Normal"),
    "reduced": mark("Reduced"),
    "minimum": mark("Minimum"),
}


class OptionForm(QWidget):
    """Editors for a list of options; ``values()`` reads them back, checked."""

    changed = Signal()

    def __init__(self, options: list[OptionInfo], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._options = options
        self.editors: dict[str, QWidget] = {}
        layout = QFormLayout(self)
        for item in options:
            editor = self._editor(item)
            editor.setToolTip(plain_tooltip(item.help))
            editor.setAccessibleName(item.label)
            editor.setAccessibleDescription(item.help)
            editor.setObjectName(f"option_{item.key}")
            self.editors[item.key] = editor
            layout.addRow(item.label, editor)

    def set_values(self, source: Any) -> None:
        """Show the options' values of ``source`` (a preferences or preset value)."""
        for item in self._options:
            value = getattr(source, item.key)
            editor = self.editors[item.key]
            editor.blockSignals(True)
            if isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QComboBox):
                editor.setCurrentIndex(max(0, editor.findData(value)))
            elif isinstance(editor, QSpinBox):
                editor.setValue(int(value))
            elif isinstance(editor, QDoubleSpinBox):
                editor.setValue(float(value))
            elif isinstance(editor, QLineEdit) and item.kind == "daytime" and value is None:
                editor.setText("")  # off: the placeholder says so in the learner's language
            elif isinstance(editor, QLineEdit):
                editor.setText(fields.format_value(value, item))
            editor.blockSignals(False)

    def values(self) -> dict[str, Any]:
        """Every option's value as edited.

        Raises:
            OptionError: A typed value (steps, numbers) cannot be read.
        """
        values: dict[str, Any] = {}
        for item in self._options:
            editor = self.editors[item.key]
            if isinstance(editor, QCheckBox):
                values[item.key] = editor.isChecked()
            elif isinstance(editor, QComboBox):
                values[item.key] = editor.currentData()
            elif isinstance(editor, QSpinBox):
                values[item.key] = editor.value()
            elif isinstance(editor, QDoubleSpinBox):
                values[item.key] = round(editor.value(), 4)
            elif isinstance(editor, QLineEdit):
                values[item.key] = fields.parse(item, editor.text())
        return values

    def _editor(self, item: OptionInfo) -> QWidget:
        if item.kind == "bool":
            box = QCheckBox()
            box.toggled.connect(self.changed)
            return box
        if item.kind == "choice":
            combo = QComboBox()
            for choice in item.choices:
                combo.addItem(i18n.tr(CHOICE_LABELS.get(choice, choice.capitalize())), choice)
            combo.currentIndexChanged.connect(self.changed)
            return combo
        if item.kind == "int":
            spin = QSpinBox()
            spin.setRange(int(item.low or 0), int(item.high if item.high is not None else 10**6))
            spin.valueChanged.connect(self.changed)
            return spin
        if item.kind == "float":
            double = QDoubleSpinBox()
            double.setDecimals(2)
            double.setSingleStep(0.01)
            double.setRange(item.low or 0.0, item.high if item.high is not None else 1e6)
            double.valueChanged.connect(self.changed)
            return double
        line = QLineEdit()
        if item.kind == "daytime":
            line.setPlaceholderText(tr("off (a time like 09:30 turns it on)"))
        line.textChanged.connect(self.changed)
        return line
