"""History queries: append reviews, and read them back per card in the order they happened."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime

from recall.memory import Rating, ReviewKind
from recall.storage.records import CardRow, NewReview, ReviewRow
from recall.storage.review_ids import batch_uids, card_keys, free_uid
from recall.storage.rows import (
    CARD_COLUMNS,
    REVIEW_COLUMNS,
    REVIEW_ORDER,
    card_row,
    picked_json,
    review_row,
)
from recall.storage.sql import Row, Sql
from recall.storage.times import from_micros, to_micros

_RATING_COLUMNS = (
    "review.id, review.card_id, review.reviewed_at, review.rating, review.kind, review.set_due"
)
_ANSWER = int(ReviewKind.ANSWER)
HistoryEntry = tuple[datetime, Rating] | tuple[datetime, None, ReviewKind, datetime | None]

_INSERT = (
    "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, picked, "
    "correct, proposed_rating, uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class HistoryQueries:
    """The append-only review history of one transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def add(self, review: NewReview) -> int:
        """Append a review and return its id."""
        keys = card_keys(self._sql, [review.card_id])[review.card_id]
        micros = to_micros(review.reviewed_at)
        assert micros is not None
        uid = free_uid(self._sql, keys, micros, _ANSWER, int(review.rating))
        return self._sql.run(_INSERT, (*_values(review), uid))

    def add_many(self, reviews: Sequence[NewReview]) -> None:
        """Append many reviews in one batch."""
        if not reviews:
            return
        uids = batch_uids(
            self._sql,
            [
                (review.card_id, _micros(review.reviewed_at), _ANSWER, int(review.rating))
                for review in reviews
            ],
        )
        self._sql.run_many(
            _INSERT, ((*_values(review), uid) for review, uid in zip(reviews, uids, strict=True))
        )

    def delete(self, review_id: int) -> None:
        """Remove one review (undo is the only caller)."""
        self._sql.run("DELETE FROM review WHERE id = ?", (review_id,))

    def of_card(self, card_id: int) -> list[ReviewRow]:
        """A card's reviews in the order they happened."""
        rows = self._sql.rows(
            f"SELECT {REVIEW_COLUMNS} FROM review WHERE card_id = ? ORDER BY {REVIEW_ORDER}",
            (card_id,),
        )
        return [review_row(row) for row in rows]

    def per_card(self, deck_id: int | None = None) -> Iterator[tuple[CardRow, list[ReviewRow]]]:
        """Every card (of one deck, if given) with its reviews in the order they happened.

        One pass over each table, both in card order, merged as they are read: a million
        reviews never sit in memory at once beyond one card's.
        """
        for card, rows in self._per_card(REVIEW_COLUMNS, deck_id):
            yield card, [review_row(row) for row in rows]

    def ratings_per_card(
        self, deck_id: int | None = None
    ) -> Iterator[tuple[CardRow, list[HistoryEntry]]]:
        """Every card with the time and rating of each review, in order: what a replay needs.

        As ``per_card``, reading few columns of each review instead of all of them. An
        answer is ``(time, rating)``; a change made by hand is ``(time, None, kind, due)``.
        """
        for card, rows in self._per_card(_RATING_COLUMNS, deck_id):
            yield (
                card,
                [
                    (_moment(micros), Rating(rating))
                    if kind == _ANSWER
                    else (_moment(micros), None, ReviewKind(kind), from_micros(due))
                    for _id, _card, micros, rating, kind, due in rows
                ],
            )

    def _per_card(self, columns: str, deck_id: int | None) -> Iterator[tuple[CardRow, list[Row]]]:
        """Cards in id order, each with its review rows (``columns``, the card id second)."""
        if deck_id is None:
            cards = self._sql.each(
                f"SELECT {CARD_COLUMNS} FROM card JOIN card_memory "
                "ON card_memory.card_id = card.id ORDER BY card.id"
            )
            reviews = self._sql.each(
                f"SELECT {columns} FROM review ORDER BY review.card_id, {REVIEW_ORDER}"
            )
        else:
            cards = self._sql.each(
                f"SELECT {CARD_COLUMNS} FROM card JOIN card_memory "
                "ON card_memory.card_id = card.id WHERE card.deck_id = ? ORDER BY card.id",
                (deck_id,),
            )
            reviews = self._sql.each(
                f"SELECT {columns} FROM card CROSS JOIN review "
                "ON review.card_id = card.id WHERE card.deck_id = ? "
                f"ORDER BY review.card_id, {REVIEW_ORDER}",
                (deck_id,),
            )
        pending = next(reviews, None)
        for row in cards:
            card = card_row(row)
            history: list[Row] = []
            # Reviews of cards that no longer exist sort before the next card and are
            # skipped here; ``orphans`` reports them.
            while pending is not None and pending[1] <= card.id:
                if pending[1] == card.id:
                    history.append(pending)
                pending = next(reviews, None)
            yield card, history

    def all(self, deck_id: int | None = None) -> Iterator[ReviewRow]:
        """Every review in the order they happened, optionally for one deck only."""
        if deck_id is None:
            rows = self._sql.each(f"SELECT {REVIEW_COLUMNS} FROM review ORDER BY {REVIEW_ORDER}")
        else:
            rows = self._sql.each(
                f"SELECT {REVIEW_COLUMNS} FROM card CROSS JOIN review "
                f"ON review.card_id = card.id WHERE card.deck_id = ? ORDER BY {REVIEW_ORDER}",
                (deck_id,),
            )
        for row in rows:
            yield review_row(row)

    def log_rows(self, deck_id: int | None = None) -> Iterator[tuple[int, int, int, int, int]]:
        """The FSRS review-log rows, oldest first: card id, UTC milliseconds (rounded half
        up), rating, state before and duration, made by SQLite for speed. Answers only: a
        change made by hand is not a review an optimizer could learn from."""
        columns = (
            "review.card_id, (review.reviewed_at + 500) / 1000, review.rating, "
            "review.state_before, review.duration_ms"
        )
        if deck_id is None:
            return self._sql.each(
                f"SELECT {columns} FROM review WHERE review.kind = {_ANSWER} "
                f"ORDER BY {REVIEW_ORDER}"
            )
        return self._sql.each(
            f"SELECT {columns} FROM card CROSS JOIN review ON review.card_id = card.id "
            f"WHERE card.deck_id = ? AND review.kind = {_ANSWER} ORDER BY {REVIEW_ORDER}",
            (deck_id,),
        )

    def count(self, deck_id: int | None = None) -> int:
        """How many reviews there are (of one deck, if given)."""
        if deck_id is None:
            return int(self._sql.value("SELECT count(*) FROM review"))
        return int(
            self._sql.value(
                "SELECT count(*) FROM card CROSS JOIN review ON review.card_id = card.id "
                "WHERE card.deck_id = ?",
                (deck_id,),
            )
        )

    def after(self, moment: datetime) -> list[ReviewRow]:
        """Reviews dated after ``moment``, oldest first."""
        rows = self._sql.rows(
            f"SELECT {REVIEW_COLUMNS} FROM review WHERE reviewed_at > ? ORDER BY {REVIEW_ORDER}",
            (to_micros(moment),),
        )
        return [review_row(row) for row in rows]

    def orphans(self) -> list[ReviewRow]:
        """Reviews whose card does not exist (only possible if foreign keys were off)."""
        rows = self._sql.rows(
            f"SELECT {REVIEW_COLUMNS} FROM review LEFT JOIN card ON card.id = review.card_id "
            "WHERE card.id IS NULL ORDER BY review.id"
        )
        return [review_row(row) for row in rows]


def _values(review: NewReview) -> tuple[object, ...]:
    return (
        review.card_id,
        to_micros(review.reviewed_at),
        int(review.rating),
        review.duration_ms,
        int(review.state_before),
        picked_json(review.picked),
        review.correct,
        None if review.proposed is None else int(review.proposed),
    )


def _micros(moment: datetime) -> int:
    micros = to_micros(moment)
    assert micros is not None
    return micros


def _moment(micros: int) -> datetime:
    moment = from_micros(micros)
    assert moment is not None, "a review always has a time"
    return moment
