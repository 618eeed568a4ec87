"""One card's history of picks: how often each of its options was chosen."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from recall.content.deck_format import CARD_ADAPTER, ChoiceCard
from recall.storage import Database


@dataclass(frozen=True)
class OptionPicks:
    """One option of a card: its text, whether it is right, how often it was picked, when last."""

    text: str
    correct: bool
    times: int
    last: datetime | None


@dataclass(frozen=True)
class CardPicks:
    """A card's question and each option's picks over the card's whole history.

    Attributes:
        others: Texts picked that the card no longer has (its deck was updated since),
            with their counts.
    """

    card_id: int
    deck_key: str
    card_key: str
    question: str
    options: tuple[OptionPicks, ...]
    others: tuple[OptionPicks, ...]
    reviews: int


def card_picks(database: Database, card_id: int) -> CardPicks:
    """How often each option of a card was picked.

    Args:
        database: Where the history is.
        card_id: The card's database id (a misconception names it).
    """
    with database.reading() as transaction:
        row = transaction.cards.get(card_id)
        deck = transaction.decks.get(row.deck_id)
        picks = transaction.statistics.option_picks(card_id)
        reviews = len(transaction.history.of_card(card_id))
    card = CARD_ADAPTER.validate_json(row.content)
    counted = {text: (times, last) for text, times, last in picks}
    if isinstance(card, ChoiceCard):
        question = card.question
        options = tuple(
            OptionPicks(choice.text, choice.correct, *counted.pop(choice.text, (0, None)))
            for choice in card.choices
        )
    else:
        question, options = card.front, ()
    others = tuple(OptionPicks(text, False, times, last) for text, (times, last) in counted.items())
    return CardPicks(
        card_id=card_id,
        deck_key=deck.key,
        card_key=row.key,
        question=question,
        options=options,
        others=others,
        reviews=reviews,
    )
