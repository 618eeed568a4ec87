"""Merging other devices' reviews: added once by id, held until their card and their time
come, taken back by undo for good, and of two versions of one review the lesser kept on
every device. Each card whose history changed is noted for the merge to replay.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace as replace_keys
from typing import Any

from recall.core import wording
from recall.core.i18n import trn
from recall.storage import Transaction
from recall.storage.sync_local import review_event_values
from recall.sync import moves, values
from recall.sync.events import ReviewEvent, Unreview, review_dict

MAX_HELD = 200_000
"""How many reviews may wait here for their card or their time. Reviews arrive with their
cards in one round from any Recall, so only a device writing reviews of cards it never
sends (or far ahead of every clock) holds many; beyond this bound arriving ones are left
out with a note, so such a device cannot grow the database or every round without end."""


class ReviewMerge:
    """The review part of one merge, inside its transaction.

    Args:
        transaction: The merge's transaction (outbox triggers quiet).
        replay: The cards to replay, added to as histories change.
        received: The merge's counts by event type, added to.
        notes: The merge's notes, added to.
        latest: The latest review time stored now (UTC microseconds); later ones wait.
    """

    def __init__(
        self,
        transaction: Transaction,
        replay: set[int],
        received: Counter[str],
        notes: list[str],
        latest: int,
    ) -> None:
        self._tx = transaction
        self._replay = replay
        self._received = received
        self._notes = notes
        self._latest = latest

    @property
    def latest(self) -> int:
        """The latest review time stored now (UTC microseconds); later ones wait."""
        return self._latest

    def retract(self, events: list[Unreview]) -> None:
        """Take back reviews undone on another device; never added again."""
        if not events:
            return
        uids = [event.review for event in events]
        self._tx.sync_state.retract(uids)
        self._tx.sync_state.unhold(uids)  # a review waiting for its time, taken back meanwhile
        self._replay.update(self._tx.sync_local.delete_reviews(uids))
        self._received["unreview"] += len(events)

    def add(self, events: list[ReviewEvent]) -> None:
        """Add arriving reviews once by id; hold those whose card or time has not come."""
        if not events:
            return
        self._received["review"] += len(events)
        uids = [event.id for event in events]
        existing = self._tx.sync_local.existing_uids(uids)
        if existing:
            self.settle([event for event in events if event.id in existing])
        skip = existing | self._tx.sync_state.retracted(uids)
        # Two versions of one review in one batch: the one every device keeps, the lesser.
        least: dict[str, ReviewEvent] = {}
        for event in events:
            if event.id not in skip and (
                event.id not in least or _version(event) < _version(least[event.id])
            ):
                least[event.id] = event
        fresh = list(least.values())
        wanted = {(event.deck, event.card) for event in fresh}
        cards = {
            identity: found[0] for identity, found in self._tx.sync_local.cards(wanted).items()
        }
        held: list[tuple[str, str, str, str]] = []
        present: list[ReviewEvent] = []
        deleted_decks = {
            key
            for (_, key, _), fields in self._tx.sync_state.entities(
                {("deck", deck, "") for deck, _ in wanted}
            ).items()
            if values.DELETED in fields
        }
        redirect: dict[tuple[str, str], tuple[str, str]] = {}
        deleted_cards = {
            (deck, card)
            for (_, deck, card), fields in self._tx.sync_state.entities(
                {("card", *identity) for identity in wanted - set(cards)}
            ).items()
            if values.gone(fields)
        }
        for identity in sorted(deleted_cards):
            target = moves.moved_to(self._tx, identity)
            if target is not None:
                deleted_cards.discard(identity)
                cards.update(
                    (identity, found[0])
                    for identity, found in self._tx.sync_local.cards([target]).items()
                )
                redirect[identity] = target
        fresh = [
            replace_keys(event, deck=redirect[key][0], card=redirect[key][1])
            if (key := (event.deck, event.card)) in redirect
            else event
            for event in fresh
        ]
        future = 0
        for event in fresh:
            identity = (event.deck, event.card)
            if event.at > self._latest and identity not in deleted_cards:
                future += 1  # kept until its time comes, so `recall check` holds meanwhile
                held.append((event.id, event.deck, event.card, json.dumps(review_dict(event))))
            elif identity in cards:
                present.append(event)
            elif identity not in deleted_cards and event.deck not in deleted_decks:
                held.append((event.id, event.deck, event.card, json.dumps(review_dict(event))))
        # Of two versions of one held review, the lesser stays held (as ``settle``).
        before = self._tx.sync_state.held_by_uid([uid for uid, *_ in held])
        replacing = [row for row in held if row[0] in before]
        adding = sorted(row for row in held if row[0] not in before)
        room = max(0, MAX_HELD - self._tx.sync_state.held_count())
        if len(adding) > room:
            left_out = len(adding) - room
            adding = adding[:room]
            future = sum(1 for row in adding if json.loads(row[3])["at"] > self._latest)
            self._notes.append(
                trn(
                    "{count} review left out: more than {most} reviews already wait here for "
                    "cards that have not arrived or for a time that has not come",
                    "{count} reviews left out: more than {most} reviews already wait here for "
                    "cards that have not arrived or for a time that has not come",
                    left_out,
                ).format(count=wording.number(left_out), most=f"{MAX_HELD:,}")
            )
        self._tx.sync_state.hold(
            [
                *adding,
                *(
                    row
                    for row in replacing
                    if _version(_review_event(json.loads(row[3])))
                    < _version(_review_event(json.loads(before[row[0]])))
                ),
            ]
        )
        self._store(cards, present)
        if future:
            self._notes.append(
                trn(
                    "{count} review dated after now (another computer's clock runs ahead?) waits "
                    "until that time",
                    "{count} reviews dated after now (another computer's clock runs ahead?) wait "
                    "until that time",
                    future,
                ).format(count=wording.number(future))
            )

    def release(self, texts: list[str], cards: dict[tuple[str, str], int] | None = None) -> None:
        """Store the held reviews whose card is here and whose time has come."""
        events = [_review_event(json.loads(text)) for text in texts]
        due = [event for event in events if event.at <= self._latest]
        if not due:
            return
        if cards is None:
            cards = {
                identity: found[0]
                for identity, found in self._tx.sync_local.cards(
                    {(event.deck, event.card) for event in due}
                ).items()
            }
            due = [self._follow(event, cards) for event in due]
        ready = [event for event in due if (event.deck, event.card) in cards]
        skip = self._tx.sync_local.existing_uids([event.id for event in ready])
        self._tx.sync_state.unhold(event.id for event in ready)
        self.settle([event for event in ready if event.id in skip])
        self._store(cards, [event for event in ready if event.id not in skip])

    def _follow(self, event: ReviewEvent, cards: dict[tuple[str, str], int]) -> ReviewEvent:
        """A held review named by keys its card was moved away from, named by its new ones
        (``cards`` learns them when the card is here)."""
        if (event.deck, event.card) in cards:
            return event
        target = moves.moved_to(self._tx, (event.deck, event.card))
        if target is None:
            return event
        found = self._tx.sync_local.cards([target]).get(target)
        if found is not None:
            cards[target] = found[0]
        return replace_keys(event, deck=target[0], card=target[1])

    def settle(self, events: list[ReviewEvent]) -> None:
        """Keep, of two versions of one review (the same history imported on two devices,
        each working out the states before), the one every device keeps: the lesser."""
        stored = {
            row[0]: review_dict(_review_event({"type": "review", **review_event_values(row)}))
            for row in self._tx.sync_local.reviews([event.id for event in events])
        }
        replace: dict[str, ReviewEvent] = {}
        for event in events:
            mine = stored.get(event.id)
            if mine is None:
                continue
            # A review stays with the card that holds it here: an event naming the card's
            # keys from before a move is the same review, not another version of it.
            event = replace_keys(event, deck=mine["deck"], card=mine["card"])
            theirs = review_dict(event)
            if _order(theirs) < _order(mine):
                replace[event.id] = event
                stored[event.id] = theirs
        if not replace:
            return
        self._replay.update(self._tx.sync_local.delete_reviews(list(replace)))
        wanted = {(event.deck, event.card) for event in replace.values()}
        cards = {
            identity: found[0] for identity, found in self._tx.sync_local.cards(wanted).items()
        }
        self._store(cards, list(replace.values()))

    def _store(self, cards: dict[tuple[str, str], int], events: list[ReviewEvent]) -> None:
        rows = []
        seen: set[str] = set()
        for event in events:
            if event.id in seen:
                continue
            seen.add(event.id)
            card_id = cards[(event.deck, event.card)]
            self._replay.add(card_id)
            rows.append(
                (
                    card_id,
                    event.at,
                    event.rating,
                    event.duration_ms,
                    event.state_before,
                    None if event.picked is None else json.dumps(event.picked, ensure_ascii=False),
                    event.correct,
                    event.kind,
                    event.set_due,
                    event.proposed,
                    event.id,
                    event.stability,
                    event.difficulty,
                )
            )
        self._tx.sync_local.add_reviews(rows)


def _order(review: dict[str, Any]) -> str:
    return json.dumps(review, sort_keys=True)


def _version(event: ReviewEvent) -> str:
    """What tells two versions of one review apart, in the order ``settle`` keeps the
    lesser by (the keys that name its card left out: they may be from before a move)."""
    review = review_dict(event)
    del review["deck"], review["card"]
    return _order(review)


def _review_event(data: dict[str, Any]) -> ReviewEvent:
    data = dict(data)
    data.pop("type", None)
    return ReviewEvent(**data)
