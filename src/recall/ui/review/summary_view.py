"""The end of a session: what was done, how it went, and when the next card is due."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from recall.core.i18n import number, tr, trn
from recall.core.wording import duration, percent
from recall.ui.accessibility import announce
from recall.ui.feedback_panel import CardLabel
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label
from recall.ui.text import format_when

if TYPE_CHECKING:
    from recall.collection.study_more import MoreToStudy
    from recall.study.custom import CustomQueue
    from recall.study.values import Summary


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
    """'Done for today', with the day's numbers and what else there is. Enter or Escape
    goes back; L learns ahead and N studies more new cards, where the deck has them."""

    back_requested = Signal()
    learn_ahead_requested = Signal()
    more_new_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summaryView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.title = _label("pageTitle", tr("Title"))
        self.subtitle = _label("summarySubtitle", tr("Summary"))  # plain text: it names the deck
        self.subtitle.setWordWrap(True)
        self.reviewed = _label("summaryValue", tr("Cards reviewed today"), value=True)
        self.correct = _label("summaryValue", tr("Correct"), value=True)
        self.time_spent = _label("summaryValue", tr("Time spent today"), value=True)
        self.next_due = _label("summaryValue", tr("Next card due"), value=True)
        form = QFormLayout()
        form.setHorizontalSpacing(24)
        form.setVerticalSpacing(10)
        for caption, label in (
            (tr("Cards reviewed today"), self.reviewed),
            (tr("Correct"), self.correct),
            (tr("Time spent today"), self.time_spent),
            (tr("Next card due"), self.next_due),
        ):
            # A caption label of its own, polished with the panel's font before the row is
            # measured (one the form makes is measured too small, and clips "today").
            caption_label = plain_label(caption)
            caption_label.setObjectName("summaryCaption")
            form.addRow(caption_label, label)
        self.back_button = QPushButton(tr("Back to decks"))
        self.back_button.setAccessibleName(tr("Back to decks"))
        self.back_button.setDefault(True)
        self.back_button.clicked.connect(self.back_requested)
        self.more_note = _label("summaryMore", tr("More to study"))
        self.more_note.setWordWrap(True)
        self.learn_ahead_button = QPushButton(tr("&Learn ahead"))
        self.learn_ahead_button.setAccessibleName(tr("Learn ahead"))
        self.learn_ahead_button.setVisible(False)
        self.learn_ahead_button.clicked.connect(self.learn_ahead_requested)
        self.more_new_button = QPushButton(tr("&New cards today"))
        self.more_new_button.setAccessibleName(tr("More new cards today"))
        self.more_new_button.setVisible(False)
        self.more_new_button.clicked.connect(self.more_new_requested)
        offers = QHBoxLayout()
        offers.setSpacing(8)
        offers.addWidget(self.learn_ahead_button)
        offers.addWidget(self.more_new_button)
        offers.addStretch(1)
        panel = QFrame()
        panel.setObjectName("summaryPanel")
        panel.setMaximumWidth(560)
        column = QVBoxLayout(panel)
        column.setContentsMargins(32, 28, 32, 28)
        column.setSpacing(16)
        column.addWidget(self.title)
        column.addWidget(self.subtitle)
        column.addLayout(form)
        column.addWidget(self.more_note)
        column.addLayout(offers)
        column.addSpacing(8)
        column.addWidget(self.back_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 48, 48, 48)
        layout.addWidget(panel, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)

    def show_summary(
        self, deck_name: str, summary: Summary, now: datetime, more: MoreToStudy | None = None
    ) -> None:
        """Fill in today's numbers of the deck, every sitting of the day together, and offer
        what the deck still has (``more``): learning ahead, more new cards today."""
        self.title.setText(tr("Done for today") if summary.answered else tr("Nothing due now"))
        if summary.sitting_answered:
            self.subtitle.setText(
                tr("You have studied every card due in {deck}.").format(deck=deck_name)
            )
        elif summary.answered:
            self.subtitle.setText(
                tr("Nothing more in {deck} is due right now.").format(deck=deck_name)
            )
        else:
            self.subtitle.setText(tr("Nothing in {deck} is due right now.").format(deck=deck_name))
        self._offer(more, now)
        self._show_figures(summary, now)

    def show_custom_summary(self, queue: CustomQueue, summary: Summary, now: datetime) -> None:
        """Fill in what a custom session did; it offers nothing more (it studied no deck)."""
        self.title.setText(tr("Session done") if summary.answered else tr("Nothing to study"))
        over = (
            tr("{session}: the session is over. Cram answers moved no due date.")
            if queue.cram and summary.answered
            else tr("{session}: the session is over.")
        )
        self.subtitle.setText(over.format(session=queue.title))
        self._offer(None, now)
        self._show_figures(summary, now)

    def _show_figures(self, summary: Summary, now: datetime) -> None:
        answers = trn("{cards} ({count} answer)", "{cards} ({count} answers)", summary.answered)
        self.reviewed.setText(
            answers.format(cards=summary.cards, count=number(summary.answered))
            if summary.answered
            else "0"
        )
        self.correct.setText(
            tr("{percent} ({correct} of {answered})").format(
                percent=percent(summary.share_correct),
                correct=summary.correct,
                answered=summary.answered,
            )
            if summary.answered
            else "-"
        )
        self.time_spent.setText(duration(summary.time_spent / timedelta(milliseconds=1)))
        self.next_due.setText(
            format_when(summary.next_due, now)
            if summary.next_due is not None
            else tr("none scheduled")  # nothing studied yet, or every studied card suspended
        )
        self.setFocus()

    def _offer(self, more: MoreToStudy | None, now: datetime) -> None:
        learning = more.learning_later if more is not None else 0
        new = more.new_offered if more is not None else 0
        lines = []
        if more is not None and learning:
            if more.next_learning:
                later = trn(
                    "{count} learning card due later today, the first {when}.",
                    "{count} learning cards due later today, the first {when}.",
                    learning,
                ).format(count=number(learning), when=format_when(more.next_learning, now))
            else:
                later = trn(
                    "{count} learning card due later today.",
                    "{count} learning cards due later today.",
                    learning,
                ).format(count=number(learning))
            lines.append(later)
        if more is not None and new:
            waiting = more.new_waiting
            lines.append(
                trn(
                    "{count} new card beyond today's new-card limit.",
                    "{count} new cards beyond today's new-card limit.",
                    waiting,
                ).format(count=number(waiting))
            )
        self.more_note.setText(" ".join(lines))
        self.more_note.setVisible(bool(lines))
        self.learn_ahead_button.setVisible(bool(learning))
        self.learn_ahead_button.setAccessibleName(
            trn("Learn ahead: {count} card", "Learn ahead: {count} cards", learning).format(
                count=number(learning)
            )
        )
        self.more_new_button.setVisible(bool(new))
        more_new = trn("{count} more new card today", "{count} more new cards today", new).format(
            count=number(new)
        )
        self.more_new_button.setText(tr("&New: {cards}").format(cards=more_new))
        self.more_new_button.setAccessibleName(more_new)

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
        if event.key() == Qt.Key.Key_L and self.learn_ahead_button.isVisibleTo(self):
            event.accept()
            self.learn_ahead_requested.emit()
            return
        if event.key() == Qt.Key.Key_N and self.more_new_button.isVisibleTo(self):
            event.accept()
            self.more_new_requested.emit()
            return
        super().keyPressEvent(event)
