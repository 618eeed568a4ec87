"""Anki note types by key: stored once each, never changed (``content.anki_note``)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from recall.storage.sql import Sql

# A card that names an Anki note, and what of it two partial indexes on ``card`` hold (schema
# 20), so that finding a note's cards or the note types cards name reads those indexes, not
# every card's content. The condition is a substring test (the key, however the JSON is
# spaced; a tag "anki" passes it too and is indexed as no note): a card without a note
# costs its writes one scan of its text and no JSON parsing.
ANKI_CARD = "kind = 'basic' AND instr(content, '\"anki\"') > 0"
NOTE_TYPE_OF = "json_extract(content, '$.anki.note_type')"
GUID_OF = "json_extract(content, '$.anki.guid')"
INDEXES = {
    "ix_card_anki_note_type": NOTE_TYPE_OF,
    "ix_card_anki_guid": GUID_OF,
}


class NoteTypeQueries:
    """The ``anki_note_type`` table, whose rows are immutable and keyed by their hash."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def add(self, key: str, content: str) -> bool:
        """Keep a note type; returns whether it was new (a known key is left as it is)."""
        if self.content(key) is not None:
            return False
        self._sql.run("INSERT INTO anki_note_type (key, content) VALUES (?, ?)", (key, content))
        return True

    def content(self, key: str) -> str | None:
        """The stored JSON of a note type, or None when this database lacks it."""
        value = self._sql.value("SELECT content FROM anki_note_type WHERE key = ?", (key,))
        return None if value is None else str(value)

    def stored_keys(self) -> list[str]:
        """The keys of every stored note type."""
        rows = self._sql.rows("SELECT key FROM anki_note_type ORDER BY key")
        return [str(row[0]) for row in rows]

    def cards_of_note(self, guid: str) -> list[tuple[int, str]]:
        """(id, content) of the cards of the Anki note with this guid, read along its index."""
        rows = self._sql.rows(
            f"SELECT id, content FROM card WHERE {ANKI_CARD} AND {GUID_OF} = ? ORDER BY id",
            (guid,),
        )
        return [(int(row[0]), str(row[1])) for row in rows]

    def cards_of_notes(self, guids: Iterable[str]) -> list[tuple[int, str]]:
        """(id, content) of every card whose Anki note has one of these guids (by id)."""
        wanted = json.dumps(sorted(set(guids)), ensure_ascii=False)
        rows = self._sql.rows(
            f"SELECT id, content FROM card WHERE {ANKI_CARD} "
            f"AND {GUID_OF} IN (SELECT value FROM json_each(?)) ORDER BY id",
            (wanted,),
        )
        return [(int(row[0]), str(row[1])) for row in rows]

    def missing(self) -> list[str]:
        """The note type keys stored cards name that this database does not hold."""
        rows = self._sql.rows(
            # The expression, not an alias: ``key`` in a WHERE names the card's own column.
            f"SELECT DISTINCT {NOTE_TYPE_OF} AS named FROM card WHERE {ANKI_CARD} "
            f"AND {NOTE_TYPE_OF} IS NOT NULL "
            f"AND {NOTE_TYPE_OF} NOT IN (SELECT key FROM anki_note_type) ORDER BY named"
        )
        return [str(row[0]) for row in rows]
