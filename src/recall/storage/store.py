"""Reads and writes for one unit of work; every method returns plain values."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime

from sqlalchemy import delete, func, insert, update
from sqlmodel import Session, col, select

from recall.memory import CardState, MemoryState
from recall.storage.records import CardRow, DeckCounts, DeckRow, NewCard, ReviewRow
from recall.storage.tables import Card, CardMemory, Deck, Review


class Store:
    """The database as one transaction sees it. Made by ``Database.transaction``."""

    def __init__(self, session: Session) -> None:
        self._session = session

    # Decks

    def deck_by_key(self, key: str) -> DeckRow | None:
        """The deck whose file id is ``key``, if there is one."""
        deck = self._session.exec(select(Deck).where(Deck.key == key)).first()
        return _deck_row(deck) if deck else None

    def deck(self, deck_id: int) -> DeckRow:
        """The deck with database id ``deck_id``."""
        deck = self._session.get_one(Deck, deck_id)
        return _deck_row(deck)

    def add_deck(self, key: str, name: str, description: str, now: datetime) -> DeckRow:
        """Add a deck and return it."""
        deck = Deck(key=key, name=name, description=description, added_at=now, updated_at=now)
        self._session.add(deck)
        self._session.flush()
        return _deck_row(deck)

    def rename_deck(self, deck_id: int, name: str, description: str, now: datetime) -> None:
        """Change a deck's name and description."""
        self._session.execute(
            update(Deck)
            .where(col(Deck.id) == deck_id)
            .values(name=name, description=description, updated_at=now)
        )

    def deck_counts(
        self, due_before: datetime, day_start: datetime, deck_id: int | None = None
    ) -> list[DeckCounts]:
        """Every deck (or the one given) with its card counts, by name.

        Args:
            due_before: The end of the study day: reviewed cards due before it count as due.
            day_start: The start of the study day, for counting new cards introduced today.
            deck_id: Count only this deck.
        """
        reviewed = col(CardMemory.state) != int(CardState.NEW)
        query = (
            select(
                Deck,
                func.count(col(Card.id)),
                func.count(col(Card.id)).filter(col(CardMemory.state) == int(CardState.NEW)),
                func.count(col(Card.id)).filter(reviewed & (col(CardMemory.due) < due_before)),
            )
            .join(Card, col(Card.deck_id) == col(Deck.id), isouter=True)
            .join(CardMemory, col(CardMemory.card_id) == col(Card.id), isouter=True)
            .group_by(col(Deck.id))
            .order_by(col(Deck.name), col(Deck.id))
        )
        introduced_query = (
            select(Card.deck_id, func.count(col(Review.id)))
            .join(Card, col(Card.id) == col(Review.card_id))
            .where(col(Review.state_before) == int(CardState.NEW))
            .where(col(Review.reviewed_at) >= day_start)
            .group_by(col(Card.deck_id))
        )
        if deck_id is not None:
            query = query.where(col(Deck.id) == deck_id)
            introduced_query = introduced_query.where(col(Card.deck_id) == deck_id)
        counts = self._session.execute(query).all()
        introduced: dict[int, int] = dict(self._session.execute(introduced_query).all())
        return [
            DeckCounts(
                deck=_deck_row(deck),
                total=total,
                unseen=unseen,
                due=due,
                introduced_today=introduced.get(deck.id, 0),
            )
            for deck, total, unseen, due in counts
        ]

    # Cards

    def card_keys(self, deck_id: int) -> dict[str, tuple[int, int, str, str]]:
        """For each card key in the deck: its id, position, kind and content."""
        cards = self._session.exec(select(Card).where(Card.deck_id == deck_id)).all()
        return {card.key: (_id(card.id), card.position, card.kind, card.content) for card in cards}

    def add_cards(self, deck_id: int, cards: Iterable[NewCard], now: datetime) -> int:
        """Add new cards, each with a new-card memory state, in two batched inserts."""
        rows = [
            {
                "deck_id": deck_id,
                "key": card.key,
                "position": card.position,
                "kind": card.kind,
                "content": card.content,
                "added_at": now,
                "updated_at": now,
            }
            for card in cards
        ]
        if not rows:
            return 0
        self._session.execute(insert(Card), rows)
        keys = [row["key"] for row in rows]
        ids = self._session.execute(
            select(Card.id).where(col(Card.deck_id) == deck_id).where(col(Card.key).in_(keys))
        ).scalars()
        self._session.execute(insert(CardMemory), [{"card_id": card_id} for card_id in ids])
        return len(rows)

    def update_card(self, card_id: int, card: NewCard, now: datetime) -> None:
        """Replace a card's content and position; its history and memory stay."""
        self._session.execute(
            update(Card)
            .where(col(Card.id) == card_id)
            .values(position=card.position, kind=card.kind, content=card.content, updated_at=now)
        )

    def card(self, card_id: int) -> CardRow:
        """One card with its memory state."""
        card, memory = self._session.execute(
            select(Card, CardMemory)
            .join(CardMemory, col(CardMemory.card_id) == col(Card.id))
            .where(col(Card.id) == card_id)
        ).one()
        return _card_row(card, memory)

    def cards_of_deck(self, deck_id: int) -> list[CardRow]:
        """Every card of a deck, in deck-file order."""
        rows = self._session.execute(
            select(Card, CardMemory)
            .join(CardMemory, col(CardMemory.card_id) == col(Card.id))
            .where(col(Card.deck_id) == deck_id)
            .order_by(col(Card.position), col(Card.id))
        ).all()
        return [_card_row(card, memory) for card, memory in rows]

    def first_due(
        self, deck_id: int, states: Iterable[CardState], due_before: datetime
    ) -> int | None:
        """The id of the deck's card in one of ``states`` due soonest, if due before a time."""
        return self._session.execute(
            select(Card.id)
            .join(CardMemory, col(CardMemory.card_id) == col(Card.id))
            .where(col(Card.deck_id) == deck_id)
            .where(col(CardMemory.state).in_([int(state) for state in states]))
            .where(col(CardMemory.due) < due_before)
            .order_by(col(CardMemory.due), col(Card.position))
            .limit(1)
        ).scalar()

    def first_new(self, deck_id: int) -> int | None:
        """The id of the deck's first never-reviewed card, in deck-file order."""
        return self._session.execute(
            select(Card.id)
            .join(CardMemory, col(CardMemory.card_id) == col(Card.id))
            .where(col(Card.deck_id) == deck_id)
            .where(col(CardMemory.state) == int(CardState.NEW))
            .order_by(col(Card.position), col(Card.id))
            .limit(1)
        ).scalar()

    def introduced_since(self, deck_id: int, since: datetime) -> int:
        """How many of the deck's cards had their first review at or after ``since``."""
        count = self._session.execute(
            select(func.count(col(Review.id)))
            .join(Card, col(Card.id) == col(Review.card_id))
            .where(col(Card.deck_id) == deck_id)
            .where(col(Review.state_before) == int(CardState.NEW))
            .where(col(Review.reviewed_at) >= since)
        ).scalar()
        return int(count or 0)

    def next_due(self, deck_id: int) -> datetime | None:
        """When the deck's next reviewed card comes due, if it has any."""
        return self._session.execute(
            select(func.min(col(CardMemory.due)))
            .join(Card, col(Card.id) == col(CardMemory.card_id))
            .where(col(Card.deck_id) == deck_id)
            .where(col(CardMemory.state) != int(CardState.NEW))
        ).scalar()

    def set_memory(self, card_id: int, memory: MemoryState) -> None:
        """Store a card's memory state."""
        self._session.execute(
            update(CardMemory)
            .where(col(CardMemory.card_id) == card_id)
            .values(
                state=int(memory.state),
                step=memory.step,
                stability=memory.stability,
                difficulty=memory.difficulty,
                due=memory.due,
                last_review=memory.last_review,
            )
        )

    # Reviews

    def add_review(
        self,
        card_id: int,
        reviewed_at: datetime,
        rating: int,
        duration_ms: int,
        state_before: int,
        picked: tuple[str, ...] | None,
        correct: bool,
    ) -> int:
        """Append a review and return its id."""
        review = Review(
            card_id=card_id,
            reviewed_at=reviewed_at,
            rating=rating,
            duration_ms=duration_ms,
            state_before=state_before,
            picked=None if picked is None else json.dumps(list(picked), ensure_ascii=False),
            correct=correct,
        )
        self._session.add(review)
        self._session.flush()
        assert review.id is not None
        return review.id

    def add_reviews(self, rows: list[dict[str, object]]) -> None:
        """Append many reviews in one batched insert (keys as ``add_review``'s arguments)."""
        if rows:
            self._session.execute(insert(Review), rows)

    def delete_review(self, review_id: int) -> None:
        """Remove one review (undo is the only caller)."""
        self._session.execute(delete(Review).where(col(Review.id) == review_id))

    def reviews_of_card(self, card_id: int) -> list[ReviewRow]:
        """A card's reviews in the order they were recorded."""
        rows = self._session.exec(
            select(Review).where(Review.card_id == card_id).order_by(col(Review.id))
        ).all()
        return [_review_row(review) for review in rows]

    def recent_correct_durations(self, deck_id: int, limit: int) -> list[int]:
        """Durations of the deck's latest right answers, newest first."""
        return list(
            self._session.execute(
                select(Review.duration_ms)
                .join(Card, col(Card.id) == col(Review.card_id))
                .where(col(Card.deck_id) == deck_id)
                .where(col(Review.correct))
                .order_by(col(Review.id).desc())
                .limit(limit)
            ).scalars()
        )

    def histories(self, deck_id: int | None = None) -> Iterator[tuple[CardRow, list[ReviewRow]]]:
        """Every card (of one deck, if given) with its reviews in recorded order."""
        review_query = select(Review).order_by(col(Review.card_id), col(Review.id))
        card_query = (
            select(Card, CardMemory)
            .join(CardMemory, col(CardMemory.card_id) == col(Card.id))
            .order_by(col(Card.id))
        )
        if deck_id is not None:
            review_query = review_query.join(Card, col(Card.id) == col(Review.card_id)).where(
                col(Card.deck_id) == deck_id
            )
            card_query = card_query.where(col(Card.deck_id) == deck_id)
        reviews: dict[int, list[ReviewRow]] = {}
        for review in self._session.exec(review_query):
            reviews.setdefault(review.card_id, []).append(_review_row(review))
        rows = self._session.execute(card_query).all()
        for card, memory in rows:
            yield _card_row(card, memory), reviews.get(_id(card.id), [])

    def deck_keys(self) -> dict[int, str]:
        """Every deck's file id, by database id."""
        return {_id(deck.id): deck.key for deck in self._session.exec(select(Deck))}

    def orphan_reviews(self) -> list[ReviewRow]:
        """Reviews whose card does not exist (only possible if foreign keys were off)."""
        rows = self._session.exec(
            select(Review)
            .join(Card, col(Card.id) == col(Review.card_id), isouter=True)
            .where(col(Card.id).is_(None))
            .order_by(col(Review.id))
        ).all()
        return [_review_row(review) for review in rows]

    def reviews_after(self, moment: datetime) -> list[ReviewRow]:
        """Reviews dated after ``moment``, oldest first."""
        rows = self._session.exec(
            select(Review).where(col(Review.reviewed_at) > moment).order_by(col(Review.reviewed_at))
        ).all()
        return [_review_row(review) for review in rows]

    def all_reviews(self, deck_id: int | None = None) -> Iterator[ReviewRow]:
        """Every review, oldest first, optionally for one deck only."""
        query = select(Review).order_by(col(Review.reviewed_at), col(Review.id))
        if deck_id is not None:
            query = query.join(Card, col(Card.id) == col(Review.card_id)).where(
                col(Card.deck_id) == deck_id
            )
        for review in self._session.exec(query):
            yield _review_row(review)


def _id(value: int | None) -> int:
    assert value is not None, "a stored row always has an id"
    return value


def _deck_row(deck: Deck) -> DeckRow:
    assert deck.id is not None
    return DeckRow(id=deck.id, key=deck.key, name=deck.name, description=deck.description)


def _card_row(card: Card, memory: CardMemory) -> CardRow:
    assert card.id is not None
    return CardRow(
        id=card.id,
        deck_id=card.deck_id,
        key=card.key,
        kind=card.kind,
        content=card.content,
        memory=MemoryState(
            state=CardState(memory.state),
            step=memory.step,
            stability=memory.stability,
            difficulty=memory.difficulty,
            due=memory.due,
            last_review=memory.last_review,
        ),
    )


def _review_row(review: Review) -> ReviewRow:
    assert review.id is not None
    return ReviewRow(
        id=review.id,
        card_id=review.card_id,
        reviewed_at=review.reviewed_at,
        rating=review.rating,
        duration_ms=review.duration_ms,
        state_before=review.state_before,
        picked=None if review.picked is None else tuple(json.loads(review.picked)),
        correct=review.correct,
    )
