"""Ruby in card text (furigana: a reading set small above its characters), found for drawing.

Qt's rich text has no ruby: it would run ``漢字かんじ`` together on one line. So the card
view draws each ruby element itself (``ui/review/card_text_view``), from the pairs found
here: each base with the reading above it. ``<rb>`` may mark the bases or not, ``<rp>``
(the parentheses a browser without ruby shows) is left out, and tags inside are dropped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

_RUBY_TAG = re.compile(r"<ruby\b[^>]*>|<(/)ruby\s*>", re.IGNORECASE)
_READING = re.compile(r"<rt\b[^>]*>(.*?)(?:</rt\s*>|(?=<rt\b)|$)", re.DOTALL | re.IGNORECASE)
_PARENTHESIS = re.compile(r"<rp\b[^>]*>.*?</rp\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
# Pairs drawn per ruby element and characters per base or reading; longer is shown as text.
MAX_PAIRS = 32
MAX_CHARS = 64
# The most an element's inside may hold to be read: its pairs' text with room for tags.
_MAX_INSIDE = 16 * MAX_PAIRS * MAX_CHARS


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
    for start, body_start, body_end, stop in _elements(fragment):
        inside = fragment[body_start:body_end]
        # Longer than the pairs drawn can hold: kept as text (Qt runs it together, but
        # shows all of it), and never given to the patterns below.
        pairs = _pairs(_PARENTHESIS.sub("", inside)) if len(inside) <= _MAX_INSIDE else None
        if pairs is None:
            continue
        pieces.append(fragment[end:start])
        pieces.append(Ruby(pairs, fragment[start:stop]))
        end = stop
    pieces.append(fragment[end:])
    return pieces


def _elements(fragment: str) -> Iterator[tuple[int, int, int, int]]:
    """Each ruby element as (start, body start, body end, end): an opening tag up to the
    first closing one after it. One pass over the tags, however many are left open."""
    opened: tuple[int, int] | None = None
    for found in _RUBY_TAG.finditer(fragment):
        if found.group(1) is None:
            if opened is None:
                opened = (found.start(), found.end())
        elif opened is not None:
            yield opened[0], opened[1], found.start(), found.end()
            opened = None


def has_ruby(fragment: str) -> bool:
    """Whether ``fragment`` holds a ruby element."""
    return "<ruby" in fragment.lower() and next(_elements(fragment), None) is not None


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
