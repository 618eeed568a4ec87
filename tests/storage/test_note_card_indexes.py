"""A note's cards, and the note types cards name, are found along their indexes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from recall.collection import importing
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.storage.note_types import ANKI_CARD, GUID_OF, NOTE_TYPE_OF
from tests.conftest import Clock
from tests.helpers.anki_notes import make_note_package


def _plan(path: Path, sql: str, parameters: tuple[str, ...] = ()) -> str:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(f"EXPLAIN QUERY PLAN {sql}", parameters).fetchall()
        return " | ".join(row[3] for row in rows)
    finally:
        connection.close()


def _notes(database: Database) -> dict[str, list[int]]:
    """Each guid's card ids, read from every card's content (no index)."""
    with database.reading() as transaction:
        rows = transaction.sql.rows("SELECT id, content FROM card ORDER BY id")
    found: dict[str, list[int]] = {}
    for card_id, content in rows:
        origin = json.loads(content).get("anki")
        if origin and origin.get("guid"):
            found.setdefault(origin["guid"], []).append(int(card_id))
    return found


def test_the_cards_of_a_note_and_the_note_types_cards_name(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    package = make_note_package(tmp_path)
    importing.import_files(database, Schedulers(), [package], clock())
    notes = _notes(database)
    assert sorted(len(ids) for ids in notes.values()) == [2, 2]  # a pair and a two-deletion cloze
    with database.transaction() as transaction:
        queries = transaction.note_types
        for guid, ids in notes.items():
            assert [card_id for card_id, _ in queries.cards_of_note(guid)] == ids
        assert [card_id for card_id, _ in queries.cards_of_notes(notes)] == sorted(
            card_id for ids in notes.values() for card_id in ids
        )
        assert queries.cards_of_note("no such guid") == []
        assert queries.missing() == []
        keys = queries.stored_keys()
        transaction.sql.run("DELETE FROM anki_note_type WHERE key = ?", (keys[0],))
        assert queries.missing() == [keys[0]]


def test_the_queries_read_the_partial_indexes(database: Database) -> None:
    by_guid = f"SELECT id FROM card WHERE {ANKI_CARD} AND {GUID_OF} = ?"
    named = f"SELECT DISTINCT {NOTE_TYPE_OF} FROM card WHERE {ANKI_CARD}"
    assert "USING INDEX ix_card_anki_guid" in _plan(database.path, by_guid, ("g",))
    assert "USING INDEX ix_card_anki_note_type" in _plan(database.path, named)
