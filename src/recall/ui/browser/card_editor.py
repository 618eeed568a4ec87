"""The card editor: a choice card's question, choices with their "why", or a basic card's sides.

It checks the card as the deck format does while the learner types, shows the format's
message for each problem and the deck checker's teaching warnings, and previews the
question as the review screen renders it.
"""

from __future__ import annotations

import itertools
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from recall.changes.editing import CardError, check_card
from recall.content import lint
from recall.content.deck_format import MAX_CHOICES, MIN_CHOICES
from recall.ui.feedback_panel import card_label
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.text import markdown_to_html


def _text_box(name: str, lines: int = 3) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setAccessibleName(name)
    box.setPlaceholderText(name)
    box.setTabChangesFocus(True)
    box.setFixedHeight(box.fontMetrics().lineSpacing() * lines + 16)
    return box


class _ChoiceRow:
    """One choice's widgets: its text, whether it is right, why, and a remove button."""

    def __init__(self, number: int) -> None:
        self.text = QLineEdit()
        self.correct = QCheckBox("Correct")
        self.why = QLineEdit()
        self.remove = QToolButton()
        self.remove.setText("\u00d7")  # a multiplication sign: remove
        self.renumber(number)

    def renumber(self, number: int) -> None:
        self.text.setPlaceholderText(f"Choice {number}")
        self.text.setAccessibleName(f"Choice {number}")
        self.correct.setAccessibleName(f"Choice {number} is correct")
        self.why.setPlaceholderText("Why it is wrong (or right), shown once picked")
        self.why.setAccessibleName(f"Why choice {number}")
        self.remove.setAccessibleName(f"Remove choice {number}")
        self.remove.setToolTip(plain_tooltip(f"Remove choice {number}"))

    def widgets(self) -> tuple[QWidget, ...]:
        return (self.text, self.correct, self.why, self.remove)


