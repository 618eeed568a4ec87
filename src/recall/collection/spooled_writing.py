"""Writing a deck whose cards were spooled while read (Recall's JSON deck), a batch at a time.

It writes what ``importing._write_deck`` writes for the same deck and cards (an import's
file wins over Recall's copy, as for any JSON deck): the same rows in the same order,
with the cards read back from the spool twice (the stored ones updated first, then the
new ones added) instead of held in memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from datetime import datetime
from typing import TYPE_CHECKING

from recall.collection import reimport
from recall.collection.deck_merging import DeckTarget, merged_key
from recall.content.deck_format import CARD_ADAPTER
from recall.importers import ImportedPackage
from recall.importers.card_spool import CardSpool
from recall.storage import NewCard, Transaction

if TYPE_CHECKING:
    from recall.collection.import_report import DeckReport

BATCH_CARDS = 20_000
"""Cards held in memory at a time while they are added."""


def spool_for(package: ImportedPackage, target: DeckTarget) -> tuple[CardSpool, str] | None:
    """The spool holding a target deck's cards and the file's deck id they were read
    under (another when the deck went into a deck of its name), or None when the deck
    was not spooled."""
    for key in (target.deck.id, *target.merged_from):
        spool = package.spooled.get(key)
        if spool is not None:
            return spool, key
    return None


def card_total(package: ImportedPackage) -> int:
    """How many cards a package's decks have, spooled or not."""
    return sum(
        package.spooled[deck.id].count if deck.id in package.spooled else len(deck.cards)
        for deck in package.decks
    )


def write_spooled(
    transaction: Transaction, target: DeckTarget, spool: CardSpool, read_as: str, now: datetime
) -> DeckReport:
    """Add or update a spooled deck's cards.

    Args:
        transaction: Where to write.
        target: The deck written (its cards are in ``spool``).
        spool: The cards, in order.
        read_as: The deck id the file gave; cards of a deck that went into another
            deck's id are filed as ``<card id>.<deck id>``.
        now: The import's time.

    Returns:
        What was written, as ``importing`` reports a deck.
    """
    from recall.collection.import_report import DeckReport

    deck = target.deck
    existing = transaction.decks.by_key(deck.id)
    if existing is None:
        deck_row = transaction.decks.add(deck.id, deck.name, deck.description, now)
    else:
        deck_row = existing
        if (existing.name, existing.description) != (deck.name, deck.description):
            transaction.decks.rename(existing.id, deck.name, deck.description, now)
    known = transaction.cards.keys(deck_row.id)
    away = transaction.cards.moved_away(deck.id)
    marks = transaction.cards.changed_marks(deck_row.id)
    renamed = read_as if read_as != deck.id else None
    moved: list[tuple[int, int]] = []
    updated = unchanged = newer_kept = listed = elsewhere = 0
    for position, key, kind, content, _text in _cards(spool, renamed):
        stored = known.get(key)
        there = away.get(key) if stored is None else None
        if stored is None and there is None:
            continue
        card = CARD_ADAPTER.validate_json(content)
        mark: tuple[datetime, bool] | None
        if there is not None:
            # Where the learner put it: under its key there, at its place in that deck.
            stored, card, mark = reimport.where_moved(there, card)
            key, position = there.key, there.stored.position
            elsewhere += 1
        else:
            assert stored is not None
            mark = marks.get(key)
            listed += 1
        outcome = reimport.compare(stored, card, mark, None)
        if outcome.content is None:
            newer_kept += outcome.newer_kept
            unchanged += not outcome.newer_kept
            if stored.position != position:
                moved.append((stored.id, position))
            continue
        transaction.cards.update(stored.id, NewCard(key, position, kind, outcome.content), now)
        updated += 1
    transaction.cards.set_positions(moved)
    batches = _new_batches(spool, renamed, known.keys() | away.keys())
    added = transaction.cards.add_in_batches(deck_row.id, batches, now)
    return DeckReport(
        deck_key=deck.id,
        deck_name=deck.name,
        new_deck=existing is None,
        added=added,
        updated=updated,
        unchanged=unchanged,
        kept=len(known) - listed,  # the file's ids are unique: each stored one counted once
        newer_kept=newer_kept,
        elsewhere=elsewhere,
    )


def _cards(
    spool: CardSpool, renamed: str | None
) -> Iterator[tuple[int, str, str, str, str | None]]:
    """The spool's cards, filed under ``<card id>.<renamed>`` when ``renamed`` is set (the
    id is not in the search text, which stays)."""
    for position, key, kind, content, text in spool.cards():
        if renamed is None:
            yield position, key, kind, content, text
            continue
        new_key = merged_key(key, renamed)
        card = CARD_ADAPTER.validate_json(content).model_copy(update={"id": new_key})
        yield position, new_key, kind, card.model_dump_json(exclude_defaults=True), text


def _new_batches(spool: CardSpool, renamed: str | None, known: Set[str]) -> Iterator[list[NewCard]]:
    """The spool's cards whose keys are not ``known``, in batches."""
    batch: list[NewCard] = []
    for position, key, kind, content, text in _cards(spool, renamed):
        if key in known:
            continue
        batch.append(NewCard(key, position, kind, content, search_text=text))
        if len(batch) >= BATCH_CARDS:
            yield batch
            batch = []
    yield batch
