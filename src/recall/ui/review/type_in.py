"""A type-in card's box, its comparison as Anki colours it, and the hint button.

The box takes the learner's answer; Enter hands it over (and never reaches the review
screen, where Enter would also accept a rating). The comparison shows the typed line over
the right one: matching characters green, wrong ones red, missing ones grey, each in a
colour readable in light and dark palettes, and says the same in words for screen readers.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget

from recall.core.i18n import tr
from recall.core.type_answer import Comparison, Mark, Piece
from recall.ui.override_errors import reports_errors

# Anki's colours for typeGood, typeBad and typeMissed, with dark text on them.
_BACKGROUNDS = {Mark.GOOD: "#aaffaa", Mark.BAD: "#ffaaaa", Mark.MISSED: "#cccccc"}
MAX_TYPED_CHARS = 2_000  # an answer is a word or a line, never a page


@reports_errors
class TypeAnswerBox(QLineEdit):
    """Where the learner types the answer; Enter submits it."""

    submitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("typeAnswer")
        self.setAccessibleName(tr("Type the answer"))
        self.setAccessibleDescription(tr("Enter checks it"))
        self.setPlaceholderText(tr("Type the answer, then press Enter"))
        self.setMaxLength(MAX_TYPED_CHARS)
        self.setClearButtonEnabled(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.submitted.emit(self.text())
            event.accept()
            return
        super().keyPressEvent(event)


def _pieces_html(pieces: tuple[Piece, ...]) -> str:
    return "".join(
        f'<span style="background-color:{_BACKGROUNDS[piece.mark]}; color:#000000">'
        f"{html.escape(piece.text).replace(' ', '&nbsp;')}</span>"
        for piece in pieces
    )


def comparison_html(comparison: Comparison) -> str:
    """The typed line over the right one, in a fixed-width font, coloured as Anki does."""
    if comparison.correct:
        return f"<tt>{_pieces_html(comparison.expected)}</tt>"
    return (
        f"<tt>{_pieces_html(comparison.typed)}<br>&darr;<br>"
        f"{_pieces_html(comparison.expected)}</tt>"
    )


def comparison_words(comparison: Comparison, typed: str) -> str:
    """The comparison as a sentence, for screen readers."""
    right = "".join(piece.text for piece in comparison.expected)
    if comparison.correct:
        return tr("You typed {answer}: right.").format(answer=right)
    said = typed.strip() or tr("nothing")
    wrong = (
        tr("You typed {typed}; the answer is {answer}. One slip from right.")
        if comparison.one_slip
        else tr("You typed {typed}; the answer is {answer}.")
    )
    return wrong.format(typed=said, answer=right)
