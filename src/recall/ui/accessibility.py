"""What assistive technology hears: texts exposed as names, and spoken announcements.

A widget that shows card text exposes that text as its accessible name, as plain text (a
screen reader would otherwise read a rich-text label's tags, or only its role word), and
its role word ("Question", "Explanation") as its description. Announcements go through
:func:`announce`, the one place that sends them.
"""

from __future__ import annotations

from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QTextDocument
from PySide6.QtWidgets import QWidget


def plain_text(rich: str) -> str:
    """Rich text (Qt's HTML subset) as the plain text a screen reader should read."""
    if "<" not in rich and "&" not in rich:
        return rich.strip()
    document = QTextDocument()
    document.setHtml(rich)
    return " ".join(document.toPlainText().split())


def markdown_plain_text(markdown: str) -> str:
    """Deck Markdown as plain text: `code` and **bold** read as their words."""
    document = QTextDocument()
    document.setMarkdown(markdown, QTextDocument.MarkdownFeature.MarkdownNoHTML)
    return " ".join(document.toPlainText().split())


def expose(widget: QWidget, text: str, role: str) -> None:
    """Name ``widget`` by the plain ``text`` it shows, with ``role`` as its description.

    Args:
        widget: A label or text view showing card text.
        text: What it shows, as plain text; when empty the role word names it.
        role: What the text is ("Question", "Explanation").
    """
    widget.setAccessibleName(text or role)
    widget.setAccessibleDescription(role)


def announce(widget: QWidget, text: str, assertive: bool = False) -> None:
    """Ask screen readers to speak ``text`` now (Qt 6.8's announcement event).

    Args:
        widget: The widget the announcement comes from (it must be visible).
        text: What to say.
        assertive: Interrupt what the reader is saying (a verdict), rather than wait.
    """
    event = QAccessibleAnnouncementEvent(widget, text)
    politeness = QAccessible.AnnouncementPoliteness
    event.setPoliteness(politeness.Assertive if assertive else politeness.Polite)
    QAccessible.updateAccessibility(event)
