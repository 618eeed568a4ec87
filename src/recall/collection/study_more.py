"""What a deck offers once nothing is due: learning cards later today, new cards beyond the limit.

When the day's queue is empty Recall says what there still is, as Anki's "Congratulations"
screen does, and offers it: learning ahead (the learning cards due later today, now), and
more new cards today (the preset's extra new cards for today, raised).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

from recall.core.errors import UnknownDeckError
from recall.options import deck_options
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession

_MOST_EXTRA = 9999  # the option's bound
MORE_NEW = 10  # new cards one "more new cards" adds for today, as Anki's custom study does


@dataclass(frozen=True)
class MoreToStudy:
    """What a deck (with its subdecks) has beyond today's queue.

    Attributes:
        learning_later: Learning cards due later today, beyond the learn-ahead window.
        next_learning: When the first of them comes due.
        new_waiting: New cards beyond today's new-card limit.
    """

    learning_later: int
    next_learning: datetime | None
    new_waiting: int

    @property
    def new_offered(self) -> int:
        """New cards one "more new cards" adds for today."""
        return min(self.new_waiting, MORE_NEW)


def more_to_study(
    database: Database,
    schedulers: Schedulers,
    deck_key: str,
    now: datetime,
    zone: tzinfo | None = None,
) -> MoreToStudy:
    """What the deck has beyond the cards due now.

    Raises:
        UnknownDeckError: No deck has this id.
    """
    session = StudySession(database, schedulers, deck_key, zone=zone)
    counts = session.counts(now)
    with database.reading() as transaction:
        learning = transaction.queue.learning(session.deck_ids, now)
        new = transaction.queue.new_count(session.deck_ids, now)
    ahead = now + session.preferences.learn_ahead
    later = [queued.due for queued in learning if queued.due >= ahead]
    return MoreToStudy(
        learning_later=min(len(later), counts.learning),
        next_learning=min(later) if later else None,
        new_waiting=max(0, new - counts.new),
    )


def add_new_cards_today(
    database: Database,
    schedulers: Schedulers,
    deck_key: str,
    now: datetime,
    zone: tzinfo | None = None,
    count: int = MORE_NEW,
) -> None:
    """Raise the deck's preset's extra new cards for today by ``count`` (until the day ends).

    Raises:
        UnknownDeckError: No deck has this id.
    """
    with database.reading() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        book = transaction.options.deck_presets()
    preset_id = book.preset_id_of(deck.id)
    preset = book.of_deck(deck.id)
    active = preset.extra_until is not None and now < preset.extra_until
    # Yesterday's extras are gone; kept in the preset, they would come back with today's end.
    changes = {
        "extra_new_today": min(_MOST_EXTRA, (preset.extra_new_today if active else 0) + count),
        "extra_reviews_today": preset.extra_reviews_today if active else 0,
    }
    deck_options.change_preset(database, schedulers, preset_id, changes, now, zone)
