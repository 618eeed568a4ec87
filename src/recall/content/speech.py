"""Text a card reads aloud: Anki's ``[anki:tts lang=xx_YY]text[/anki:tts]`` marker in card text.

Anki renders ``{{tts en_US:Field}}`` as that marker, and some decks carry Anki's HTML form,
``<tts service=... voice=... lang=...>text</tts>``, in their fields. Recall keeps the marker
in stored card text beside the ``[sound:...]`` tags (``sound.py`` plays both, in order), so a
side's speech needs no column of its own. The text inside is plain text with HTML entities
(the sanitizer leaves it as it is); it is bounded when read as well as when written, since
a deck file may hold any marker. This module only reads and writes text; ``host/speech.py``
speaks.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

MAX_TEXT_CHARS = 2_000  # the most of one text that is read aloud
MAX_PER_SIDE = 20  # the most texts one side reads aloud
MAX_LANGUAGE_CHARS = 35
MIN_SPEED, MAX_SPEED = 0.5, 3.0

MARKER = re.compile(r"\[anki:tts\b([^\]\[]*)\](.*?)\[/anki:tts\]", re.DOTALL)
_ELEMENT = re.compile(r"<tts\b([^>]*)>(.*?)</tts\s*>", re.IGNORECASE | re.DOTALL)
_ELEMENT_ATTRIBUTE = re.compile(
    r"""\b(lang|speed)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.IGNORECASE
)
_OPTION = re.compile(r"(\w+)=(\S*)")
# Starting with a letter or digit: a tag is passed to an engine as an option's value.
_LANGUAGE = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_LANGUAGE_CHARS - 1}}}")
_TAGS = re.compile(r"<[^>]*>|<!--.*?-->", re.DOTALL)
_DROPPED = re.compile(r"<(style|script)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_SPACE = re.compile(r"\s+")
# Square brackets in a spoken text would end its marker or read as a sound tag.
_BRACKETS = str.maketrans("[]", "()")


@dataclass(frozen=True)
class Speech:
    """One text to read aloud.

    Attributes:
        text: Plain text, at most ``MAX_TEXT_CHARS`` characters.
        language: A tag such as ``en_US`` or ``de`` (letters, digits, ``-``, ``_``), or ""
            for the engine's own voice.
        speed: How fast, 1.0 being the engine's normal pace, within ``MIN_SPEED`` and
            ``MAX_SPEED``.
    """

    text: str
    language: str = ""
    speed: float = 1.0


def language(value: str) -> str:
    """``value`` when it is a valid language tag, else "" (the engine's own voice)."""
    value = value.strip()
    return value if _LANGUAGE.fullmatch(value) else ""


def speed(value: str) -> float:
    """A speed option as a number within the bounds; 1.0 when it is not a number."""
    try:
        number = float(value)
    except ValueError:
        return 1.0
    if number != number:  # NaN
        return 1.0
    return min(max(number, MIN_SPEED), MAX_SPEED)


def plain(fragment: str) -> str:
    """HTML as the text spoken: tags, styles and scripts gone, entities decoded, bounded."""
    text = html.unescape(_TAGS.sub(" ", _DROPPED.sub(" ", fragment)))
    return _SPACE.sub(" ", text.translate(_BRACKETS)).strip()[:MAX_TEXT_CHARS]


def marker(fragment: str, options: str) -> str:
    """The marker reading ``fragment`` (HTML) aloud with Anki's tts options, or "" if empty.

    Args:
        fragment: The field's HTML; it is spoken as plain text.
        options: What follows ``tts`` in the template (``en_US voices=Bob speed=1.2``).
    """
    words = options.split()
    tag = language(words[0]) if words and "=" not in words[0] else ""
    pace = 1.0
    for name, value in _OPTION.findall(" ".join(words)):
        if name.lower() == "lang":
            tag = language(value)
        elif name.lower() == "speed":
            pace = speed(value)
    return write(Speech(plain(fragment), tag, pace))


def write(speech: Speech) -> str:
    """A speech as the marker stored in card text ("" when it has no text)."""
    text = speech.text.translate(_BRACKETS)[:MAX_TEXT_CHARS]
    if not text.strip():
        return ""
    options = f" lang={speech.language}" if language(speech.language) else ""
    if speech.speed != 1.0:
        options += f" speed={speed(str(speech.speed)):g}"
    return f"[anki:tts{options}]{html.escape(text, quote=False)}[/anki:tts]"


def read(options: str, body: str) -> Speech | None:
    """The speech of one marker (its options and the text inside), bounded; None when empty."""
    text = plain(body)
    if not text:
        return None
    tag, pace = "", 1.0
    for name, value in _OPTION.findall(options):
        if name.lower() == "lang":
            tag = language(value)
        elif name.lower() == "speed":
            pace = speed(value)
    return Speech(text, tag, pace)


def speeches(text: str) -> list[Speech]:
    """The speech markers in ``text``, in order, at most ``MAX_PER_SIDE``."""
    found = (read(match.group(1), match.group(2)) for match in MARKER.finditer(text))
    return [speech for speech in found if speech is not None][:MAX_PER_SIDE]


def count(text: str) -> int:
    """How many speech markers ``text`` holds."""
    return len(MARKER.findall(text))


def without_markers(text: str) -> str:
    """``text`` with every speech marker removed (what the card shows)."""
    return MARKER.sub("", text)


def elements_as_markers(fragment: str) -> str:
    """Anki's HTML ``<tts lang=...>text</tts>`` elements turned into speech markers.

    The sanitizer removes unknown elements and would leave their text on the card.
    """
    if "<tts" not in fragment.lower():
        return fragment

    def swap(match: re.Match[str]) -> str:
        options = []
        for found in _ELEMENT_ATTRIBUTE.finditer(match.group(1)):
            value = next(group for group in found.groups()[1:] if group is not None)
            options.append(f"{found.group(1).lower()}={html.unescape(value).strip()}")
        return marker(match.group(2), " ".join(options))

    return _ELEMENT.sub(swap, fragment)
