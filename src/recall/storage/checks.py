"""Consistency queries for ``recall check``: copies that must agree, and how to restore them."""

from __future__ import annotations

from datetime import datetime

from recall.storage.sql import Sql
from recall.storage.times import to_micros


class CheckQueries:
    """What ``recall check`` asks of one transaction beyond the histories."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def misplaced_schedules(self) -> list[int]:
        """Cards whose schedule row names another deck or position than the card (none,
        when healthy: searches read both there)."""
        rows = self._sql.rows(
            "SELECT card.id FROM card JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card_memory.deck_id IS NOT card.deck_id "
            "OR card_memory.position IS NOT card.position ORDER BY card.id"
        )
        return [int(row[0]) for row in rows]

    def place_schedules(self) -> int:
        """Give every schedule row its card's deck and position; returns how many rows
        changed."""
        before = self._sql.changes()
        self._sql.run(
            "UPDATE card_memory SET deck_id = card.deck_id, position = card.position "
            "FROM card WHERE card.id = card_memory.card_id "
            "AND (card_memory.deck_id IS NOT card.deck_id "
            "OR card_memory.position IS NOT card.position)"
        )
        return self._sql.changes() - before

    def set_aside_after(self, moment: datetime, now: datetime, reason: str) -> list[int]:
        """Move every review dated after ``moment`` into ``set_aside_review``, kept whole.

        Returns:
            The cards whose history lost a review (their schedules need a replay).
        """
        after = to_micros(moment)
        cards = [
            int(row[0])
            for row in self._sql.rows(
                "SELECT DISTINCT card_id FROM review WHERE reviewed_at > ? ORDER BY card_id",
                (after,),
            )
        ]
        self._sql.run(
            "INSERT INTO set_aside_review (id, card_id, reviewed_at, rating, duration_ms, "
            "state_before, picked, correct, kind, set_due, set_stability, set_difficulty, "
            "proposed_rating, set_aside_at, reason, uid) SELECT id, card_id, reviewed_at, "
            "rating, duration_ms, state_before, picked, correct, kind, set_due, set_stability, "
            "set_difficulty, proposed_rating, ?, ?, uid FROM review "
            "WHERE reviewed_at > ?",
            (to_micros(now), reason, after),
        )
        self._sql.run("DELETE FROM review WHERE reviewed_at > ?", (after,))
        return cards

    def set_aside_count(self) -> int:
        """How many reviews have been set aside."""
        ((count,),) = self._sql.rows("SELECT count(*) FROM set_aside_review")
        return int(count)
