"""Consistency queries for ``recall check``: copies that must agree, and how to restore them."""

from __future__ import annotations

from recall.storage.sql import Sql


class CheckQueries:
    """What ``recall check`` asks of one transaction beyond the histories."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def misplaced_schedules(self) -> list[int]:
        """Cards whose schedule row names another deck than the card (none, when healthy)."""
        rows = self._sql.rows(
            "SELECT card.id FROM card JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card_memory.deck_id IS NOT card.deck_id ORDER BY card.id"
        )
        return [int(row[0]) for row in rows]

    def place_schedules(self) -> int:
        """Give every schedule row its card's deck; returns how many rows changed."""
        before = self._sql.changes()
        self._sql.run(
            "UPDATE card_memory SET deck_id = (SELECT deck_id FROM card WHERE card.id = "
            "card_memory.card_id) WHERE deck_id IS NOT (SELECT deck_id FROM card WHERE "
            "card.id = card_memory.card_id)"
        )
        return self._sql.changes() - before
