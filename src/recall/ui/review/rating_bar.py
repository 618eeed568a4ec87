"""The bar under the card: the keyboard hint, the submit button and the four rating buttons."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QSizePolicy, QWidget

from recall.core.i18n import tr, trp
from recall.core.memory import Rating
from recall.ui.feedback_panel import card_label
from recall.ui.override_errors import reports_errors
from recall.ui.text import format_interval


def rating_name(rating: Rating) -> str:
    """A rating's name as its button shows it, in the learner's language."""
    names = {
        Rating.AGAIN: trp("rating", "Again"),
        Rating.HARD: trp("rating", "Hard"),
        Rating.GOOD: trp("rating", "Good"),
        Rating.EASY: trp("rating", "Easy"),
    }
    return names[rating]


@reports_errors
class _RatingButton(QPushButton):
    """A rating button that leaves every key to the review screen, even when focused."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        event.ignore()  # passed on to the review screen, which knows what each key means


COLUMN_WIDTH = 820  # the card's column (card_panel.py) and the buttons' under it


class RatingBar(QFrame):
    """Asks for the answer, then offers the ratings; it emits what the learner chose.

    The buttons never take the focus by a click or Tab: the review screen handles the keys.
    After an answer the suggested rating's button is given the focus on purpose, so a screen
    reader says which rating Space would record.
    """

    rated = Signal(object)  # the Rating chosen
    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ratingBar")
        self.key_hint = card_label("keyHint", tr("Keyboard hint"), rich=False)
        self.submit_button = QPushButton(tr("Show answer"))
        self.submit_button.setObjectName("submit")
        self.submit_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.buttons: dict[Rating, QPushButton] = {}
        # As wide as the card's column and centred under it, so in a maximised window the
        # buttons stay beside the question and the answer, not in the far corner.
        column = QWidget()
        column.setObjectName("ratingColumn")
        column.setMaximumWidth(COLUMN_WIDTH)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addStretch(1)
        outer.addWidget(column, 100)
        outer.addStretch(1)
        layout = QHBoxLayout(column)
        layout.setContentsMargins(24, 10, 24, 14)
        layout.setSpacing(8)
        layout.addWidget(self.key_hint, 1)
        layout.addWidget(self.submit_button)
        for rating in Rating:
            button = _RatingButton()
            button.setObjectName(f"rate{rating.label}")
            button.setProperty("rating", True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            button.setMinimumWidth(92)
            button.hide()
            self.buttons[rating] = button
            layout.addWidget(button)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.submit_button.clicked.connect(self._on_submit_clicked)
        for rating, button in self.buttons.items():
            button.clicked.connect(lambda _checked=False, r=rating: self.rated.emit(r))

    def _on_submit_clicked(self) -> None:
        self.submitted.emit()

    def ask(self, key_hint: str, submit_text: str | None, enabled: bool = True) -> None:
        """Show the question's state: the keyboard hint and, if wanted, the submit button.

        Args:
            key_hint: Which keys answer the card.
            submit_text: "Show answer" or "Submit"; None hides the button.
            enabled: Whether the submit button can be pressed yet.
        """
        for button in self.buttons.values():
            button.hide()
        self.key_hint.setText(key_hint)
        self.submit_button.setText(submit_text or "")
        self.submit_button.setVisible(submit_text is not None)
        self.submit_button.setEnabled(enabled)

    def set_submit_enabled(self, enabled: bool) -> None:
        """Enable the submit button once something is picked."""
        self.submit_button.setEnabled(enabled)

    def offer(
        self,
        intervals: Mapping[Rating, timedelta],
        proposed: Rating,
        show_intervals: bool = True,
    ) -> QPushButton:
        """Show the four ratings with when the card would come back, the proposed one marked.

        Without ``show_intervals`` (a preference) the buttons name only the rating; the
        interval is still read out to screen readers.

        Returns:
            The button of the proposed rating (the review screen gives it the focus).
        """
        self.submit_button.hide()
        for rating, button in self.buttons.items():
            interval = format_interval(intervals[rating])
            suggested = rating is proposed
            name = rating_name(rating)
            shown = f"\n{interval}" if show_intervals else ""
            button.setText(f"{rating.value} {name}{shown}")
            button.setProperty("suggested", suggested)
            spoken = (
                tr("{rating} (key {key}), next in {interval}, suggested")
                if suggested
                else tr("{rating} (key {key}), next in {interval}")
            )
            button.setAccessibleName(
                spoken.format(rating=name, key=rating.value, interval=interval)
            )
            button.style().unpolish(button)
            button.style().polish(button)
            button.show()
        self.key_hint.setText(
            tr("Space: {rating} (suggested) · 1-4: choose").format(rating=rating_name(proposed))
        )
        return self.buttons[proposed]
