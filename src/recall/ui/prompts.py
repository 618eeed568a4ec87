"""Questions and notices shown as message boxes, behind one small interface.

Views ask through a ``Prompts`` object given to their constructor, so tests can answer
for the learner without a modal box blocking the test.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLineEdit, QMessageBox, QWidget

from recall.core.errors import RecallError
from recall.ui.plain_text import plain_input_dialog

# A message's first word when it is a plain lower-case word ("cannot", "cram"), not a file
# name, a quoted term or a code such as ``deck.json`` or ``'-'``.
_PLAIN_FIRST_WORD = re.compile(r"[a-z]+(?=[\s,;])")


def as_sentence(message: str) -> str:
    """An error's message, written to go inside other words ("cannot read deck.json: ..."),
    as a sentence on its own: its first word capitalised when it is a plain word, and a
    full stop at its end unless it ends with one, a question or an exclamation mark."""
    text = message.strip()
    if _PLAIN_FIRST_WORD.match(text):
        text = text[:1].upper() + text[1:]
    return text if not text or text.endswith((".", "?", "!")) else f"{text}."


class Prompts:
    """Message boxes over a parent window; every text is shown as plain text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self._parent = parent

    def confirm(self, title: str, question: str) -> bool:
        """Ask a yes/no question; No is the default."""
        box = self._box(QMessageBox.Icon.Question, title, question)
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def retry(self, title: str, problem: str) -> bool:
        """Say what failed and ask whether to try again."""
        box = self._box(QMessageBox.Icon.Warning, title, problem)
        box.setStandardButtons(QMessageBox.StandardButton.Retry | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Retry)
        return box.exec() == QMessageBox.StandardButton.Retry

    def tell(self, title: str, text: str, warning: bool = False) -> None:
        """Show a notice."""
        icon = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Information
        self._box(icon, title, text).exec()

    def refused(self, title: str, error: RecallError) -> None:
        """Say in the error's own words why what the learner asked for was not done.

        Every ``RecallError`` the window catches ends here, so a refusal always looks the
        same: a warning titled by the action, the message as plain text, as a sentence
        (``as_sentence``).
        """
        self.tell(title, as_sentence(str(error)), warning=True)

    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        """Ask for a line of text; None when the learner cancels."""
        dialog = plain_input_dialog(self._parent, title, label)
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setTextValue(text)
        return dialog.textValue() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def choose(self, title: str, label: str, items: list[str]) -> str | None:
        """Ask the learner to pick one of ``items``; None when they cancel."""
        dialog = plain_input_dialog(self._parent, title, label)
        dialog.setComboBoxItems(items)
        dialog.setComboBoxEditable(False)
        if items:
            dialog.setTextValue(items[0])
        return dialog.textValue() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def _box(self, icon: QMessageBox.Icon, title: str, text: str) -> QMessageBox:
        box = QMessageBox(icon, title, text, parent=self._parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        return box
