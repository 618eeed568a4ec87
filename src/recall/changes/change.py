"""A change made by hand as a value: its name, the cards it changed, what undo puts back.

Every change (to many cards in ``cards``, to decks in ``decks``, to one card's text in
``editing``) returns a ``Change``; ``restore`` applies its ``Restore`` inside a transaction.
A change of schedule that is not an answer appends history entries, and undoing it removes
them and replays the cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recall.core.errors import RecallError
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Transaction

Values = tuple[str, tuple[str, ...], tuple[tuple[Any, ...], ...]]


class ChangeError(RecallError):
    """A change that cannot be made as asked (a bad tag, due date or deck)."""


@dataclass(frozen=True)
class Restore:
    """What undoing a change puts back, in this order.

    Attributes:
        values: Columns of cards or decks as they were: (table, columns, rows of
            (id, *values)).
        entries: History entries the change appended; removed, then their cards replayed.
        added_cards: Cards the change added; deleted.
        decks: Deck rows the change deleted; put back before their cards.
        cards: Rows of cards the change deleted, by table; put back.
        added_decks: Decks the change added; deleted once empty.
    """

    values: tuple[Values, ...] = ()
    entries: tuple[int, ...] = ()
    replay: tuple[int, ...] = ()
    added_cards: tuple[int, ...] = ()
    decks: tuple[tuple[Any, ...], ...] = ()
    cards: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    added_decks: tuple[int, ...] = ()


@dataclass(frozen=True)
class Change:
    """A change as it was made: what it was called, how many cards it changed, its undo."""

    label: str
    changed: int
    restore: Restore
    card_ids: tuple[int, ...] = ()


def restore(transaction: Transaction, undo: Restore, schedulers: Schedulers | None = None) -> None:
    """Put back what a change changed, inside the caller's transaction."""
    browsing = transaction.browsing
    for card_id in undo.added_cards:
        browsing.delete_cards([card_id])
    for row in undo.decks:
        browsing.load_deck(row)
    if undo.cards:
        browsing.load(undo.cards)
    for table, columns, rows in undo.values:
        browsing.put_values(table, columns, rows)
    if undo.entries:
        browsing.delete_reviews(undo.entries)
        assert schedulers is not None, "replaying needs the schedulers"
        presets = transaction.options.deck_presets()
        for card_id in undo.replay:
            card = transaction.cards.get(card_id)
            history = transaction.history.of_card(card_id)
            scheduler = schedulers.for_deck(presets, card.deck_id)
            transaction.cards.set_memory(card_id, integrity.replay(scheduler, card, history))
    if undo.added_decks:
        browsing.delete_decks(undo.added_decks)
