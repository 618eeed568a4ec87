"""A card's sounds: the ``[sound:...]`` references in its text, their kinds, which side plays them.

Anki writes a sound as ``[sound:name.mp3]`` in a field (and some decks use ``<audio src>``);
Recall keeps the same tag in stored card text, with the name rewritten to a stored media
name (``card_html.media_name``), so a reference can only address a file in the media folder.
The same tag works in Recall's own deck files. This module only reads and rewrites text:
it opens no file and plays nothing (``audio.py`` plays, ``sound_decoder.py`` decodes).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from recall.content import card_html, speech
from recall.content.speech import Speech

if TYPE_CHECKING:  # the text functions here are used on screens that need no deck models
    from recall.content.deck_format import BasicCard, ChoiceCard

SOUND_TAG = re.compile(r"\[sound:([^\]\[]*)\]")
# A sound tag or a speech marker, so a side's sounds and speech keep their order.
_PLAYED = re.compile(f"{SOUND_TAG.pattern}|{speech.MARKER.pattern}", re.DOTALL)
_MEDIA_ELEMENT = re.compile(
    r"<(audio|video)\b([^>]*)>(.*?)</\1\s*>|<(?:audio|video)\b([^>]*)/?>",
    re.IGNORECASE | re.DOTALL,
)
_SOURCE = re.compile(r"<source\b([^>]*)>", re.IGNORECASE)
_SRC = re.compile(r"""\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.IGNORECASE)

# What miniaudio decodes: played inside Recall.
PLAYABLE_SUFFIXES = card_html.SOUND_SUFFIXES
# Kept, and opened with the system's player from a link on the card.
EXTERNAL_SUFFIXES = card_html.VIDEO_SUFFIXES
# The longest sound Recall plays; anything claiming more is refused, not decoded.
MAX_SECONDS = 10 * 60
# The largest sound file played: the size an import takes for one sound.
MAX_SOUND_BYTES = 64 * 1024**2


class MediaKind(Enum):
    """How a card's media file is presented."""

    SOUND = "sound"  # played in-process
    EXTERNAL = "video"  # opened with the system's player


def kind_of(name: str) -> MediaKind | None:
    """Whether a file name is a sound Recall plays, a video (or other) it links to, or neither."""
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in PLAYABLE_SUFFIXES:
        return MediaKind.SOUND
    if suffix in EXTERNAL_SUFFIXES:
        return MediaKind.EXTERNAL
    return None


def references(text: str) -> list[str]:
    """The names of the ``[sound:...]`` tags in ``text``, in order, HTML entities decoded."""
    return [html.unescape(name).strip() for name in SOUND_TAG.findall(text)]


def without_references(text: str) -> str:
    """``text`` without its ``[sound:...]`` tags and speech markers (what the card shows)."""
    return speech.without_markers(SOUND_TAG.sub("", text))


def replace_references(text: str, resolve: Callable[[str], str | None]) -> str:
    """Rewrite each ``[sound:name]`` to ``[sound:resolve(name)]``, or drop it when that is None."""

    def swap(match: re.Match[str]) -> str:
        stored = resolve(html.unescape(match.group(1)).strip())
        return f"[sound:{stored}]" if stored else ""

    return SOUND_TAG.sub(swap, text)


def media_elements_as_tags(fragment: str) -> str:
    """HTML ``<audio>``/``<video>`` elements turned into ``[sound:...]`` tags, one per source.

    The sanitizer removes these elements; turning them into tags first keeps their files.
    """

    def swap(match: re.Match[str]) -> str:
        attributes = match.group(2) if match.group(1) else match.group(4) or ""
        sources = [attributes, *_SOURCE.findall(match.group(3) or "")]
        names = [_src(found) for found in sources]
        return "".join(f"[sound:{name}]" for name in names if name)

    return _MEDIA_ELEMENT.sub(swap, fragment)


def _src(attributes: str) -> str:
    found = _SRC.search(attributes)
    if found is None:
        return ""
    return html.unescape(next(group for group in found.groups() if group is not None)).strip()


def stored_sound_only(name: str) -> str | None:
    """Keep a reference that is already a stored media name of a sound or video."""
    return name if card_html.is_media_name(name) and kind_of(name) is not None else None


Played = str | Speech
"""What a side plays: a stored sound's name, or a text read aloud."""


@dataclass(frozen=True)
class CardSounds:
    """The stored media names and speech a card plays, by side, in the order written.

    Attributes:
        question: Sounds and speech on the question side (a choice card's question, a
            basic card's front), played when the card is shown.
        answer: Sounds and speech on the answer side (the back and the explanation),
            played when the answer is revealed.
    """

    question: tuple[Played, ...] = ()
    answer: tuple[Played, ...] = ()

    def playable(self, side: tuple[Played, ...]) -> tuple[Played, ...]:
        """The sounds Recall plays itself and the speech of ``side``, in order."""
        return tuple(
            item for item in side if isinstance(item, Speech) or kind_of(item) is MediaKind.SOUND
        )

    @property
    def external(self) -> tuple[str, ...]:
        """Videos and other files opened with the system's player, each once, in order."""
        return self.external_of(self.question + self.answer)

    def external_of(self, side: tuple[Played, ...]) -> tuple[str, ...]:
        """The names of ``side`` opened with the system's player, each once, in order."""
        return tuple(
            dict.fromkeys(
                n for n in side if isinstance(n, str) and kind_of(n) is MediaKind.EXTERNAL
            )
        )

    def to_play(self, answered: bool, replay: bool, skip_question: bool) -> tuple[Played, ...]:
        """What to play, following Anki's habits.

        Args:
            answered: The answer side is on screen.
            replay: The learner asked (R, F5, the sound button) rather than the card
                appearing or being revealed.
            skip_question: The preference "skip the question's sounds when replaying the
                answer".

        Returns:
            On the question: its sounds and speech. When the answer is revealed: the
            answer's. A replay of the answer: the question's and the answer's, or only the
            answer's when ``skip_question``.
        """
        if not answered:
            return self.playable(self.question)
        if replay and not skip_question:
            return self.playable(self.question + self.answer)
        return self.playable(self.answer)


def card_sounds(card: ChoiceCard | BasicCard) -> CardSounds:
    """The stored sounds, videos and speech of a card (unstored names are left out)."""
    from recall.content.deck_format import ChoiceCard

    if isinstance(card, ChoiceCard):
        question, answer = card.question, card.explanation
    else:
        question, answer = card.front, card.back + card.explanation
    return CardSounds(question=played(question), answer=played(answer))


def played(text: str) -> tuple[Played, ...]:
    """The stored sounds and the speech of ``text`` in the order written, speech bounded
    to ``speech.MAX_PER_SIDE`` texts."""
    items: list[Played] = []
    spoken = 0
    for match in _PLAYED.finditer(text):
        if match.group(1) is not None:
            name = html.unescape(match.group(1)).strip()
            if stored_sound_only(name):
                items.append(name)
            continue
        said = speech.read(match.group(2), match.group(3)) if spoken < speech.MAX_PER_SIDE else None
        if said is not None:
            spoken += 1
            items.append(said)
    return tuple(items)


def short_name(name: str) -> str:
    """A stored name as the card shows it: the start of its hash and its suffix."""
    path = PurePosixPath(name)
    return f"{path.stem[:8]}{path.suffix}" if card_html.is_media_name(name) else name
