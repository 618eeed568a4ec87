"""Ruby in card text (furigana: a reading set small above its characters), found for drawing.

Qt's rich text has no ruby: it would run ``漢字かんじ`` together on one line. So the card
view draws each ruby element itself (``ui/review/card_text_view``), from the pairs found
here: each base with the reading above it. ``<rb>`` may mark the bases or not, ``<rp>``
(the parentheses a browser without ruby shows) is left out, and tags inside are dropped.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

RUBY = re.compile(r"<ruby\b[^>]*>(.*?)</ruby\s*>", re.DOTALL | re.IGNORECASE)
_READING = re.compile(r"<rt\b[^>]*>(.*?)(?:</rt\s*>|(?=<rt\b)|$)", re.DOTALL | re.IGNORECASE)
_PARENTHESIS = re.compile(r"<rp\b[^>]*>.*?</rp\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
# Pairs drawn per ruby element and characters per base or reading; longer is shown as text.
MAX_PAIRS = 32
MAX_CHARS = 64


@dataclass(frozen=True)
class Ruby:
    """One ruby element.

    Attributes:
        pairs: Each base with its reading (the reading may be empty).
        written: The element as the card text holds it.
    """

    pairs: tuple[tuple[str, str], ...]
    written: str

    @property
    def spoken(self) -> str:
        """The element as words: each base, its reading in parentheses."""
        return "".join(f"{base}({reading})" if reading else base for base, reading in self.pairs)


def split(fragment: str) -> list[str | Ruby]:
    """``fragment`` as its text and its ruby elements, in order."""
    pieces: list[str | Ruby] = []
    end = 0
    for found in RUBY.finditer(fragment):
        pairs = _pairs(_PARENTHESIS.sub("", found.group(1)))
        if pairs is None:
            continue  # kept as text: Qt shows it run together, but shows all of it
        pieces.append(fragment[end : found.start()])
        pieces.append(Ruby(pairs, found.group(0)))
        end = found.end()
    pieces.append(fragment[end:])
    return pieces


def has_ruby(fragment: str) -> bool:
    """Whether ``fragment`` holds a ruby element."""
    return "<ruby" in fragment.lower() and RUBY.search(fragment) is not None


def _pairs(inside: str) -> tuple[tuple[str, str], ...] | None:
    pairs: list[tuple[str, str]] = []
    position = 0
    for found in _READING.finditer(inside):
        base = _text(inside[position : found.start()])
        pairs.append((base, _text(found.group(1))))
        position = found.end()
    rest = _text(inside[position:])
    if rest:
        pairs.append((rest, ""))
    if not pairs or len(pairs) > MAX_PAIRS:
        return None
    if any(len(base) > MAX_CHARS or len(reading) > MAX_CHARS for base, reading in pairs):
        return None
    return tuple(pairs)


def _text(fragment: str) -> str:
    return html.unescape(_TAG.sub("", fragment)).strip()
