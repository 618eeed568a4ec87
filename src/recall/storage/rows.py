"""Row mapping: the columns each query reads, and the plain values made from them."""

from __future__ import annotations

import json

from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.storage.records import CardRow, DeckRow, ReviewRow
from recall.storage.sql import Row
from recall.storage.times import from_micros

CARD_COLUMNS = (
    "card.id, card.deck_id, card.key, card.kind, card.content, card_memory.state, "
    "card_memory.step, card_memory.stability, card_memory.difficulty, card_memory.due, "
    "card_memory.last_review, card.position, card.seed"
)
DECK_COLUMNS = "deck.id, deck.key, deck.name, deck.description"
# Run before a card (by id) leaves its deck or key: where its deck file has it stays known
# (the first origin stays; a known one replaces an unknown one).
ORIGIN_KEPT = (
    "INSERT INTO card_origin (card_id, deck_key, card_key) "
    "SELECT card.id, deck.key, card.key FROM card JOIN deck ON deck.id = card.deck_id "
    "WHERE card.id = ? ON CONFLICT (card_id) DO UPDATE SET deck_key = excluded.deck_key, "
    "card_key = excluded.card_key WHERE card_origin.deck_key IS NULL"
)
REVIEW_COLUMNS = (
    "review.id, review.card_id, review.reviewed_at, review.rating, review.duration_ms, "
    "review.state_before, review.picked, review.correct, review.kind, review.set_due, "
    "review.set_stability, review.set_difficulty"
)
# Every history is read and replayed in the order the reviews happened, however they
# arrived (an import can bring a review older than one already stored).
# Reviews at the same instant are ordered by their id shared by every device (schema 10), so
# every computer replays a card's history in one order, whichever review arrived first.
REVIEW_ORDER = "review.reviewed_at, review.uid"
# The columns of review's index by time (schema 10 on): it covers what the review log
# reads, the history in time order.
REVIEW_BY_TIME = (
    "reviewed_at",
    "uid",
    "id",
    "kind",
    "card_id",
    "rating",
    "state_before",
    "duration_ms",
)
# The columns of card_memory's index by state and due (schema 21 adds the last two): searches
# over every deck (is:due, prop:ivl) walk it, and it holds what their sort by due and the
# interval read, so a search of 90,000 cards reads no schedule row (the answer rewrites this
# entry anyway, as due and last_review change together).
STATE_DUE = ("state", "due", "position", "last_review")
# The columns of review's index by card (schema 14 on): a card's history in the order it is
# replayed, with what the replay reads, so reading every history is one walk of this index,
# with no sort and no look-up of the table's row, whatever order the rows were stored in.
# Schema 15 adds a memory entry's stability and difficulty.
REVIEW_BY_CARD = (
    "card_id",
    "reviewed_at",
    "uid",
    "rating",
    "kind",
    "set_due",
    "set_stability",
    "set_difficulty",
)
# The entries follow-ups on misconceptions are made from (schema 19 on): follow-up answers
# (kind 5) and wrong answers and cram answers with picks. Review's partial index on them
# covers what the follow-ups read, so the queue and the deck list read every card's such
# entries as one search of a small index, never the table's rows.
FOLLOW_UP_ENTRIES = "kind = 5 OR (kind IN (0, 3) AND NOT correct AND picked IS NOT NULL)"
REVIEW_FOLLOW_UP_ENTRIES = ("card_id", "reviewed_at", "uid", "kind", "rating", "correct", "picked")
REVIEWED_STATES = (
    f"({int(CardState.LEARNING)}, {int(CardState.REVIEW)}, {int(CardState.RELEARNING)})"
)


def deck_row(row: Row) -> DeckRow:
    """A deck from ``DECK_COLUMNS``."""
    id_, key, name, description = row
    return DeckRow(id=id_, key=key, name=name, description=description)


def card_row(row: Row) -> CardRow:
    """A card from ``CARD_COLUMNS``."""
    (
        card_id,
        deck_id,
        key,
        kind,
        content,
        state,
        step,
        stability,
        difficulty,
        due,
        last,
        position,
        seed,
    ) = row
    memory = MemoryState(
        CardState(state), step, stability, difficulty, from_micros(due), from_micros(last)
    )
    return CardRow(
        id=card_id,
        seed=seed,
        deck_id=deck_id,
        key=key,
        kind=kind,
        content=content,
        memory=memory,
        position=position,
    )


def review_row(row: Row) -> ReviewRow:
    """A review from ``REVIEW_COLUMNS``."""
    (review_id, card_id, reviewed_at, rating, duration_ms, state_before, picked, correct) = row[:8]
    kind = ReviewKind(row[8])
    moment = from_micros(reviewed_at)
    assert moment is not None, "a review always has a time"
    return ReviewRow(
        id=review_id,
        card_id=card_id,
        reviewed_at=moment,
        rating=Rating(rating)
        if kind in (ReviewKind.ANSWER, ReviewKind.CRAM, ReviewKind.FOLLOW_UP)
        else None,
        duration_ms=duration_ms,
        state_before=CardState(state_before),
        picked=None if picked is None else tuple(json.loads(picked)),
        correct=bool(correct),
        kind=kind,
        set_due=from_micros(row[9]),
        stability=row[10],
        difficulty=row[11],
    )


def picked_json(picked: tuple[str, ...] | None) -> str | None:
    """The picked choices as stored."""
    return None if picked is None else json.dumps(list(picked), ensure_ascii=False)
