"""Anki's HTML as plain text or as Markdown, for the places Recall shows text, not HTML.

Choice cards are Markdown (shown without interpreting HTML) and deck descriptions are plain
text, so HTML from a package is turned into words: tags dropped, line breaks kept, bold
and italics as Markdown emphasis, entities decoded, and Markdown's own signs escaped so
the text shows exactly as it read in Anki. Images cannot come along: ``has_image`` tells
the caller, which keeps such a note as an HTML card instead.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = frozenset(
    {"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "ul", "ol"}
)
_LINE_BREAKS = frozenset({"br", "hr"})
_STRONG = frozenset({"b", "strong"})
_EMPHASIS = frozenset({"i", "em"})
_SKIPPED = frozenset({"script", "style", "template", "iframe", "object", "embed"})
_MARKDOWN_SIGNS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")
_IMAGE = re.compile(r"<img\b", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n{3,}")
_SPACES = re.compile(r"[ \t\r\f\v]+")


def has_image(fragment: str) -> bool:
    """Whether HTML shows an image."""
    return _IMAGE.search(fragment) is not None


class _Words(HTMLParser):
    def __init__(self, markdown: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._markdown = markdown
        self._parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag in _LINE_BREAKS:
            self._parts.append("\n")
        elif tag in _BLOCKS:
            self._parts.append("\n\n")
        elif self._markdown and tag in _STRONG:
            self._parts.append("**")
        elif self._markdown and tag in _EMPHASIS:
            self._parts.append("*")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCKS:
            self._parts.append("\n\n")
        elif self._markdown and tag in _STRONG:
            self._parts.append("**")
        elif self._markdown and tag in _EMPHASIS:
            self._parts.append("*")

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        text = _SPACES.sub(" ", data.replace("\n", " "))
        self._parts.append(_MARKDOWN_SIGNS.sub(r"\\\1", text) if self._markdown else text)

    def text(self) -> str:
        joined = "".join(self._parts).replace("\xa0", " ")
        lines = [line.strip() for line in joined.split("\n")]
        result = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
        if self._markdown:
            # A single line break is a hard break in Markdown only with a backslash.
            result = re.sub(r"(?<=\S)\n(?=\S)", "\\\\\n", result)
            result = result.replace("****", "")
        return result


def _convert(fragment: str, markdown: bool) -> str:
    parser = _Words(markdown)
    parser.feed(fragment)
    parser.close()
    return parser.text()


def html_to_text(fragment: str) -> str:
    """HTML as plain text: tags dropped, block ends and ``<br>`` as line breaks."""
    return _convert(fragment, markdown=False)


def html_to_markdown(fragment: str) -> str:
    """HTML as Markdown that shows the same words, with bold and italics kept."""
    return _convert(fragment, markdown=True)
