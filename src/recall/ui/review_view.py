"""The review screen: a card, its choices, the feedback after the answer, and the ratings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import Enum, auto
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from recall.deckfile import BasicCard, ChoiceCard
from recall.errors import RecallError
from recall.memory import Rating
from recall.study import Answer, StudyCard, StudySession, Summary
from recall.ui.card_text_view import CardTextView
from recall.ui.choice_button import ChoiceButton, Outcome
from recall.ui.feedback_panel import FeedbackPanel, card_label, earlier_picks_line
from recall.ui.prompts import Prompts
from recall.ui.text import format_interval, markdown_to_html

_DIGIT_KEYS = {getattr(Qt.Key, f"Key_{digit}"): digit for digit in range(10)}
_ACCEPT_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
_SCROLL_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)


class Phase(Enum):
    """What the review screen is waiting for."""

    QUESTION = auto()  # a choice, or the reveal of a basic card
    FEEDBACK = auto()  # a rating: accept the proposed one or pick 1-4


class ReviewView(QWidget):
    """Shows the cards of one study session, one at a time, driven by the keyboard or mouse.

    Keys: 1-9 and 0 pick a choice (toggle on "select all" cards, then Space submits);
    Space/Enter reveals a basic card; after the answer Space/Enter accepts the proposed
    rating and 1-4 choose Again/Hard/Good/Easy.
    """

    finished = Signal()
    left = Signal()
    undo_available = Signal(bool)

    def __init__(
        self,
        session: StudySession,
        clock: Callable[[], datetime],
        media_dir: Path,
        prompts: Prompts | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._media_dir = media_dir
        self._session = session
        self._clock = clock
        self._prompts = prompts or Prompts(self)
        self._shown: StudyCard | None = None
        self._answer: Answer | None = None
        self._selected: set[int] = set()
        self._choice_buttons: list[ChoiceButton] = []
        self.phase = Phase.QUESTION
        self.setObjectName("reviewView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Review")
        self._build()
        self._connect_signals()

    # Public API

    @property
    def shown(self) -> StudyCard | None:
        """The card on screen, if any."""
        return self._shown

    @property
    def answer(self) -> Answer | None:
        """The graded answer waiting for a rating, if any."""
        return self._answer

    @property
    def choice_buttons(self) -> list[ChoiceButton]:
        """The choice buttons in the order shown."""
        return list(self._choice_buttons)

    @property
    def rating_buttons(self) -> dict[Rating, QPushButton]:
        """The four rating buttons."""
        return dict(self._rating_buttons)

    @property
    def deck_name(self) -> str:
        """The name of the deck being studied."""
        return self._session.deck.name

    @property
    def can_undo(self) -> bool:
        """Whether a recorded rating can be taken back."""
        return self._session.can_undo

    def summary(self) -> Summary:
        """How the session has gone so far."""
        return self._session.summary()

    def start(self) -> None:
        """Show the first card, or report that there is nothing to study."""
        self._show_next()

    def pick(self, position: int) -> None:
        """Pick the choice shown at ``position`` (0-based), as a click or digit does."""
        shown = self._shown
        if self.phase is not Phase.QUESTION or shown is None:
            return
        card = shown.card
        if not isinstance(card, ChoiceCard) or not 0 <= position < len(shown.order):
            return
        index = shown.order[position]
        if len(card.correct_indexes) > 1:
            self._selected ^= {index}
            self._choice_buttons[position].setChecked(index in self._selected)
            self._submit_button.setEnabled(bool(self._selected))
            return
        self._answer_with({index})

    def submit(self) -> None:
        """Submit the picked choices of a "select all" card, or reveal a basic card."""
        shown = self._shown
        if self.phase is not Phase.QUESTION or shown is None:
            return
        if isinstance(shown.card, BasicCard):
            self._show_feedback(self._session.reveal(shown, self._clock()))
        elif self._selected:
            self._answer_with(set(self._selected))

    def rate(self, rating: Rating | None = None) -> None:
        """Record the pending answer with ``rating`` (the proposed one if None), then move on."""
        answer = self._answer
        if self.phase is not Phase.FEEDBACK or answer is None:
            return
        if not self._record(answer, rating or answer.proposed):
            return  # the answer stays on screen, to be rated again
        self._show_next()

    def undo(self) -> None:
        """Take back the last rating and show that card again.

        An answer on screen that has no rating yet is dropped: it was never recorded.
        """
        if not self._session.can_undo:
            return
        self._show_card(self._session.undo(self._clock()))
        self.undo_available.emit(self._session.can_undo)

    def commit_pending(self) -> bool:
        """Record an answer still waiting for its rating, with the suggested rating.

        Returns:
            False when the answer could not be saved and the learner gave up retrying.
        """
        if self._answer is None:
            return True
        return self._record(self._answer, self._answer.proposed)

    def leave(self) -> None:
        """Go back to the deck list; an answer waiting for its rating keeps the suggested one."""
        if self.commit_pending():
            self.left.emit()

    def _record(self, answer: Answer, rating: Rating) -> bool:
        """Store the answer; if that fails, say why and offer to try again."""
        while True:
            try:
                self._session.record(answer, rating, self._clock())
            except RecallError as error:
                problem = f"Your answer could not be saved: {error}\n\nIt is still on screen."
                if self._prompts.retry("Answer not saved", problem):
                    continue
                return False
            self._answer = None
            self.undo_available.emit(self._session.can_undo)
            return True

    # Qt overrides

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if modifiers != Qt.KeyboardModifier.NoModifier:
            super().keyPressEvent(event)
            return
        if key == Qt.Key.Key_Escape:
            self.leave()
        elif key in _ACCEPT_KEYS:
            if self.phase is Phase.FEEDBACK:
                self.rate()
            else:
                self.submit()
        elif key in _SCROLL_KEYS:
            # The card scrolls from the keyboard too (the scroll area never takes focus).
            QApplication.sendEvent(self._scroll.verticalScrollBar(), event)
        elif key in _DIGIT_KEYS:
            digit = _DIGIT_KEYS[Qt.Key(key)]
            if self.phase is Phase.FEEDBACK:
                if 1 <= digit <= 4:
                    self.rate(Rating(digit))
            else:
                self.pick(9 if digit == 0 else digit - 1)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    # Building

    def _build(self) -> None:
        self._deck_label = card_label("deckName", "Deck", rich=False)
        self._progress_label = card_label("progress", "Cards left today", rich=False)
        self._progress_label.setAlignment(Qt.AlignmentFlag.AlignRight)
        header = QHBoxLayout()
        header.addWidget(self._deck_label, 1)
        header.addWidget(self._progress_label)

        self._question = card_label("question", "Question")
        self._question_html = CardTextView(self._media_dir)
        self._question_html.setObjectName("question")
        self._question_html.setAccessibleName("Question")
        self._hint = card_label("questionHint", "Hint", rich=False)
        self._choices_box = QVBoxLayout()
        self._choices_box.setSpacing(8)
        self._back = card_label("back", "Answer")
        self._back_html = CardTextView(self._media_dir)
        self._back_html.setObjectName("backHtml")
        self._back_html.setAccessibleName("Answer")

        self._feedback = FeedbackPanel()

        column = QWidget()
        column.setObjectName("cardColumn")
        column.setMaximumWidth(820)
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(24, 20, 24, 20)
        column_layout.setSpacing(14)
        column_layout.addLayout(header)
        column_layout.addWidget(self._question)
        column_layout.addWidget(self._question_html)
        column_layout.addWidget(self._hint)
        column_layout.addLayout(self._choices_box)
        column_layout.addWidget(self._back)
        column_layout.addWidget(self._back_html)
        column_layout.addWidget(self._feedback)
        column_layout.addStretch(1)

        page = QWidget()
        page.setObjectName("reviewPage")
        page_layout = QHBoxLayout(page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.addStretch(0)
        page_layout.addWidget(column, 100)
        page_layout.addStretch(0)
        self._scroll = QScrollArea()
        self._scroll.setObjectName("reviewScroll")
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._scroll.setWidget(page)

        self._key_hint = card_label("keyHint", "Keyboard hint", rich=False)
        self._submit_button = QPushButton("Show answer")
        self._submit_button.setObjectName("submit")
        self._submit_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._rating_buttons: dict[Rating, QPushButton] = {}
        bar = QHBoxLayout()
        bar.setContentsMargins(24, 10, 24, 14)
        bar.setSpacing(8)
        bar.addWidget(self._key_hint, 1)
        bar.addWidget(self._submit_button)
        for rating in Rating:
            button = QPushButton()
            button.setObjectName(f"rate{rating.label}")
            button.setProperty("rating", True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            button.setMinimumWidth(92)
            self._rating_buttons[rating] = button
            bar.addWidget(button)
        bottom = QFrame()
        bottom.setObjectName("ratingBar")
        bottom.setLayout(bar)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._scroll, 1)
        layout.addWidget(bottom)

    def _connect_signals(self) -> None:
        self._submit_button.clicked.connect(self._on_submit_clicked)
        for rating, button in self._rating_buttons.items():
            button.clicked.connect(lambda _checked=False, r=rating: self.rate(r))

    def _on_submit_clicked(self) -> None:
        self.submit()

    # Showing

    def _show_next(self) -> None:
        shown = self._session.next_card(self._clock())
        if shown is None:
            self._shown = None
            self.finished.emit()
            return
        self._show_card(shown)

    def _show_card(self, shown: StudyCard) -> None:
        self._shown = shown
        self._answer = None
        self._selected = set()
        self.phase = Phase.QUESTION
        card = shown.card
        self._deck_label.setText(self._session.deck.name)
        left = self._session.counts(self._clock()).total
        self._progress_label.setText(f"{left} left today")
        html = isinstance(card, BasicCard) and card.markup == "html"
        text = card.question if isinstance(card, ChoiceCard) else card.front
        self._question.setVisible(not html)
        self._question_html.setVisible(html)
        if html:
            self._question_html.set_card_html(text)
        else:
            self._question.setText(markdown_to_html(text))
        self._clear_choices()
        self._feedback.hide()
        self._back.hide()
        self._back_html.hide()
        for button in self._rating_buttons.values():
            button.hide()
        if isinstance(card, ChoiceCard):
            many = len(card.correct_indexes) > 1
            self._hint.setText("Select all that apply." if many else "")
            self._hint.setVisible(many)
            for position, index in enumerate(shown.order):
                button = ChoiceButton(position + 1, card.choices[index].text)
                button.clicked.connect(lambda _checked=False, p=position: self.pick(p))
                self._choices_box.addWidget(button)
                button.show()  # at once, not when the layout gets round to it
                self._choice_buttons.append(button)
            self._submit_button.setText("Submit")
            self._submit_button.setVisible(many)
            self._submit_button.setEnabled(False)
            keys = f"1-{min(len(shown.order), 9)}" + (" and 0" if len(shown.order) == 10 else "")
            self._key_hint.setText(
                f"{keys}: toggle choices · Space: submit" if many else f"{keys}: choose"
            )
        else:
            self._hint.hide()
            self._submit_button.setText("Show answer")
            self._submit_button.setVisible(True)
            self._submit_button.setEnabled(True)
            self._key_hint.setText("Space: show answer")
        self._scroll.verticalScrollBar().setValue(0)
        self.setFocus()

    def _clear_choices(self) -> None:
        for button in self._choice_buttons:
            self._choices_box.removeWidget(button)
            button.deleteLater()
        self._choice_buttons = []

    def _answer_with(self, picked: set[int]) -> None:
        assert self._shown is not None
        self._show_feedback(self._session.answer_choice(self._shown, picked, self._clock()))

    def _show_feedback(self, answer: Answer) -> None:
        self._answer = answer
        self.phase = Phase.FEEDBACK
        card = answer.card.card
        self._submit_button.hide()
        self._hint.hide()
        notes: list[str] = []
        if isinstance(card, ChoiceCard):
            right = card.correct_indexes
            for position, index in enumerate(answer.card.order):
                button = self._choice_buttons[position]
                button.setChecked(index in answer.picked)
                if index in answer.picked:
                    outcome = Outcome.PICKED_RIGHT if index in right else Outcome.PICKED_WRONG
                    why = card.choices[index].why
                    if why:
                        notes.append(f"**{card.choices[index].text}**: {why}")
                elif index in right:
                    outcome = Outcome.MISSED if answer.picked & right else Outcome.RIGHT
                else:
                    outcome = Outcome.NONE
                button.set_outcome(outcome)
            verdict = "Correct" if answer.correct else "Not quite"
        else:
            if card.markup == "html":
                self._back_html.show()
                self._back_html.set_card_html(card.back)
            else:
                self._back.setText(markdown_to_html(card.back))
                self._back.show()
            verdict = "How well did you remember it?"
        self._feedback.show_result(
            verdict,
            answer.correct,
            "\n\n".join(notes),
            card.explanation,
            card.source,
            earlier_picks_line(answer.earlier_picks, self._session.zone),
        )
        for rating, rating_button in self._rating_buttons.items():
            interval = format_interval(answer.intervals[rating])
            suggested = rating is answer.proposed
            rating_button.setText(f"{rating.value} {rating.label}\n{interval}")
            rating_button.setProperty("suggested", suggested)
            rating_button.setAccessibleName(
                f"{rating.label}, next in {interval}" + (" (suggested)" if suggested else "")
            )
            rating_button.style().unpolish(rating_button)
            rating_button.style().polish(rating_button)
            rating_button.show()
        self._key_hint.setText(f"Space: {answer.proposed.label} (suggested) · 1-4: choose")
        self._scroll.ensureWidgetVisible(self._feedback)
        self.setFocus()
