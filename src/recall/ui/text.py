"""Turning values into the words the window shows: card text, intervals, local times.

Card text over the bounds of ``card_limits`` (too long, or nested too deep for Qt's layout
to finish in time) is shown as plain text, cut to ``MAX_PLAIN_SHOWN`` characters, under a
note that says why.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument

from recall.content import math
from recall.content.card_html import clean, is_image_name
from recall.content.card_limits import MAX_SOURCE_FIELD_CHARS, length_problem, markdown_problem
from recall.core import i18n
from recall.core.i18n import mark, number, tr, trn
from recall.core.wording import long_day

MAX_PLAIN_SHOWN = 20_000
"""Characters of an over-large card shown as plain text."""

_BODY_STYLE = re.compile(r"<body style=\"[^\"]*\">")
_LINE_END = re.compile(
    r"<br\s*/?>|</(?:p|div|li|tr|h[1-6]|blockquote|pre|dt|dd)\s*>", re.IGNORECASE
)
_ANY_TAG = re.compile(r"<[^>]*>")
_EMPTY_LINES = re.compile(r"\n\s*\n(?:\s*\n)+")


@dataclass(frozen=True)
class ShownText:
    """Card text as the window shows it: rich text, or plain text when over the bounds.

    Attributes:
        html: The cleaned HTML to show (empty when ``plain`` is set).
        plain: The note and the text, when the card is shown as plain text.
    """

    html: str
    plain: str | None = None


def bounded_card_html(fragment: str) -> ShownText:
    """An HTML card field cleaned for showing, or as plain text with a note when too large.

    Args:
        fragment: The stored HTML (cleaned again here: the database is not trusted).
    """
    if len(fragment) > MAX_SOURCE_FIELD_CHARS:
        # Too long even to clean in good time: the start of it, tags taken out.
        problem = length_problem(fragment)
        return ShownText("", _with_note(_visible_prefix(fragment), problem))
    cleaned = clean(fragment)
    problem = length_problem(cleaned.html)
    if problem is None and cleaned.too_deep is not None:
        problem = cleaned.too_deep.problem()
    if problem is None:
        return ShownText(cleaned.html)
    return ShownText("", _with_note(_visible_text(cleaned.html), problem))


def shortened(text: str, limit: int = 2_000) -> str:
    """Plain text cut to ``limit`` characters for a label, saying how much was left out."""
    if len(text) <= limit:
        return text
    more = len(text) - limit
    return tr("{text}... ({count} more characters)").format(text=text[:limit], count=number(more))


def _visible_text(fragment: str) -> str:
    """The text of an HTML fragment, a line per line break or block, no run of empty lines."""
    text = html.unescape(_ANY_TAG.sub("", _LINE_END.sub("\n", fragment)))
    return _EMPTY_LINES.sub("\n\n", text)


def _visible_prefix(fragment: str, chunk: int = 1 << 20) -> str:
    """The text of the start of a huge fragment: enough to show, read a chunk at a time
    (each chunk ends after a whole tag, so no tag is cut in two)."""
    parts: list[str] = []
    found = start = 0
    while start < len(fragment) and found <= MAX_PLAIN_SHOWN:
        end = start + chunk
        if fragment.rfind("<", start, end) > fragment.rfind(">", start, end):
            closing = fragment.find(">", end)
            end = len(fragment) if closing < 0 else closing + 1
        part = _visible_text(fragment[start:end])
        parts.append(part)
        found += len(part)
        start = end
    return _EMPTY_LINES.sub("\n\n", "".join(parts))


def _with_note(text: str, problem: str | None) -> str:
    cut = len(text) > MAX_PLAIN_SHOWN
    if cut:
        note = tr(
            "[Shown as plain text: this card's text {problem}; the first {count} characters "
            "follow.]"
        ).format(problem=problem, count=number(MAX_PLAIN_SHOWN))
    else:
        note = tr("[Shown as plain text: this card's text {problem}.]").format(problem=problem)
    return f"{note}\n\n{text[:MAX_PLAIN_SHOWN]}"


def markdown_to_html(markdown: str) -> str:
    """Render deck Markdown to Qt rich text that loads nothing and runs nothing.

    Raw HTML is not interpreted (``MarkdownNoHTML``), and images are replaced by their alt
    text so a deck can never make the window read a local or remote file. Links stay as
    text with their anchor; labels showing them do not follow links.

    The result names no body font, so the label's own font (from the style sheet) applies.
    Text over the bounds (too long, or lists and quotes nested too deep) is shown as
    escaped plain text under a note instead.

    Args:
        markdown: Card text from a deck.
    """
    problem = markdown_problem(markdown)
    if problem is not None:
        plain = _with_note(markdown, problem)
        return html.escape(plain).replace("\n", "<br>")
    document = QTextDocument()
    protected, formulas = math.protect(markdown)  # shown as written, backslashes kept
    document.setMarkdown(protected, QTextDocument.MarkdownFeature.MarkdownNoHTML)
    _replace_images(document)
    return math.restore(_BODY_STYLE.sub("<body>", document.toHtml(), count=1), formulas)


_EMPTY_ALT = re.compile(r"!\[\]\(")
_MARKDOWN_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*([^)\s]+)\s*\)")


def shows_media_image(markdown: str) -> bool:
    """Whether Markdown card text shows an image from the media folder (``![](name)``)."""
    return any(is_image_name(name) for name in _MARKDOWN_IMAGE.findall(markdown))


def needs_card_view(markdown: str) -> bool:
    """Whether Markdown card text needs the card view rather than a label: it shows an image
    from the media folder, or a formula to typeset."""
    return shows_media_image(markdown) or math.has_formula(markdown)


def markdown_to_card_html(markdown: str) -> str:
    """Deck Markdown as an HTML fragment that keeps its images, for the card view.

    Raw HTML is not interpreted; the card view cleans the result to the allow-list, which
    keeps only images named as stored in the media folder, and loads nothing else. Text
    over the bounds is escaped plain text under a note, as ``markdown_to_html`` gives it.
    """
    problem = markdown_problem(markdown)
    if problem is not None:
        return html.escape(_with_note(markdown, problem)).replace("\n", "<br>")
    document = QTextDocument()
    # Formulas pass through Markdown as tokens (it would eat their backslashes).
    protected, formulas = math.protect(markdown)
    # Qt's Markdown reader drops an image without alt text; the editor writes ``![](name)``.
    with_alt = _EMPTY_ALT.sub("![image](", protected)
    document.setMarkdown(with_alt, QTextDocument.MarkdownFeature.MarkdownNoHTML)
    return math.restore(document.toHtml(), formulas)


def _replace_images(document: QTextDocument) -> None:
    images: list[tuple[int, int, str]] = []
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.charFormat().isImageFormat():
                image = fragment.charFormat().toImageFormat()
                alt = str(image.property(QTextCharFormat.Property.ImageAltText) or "")
                images.append((fragment.position(), fragment.length(), alt or "image"))
            iterator += 1
        block = block.next()
    cursor = QTextCursor(document)
    for position, length, alt in reversed(images):
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[{alt}]", QTextCharFormat())


# Monday first, as datetime.weekday() counts; named here, not by the C library's locale.
WEEKDAYS = (
    mark("Monday"),
    mark("Tuesday"),
    mark("Wednesday"),
    mark("Thursday"),
    mark("Friday"),
    mark("Saturday"),
    mark("Sunday"),
)


def format_interval(interval: timedelta) -> str:
    """A short interval as Anki shows it on rating buttons: 1m, 10m, 3h, 4d, 2.5mo, 1.2y."""
    seconds = interval.total_seconds()
    if seconds < 60:
        return tr("<1m")
    minutes = seconds / 60
    if minutes < 60:
        return tr("{count}m").format(count=round(minutes))
    hours = minutes / 60
    if hours < 24:
        return tr("{count}h").format(count=round(hours))
    day_count = hours / 24
    if day_count < 30:
        return tr("{count}d").format(count=round(day_count))
    if day_count < 365:
        return tr("{count}mo").format(count=_one_decimal(day_count / 30.4))
    return tr("{count}y").format(count=_one_decimal(day_count / 365))


def _one_decimal(value: float) -> str:
    text = f"{value:.1f}".removesuffix(".0")
    return i18n.decimal(value) if "." in text else text


def format_when(moment: datetime, now: datetime) -> str:
    """A future moment in the learner's local time: 'in 8 minutes', 'tomorrow at 09:10'."""
    local = moment.astimezone()
    local_now = now.astimezone()
    delta = moment - now
    if delta < timedelta(minutes=1):
        return tr("now")
    if delta < timedelta(hours=1):
        minutes = round(delta.total_seconds() / 60)
        return trn("in {count} minute", "in {count} minutes", minutes).format(count=number(minutes))
    day_gap = (local.date() - local_now.date()).days
    clock = local.strftime("%H:%M")
    if day_gap == 0:
        return tr("today at {time}").format(time=clock)
    if day_gap == 1:
        return tr("tomorrow at {time}").format(time=clock)
    if day_gap < 7:
        weekday = i18n.tr(WEEKDAYS[local.weekday()])
        return tr("{weekday} at {time}").format(weekday=weekday, time=clock)
    return long_day(local.date())
