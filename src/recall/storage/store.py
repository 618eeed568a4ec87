"""Reads and writes for one unit of work; every method returns plain values."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, update
from sqlalchemy import exc as sqlalchemy_errors
from sqlmodel import Session, col, select

from recall.memory import CardState, MemoryState
from recall.storage.records import CardRow, DeckCounts, DeckRow, NewCard, ReviewRow
from recall.storage.statistics import StatisticsQueries
from recall.storage.tables import Card, CardMemory, Deck, Review, from_micros, to_micros

_REVIEWED = f"({int(CardState.LEARNING)}, {int(CardState.REVIEW)}, {int(CardState.RELEARNING)})"
_CARD_COLUMNS = (
    "card.id, card.deck_id, card.key, card.kind, card.content, card_memory.state, "
    "card_memory.step, card_memory.stability, card_memory.difficulty, card_memory.due, "
    "card_memory.last_review"
)


class Store:
    """The database as one transaction sees it. Made by ``Database.transaction``.

    What studying does on every card (find the next card, count what is left, record an
    answer) is written in SQL run on the transaction's own sqlite3 connection: through the
    ORM each statement cost about a millisecond of Python, more than SQLite takes to run
    it. Those queries name the table SQLite should start from (``CROSS JOIN`` keeps the
    order as written), so they walk the indexes on what they filter and sort by instead of
    every card of the deck. Everything else goes through SQLModel.
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        self._connection: sqlite3.Connection | None = None

    def _rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement on this transaction's connection; SQLite errors as SQLAlchemy's."""
        try:
            return self._driver().execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            raise sqlalchemy_errors.DBAPIError.instance(
                sql, parameters, error, sqlite3.Error
            ) from error

    def _driver(self) -> sqlite3.Connection:
        if self._connection is None:
            # Asking the session for its connection begins the transaction (BEGIN IMMEDIATE).
            driver = self._session.connection().connection.driver_connection
            assert isinstance(driver, sqlite3.Connection)
            self._connection = driver
        return self._connection

    def statistics(self) -> StatisticsQueries:
        """The statistics' queries, in this transaction."""
        return StatisticsQueries(self._rows, self._driver)

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
        only = "" if deck_id is None else f"WHERE deck.id = {int(deck_id)}"
        decks = self._rows(f"SELECT id, key, name, description FROM deck {only} ORDER BY name, id")
        totals = dict(self._rows("SELECT deck_id, count(*) FROM card GROUP BY deck_id"))
        unseen = dict(
            self._rows(
                "SELECT deck_id, count(*) FROM card_memory WHERE state = ? GROUP BY deck_id",
                (int(CardState.NEW),),
            )
        )
        due = dict(
            self._rows(
                f"SELECT deck_id, count(*) FROM card_memory WHERE state IN {_REVIEWED} "
                "AND due < ? GROUP BY deck_id",
                (to_micros(due_before),),
            )
        )
        introduced = dict(
            self._rows(
                "SELECT card.deck_id, count(*) FROM review CROSS JOIN card "
                "ON card.id = review.card_id WHERE review.reviewed_at >= ? "
                "AND review.state_before = ? GROUP BY card.deck_id",
                (to_micros(day_start), int(CardState.NEW)),
            )
        )
        return [
            DeckCounts(
                deck=DeckRow(id=id_, key=key, name=name, description=description),
                total=totals.get(id_, 0),
                unseen=unseen.get(id_, 0),
                due=due.get(id_, 0),
                introduced_today=introduced.get(id_, 0),
            )
            for id_, key, name, description in decks
        ]

    def count_due(self, deck_id: int, due_before: datetime) -> int:
        """How many of the deck's reviewed cards are due before a time."""
        ((count,),) = self._rows(
            f"SELECT count(*) FROM card_memory WHERE deck_id = ? AND state IN {_REVIEWED} "
            "AND due < ?",
            (deck_id, to_micros(due_before)),
        )
        return int(count)

    def count_unseen(self, deck_id: int, at_most: int) -> int:
        """How many of the deck's cards were never reviewed, counting at most ``at_most``."""
        ((count,),) = self._rows(
            "SELECT count(*) FROM (SELECT 1 FROM card_memory WHERE deck_id = ? AND state = ? "
            "LIMIT ?)",
            (deck_id, int(CardState.NEW), max(0, at_most)),
        )
        return int(count)

    # Cards

    def card_keys(self, deck_id: int) -> dict[str, tuple[int, int, str, str]]:
        """For each card key in the deck: its id, position, kind and content."""
        cards = self._session.exec(select(Card).where(Card.deck_id == deck_id)).all()
        return {card.key: (_id(card.id), card.position, card.kind, card.content) for card in cards}

    def add_cards(self, deck_id: int, cards: Iterable[NewCard], now: datetime) -> int:
        """Add new cards, each with a new-card memory state, in two batched inserts."""
        stamp = to_micros(now)
        rows = [
            (deck_id, card.key, card.position, card.kind, card.content, stamp, stamp)
            for card in cards
        ]
        if not rows:
            return 0
        sql = (
            "INSERT INTO card (deck_id, key, position, kind, content, added_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        try:
            self._driver().executemany(sql, rows)
        except sqlite3.Error as error:
            raise sqlalchemy_errors.DBAPIError.instance(sql, rows, error, sqlite3.Error) from error
        # Every card gets its memory row with it, so the deck's cards without one are these.
        self._rows(
            "INSERT INTO card_memory (card_id, deck_id, state) SELECT card.id, card.deck_id, ? "
            "FROM card "
            "WHERE card.deck_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM card_memory WHERE card_memory.card_id = card.id)",
            (int(CardState.NEW), deck_id),
        )
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
        rows = self._rows(
            f"SELECT {_CARD_COLUMNS} FROM card JOIN card_memory "
            "ON card_memory.card_id = card.id WHERE card.id = ?",
            (card_id,),
        )
        if len(rows) != 1:
            raise sqlalchemy_errors.NoResultFound(f"no card {card_id}")
        return _card_row_from_sql(rows[0])

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
        wanted = ", ".join(str(int(state)) for state in states)
        rows = self._rows(
            "SELECT card.id FROM card_memory CROSS JOIN card ON card.id = card_memory.card_id "
            f"WHERE card_memory.deck_id = ? AND card_memory.state IN ({wanted}) "
            "AND card_memory.due < ? ORDER BY card_memory.due, card.position LIMIT 1",
            (deck_id, to_micros(due_before)),
        )
        return int(rows[0][0]) if rows else None

    def first_new(self, deck_id: int) -> int | None:
        """The id of the deck's first never-reviewed card, in deck-file order."""
        rows = self._rows(
            "SELECT card.id FROM card CROSS JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card.deck_id = ? AND card_memory.state = ? "
            "ORDER BY card.position, card.id LIMIT 1",
            (deck_id, int(CardState.NEW)),
        )
        return int(rows[0][0]) if rows else None

    def introduced_since(self, deck_id: int, since: datetime) -> int:
        """How many of the deck's cards had their first review at or after ``since``."""
        ((count,),) = self._rows(
            "SELECT count(*) FROM review CROSS JOIN card ON card.id = review.card_id "
            "WHERE review.reviewed_at >= ? AND review.state_before = ? AND card.deck_id = ?",
            (to_micros(since), int(CardState.NEW), deck_id),
        )
        return int(count)

    def next_due(self, deck_id: int) -> datetime | None:
        """When the deck's next reviewed card comes due, if it has any."""
        return self._session.execute(
            select(func.min(col(CardMemory.due)))
            .where(col(CardMemory.deck_id) == deck_id)
            .where(col(CardMemory.state) != int(CardState.NEW))
        ).scalar()

    def set_memory(self, card_id: int, memory: MemoryState) -> None:
        """Store a card's memory state."""
        self._rows(
            "UPDATE card_memory SET state = ?, step = ?, stability = ?, difficulty = ?, "
            "due = ?, last_review = ? WHERE card_id = ?",
            (
                int(memory.state),
                memory.step,
                memory.stability,
                memory.difficulty,
                to_micros(memory.due),
                to_micros(memory.last_review),
                card_id,
            ),
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
        proposed: int | None = None,
    ) -> int:
        """Append a review and return its id (``proposed``: the rating Recall proposed)."""
        sql = (
            "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, picked, "
            "correct, proposed_rating) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        parameters = (
            card_id,
            to_micros(reviewed_at),
            rating,
            duration_ms,
            state_before,
            None if picked is None else json.dumps(list(picked), ensure_ascii=False),
            correct,
            proposed,
        )
        try:
            cursor = self._driver().execute(sql, parameters)
        except sqlite3.Error as error:
            raise sqlalchemy_errors.DBAPIError.instance(
                sql, parameters, error, sqlite3.Error
            ) from error
        assert cursor.lastrowid is not None
        return cursor.lastrowid

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
        rows = self._rows(
            "SELECT review.duration_ms FROM review CROSS JOIN card ON card.id = review.card_id "
            "WHERE card.deck_id = ? AND review.correct ORDER BY review.id DESC LIMIT ?",
            (deck_id, limit),
        )
        return [int(duration) for (duration,) in rows]

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

    def misplaced_schedules(self) -> list[int]:
        """Cards whose schedule row names another deck than the card (none, when healthy)."""
        rows = self._rows(
            "SELECT card.id FROM card JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card_memory.deck_id IS NOT card.deck_id ORDER BY card.id"
        )
        return [int(row[0]) for row in rows]

    def place_schedules(self) -> int:
        """Give every schedule row its card's deck; returns how many rows changed."""
        before = self._driver().total_changes
        self._rows(
            "UPDATE card_memory SET deck_id = (SELECT deck_id FROM card WHERE card.id = "
            "card_memory.card_id) WHERE deck_id IS NOT (SELECT deck_id FROM card WHERE "
            "card.id = card_memory.card_id)"
        )
        return self._driver().total_changes - before

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
            CardState(memory.state),
            memory.step,
            memory.stability,
            memory.difficulty,
            memory.due,
            memory.last_review,
        ),
    )


def _card_row_from_sql(row: tuple[Any, ...]) -> CardRow:
    card_id, deck_id, key, kind, content, state, step, stability, difficulty, due, last = row
    memory = MemoryState(
        CardState(state), step, stability, difficulty, from_micros(due), from_micros(last)
    )
    return CardRow(id=card_id, deck_id=deck_id, key=key, kind=kind, content=content, memory=memory)


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
