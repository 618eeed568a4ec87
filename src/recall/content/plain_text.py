"""Card text as plain text on one line, for tables, titles and the terminal.

Only what the card's own markup makes markup goes: tags and entities of an HTML card, and
the Markdown constructs the review screen renders (emphasis around words, code spans, links,
a heading or quote marker at the start of a line, backslash escapes); an image reads as
"[its alt text]", as the review screen shows it. A ``#`` inside
a word ("C#"), a lone ``*`` or ``_`` ("a * b", "snake_case") and a ``<`` or ``>`` in a
Markdown card stay, as the review screen shows them.
"""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"<[^>]*>")
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\([^)]*\)")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")  # shown as "[alt]", never loaded
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_QUOTE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")
_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
# Emphasis: the markers hug the text inside (no space after the opening one or before the
# closing one); underscores only at word edges, as CommonMark reads them.
_PAIRED = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<![\w\\])__(?=\S)(.+?)(?<=\S)__(?!\w)"),
    re.compile(r"(?<!\\)\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*"),
    re.compile(r"(?<![\w\\])_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)"),
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_text(text: str, markup: str = "markdown") -> str:
    """Card text as plain text on one line.

    Args:
        text: A card's question, front or other side.
        markup: The card's markup: "markdown" (the default) or "html".
    """
    if markup == "html":
        return " ".join(html.unescape(_TAG.sub(" ", text)).split())
    # Code spans are shown as written: nothing inside them is read as markup.
    parts = _CODE.split(text)
    words = []
    for index in range(0, len(parts), 3):
        words.append(_markdown_words(parts[index]))
        if index + 2 < len(parts):
            words.append(parts[index + 2])
    return " ".join("".join(words).split())


def _markdown_words(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        heading = _HEADING.match(line)
        lines.append((heading.group(1) or "") if heading else _QUOTE.sub("", line))
    text = _IMAGE.sub(r"[\1]", "\n".join(lines))
    text = _LINK.sub(r"\1", text)
    for pattern in _PAIRED:
        text = pattern.sub(r"\1", text)
    return _ESCAPE.sub(r"\1", text)
