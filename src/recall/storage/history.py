"""History queries: append reviews, and read them back per card in the order they happened."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import groupby
from operator import itemgetter
from typing import cast

from recall.core.memory import CardState, ReviewKind, answer_ms
from recall.storage.bulk_rows import indexes_lifted
from recall.storage.records import CardRow, NewReview, ReviewRow
from recall.storage.review_ids import batch_uids, card_keys, review_uid, taken_uid
from recall.storage.rows import (
    CARD_COLUMNS,
    REVIEW_COLUMNS,
    REVIEW_ORDER,
    card_row,
    picked_json,
    review_row,
)
from recall.storage.sql import Row, Sql, StatementError
from recall.storage.times import from_micros, to_micros

_ANSWER = int(ReviewKind.ANSWER)
_PICKED = f"review.kind = {_ANSWER} AND review.picked IS NOT NULL"
"""The answers item analysis reads: answers (not schedule changes) that picked options."""
_IN_REVIEW = int(CardState.REVIEW)
_first = itemgetter(0)
_SCHEDULES = (
    "SELECT card.id, card.seed, card.deck_id, card_memory.state, card_memory.step, "
    "card_memory.stability, card_memory.difficulty, card_memory.due, card_memory.last_review "
    "FROM card JOIN card_memory ON card_memory.card_id = card.id"
)
_ENTRIES = (
    "SELECT review.card_id, review.reviewed_at, review.rating, review.kind, review.set_due, "
    "review.set_stability, review.set_difficulty "
    "FROM review"
)
_DECK_ENTRIES = (
    "SELECT review.card_id, review.reviewed_at, review.rating, review.kind, review.set_due, "
    "review.set_stability, review.set_difficulty "
    "FROM card CROSS JOIN review ON review.card_id = card.id"
)
_BY_CARD = f"ORDER BY review.card_id, {REVIEW_ORDER}"
# Every history as check reads it: one walk of ``ix_review_card_history``, which covers it.
EVERY_HISTORY = f"{_ENTRIES} {_BY_CARD}"
# The review log's order: by time, then by what the rows hold (never by review id, which
# each database gives in the order reviews arrived), so two databases holding the same
# history write the same file even where reviews share a moment.
_LOG_ORDER = REVIEW_ORDER
# A history entry as stored: card id, time, rating, kind, due date set (times in
# microseconds), and a memory entry's stability and difficulty: what ``scheduling.Replayer``
# reads.
RawEntry = tuple[int, int, int, int, int | None, float | None, float | None]
# A schedule as stored: state, step, stability, difficulty, due and last review.
RawSchedule = tuple[int, int | None, float | None, float | None, int | None, int | None]

_INSERT = (
    "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, picked, "
    "correct, proposed_rating, kind, set_due, uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class HistoryQueries:
    """The append-only review history of one transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def add(self, review: NewReview, keys: tuple[str, str] | None = None) -> int:
        """Append a review and return its id.

        Args:
            review: The review.
            keys: Its card's deck key and card key, when the caller read them in this
                transaction (else they are read here): what its id is made from.
        """
        if keys is None:
            keys = card_keys(self._sql, [review.card_id])[review.card_id]
        micros = to_micros(review.reviewed_at)
        assert micros is not None
        values = _values(review)
        kind, rating = int(review.kind), int(review.rating)
        # Inserted at once with the first id its keys give: the unique index on the ids
        # turns away the rare entry alike in all of them (the insert undone, its triggers
        # with it), which then takes the next count (as ``free_uid`` would have given it)
        # instead of every answer looking its id up first.
        repeat = 0
        while True:
            uid = review_uid(*keys, micros, kind, rating, repeat)
            try:
                return self._sql.run(_INSERT, (*values, uid))
            except StatementError as error:
                if not taken_uid(error):
                    raise
            repeat += 1

    def add_many(self, reviews: Sequence[NewReview]) -> None:
        """Append many reviews in one batch."""
        if not reviews:
            return
        uids = batch_uids(
            self._sql,
            [
                (review.card_id, _micros(review.reviewed_at), int(review.kind), int(review.rating))
                for review in reviews
            ],
        )
        with indexes_lifted(self._sql, "review", len(reviews)):
            self._sql.run_many(
                _INSERT,
                ((*_values(review), uid) for review, uid in zip(reviews, uids, strict=True)),
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

    def schedules_and_histories(
        self, only: Iterable[int] | None = None, deck_id: int | None = None
    ) -> Iterator[tuple[int, int, int, RawSchedule, list[RawEntry]]]:
        """Every card as stored (or those of ``only`` that exist), with its history as
        stored: what check replays.

        Yields ``(card id, seed, deck id, schedule, history)`` in card order (the seed is
        what the replay's fuzz is seeded by): the schedule as
        ``card_memory``'s columns (state, step, stability, difficulty, due, last review)
        and each history entry as ``(card id, time, rating, kind, due date set)``, times in
        microseconds. Plain values straight from SQLite: no ``datetime``, enum or record
        per review. Every card (of ``deck_id``, if given) is read in one pass over each
        table; reviews of cards that no longer exist are skipped (``orphans``).
        """
        if only is not None:
            for card_id in sorted(only):
                found = self._sql.rows(f"{_SCHEDULES} WHERE card.id = ?", (card_id,))
                if found:
                    history = self._sql.rows(
                        f"{_ENTRIES} WHERE review.card_id = ? {_BY_CARD}", (card_id,)
                    )
                    _, seed, deck, *schedule = found[0]
                    yield card_id, seed, deck, cast(RawSchedule, tuple(schedule)), history
            return
        if deck_id is None:
            cards = self._sql.each(f"{_SCHEDULES} ORDER BY card.id")
            entries = self._sql.each(EVERY_HISTORY)
        else:
            cards = self._sql.each(
                f"{_SCHEDULES} WHERE card.deck_id = ? ORDER BY card.id", (deck_id,)
            )
            entries = self._sql.each(
                f"{_DECK_ENTRIES} WHERE card.deck_id = ? {_BY_CARD}", (deck_id,)
            )
        reviews = groupby(entries, key=_first)
        pending = next(reviews, None)
        for card_id, seed, deck_id, *schedule in cards:
            while pending is not None and pending[0] < card_id:
                pending = next(reviews, None)
            if pending is not None and pending[0] == card_id:
                history = list(pending[1])
                pending = next(reviews, None)
            else:
                history = []
            yield card_id, seed, deck_id, cast(RawSchedule, tuple(schedule)), history

    def choice_cards(self, deck_id: int) -> list[Row]:
        """A deck's choice cards that have a schedule, in id order, as plain values: ``(id,
        key, content, first)``, ``first`` the correctness of the card's first answer that
        picked options (in the order answers happened; None before it)."""
        return self._sql.rows(
            "SELECT card.id, card.key, card.content, (SELECT review.correct FROM review "
            f"WHERE review.card_id = card.id AND {_PICKED} ORDER BY {REVIEW_ORDER} LIMIT 1) "
            "FROM card JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card.deck_id = ? AND card.kind = 'choice' ORDER BY card.id",
            (deck_id,),
        )

    def picked_groups(self, deck_ids: Sequence[int] | None = None) -> Iterator[Row]:
        """The answers that picked options (of some decks' cards, if given) counted per card
        and picks, in card order: ``(card id, picked JSON, answers, of them given in review,
        of the others right)``.

        SQLite groups them, sorting every answer: less work than making each answer a row in
        Python to count it there. The review table is read in its own order for every deck,
        or when the decks hold at least a quarter of the cards (counted up to that, beside
        the largest card id): walking the index by card looks each answer's row up for its
        picks, and the answers are sorted all the same (every deck's answers at 100,000
        cards: 0.7 s read in the table's order, 1.0-1.2 s along the index, SQLite's choice).
        """
        counts = (
            f"review.card_id, review.picked, count(*), sum(review.state_before = {_IN_REVIEW}), "
            f"sum(review.state_before <> {_IN_REVIEW} AND review.correct <> 0)"
        )
        # Ordered as grouped, so that the groups' sort gives the order too.
        grouped = "GROUP BY review.card_id, review.picked ORDER BY review.card_id, review.picked"
        if deck_ids is None:
            return self._sql.each(
                f"SELECT {counts} FROM review NOT INDEXED WHERE {_PICKED} {grouped}"
            )
        decks = ", ".join(str(int(deck_id)) for deck_id in deck_ids) or "NULL"
        ((everyone,),) = self._sql.rows("SELECT coalesce(max(id), 0) FROM card")
        quarter = int(everyone) // 4 + 1
        ((mine,),) = self._sql.rows(
            f"SELECT count(*) FROM (SELECT 1 FROM card WHERE deck_id IN ({decks}) LIMIT ?)",
            (quarter,),
        )
        source = "review" if int(mine) * 4 < int(everyone) else "review NOT INDEXED"
        return self._sql.each(
            f"SELECT {counts} FROM {source} WHERE {_PICKED} AND review.card_id IN "
            f"(SELECT card.id FROM card WHERE card.deck_id IN ({decks})) {grouped}"
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

    def log_batches(
        self, deck_id: int | None = None
    ) -> Iterator[list[tuple[int, int, int, int, int]]]:
        """The FSRS review-log rows, oldest first, in batches: the card's seed (the same on
        every computer, unlike its id), UTC milliseconds (rounded half up), rating, state
        before and duration, made by SQLite for speed. Answers only: a change made by hand
        is not a review an optimizer could learn from. Reviews at the same moment are in
        the order of their ids, shared by every computer. The reviews are read in the
        order of the covering ``ix_review_reviewed_at`` index (no sort), each card's seed
        by its id."""
        columns = (
            "card.seed, (review.reviewed_at + 500) / 1000, review.rating, "
            "review.state_before, review.duration_ms"
        )
        if deck_id is None:
            sql = (
                f"SELECT {columns} FROM review CROSS JOIN card ON card.id = review.card_id "
                f"WHERE review.kind = {_ANSWER} ORDER BY {_LOG_ORDER}"
            )
            parameters: tuple[int, ...] = ()
        else:
            sql = (
                f"SELECT {columns} FROM card CROSS JOIN review ON review.card_id = card.id "
                f"WHERE card.deck_id = ? AND review.kind = {_ANSWER} ORDER BY {_LOG_ORDER}"
            )
            parameters = (deck_id,)
        return self._sql.batches(sql, parameters)

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
        answer_ms(review.duration_ms),
        int(review.state_before),
        picked_json(review.picked),
        review.correct,
        None if review.proposed is None else int(review.proposed),
        int(review.kind),
        to_micros(review.chosen_due),
    )


def _micros(moment: datetime) -> int:
    micros = to_micros(moment)
    assert micros is not None
    return micros


def _moment(micros: int) -> datetime:
    moment = from_micros(micros)
    assert moment is not None, "a review always has a time"
    return moment