class CardEditor(QWidget):
    """Edits one card's fields as deck-file JSON (``data``), checked as the learner types."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cardEditor")
        self._kind = "choice"
        self._loading = False
        self._extra: dict[str, Any] = {}
        self.question = _text_box("Question (Markdown)", 3)
        self.preview = card_label("question", "Question as the review screen shows it")
        self.preview.setObjectName("question")
        self.front = _text_box("Front", 3)
        self.back = _text_box("Back", 3)
        self.explanation = _text_box("Explanation (Markdown), shown after every answer", 2)
        self.source = QLineEdit()
        self.source.setAccessibleName("Source")
        self.source.setPlaceholderText("Where a reader can check the answer")
        self.tags = QLineEdit()
        self.tags.setAccessibleName("Tags")
        self.tags.setPlaceholderText("Tags, separated by spaces (a::b nests)")
        self.shuffle = QCheckBox("Shuffle the choices each time")
        self.shuffle.setChecked(True)
        self.add_choice_button = QPushButton("Add a choice")
        self.add_choice_button.setAccessibleName("Add a choice")
        self.problems = plain_label()
        self.problems.setObjectName("editorProblems")
        self.problems.setAccessibleName("Problems with this card")
        self.problems.setTextFormat(Qt.TextFormat.PlainText)
        self.problems.setWordWrap(True)
        self._rows: list[_ChoiceRow] = []
        self._choices = QGridLayout()
        self._choices.setColumnStretch(0, 3)
        self._choices.setColumnStretch(2, 4)
        self._form = QFormLayout()
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._form.addRow("Question", self.question)
        self._form.addRow("Preview", self.preview)
        self._form.addRow("Front", self.front)
        self._form.addRow("Back", self.back)
        choices = QVBoxLayout()
        choices.addLayout(self._choices)
        add_row = QHBoxLayout()
        add_row.addWidget(self.add_choice_button)
        add_row.addWidget(self.shuffle)
        add_row.addStretch(1)
        choices.addLayout(add_row)
        self._choices_widget = QWidget()
        self._choices_widget.setLayout(choices)
        self._form.addRow("Choices", self._choices_widget)
        self._form.addRow("Explanation", self.explanation)
        self._form.addRow("Source", self.source)
        self._form.addRow("Tags", self.tags)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._form)
        layout.addWidget(self.problems)
        layout.addStretch(1)
        self._connect_signals()
        self.set_kind("choice")

    @property
    def kind(self) -> str:
        """The card type being edited: ``choice`` or ``basic``."""
        return self._kind

    def set_kind(self, kind: str) -> None:
        """Show the fields of a choice card or of a basic card."""
        self._kind = kind
        choice = kind == "choice"
        for widget in (self.question, self.preview, self._choices_widget):
            self._form.setRowVisible(widget, choice)
        for widget in (self.front, self.back):
            self._form.setRowVisible(widget, not choice)
        if choice:
            while len(self._rows) < MIN_CHOICES + 1:
                self._add_row()
        self._on_changed()

    def set_data(self, data: dict[str, Any]) -> None:
        """Fill the fields from a card's deck-file JSON."""
        self._loading = True  # one check at the end, not one per field filled
        self.blockSignals(True)
        self._extra = {key: data[key] for key in ("markup", "hints", "type_answer") if key in data}
        self.set_kind(str(data.get("type", "choice")))
        self.question.setPlainText(str(data.get("question", "")))
        self.front.setPlainText(str(data.get("front", "")))
        self.back.setPlainText(str(data.get("back", "")))
        self.explanation.setPlainText(str(data.get("explanation", "")))
        self.source.setText(str(data.get("source", "")))
        self.tags.setText(" ".join(data.get("tags", [])))
        self.shuffle.setChecked(bool(data.get("shuffle", True)))
        choices = list(data.get("choices", []))
        while len(self._rows) > max(len(choices), MIN_CHOICES):
            self._remove_row(self._rows[-1])
        while len(self._rows) < len(choices):
            self._add_row()
        for row in self._rows:
            row.text.clear()
            row.why.clear()
            row.correct.setChecked(False)
        for row, choice in zip(self._rows, choices, strict=False):
            row.text.setText(str(choice.get("text", "")))
            row.correct.setChecked(bool(choice.get("correct", False)))
            row.why.setText(str(choice.get("why") or ""))
        # Long texts show from their start, not scrolled to their end.
        for line in [self.source, *(r.text for r in self._rows), *(r.why for r in self._rows)]:
            line.setCursorPosition(0)
        self.blockSignals(False)
        self._loading = False
        self._on_changed()

    def clear(self) -> None:
        """Empty the fields for the next card; the type, tags and shuffle stay."""
        tags = self.tags.text()
        self.set_data(
            {"type": self._kind, "tags": tags.split(), "shuffle": self.shuffle.isChecked()}
        )

    def data(self) -> dict[str, Any]:
        """The card as deck-file JSON (without an id)."""
        tags = self.tags.text().split()
        common: dict[str, Any] = {
            "explanation": self.explanation.toPlainText(),
            "source": self.source.text(),
            "tags": tags,
        }
        if self._kind == "basic":
            return {
                "type": "basic",
                **self._extra,
                "front": self.front.toPlainText(),
                "back": self.back.toPlainText(),
                **common,
            }
        choices = []
        for row in self._rows:
            choice: dict[str, Any] = {"text": row.text.text()}
            if row.correct.isChecked():
                choice["correct"] = True
            if row.why.text().strip():
                choice["why"] = row.why.text()
            choices.append(choice)
        return {
            "type": "choice",
            "question": self.question.toPlainText(),
            "choices": choices,
            **common,
            "shuffle": self.shuffle.isChecked(),
        }

    def check(self) -> list[str]:
        """The card's problems as the deck format words them; empty when it can be saved."""
        try:
            check_card(self.data())
        except CardError as error:
            return error.problems
        return []

    def focus_first(self) -> None:
        """Put the keyboard in the first field."""
        (self.question if self._kind == "choice" else self.front).setFocus()

    def _is_blank(self) -> bool:
        texts = [self.question, self.front, self.back]
        rows = [row.text.text() for row in self._rows]
        return not any(box.toPlainText().strip() for box in texts) and not any(
            text.strip() for text in rows
        )

    # Building

    def _connect_signals(self) -> None:
        for box in (self.question, self.front, self.back, self.explanation):
            box.textChanged.connect(self._on_changed)
        for line in (self.source, self.tags):
            line.textChanged.connect(self._on_changed)
        self.shuffle.toggled.connect(self._on_changed)
        self.add_choice_button.clicked.connect(self._on_add_choice)

    def _add_row(self) -> _ChoiceRow:
        row = _ChoiceRow(len(self._rows) + 1)
        self._rows.append(row)
        line = len(self._rows) - 1
        for column, widget in enumerate(row.widgets()):
            self._choices.addWidget(widget, line, column)
        row.text.textChanged.connect(self._on_changed)
        row.why.textChanged.connect(self._on_changed)
        row.correct.toggled.connect(self._on_changed)
        row.remove.clicked.connect(lambda: self._on_remove(row))
        self._update_rows()
        return row

    def _remove_row(self, row: _ChoiceRow) -> None:
        index = self._rows.index(row)
        texts = [(r.text.text(), r.correct.isChecked(), r.why.text()) for r in self._rows]
        del texts[index]
        last = self._rows.pop()
        for widget in last.widgets():
            self._choices.removeWidget(widget)
            widget.deleteLater()
        for kept, (text, correct, why) in zip(self._rows, texts, strict=True):
            kept.text.setText(text)
            kept.correct.setChecked(correct)
            kept.why.setText(why)
        self._update_rows()

    def _update_rows(self) -> None:
        for number, row in enumerate(self._rows, start=1):
            row.renumber(number)
            row.remove.setEnabled(len(self._rows) > MIN_CHOICES)
        self.add_choice_button.setEnabled(len(self._rows) < MAX_CHOICES)
        # Tab walks the fields in the order they are shown: question, each choice's text,
        # correct and why, then the rest.
        chain: list[QWidget] = [self.question, self.front, self.back]
        for row in self._rows:
            chain += [row.text, row.correct, row.why]
        chain += [self.add_choice_button, self.shuffle, self.explanation, self.source, self.tags]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # Slots

    def _on_add_choice(self) -> None:
        self._add_row().text.setFocus()
        self._on_changed()

    def _on_remove(self, row: _ChoiceRow) -> None:
        if len(self._rows) > MIN_CHOICES:
            self._remove_row(row)
            self._on_changed()

    def _on_changed(self) -> None:
        if self._loading:
            return
        if self._kind == "choice":
            self.preview.setText(markdown_to_html(self.question.toPlainText()))
        problems = self.check()
        if self._is_blank():
            lines: list[str] = []  # nothing written yet: nothing to point out
        elif problems:
            lines = [f"• {problem}" for problem in problems]
        else:
            warnings = lint.lint_card(check_card(self.data()))
            lines = [f"Tip: {warning.message}" for warning in warnings]
        self.problems.setText("\n".join(lines))
        self.problems.setProperty("errors", bool(problems))
        self.problems.style().unpolish(self.problems)  # the style sheet reads the property
        self.problems.style().polish(self.problems)
        self.problems.setVisible(bool(lines))
        if not self.signalsBlocked():
            self.changed.emit()
