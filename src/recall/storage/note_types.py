"""Anki note types by key: stored once each, never changed (``content.anki_note``)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from recall.storage.sql import Sql


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
        """(id, content) of the cards whose content may name this Anki note guid (the caller
        reads each content to be sure): a substring test, so no JSON is parsed per card."""
        needle = json.dumps({"guid": guid}, ensure_ascii=False, separators=(",", ":"))[1:-1]
        rows = self._sql.rows(
            "SELECT id, content FROM card WHERE kind = 'basic' AND instr(content, ?) > 0 "
            "ORDER BY id",
            (needle,),
        )
        return [(int(row[0]), str(row[1])) for row in rows]

    def cards_of_notes(self, guids: Iterable[str]) -> list[tuple[int, str]]:
        """(id, content) of every card whose Anki note has one of these guids, in one pass
        over the cards (ordered by id)."""
        wanted = json.dumps(sorted(set(guids)), ensure_ascii=False)
        rows = self._sql.rows(
            "SELECT id, content FROM card WHERE kind = 'basic' "
            "AND instr(content, '\"guid\":') > 0 "
            "AND json_extract(content, '$.anki.guid') IN (SELECT value FROM json_each(?)) "
            "ORDER BY id",
            (wanted,),
        )
        return [(int(row[0]), str(row[1])) for row in rows]

    def missing(self) -> list[str]:
        """The note type keys stored cards name that this database does not hold."""
        rows = self._sql.rows(
            "SELECT DISTINCT json_extract(content, '$.anki.note_type') AS key FROM card "
            "WHERE kind = 'basic' AND instr(content, '\"note_type\":') > 0 "
            "AND key IS NOT NULL AND key NOT IN (SELECT key FROM anki_note_type) ORDER BY key"
        )
        return [str(row[0]) for row in rows]
