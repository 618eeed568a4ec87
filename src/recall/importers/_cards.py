"""Building cards from other apps' fields: blank checks, tags, HTML cards and valid decks."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from pydantic import ValidationError

from recall.deckfile import BasicCard, Deck
from recall.errors import DeckError

_TAG = re.compile(r"<[^>]*>")


def is_blank(fragment: str) -> bool:
    """Whether HTML shows nothing: no image and no visible character."""
    if "<img" in fragment:
        return False
    return not html.unescape(_TAG.sub("", fragment)).strip()


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


def make_deck(source: str, deck_id: str, name: str, cards: list[BasicCard]) -> Deck:
    """A validated deck; the importers check every value first, so failing here is unexpected.

    Raises:
        DeckError: The deck breaks the format anyway; names the deck and the problem.
    """
    try:
        return Deck(format="recall-deck", version=1, id=deck_id, name=name, cards=list(cards))
    except ValidationError as error:
        problems = [f"deck {name!r}: {detail['msg']}" for detail in error.errors()]
        raise DeckError(source, problems) from None
