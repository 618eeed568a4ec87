"""Building cards from other apps' fields: blank checks, tags, HTML cards and valid decks."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from pydantic import ValidationError

from recall.content import card_html
from recall.content.anki_note import AnkiOrigin
from recall.content.card_limits import (
    MAX_FIELD_CHARS,
    MAX_HTML_SIDE_CHARS,
    MAX_NAME_CHARS,
    MAX_SOURCE_FIELD_CHARS,
    flatten_html,
    length_problem,
)
from recall.content.deck_format import BasicCard, ChoiceCard, Deck, limit_problems
from recall.core import i18n, wording
from recall.core.errors import DeckError
from recall.core.i18n import mark, tr, trn
from recall.importers._report import Tally

_TAG = re.compile(r"<[^>]*>")


def is_blank(fragment: str) -> bool:
    """Whether HTML shows nothing: no image and no visible character."""
    if "<img" in fragment:
        return False
    return not html.unescape(_TAG.sub("", fragment)).strip()


def unique_words(words: Iterable[str]) -> list[str]:
    """Whitespace-separated words from several sources, each once, in order."""
    return list(dict.fromkeys(word for text in words for word in text.split()))


def html_card(
    source: str,
    card_id: str,
    front: str,
    back: str,
    tags: list[str],
    *,
    hints: list[str] | None = None,
    type_answer: str = "",
    anki: AnkiOrigin | None = None,
) -> BasicCard:
    """A basic card whose sides (and hints) are sanitized HTML; a type-in card with
    ``type_answer``; the Anki note it is, with ``anki``.

    Raises:
        DeckError: A value breaks the deck format after all (the importers check each one
            first); names the card and the problem.
    """
    try:
        return BasicCard(
            id=card_id,
            type="basic",
            markup="html",
            front=front,
            back=back,
            tags=tags,
            hints=hints or [],
            type_answer=type_answer,
            anki=anki,
        )
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
        deck = Deck(format="recall-deck", version=1, id=deck_id, name=name, cards=list(cards))
    except ValidationError as error:
        problems = [f"deck {name!r}: {detail['msg']}" for detail in error.errors()]
        raise DeckError(source, problems) from None
    problems = [f"deck {name!r}: {problem}" for problem in limit_problems(deck)]
    if problems:
        raise DeckError(source, problems[:10])
    return deck


# The sides a card's field is named by in the report ("the front is ... long").
_SIDES = {
    "front": mark("the front"),
    "back": mark("the back"),
    "question": mark("the question"),
    "answer": mark("the answer"),
}


def _side(side: str) -> str:
    """A side as the report names it: "the front"."""
    return i18n.tr(_SIDES[side]) if side in _SIDES else tr("the {side}").format(side=side)


class FieldTooLargeError(Exception):
    """A field larger than a card may hold; the message says where and by how much."""


class CardBounds:
    """Each field checked against what a card may hold; what was refused or cut, tallied.

    Args:
        unit: What one refusal leaves out, for the report ("row", "card").
    """

    def __init__(self, unit: str) -> None:
        self._unit = unit
        self.refused = Tally()
        self.flattened = Tally()
        self.long_tags = Tally()

    def tags(self, where: str, tags: list[str]) -> list[str]:
        """The tags a card can hold; longer ones are left out and noted."""
        kept = [tag for tag in tags if len(tag) <= MAX_NAME_CHARS]
        for tag in tags:
            if len(tag) > MAX_NAME_CHARS:
                self.long_tags.add(
                    tr("{where}: {tag}... ({count} characters)").format(
                        where=where, tag=tag[:20], count=f"{len(tag):,}"
                    )
                )
        return kept

    def check_source(self, where: str, side: str, fragment: str) -> None:
        """Refuse a field too long to clean before any work is spent on it.

        Raises:
            FieldTooLargeError: It is longer than ``MAX_SOURCE_FIELD_CHARS``.
        """
        if len(fragment) > MAX_SOURCE_FIELD_CHARS:
            raise FieldTooLargeError(
                tr(
                    "{where}: {side} is {count} characters long (cards hold at most {most} per "
                    "field)"
                ).format(
                    where=where,
                    side=_side(side),
                    count=f"{len(fragment):,}",
                    most=f"{MAX_FIELD_CHARS:,}",
                )
            )

    def check_length(self, where: str, side: str, text: str) -> None:
        """Refuse a side (joined from several fields) longer than a card holds.

        Raises:
            FieldTooLargeError: It is longer than ``MAX_FIELD_CHARS``.
        """
        problem = length_problem(text)
        if problem is not None:
            raise FieldTooLargeError(_side_problem(where, side, problem))

    def check_side(self, where: str, side: str, text: str) -> None:
        """Refuse an HTML side longer than a card keeps (``MAX_HTML_SIDE_CHARS``).

        Raises:
            FieldTooLargeError: It is longer.
        """
        problem = length_problem(text, MAX_HTML_SIDE_CHARS)
        if problem is not None:
            raise FieldTooLargeError(_side_problem(where, side, problem))

    def cleaned(
        self,
        where: str,
        side: str,
        fragment: str,
        resolve: card_html.MediaResolver = card_html.stored_media_only,
        *,
        html: bool = True,
    ) -> str:
        """A field as a card holds it: cleaned HTML (or escaped text with its nesting bounded).

        Formatting nested past the bounds is dropped and noted; the text stays.

        Raises:
            FieldTooLargeError: It is too long, before or after cleaning.
        """
        self.check_source(where, side, fragment)
        if html:
            result = card_html.clean(fragment, resolve)
            text, too_deep = result.html, result.too_deep
        else:
            flattened = flatten_html(fragment)
            text, too_deep = flattened.html, flattened.nesting if flattened.dropped else None
        self.check_length(where, side, text)
        if too_deep is not None:
            self.flattened.add(_side_problem(where, side, too_deep.problem() or ""))
        return text

    def refuse(self, error: FieldTooLargeError) -> None:
        """Count one unit left out for the reason ``error`` gives."""
        self.refused.add(str(error))

    def lines(self) -> list[str]:
        """The report's lines on what was left out or cut."""
        count = self.refused.count
        if self._unit == "row":
            refused = trn(
                "{count} row left out for holding more than a card may",
                "{count} rows left out for holding more than a card may",
                count,
            )
        elif self._unit == "card":
            refused = trn(
                "{count} card left out for holding more than a card may",
                "{count} cards left out for holding more than a card may",
                count,
            )
        else:
            unit = wording.word(count, self._unit)
            refused = f"{{count}} {unit} left out for holding more than a card may"
        flattened = trn(
            "{count} field kept without the formatting nested past the bounds (the text is all "
            "there)",
            "{count} fields kept without the formatting nested past the bounds (the text is all "
            "there)",
            self.flattened.count,
        )
        long_tags = trn(
            "{count} tag left out for being longer than {most} characters",
            "{count} tags left out for being longer than {most} characters",
            self.long_tags.count,
        )
        return (
            self.refused.line(refused.format(count=wording.number(count)))
            + self.flattened.line(flattened.format(count=wording.number(self.flattened.count)))
            + self.long_tags.line(
                long_tags.format(count=wording.number(self.long_tags.count), most=MAX_NAME_CHARS)
            )
        )


def _side_problem(where: str, side: str, problem: str) -> str:
    """``where: the front is ... long``: what is wrong with one side of a card."""
    return tr("{where}: {side} {problem}").format(where=where, side=_side(side), problem=problem)
