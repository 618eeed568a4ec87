"""Media files that cards merged here refer to and that have not arrived yet (schema 13).

Sync notes each (media name, card keys) pair here in the transaction that merged the card,
and takes it out once the file is in the media folder, or once the card no longer refers
to it. So a file a sync program is still moving is fetched at a later round, without the
card having to change again.
"""

from __future__ import annotations

from collections.abc import Iterable

from recall.storage.sql import Sql

Wanted = tuple[str, str, str]  # media name, deck key, card key


class SyncMediaQueries:
    """Reads and writes of ``sync_media_wanted``, within the caller's transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def want(self, rows: Iterable[Wanted]) -> None:
        """Note media names wanted by cards (name, deck key, card key)."""
        self._sql.run_many(
            "INSERT OR IGNORE INTO sync_media_wanted (name, deck_key, card_key) VALUES (?, ?, ?)",
            rows,
        )

    def wanted(self) -> list[Wanted]:
        """Every wanted (name, deck key, card key), by name."""
        return [
            (str(name), str(deck_key), str(card_key))
            for name, deck_key, card_key in self._sql.rows(
                "SELECT name, deck_key, card_key FROM sync_media_wanted "
                "ORDER BY name, deck_key, card_key"
            )
        ]

    def drop(self, rows: Iterable[Wanted]) -> None:
        """Take pairs out: the file arrived, or the card no longer refers to it."""
        self._sql.run_many(
            "DELETE FROM sync_media_wanted WHERE name = ? AND deck_key = ? AND card_key = ?",
            rows,
        )
