"""What both Anki importers share: blank checks, report lines, and building a valid deck."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from pydantic import ValidationError

from recall.deckfile import BasicCard, ChoiceCard, Deck
from recall.errors import DeckError

EXAMPLES = 10
_TAG = re.compile(r"<[^>]*>")


def is_blank(fragment: str) -> bool:
    """Whether HTML shows nothing: no image and no visible character."""
    if "<img" in fragment:
        return False
    return not html.unescape(_TAG.sub("", fragment)).strip()


def byte_size(count: int) -> str:
    """A byte count as a person reads it: ``2 GiB`` for round figures, else ``65,541 bytes``."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count:,} bytes"


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


class Tally:
    """Things of one kind left out of an import: how many, and the first few, for a report."""

    def __init__(self) -> None:
        self.count = 0
        self.examples: list[str] = []

    def add(self, example: str) -> None:
        """Count one more, keeping its description if it is among the first few."""
        self.count += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(example)

    def line(self, summary: str) -> list[str]:
        """``summary: first; second; ... and N more``, or nothing when none were counted."""
        if not self.count:
            return []
        more = self.count - len(self.examples)
        rest = f"; and {more} more" if more else ""
        return [f"{summary}: {'; '.join(self.examples)}{rest}"]


def unique_words(words: Iterable[str]) -> list[str]:
    """Whitespace-separated words from several sources, each once, in order."""
    return list(dict.fromkeys(word for text in words for word in text.split()))


def html_card(source: str, card_id: str, front: str, back: str, tags: list[str]) -> BasicCard:
    """A basic card whose sides are sanitized HTML.

    Raises:
        DeckError: A value breaks the deck format after all (the importers check each one
            first); names the card and the problem.
    """
    try:
        return BasicCard(id=card_id, type="basic", markup="html", front=front, back=back, tags=tags)
    except ValidationError as error:
        problems = [f"card {card_id!r}: {detail['msg']}" for detail in error.errors()]
        raise DeckError(source, problems) from None


def make_deck(
    source: str, deck_id: str, name: str, cards: Sequence[BasicCard | ChoiceCard]
) -> Deck:
    """A validated deck; the importers check every value first, so failing here is unexpected.

    Raises:
        DeckError: The deck breaks the format anyway; names the deck and the problem.
    """
    try:
        return Deck(format="recall-deck", version=1, id=deck_id, name=name, cards=list(cards))
    except ValidationError as error:
        problems = [f"deck {name!r}: {detail['msg']}" for detail in error.errors()]
        raise DeckError(source, problems) from None
