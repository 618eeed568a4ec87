"""The card editor: a choice card's question and choices, a basic card's sides, or a cloze text.

Besides multiple choice and basic cards it writes reversed notes (a card each way), type-in
cards and cloze notes (Ctrl+Shift+C wraps the selection in the next deletion), and edits a
card imported from Anki as its note's fields, one box each (``note_fields``); Markdown
fields get bold, italic, list and code keys and buttons, and images and sounds. It checks
the cards as the deck format does while the learner types, shows the format's message for
each problem and the deck checker's teaching warnings, and previews the question as the
review screen renders it.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from recall.changes import card_kinds
from recall.changes.editing import CardError, check_card
from recall.content import lint
from recall.content.deck_format import MAX_CHOICES, MIN_CHOICES
from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.ui.browser.markdown_box import FormatBar, MarkdownBox, wrap_selection
from recall.ui.browser.note_fields import NoteFieldsEditor
from recall.ui.feedback_panel import card_label
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.text import markdown_to_html

ANKI_NOTE = "anki-note"
"""The editor's kind for a card imported from Anki: its note's fields, one box each."""


def _text_box(name: str, lines: int = 3) -> MarkdownBox:
    return MarkdownBox(name, lines)


class _ChoiceRow:
    """One choice's widgets: its text, whether it is right, why, and a remove button."""

    def __init__(self, number: int) -> None:
        self.text = QLineEdit()
        self.correct = QCheckBox(tr("Correct"))
        self.why = QLineEdit()
        self.remove = QToolButton()
        self.remove.setText("\u00d7")  # a multiplication sign: remove
        self.renumber(number)

    def renumber(self, number: int) -> None:
        choice = tr("Choice {number}").format(number=number)
        self.text.setPlaceholderText(choice)
        self.text.setAccessibleName(choice)
        self.correct.setAccessibleName(tr("Choice {number} is correct").format(number=number))
        self.why.setPlaceholderText(tr("Why it is wrong (or right), shown once picked"))
        self.why.setAccessibleName(tr("Why choice {number}").format(number=number))
        remove = tr("Remove choice {number}").format(number=number)
        self.remove.setAccessibleName(remove)
        self.remove.setToolTip(plain_tooltip(remove))

    def widgets(self) -> tuple[QWidget, ...]:
        return (self.text, self.correct, self.why, self.remove)


