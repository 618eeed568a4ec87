"""A large answer button whose text wraps, numbered for the keyboard, marked after the answer."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSizePolicy, QWidget

from recall.core import i18n
from recall.core.i18n import mark, tr
from recall.ui.accessibility import expose, markdown_plain_text
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, rich_label
from recall.ui.review.choice_outcome import Outcome
from recall.ui.text import markdown_to_html

SELECTED = mark("\u2713 Selected")  # the mark of a choice toggled on, before the answer


@reports_errors
class ChoiceButton(QPushButton):
    """One option of a choice card: ``[n]  text  (mark)``."""

    def __init__(self, number: int, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("choice")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys go to the review view
        self.setCheckable(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        key = "0" if number == 10 else str(number)
        self._number = plain_label(key, self)
        self._number.setObjectName("choiceNumber")
        self._number.setAlignment(Qt.AlignmentFlag.AlignCenter)
        expose(self._number, key, tr("Key"))
        self._text = rich_label(self)  # the choice's text, made safe by markdown_to_html
        self._text.setObjectName("choiceText")
        self._text.setWordWrap(True)
        self._text.setText(markdown_to_html(text))
        expose(self._text, markdown_plain_text(text), tr("Choice"))
        self._text.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._mark = plain_label(parent=self)
        self._mark.setObjectName("choiceMark")
        self._mark.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(14)
        layout.addWidget(self._number, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self._text, 1)
        layout.addWidget(self._mark, 0, Qt.AlignmentFlag.AlignVCenter)
        self._plain_text = markdown_plain_text(text)
        self._outcome = Outcome.NONE
        self.toggled.connect(self._on_toggled)
        self.set_outcome(Outcome.NONE)

    def set_outcome(self, outcome: Outcome) -> None:
        """Mark the choice after the answer, or clear the mark."""
        self._outcome = outcome
        self._show_mark()

    def _on_toggled(self, _checked: bool) -> None:
        self._show_mark()

    def _show_mark(self) -> None:
        """The answer's mark; before the answer, a tick on a choice toggled on."""
        outcome = self._outcome
        if outcome is Outcome.NONE and self.isChecked():
            text, spoken = i18n.tr(SELECTED), tr("selected")
        else:
            text, spoken = outcome.shown, outcome.spoken
        self._mark.setText(text)
        expose(self._mark, spoken, tr("Mark"))
        self._mark.setVisible(bool(text))
        self.setProperty("outcome", outcome.name.lower())
        name = tr("Choice {key}: {text}").format(key=self._number.text(), text=self._plain_text)
        self.setAccessibleName(f"{name} ({spoken})" if text else name)
        self.style().unpolish(self)
        self.style().polish(self)

    def sizeHint(self) -> QSize:
        layout = self.layout()
        return layout.sizeHint() if layout is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        layout = self.layout()
        return layout.minimumSize() if layout is not None else super().minimumSizeHint()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        layout = self.layout()
        return layout.totalHeightForWidth(width) if layout is not None else -1
