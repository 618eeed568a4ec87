"""Text that is not card content (names, tags, messages, paths) shown exactly as written.

Qt guesses rich text wherever a widget's text format is ``AutoText``: a label, a tooltip, a
message box or a progress dialog's label whose text merely starts like a tag
(``<img src="/dev/zero">``, a deck name from any ``.apkg``) is laid out as HTML, and Qt
reads the files it names. Labels made here show plain text; tooltips are escaped so they
read as written; menu and button texts keep a name's ``&`` instead of turning it into a
shortcut. Card content is shown only after ``cardhtml``'s sanitizer instead (see
``card_text_view`` and ``text.markdown_to_html``).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLabel, QWidget


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that shows its text as plain text, whatever the text looks like.

    Args:
        text: The text to show at first.
        parent: The label's parent widget.
    """
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def rich_label(parent: QWidget | None = None) -> QLabel:
    """A label for card text already made safe (``markdown_to_html``'s output) only.

    Args:
        parent: The label's parent widget.
    """
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setOpenExternalLinks(False)
    return label


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip that shows it as written (its markup escaped, lines kept).

    Tooltips have no text format of their own: Qt lays one out as HTML whenever it looks
    like HTML. Escaped and wrapped in a paragraph, it is rich text with nothing to load
    (``Qt.convertFromPlainText`` would keep every space from wrapping). An empty text
    stays empty, which removes the tooltip.
    """
    if not text:
        return ""
    return f"<p style='white-space:pre-wrap'>{html.escape(text, quote=False)}</p>"


def menu_text(text: str) -> str:
    """A name for a menu, an action or a button: its ``&`` shown, not taken as a shortcut."""
    return text.replace("&", "&&")


def plain_input_dialog(parent: QWidget | None, title: str, label: str) -> QInputDialog:
    """An input dialog whose title and label are shown as plain text.

    ``QInputDialog``'s static helpers give their label ``AutoText``; this one's label is
    plain, so a name quoted in it shows as written.

    Args:
        parent: The window over which the dialog shows.
        title: The dialog's title.
        label: The question above the field.
    """
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    for child in dialog.findChildren(QLabel):
        child.setTextFormat(Qt.TextFormat.PlainText)
    return dialog