class CardEditor(QWidget):
    """Edits one note's fields as deck-file JSON (``data``, ``cards``), checked as typed.

    Args:
        media_dir: Where added images and sounds are kept; None offers no media buttons.
    """

    changed = Signal()
    media_refused = Signal(str)

    def __init__(self, media_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cardEditor")
        self._kind = "choice"
        self._loading = False
        self._extra: dict[str, Any] = {}
        self.question = _text_box(tr("Question (Markdown)"), 3)
        self.preview = card_label("question", tr("Question as the review screen shows it"))
        self.preview.setObjectName("question")
        self.front = _text_box(tr("Front"), 3)
        self.back = _text_box(tr("Back"), 3)
        self.cloze = _text_box(
            tr("Text with {{c1::deletions}} (Ctrl+Shift+C hides the selection)"), 5
        )
        self.explanation = _text_box(tr("Explanation (Markdown), shown after every answer"), 5)
        self.note_fields = NoteFieldsEditor()
        boxes = [self.question, self.front, self.back, self.cloze, self.explanation]
        self.format_bar = FormatBar(boxes, media_dir, self._on_media_refused)
        cloze_key = QShortcut(QKeySequence("Ctrl+Shift+C"), self.cloze, self._on_cloze)
        cloze_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.source = QLineEdit()
        self.source.setAccessibleName(tr("Source"))
        self.source.setPlaceholderText(tr("Where a reader can check the answer"))
        self.tags = QLineEdit()
        self.tags.setAccessibleName(tr("Tags"))
        self.tags.setPlaceholderText(tr("Tags, separated by spaces (a::b nests)"))
        self.shuffle = QCheckBox(tr("Shuffle the choices each time"))
        self.shuffle.setChecked(True)
        self.add_choice_button = QPushButton(tr("Add a choice"))
        self.add_choice_button.setAccessibleName(tr("Add a choice"))
        self.problems = plain_label()
        self.problems.setObjectName("editorProblems")
        self.problems.setAccessibleName(tr("Problems with this card"))
        self.problems.setTextFormat(Qt.TextFormat.PlainText)
        self.problems.setWordWrap(True)
        self._rows: list[_ChoiceRow] = []
        self._choices = QGridLayout()
        self._choices.setColumnStretch(0, 3)
        self._choices.setColumnStretch(2, 4)
        self._form = QFormLayout()
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._form.addRow(tr("Format"), self.format_bar)
        self._form.addRow(tr("Question"), self.question)
        self._form.addRow(tr("Preview"), self.preview)
        self._form.addRow(tr("Front"), self.front)
        self._form.addRow(tr("Back"), self.back)
        self._form.addRow(tr("Text"), self.cloze)
        self._form.addRow(tr("Fields"), self.note_fields)
        choices = QVBoxLayout()
        choices.addLayout(self._choices)
        add_row = QHBoxLayout()
        add_row.addWidget(self.add_choice_button)
        add_row.addWidget(self.shuffle)
        add_row.addStretch(1)
        choices.addLayout(add_row)
        self._choices_widget = QWidget()
        self._choices_widget.setLayout(choices)
        self._form.addRow(tr("Choices"), self._choices_widget)
        self._form.addRow(tr("Explanation"), self.explanation)
        self._form.addRow(tr("Source"), self.source)
        self._form.addRow(tr("Tags"), self.tags)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # The editor sits in a scroll area, which sizes it by the form's height for its
        # width; with a wrapped preview that came out short, and the form squeezed the
        # choices' fields to a few pixels. Held to its minimum size, the editor scrolls.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addLayout(self._form)
        layout.addWidget(self.problems)
        layout.addStretch(1)
        self._connect_signals()
        self.set_kind("choice")

    @property
    def kind(self) -> str:
        """The kind of note being edited: one of ``card_kinds.KINDS``."""
        return self._kind

    def set_kind(self, kind: str) -> None:
        """Show the fields of a kind of note (one of ``card_kinds.KINDS``)."""
        self._kind = kind
        choice = kind == "choice"
        for widget in (self.question, self.preview, self._choices_widget):
            self._form.setRowVisible(widget, choice)
        for widget in (self.front, self.back):
            self._form.setRowVisible(widget, kind in ("basic", "reversed", "type"))
        self._form.setRowVisible(self.cloze, kind == "cloze")
        self._form.setRowVisible(self.note_fields, kind == ANKI_NOTE)
        back = tr("Answer to type") if kind == "type" else tr("Back")
        self.back.setPlaceholderText(back)
        label = self._form.labelForField(self.back)
        if isinstance(label, QLabel):
            label.setText(back)
        if choice:
            while len(self._rows) < MIN_CHOICES + 1:
                self._add_row()
        self._on_changed()

    def set_data(self, data: dict[str, Any]) -> None:
        """Fill the fields from a card's deck-file JSON."""
        self._loading = True  # one check at the end, not one per field filled
        self.blockSignals(True)
        # An occlusion card's shapes are kept as they are: the editor changes its texts only.
        keys = ("markup", "hints", "type_answer", "note", "occlusion", "anki")
        self._extra = {key: data[key] for key in keys if key in data}
        kind = str(data.get("type", "choice"))
        typed = str(data.get("type_answer", ""))
        if kind == ANKI_NOTE:
            kind = "basic"  # only a card that holds its note is edited as one
        if kind == "basic" and isinstance(data.get("anki"), dict):
            kind = ANKI_NOTE  # its note's fields are edited; its sides are rendered from them
            self._extra.update(front=data.get("front", ""), back=data.get("back", ""))
            self.note_fields.set_fields(dict(data["anki"].get("fields", {})))
        elif kind == "basic" and typed and typed == str(data.get("back", "")).strip():
            kind = "type"  # the typed answer follows the back as it is edited
            del self._extra["type_answer"]
        self.set_kind(kind)
        self.question.setPlainText(str(data.get("question", "")))
        self.front.setPlainText(str(data.get("front", "")))
        self.back.setPlainText(str(data.get("back", "")))
        self.cloze.setPlainText(str(data.get("text", "")))
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

    def cards(self) -> list[dict[str, Any]]:
        """The cards the note makes, as deck-file JSON (without ids).

        Raises:
            CardError: A cloze note without a deletion.
        """
        return card_kinds.note_cards(self._kind, self.data())

    def data(self) -> dict[str, Any]:
        """The note as deck-file JSON (without an id); a cloze note has ``text``."""
        tags = self.tags.text().split()
        common: dict[str, Any] = {
            "explanation": self.explanation.toPlainText(),
            "source": self.source.text(),
            "tags": tags,
        }
        if self._kind == "cloze":
            return {"type": "basic", **self._extra, "text": self.cloze.toPlainText(), **common}
        if self._kind == ANKI_NOTE:
            anki = {**self._extra["anki"], "fields": self.note_fields.fields()}
            return {"type": "basic", **self._extra, "anki": anki, **common}
        if self._kind != "choice":
            typed = {"type_answer": self.back.toPlainText().strip()} if self._kind == "type" else {}
            return {
                "type": "basic",
                **self._extra,
                **typed,
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
        """The note's problems as the deck format words them; empty when it can be saved."""
        try:
            for card in self.cards():
                check_card(card)
        except CardError as error:
            return error.problems
        return []

    def has_text(self) -> bool:
        """Whether anything has been written that a closed window would lose (tags stay)."""
        boxes = (self.question, self.front, self.back, self.cloze, self.explanation)
        lines = [self.source, *(r.text for r in self._rows), *(r.why for r in self._rows)]
        return (
            any(box.toPlainText().strip() for box in boxes)
            or any(line.text().strip() for line in lines)
            or (self._kind == ANKI_NOTE and self.note_fields.has_text())
        )

    def focus_first(self) -> None:
        """Put the keyboard in the first field."""
        boxes = list(self.note_fields.boxes.values())
        if self._kind == ANKI_NOTE and boxes:
            boxes[0].setFocus()
            return
        first = {"choice": self.question, "cloze": self.cloze}.get(self._kind, self.front)
        first.setFocus()

    def _is_blank(self) -> bool:
        texts = [self.question, self.front, self.back, self.cloze]
        rows = [row.text.text() for row in self._rows]
        if self._kind == ANKI_NOTE:
            return False  # a note's sides are rendered: it is never blank while edited
        return not any(box.toPlainText().strip() for box in texts) and not any(
            text.strip() for text in rows
        )

    # Building

    def _connect_signals(self) -> None:
        for box in (self.question, self.front, self.back, self.cloze, self.explanation):
            box.textChanged.connect(self._on_changed)
        for line in (self.source, self.tags):
            line.textChanged.connect(self._on_changed)
        self.shuffle.toggled.connect(self._on_changed)
        self.note_fields.changed.connect(self._on_changed)
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
        chain: list[QWidget] = [self.question, self.front, self.back, self.cloze]
        for row in self._rows:
            chain += [row.text, row.correct, row.why]
        chain += [self.add_choice_button, self.shuffle, self.explanation, self.source, self.tags]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # Slots

    def _on_cloze(self) -> None:
        number = card_kinds.next_cloze_number(self.cloze.toPlainText())
        wrap_selection(self.cloze, f"{{{{c{number}::", "}}")

    def _on_media_refused(self, error: RecallError) -> None:
        self.media_refused.emit(str(error))

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
            warnings = lint.lint_card(check_card(self.cards()[0]))
            lines = [tr("Tip: {tip}").format(tip=warning.message) for warning in warnings]
        self.problems.setText("\n".join(lines))
        self.problems.setProperty("errors", bool(problems))
        self.problems.style().unpolish(self.problems)  # the style sheet reads the property
        self.problems.style().polish(self.problems)
        self.problems.setVisible(bool(lines))
        if not self.signalsBlocked():
            self.changed.emit()
