"""Today's queue: the cards a deck (with its subdecks) may show today, read in one go.

The study session reads these once and keeps them in memory between answers
(``recall.study.queue``); each read walks the index on (deck, state, due, suspended,
buried until), which holds everything the queue filters and sorts on but the position,
and stops at the day's limit. A deck studied with
its subdecks passes every deck's id. Suspended cards, and buried ones until their time,
are left out.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import NamedTuple

from recall.core.memory import LONGEST_ANSWER_MS, CardState, ReviewKind
from recall.storage.sql import Sql
from recall.storage.times import from_micros, to_micros

# Cards that may be studied at the time given as the parameter.
_STUDIABLE = "NOT card_memory.suspended AND coalesce(card_memory.buried_until, 0) <= ?"
_ANSWER = int(ReviewKind.ANSWER)
# A card's note (its siblings share it), kept in its content; '' when it has none.
_NOTE = "coalesce(json_extract(card.content, '$.note'), '')"
_LEARNING = f"({int(CardState.LEARNING)}, {int(CardState.RELEARNING)})"
# Below this many new cards, the first ones in deck order are found by sorting the new
# cards (about 4 ms for 8,000); from it on, by walking the deck in its order until enough
# new ones are found (quick while many cards are new, and then most come first; a learner
# who studies in deck order has the new cards last, and few of them).
_FEW_NEW = 16_384


class DayWork(NamedTuple):
    """The answers given in some decks from a time on: what a day's summary shows."""

    cards: int
    answers: int
    correct: int
    duration_ms: int


class Queued(NamedTuple):
    """A due card in the queue's order: due time, then deck-file position, then id."""

    due: datetime
    position: int
    card_id: int


def _marks(deck_ids: Sequence[object]) -> str:
    return ", ".join("?" * len(deck_ids))


def _not_of(notes: Collection[str]) -> str:
    """A condition leaving out the cards of ``notes``; nothing at all when there are none."""
    return f" AND {_NOTE} NOT IN ({_marks(list(notes))})" if notes else ""


