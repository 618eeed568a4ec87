"""Today's queue: which card comes next and how many are left, each one index walk.

These run on every card, so each names the table SQLite should start from (``CROSS
JOIN`` keeps the order as written) and walks the (deck, state, due) or (deck, position)
index instead of every card of the deck. A deck studied with its subdecks passes every
deck's id. Suspended cards, and buried ones until their time, are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from recall.memory import CardState, ReviewKind
from recall.storage.rows import REVIEWED_STATES
from recall.storage.sql import Sql
from recall.storage.times import from_micros, to_micros

# Cards that may be studied at the time given as the parameter.
_STUDIABLE = "NOT card_memory.suspended AND coalesce(card_memory.buried_until, 0) <= ?"
_ANSWER = int(ReviewKind.ANSWER)


def _marks(deck_ids: Sequence[int]) -> str:
    return ", ".join("?" * len(deck_ids))


class QueueQueries:
    """Today's queue of one deck (and its subdecks), as one transaction sees it."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def first_due(
        self,
        deck_ids: Sequence[int],
        states: Iterable[CardState],
        due_before: datetime,
        now: datetime,
    ) -> int | None:
        """The id of the decks' card in one of ``states`` due soonest, if due before a time."""
        wanted = ", ".join(str(int(CardState(state))) for state in states)
        rows = self._sql.rows(
            "SELECT card.id FROM card_memory CROSS JOIN card ON card.id = card_memory.card_id "
            f"WHERE card_memory.deck_id IN ({_marks(deck_ids)}) "
            f"AND card_memory.state IN ({wanted}) AND card_memory.due < ? AND {_STUDIABLE} "
            "ORDER BY card_memory.due, card.position LIMIT 1",
            (*deck_ids, to_micros(due_before), to_micros(now)),
        )
        return int(rows[0][0]) if rows else None

    def first_new(self, deck_ids: Sequence[int], now: datetime) -> int | None:
        """The id of the first never-reviewed card, deck by deck in the order given."""
        for deck_id in deck_ids:
            rows = self._sql.rows(
                "SELECT card.id FROM card CROSS JOIN card_memory "
                "ON card_memory.card_id = card.id "
                f"WHERE card.deck_id = ? AND card_memory.state = ? AND {_STUDIABLE} "
                "ORDER BY card.position, card.id LIMIT 1",
                (deck_id, int(CardState.NEW), to_micros(now)),
            )
            if rows:
                return int(rows[0][0])
        return None

    def count_due(self, deck_ids: Sequence[int], due_before: datetime, now: datetime) -> int:
        """How many of the decks' reviewed cards are due before a time."""
        return int(
            self._sql.value(
                f"SELECT count(*) FROM card_memory WHERE deck_id IN ({_marks(deck_ids)}) "
                f"AND state IN {REVIEWED_STATES} AND due < ? AND {_STUDIABLE}",
                (*deck_ids, to_micros(due_before), to_micros(now)),
            )
        )

    def count_unseen(self, deck_ids: Sequence[int], at_most: int, now: datetime) -> int:
        """How many of the decks' cards were never reviewed, counting at most ``at_most``."""
        return int(
            self._sql.value(
                "SELECT count(*) FROM (SELECT 1 FROM card_memory "
                f"WHERE deck_id IN ({_marks(deck_ids)}) AND state = ? AND {_STUDIABLE} LIMIT ?)",
                (*deck_ids, int(CardState.NEW), to_micros(now), max(0, at_most)),
            )
        )

    def introduced_since(self, deck_ids: Sequence[int], since: datetime) -> int:
        """How many of the decks' cards had their first answer at or after ``since``."""
        return int(
            self._sql.value(
                "SELECT count(*) FROM review CROSS JOIN card ON card.id = review.card_id "
                f"WHERE review.reviewed_at >= ? AND review.state_before = ? "
                f"AND review.kind = {_ANSWER} AND card.deck_id IN ({_marks(deck_ids)})",
                (to_micros(since), int(CardState.NEW), *deck_ids),
            )
        )

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
            "SELECT review.duration_ms FROM review CROSS JOIN card ON card.id = review.card_id "
            f"WHERE card.deck_id IN ({_marks(deck_ids)}) AND review.correct "
            f"AND review.kind = {_ANSWER} ORDER BY review.id DESC LIMIT ?",
            (*deck_ids, limit),
        )
        return [int(duration) for (duration,) in rows]
