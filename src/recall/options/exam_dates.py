"""A deck's exam day: set, cleared and read, as the window and `recall exam` change it.

The day is a deck setting stored with the deck (and synced with it). It changes no
schedule by itself: from then on, an answer in the deck whose card would fall due on the
exam day or after it is recorded due shortly before it (``scheduling.exam``).
"""

from __future__ import annotations

from datetime import date, datetime

from recall.core.errors import UnknownDeckError
from recall.storage import Database, DeckRow


def exam_date(database: Database, deck_key: str) -> date | None:
    """The exam day given to the deck itself, if any.

    Raises:
        UnknownDeckError: No deck has that id.
    """
    with database.reading() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        return transaction.decks.exam_dates().get(deck.id)


def set_exam_date(database: Database, deck_key: str, day: date | None, now: datetime) -> DeckRow:
    """Give a deck an exam day, or take it away with None; returns the deck.

    Raises:
        UnknownDeckError: No deck has that id.
    """
    with database.transaction() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        transaction.decks.set_exam_date(deck.id, day, now)
    return deck