class QueueQueries:
    """Today's queue of one deck (and its subdecks), as one transaction sees it."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def learning(self, deck_ids: Sequence[int], now: datetime) -> list[Queued]:
        """The decks' learning and relearning cards that may be studied now, due or not."""
        return self._due(deck_ids, f"IN {_LEARNING}", None, now, None)

    def reviews_due(
        self,
        deck_ids: Sequence[int],
        due_before: datetime,
        now: datetime,
        limit: int,
        buried_notes: Collection[str] = (),
    ) -> list[Queued]:
        """The first ``limit`` review cards due before a time, in the queue's order; none
        of ``buried_notes`` (siblings of a card studied today)."""
        state = f"= {int(CardState.REVIEW)}{_not_of(buried_notes)}"
        return self._due(deck_ids, state, due_before, now, limit, tuple(buried_notes))

    def new_cards(
        self,
        deck_ids: Sequence[int],
        now: datetime,
        limit: int,
        random_order: bool = False,
        buried_notes: Collection[str] = (),
    ) -> list[int]:
        """The ids of the first ``limit`` never-reviewed cards, deck by deck in the order given.

        Within a deck in deck-file order; with ``random_order``, in a fixed shuffle of the
        cards instead (a multiplicative hash of the card id), so the same cards stay first
        until they are studied. None of ``buried_notes`` (siblings of a card studied today).
        """
        found: list[int] = []
        for deck_id in deck_ids:
            if len(found) >= limit:
                break
            found += self._new_of_deck(
                deck_id, now, limit - len(found), random_order, tuple(buried_notes)
            )
        return found

    def notes_answered_since(self, since: datetime) -> frozenset[str]:
        """The notes (``card.note``) of every card, of any deck, answered at or after ``since``."""
        rows = self._sql.rows(
            f"SELECT DISTINCT {_NOTE} FROM review CROSS JOIN card ON card.id = review.card_id "
            f"WHERE review.reviewed_at >= ? AND review.kind = {_ANSWER} AND {_NOTE} != ''",
            (to_micros(since),),
        )
        return frozenset(str(note) for (note,) in rows)

    def notes_of(self, card_ids: Sequence[int]) -> dict[int, str]:
        """The notes of those of the cards that have one (cards of one note are siblings)."""
        found: dict[int, str] = {}
        for start in range(0, len(card_ids), 500):
            chunk = card_ids[start : start + 500]
            rows = self._sql.rows(
                f"SELECT card.id, {_NOTE} FROM card WHERE card.id IN ({_marks(chunk)}) "
                f"AND {_NOTE} != ''",
                tuple(chunk),
            )
            found.update((int(card_id), str(note)) for card_id, note in rows)
        return found

    def new_count(self, deck_ids: Sequence[int], now: datetime) -> int:
        """How many of the decks' never-reviewed cards may be studied now, beyond any limit."""
        return int(
            self._sql.value(
                f"SELECT count(*) FROM card_memory WHERE card_memory.deck_id IN "
                f"({_marks(deck_ids)}) AND card_memory.state = ? AND {_STUDIABLE}",
                (*deck_ids, int(CardState.NEW), to_micros(now)),
            )
        )

    def cards_due_in(
        self, windows: Sequence[tuple[datetime, datetime]], leaving_out: int
    ) -> list[int]:
        """How many cards of the collection (learning, review and relearning ones, as Anki
        counts every card due on a day) fall due in each window (start included, end not),
        leaving out one card (the one being answered): what load balancing weighs each day
        by.

        One query, each window three walks of the index on (state, due) that read nothing
        else (about 1 ms for 15 days of 500 reviews each). Suspended cards count, as Anki
        counts them: leaving them out would look up every row in the table (about 20 ms
        there), and a suspended card is one the learner means to bring back.
        """
        if not windows:
            return []
        values = ", ".join("(?, ?, ?)" for _ in windows)
        parameters: list[object] = []
        for index, (start, end) in enumerate(windows):
            parameters += [index, to_micros(start), to_micros(end)]
        rows = self._sql.rows(
            f"WITH candidate_day (number, start, end) AS (VALUES {values}) "
            "SELECT candidate_day.number, (SELECT count(*) FROM card_memory "
            "WHERE card_memory.state IN (?, ?, ?) AND card_memory.due >= candidate_day.start "
            "AND card_memory.due < candidate_day.end AND card_memory.card_id != ?) "
            "FROM candidate_day",
            (
                *parameters,
                int(CardState.LEARNING),
                int(CardState.REVIEW),
                int(CardState.RELEARNING),
                leaving_out,
            ),
        )
        counts = [0] * len(windows)
        for number, count in rows:
            counts[int(number)] = int(count)
        return counts

    def next_unburied(self, after: datetime) -> datetime | None:
        """The earliest time after ``after`` that a buried card (of any deck) comes back."""
        return from_micros(
            self._sql.value(
                "SELECT min(buried_until) FROM card_memory WHERE buried_until > ?",
                (to_micros(after),),
            )
        )

    def introduced_since(self, deck_ids: Sequence[int], since: datetime) -> int:
        """How many of the decks' cards had their first answer at or after ``since``."""
        return self.answered_since(deck_ids, since, CardState.NEW)

    def answered_since(
        self, deck_ids: Sequence[int], since: datetime, state_before: CardState
    ) -> int:
        """How many of the decks' answers at or after ``since`` found the card in a state."""
        return int(
            self._sql.value(
                "SELECT count(*) FROM review CROSS JOIN card ON card.id = review.card_id "
                f"WHERE review.reviewed_at >= ? AND review.state_before = ? "
                f"AND review.kind = {_ANSWER} AND card.deck_id IN ({_marks(deck_ids)})",
                (to_micros(since), int(state_before), *deck_ids),
            )
        )

    def follow_ups_answered_since(self, deck_ids: Sequence[int], since: datetime) -> int:
        """How many follow-up answers the decks' cards had at or after ``since``: each counts
        as a review towards the day's review limit."""
        return int(
            self._sql.value(
                "SELECT count(*) FROM review CROSS JOIN card ON card.id = review.card_id "
                f"WHERE review.reviewed_at >= ? AND review.kind = {int(ReviewKind.FOLLOW_UP)} "
                f"AND card.deck_id IN ({_marks(deck_ids)})",
                (to_micros(since), *deck_ids),
            )
        )

    def work_since(self, deck_ids: Sequence[int], since: datetime) -> DayWork:
        """Cards answered, answers, right answers and answer time in the decks from ``since`` on.

        Each answer's time counts up to the longest answer time kept, as statistics count it.
        """
        ((cards, answers, correct, duration),) = self._sql.rows(
            "SELECT count(DISTINCT review.card_id), count(*), "
            "coalesce(sum(review.correct = 1), 0), "
            f"coalesce(sum(min(max(review.duration_ms, 0), {LONGEST_ANSWER_MS})), 0) "
            "FROM review CROSS JOIN card ON card.id = review.card_id "
            f"WHERE review.reviewed_at >= ? AND review.kind = {_ANSWER} "
            f"AND card.deck_id IN ({_marks(deck_ids)})",
            (to_micros(since), *deck_ids),
        )
        return DayWork(int(cards), int(answers), int(correct), int(duration))

    def next_due(self, deck_ids: Sequence[int]) -> datetime | None:
        """When the decks' next reviewed, unsuspended card comes due, if they have any."""
        return from_micros(
            self._sql.value(
                f"SELECT min(due) FROM card_memory WHERE deck_id IN ({_marks(deck_ids)}) "
                "AND state != ? AND NOT suspended",
                (*deck_ids, int(CardState.NEW)),
            )
        )

    def recent_correct_durations(self, deck_ids: Sequence[int], limit: int) -> list[int]:
        """Durations of the decks' latest right answers, newest first."""
        rows = self._sql.rows(
            f"SELECT min(max(review.duration_ms, 0), {LONGEST_ANSWER_MS}) "
            "FROM review CROSS JOIN card ON card.id = review.card_id "
            f"WHERE card.deck_id IN ({_marks(deck_ids)}) AND review.correct "
            f"AND review.kind = {_ANSWER} ORDER BY review.id DESC LIMIT ?",
            (*deck_ids, limit),
        )
        return [int(duration) for (duration,) in rows]

    def _due(
        self,
        deck_ids: Sequence[int],
        state: str,
        due_before: datetime | None,
        now: datetime,
        limit: int | None,
        notes: tuple[str, ...] = (),
    ) -> list[Queued]:
        before = "" if due_before is None else "AND card_memory.due < ? "
        rows = self._sql.rows(
            "SELECT card_memory.due, card.position, card.id FROM card_memory "
            "CROSS JOIN card ON card.id = card_memory.card_id "
            f"WHERE card_memory.deck_id IN ({_marks(deck_ids)}) AND card_memory.state {state} "
            f"{before}AND {_STUDIABLE} "
            "ORDER BY card_memory.due, card.position, card.id"
            + ("" if limit is None else " LIMIT ?"),
            (
                *deck_ids,
                *notes,
                *(() if due_before is None else (to_micros(due_before),)),
                to_micros(now),
                *(() if limit is None else (max(0, limit),)),
            ),
        )
        return [
            Queued(due=from_micros(due) or now, position=position, card_id=card_id)
            for due, position, card_id in rows
        ]

    def _new_of_deck(
        self, deck_id: int, now: datetime, limit: int, random_order: bool, notes: tuple[str, ...]
    ) -> list[int]:
        studiable = (deck_id, int(CardState.NEW), to_micros(now))
        order = "(card.id * 2654435761) % 4294967296" if random_order else "card.position"
        few = random_order or (
            self._sql.value(
                "SELECT count(*) FROM (SELECT 1 FROM card_memory WHERE card_memory.deck_id = ? "
                f"AND card_memory.state = ? AND {_STUDIABLE} LIMIT {_FEW_NEW})",
                studiable,
            )
            < _FEW_NEW
        )
        # Few new cards: sort them (found in the queue's index). Many: walk the deck in order.
        tables = (
            "card_memory CROSS JOIN card ON card.id = card_memory.card_id "
            "WHERE card_memory.deck_id = ?"
            if few
            else "card CROSS JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card.deck_id = ?"
        )
        rows = self._sql.rows(
            f"SELECT card.id FROM {tables} AND card_memory.state = ? AND {_STUDIABLE}"
            f"{_not_of(notes)} ORDER BY {order}, card.id LIMIT ?",
            (*studiable, *notes, max(0, limit)),
        )
        return [int(card_id) for (card_id,) in rows]
