"""Today's queue: which card comes next and how many are left, each one index walk.

These run on every card, so each names the table SQLite should start from (``CROSS
JOIN`` keeps the order as written) and walks the (deck, state, due) or (deck, position)
index instead of every card of the deck.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from recall.memory import CardState
from recall.storage.rows import REVIEWED_STATES
from recall.storage.sql import Sql
from recall.storage.times import from_micros, to_micros


class QueueQueries:
    """Today's queue of one deck, as one transaction sees it."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def first_due(
        self, deck_id: int, states: Iterable[CardState], due_before: datetime
    ) -> int | None:
        """The id of the deck's card in one of ``states`` due soonest, if due before a time."""
        wanted = ", ".join(str(int(CardState(state))) for state in states)
        rows = self._sql.rows(
            "SELECT card.id FROM card_memory CROSS JOIN card ON card.id = card_memory.card_id "
            f"WHERE card_memory.deck_id = ? AND card_memory.state IN ({wanted}) "
            "AND card_memory.due < ? ORDER BY card_memory.due, card.position LIMIT 1",
            (deck_id, to_micros(due_before)),
        )
        return int(rows[0][0]) if rows else None

    def first_new(self, deck_id: int) -> int | None:
        """The id of the deck's first never-reviewed card, in deck-file order."""
        rows = self._sql.rows(
            "SELECT card.id FROM card CROSS JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card.deck_id = ? AND card_memory.state = ? "
            "ORDER BY card.position, card.id LIMIT 1",
            (deck_id, int(CardState.NEW)),
        )
        return int(rows[0][0]) if rows else None

    def count_due(self, deck_id: int, due_before: datetime) -> int:
        """How many of the deck's reviewed cards are due before a time."""
        return int(
            self._sql.value(
                f"SELECT count(*) FROM card_memory WHERE deck_id = ? "
                f"AND state IN {REVIEWED_STATES} AND due < ?",
                (deck_id, to_micros(due_before)),
            )
        )

    def count_unseen(self, deck_id: int, at_most: int) -> int:
        """How many of the deck's cards were never reviewed, counting at most ``at_most``."""
        return int(
            self._sql.value(
                "SELECT count(*) FROM (SELECT 1 FROM card_memory WHERE deck_id = ? "
                "AND state = ? LIMIT ?)",
                (deck_id, int(CardState.NEW), max(0, at_most)),
            )
        )

    def introduced_since(self, deck_id: int, since: datetime) -> int:
        """How many of the deck's cards had their first review at or after ``since``."""
        return int(
            self._sql.value(
                "SELECT count(*) FROM review CROSS JOIN card ON card.id = review.card_id "
                "WHERE review.reviewed_at >= ? AND review.state_before = ? "
                "AND card.deck_id = ?",
                (to_micros(since), int(CardState.NEW), deck_id),
            )
        )

    def next_due(self, deck_id: int) -> datetime | None:
        """When the deck's next reviewed card comes due, if it has any."""
        return from_micros(
            self._sql.value(
                "SELECT min(due) FROM card_memory WHERE deck_id = ? AND state != ?",
                (deck_id, int(CardState.NEW)),
            )
        )

    def recent_correct_durations(self, deck_id: int, limit: int) -> list[int]:
        """Durations of the deck's latest right answers, newest first."""
        rows = self._sql.rows(
            "SELECT review.duration_ms FROM review CROSS JOIN card ON card.id = review.card_id "
            "WHERE card.deck_id = ? AND review.correct ORDER BY review.id DESC LIMIT ?",
            (deck_id, limit),
        )
        return [int(duration) for (duration,) in rows]
