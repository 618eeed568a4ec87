"""What a round is about to delete here, by the computer that asked, and a backup first.

A deletion is final and carries no history back, so a computer that sends many at once (a
buggy writer, or a file of ``deleted`` or ``unreview`` events) could wipe this one. Before
a round deletes more than a few cards or reviews, the database is backed up (as deleting
cards by hand does), and the report says plainly what went and on whose word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from recall.core import wording
from recall.core.errors import RecallError
from recall.core.i18n import tr, trn
from recall.safekeeping import backups
from recall.storage import Database, Transaction
from recall.sync import values
from recall.sync.events import Event, FieldEvent, Unreview

MANY_CARDS = 5
"""A round deleting more cards than this backs up first."""

MANY_REVIEWS = 20
"""A round deleting more reviews than this backs up first."""


def count(
    transaction: Transaction, events: Sequence[Event], origins: dict[str, str]
) -> dict[str, tuple[int, int]]:
    """The cards and reviews held here that ``events`` delete, by the device that sent them.

    Args:
        origins: The device whose folder each ``unreview`` came from, by event id.
    """
    cards: dict[str, set[int]] = {}
    reviews: Counter[str] = Counter()
    card_keys = {
        event.key: event.device
        for event in events
        if isinstance(event, FieldEvent)
        and event.type == "card"
        and values.DELETED in event.fields
        and values.MOVED not in event.fields
    }
    for found in [transaction.sync_local.cards(card_keys)]:
        for identity, (card_id, _columns) in found.items():
            cards.setdefault(card_keys[identity], set()).add(card_id)
    deck_keys = {
        event.key[0]: event.device
        for event in events
        if isinstance(event, FieldEvent) and event.type == "deck" and values.DELETED in event.fields
    }
    for key, (deck_id, *_rest) in transaction.sync_local.decks(deck_keys).items():
        cards.setdefault(deck_keys[key], set()).update(
            transaction.sync_local.card_ids_of_decks([deck_id])
        )
    taken_back = [event for event in events if isinstance(event, Unreview)]
    present = transaction.sync_local.existing_uids([event.review for event in taken_back])
    for event in taken_back:
        if event.review in present:
            reviews[origins.get(event.id, "?")] += 1
    for device, ids in cards.items():
        placeholders = ",".join("?" * len(ids))
        reviews[device] += int(
            transaction.sql.value(
                f"SELECT COUNT(*) FROM review WHERE card_id IN ({placeholders})",
                sorted(ids),
            )
        )
    return {
        device: (len(cards.get(device, ())), reviews[device])
        for device in sorted(set(cards) | set(reviews))
        if cards.get(device) or reviews[device]
    }


def back_up_if_many(
    database: Database,
    now: datetime,
    counts: dict[str, tuple[int, int]],
    names: dict[str, str],
) -> list[str]:
    """Back up before deleting more than a few cards or reviews; the report's notes.

    The backup is of the database as last committed: the round's own transaction, still
    open, has deleted nothing others can see.
    """
    if not counts:
        return []
    notes = [
        tr("deleted {cards} and {reviews} as {device} ({id}) asked").format(
            cards=trn("{count} card", "{count} cards", cards).format(count=wording.number(cards)),
            reviews=trn("{count} review", "{count} reviews", reviews).format(
                count=wording.number(reviews)
            ),
            device=names.get(device, device[:8]),
            id=device[:8],
        )
        for device, (cards, reviews) in counts.items()
    ]
    total_cards = sum(cards for cards, _ in counts.values())
    total_reviews = sum(reviews for _, reviews in counts.values())
    if total_cards <= MANY_CARDS and total_reviews <= MANY_REVIEWS:
        return notes
    try:
        made = backups.make_backup(database, now, note="before-sync-delete")
    except RecallError as error:
        return [
            *notes,
            tr("no backup could be made before deleting them: {error}").format(error=error),
        ]
    return [*notes, tr("a backup was made before deleting them: {path}").format(path=made)]
