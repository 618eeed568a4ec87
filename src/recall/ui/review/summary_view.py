"""The end of a session: what was done, how it went, and when the next card is due."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import QFormLayout, QFrame, QPushButton, QVBoxLayout, QWidget

from recall.core.wording import count, duration, percent
from recall.ui.accessibility import announce
from recall.ui.feedback_panel import CardLabel
from recall.ui.override_errors import reports_errors
from recall.ui.text import format_when

if TYPE_CHECKING:
    from recall.study.session import Summary


def _label(name: str, role: str, value: bool = False) -> CardLabel:
    """A plain-text label named by its text, or by ``"role: text"`` for a ``value``.

    A value alone ("8 (16 answers)") says nothing out of its row, so its name carries it.
    """
    label = _ValueLabel(role, rich=False) if value else CardLabel(role, rich=False)
    label.setObjectName(name)
    return label


@reports_errors
class _ValueLabel(CardLabel):
    def setText(self, text: str) -> None:
        super().setText(text)
        self.setAccessibleName(f"{self.accessibleDescription()}: {text}" if text else "")


@reports_errors
class SummaryView(QWidget):
    """'Done for today', with the session's numbers. Enter or Escape goes back."""

    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summaryView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.title = _label("pageTitle", "Title")
        self.subtitle = _label("summarySubtitle", "Summary")  # plain text: it names the deck
        self.subtitle.setWordWrap(True)
        self.reviewed = _label("summaryValue", "Cards reviewed", value=True)
        self.correct = _label("summaryValue", "Correct", value=True)
        self.time_spent = _label("summaryValue", "Time spent", value=True)
        self.next_due = _label("summaryValue", "Next card due", value=True)
        form = QFormLayout()
        form.setHorizontalSpacing(24)
        form.setVerticalSpacing(10)
        for caption, label in (
            ("Cards reviewed", self.reviewed),
            ("Correct", self.correct),
            ("Time spent", self.time_spent),
            ("Next card due", self.next_due),
        ):
            form.addRow(caption, label)
        self.back_button = QPushButton("Back to decks")
        self.back_button.setAccessibleName("Back to decks")
        self.back_button.setDefault(True)
        self.back_button.clicked.connect(self.back_requested)
        panel = QFrame()
        panel.setObjectName("summaryPanel")
        panel.setMaximumWidth(560)
        column = QVBoxLayout(panel)
        column.setContentsMargins(32, 28, 32, 28)
        column.setSpacing(16)
        column.addWidget(self.title)
        column.addWidget(self.subtitle)
        column.addLayout(form)
        column.addSpacing(8)
        column.addWidget(self.back_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 48, 48, 48)
        layout.addWidget(panel, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)

    def show_summary(self, deck_name: str, summary: Summary, now: datetime) -> None:
        """Fill in the numbers of a finished session."""
        self.title.setText("Done for today")
        if summary.answered:
            self.subtitle.setText(f"You have studied every card due in {deck_name}.")
        else:
            self.subtitle.setText(f"Nothing in {deck_name} is due right now.")
        answers = count(summary.answered, "answer")
        self.reviewed.setText(f"{summary.cards} ({answers})" if summary.answered else "0")
        self.correct.setText(
            f"{percent(summary.share_correct)} ({summary.correct} of {summary.answered})"
            if summary.answered
            else "-"
        )
        self.time_spent.setText(duration(summary.time_spent / timedelta(milliseconds=1)))
        self.next_due.setText(
            format_when(summary.next_due, now) if summary.next_due is not None else "no cards yet"
        )
        self.setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.title.text():
            announce(self, f"{self.title.text()}. {self.subtitle.text()}")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
            Qt.Key.Key_Escape,
            Qt.Key.Key_Space,
        ):
            event.accept()
            self.back_requested.emit()
            return
        super().keyPressEvent(event)
