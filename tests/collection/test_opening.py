"""Opening the library: the database and the bundled decks, recognised by their hash."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from recall.collection import deck_list, opening
from recall.core.errors import DeckError
from recall.host import paths
from recall.storage import Database
from tests.conftest import DATA, Clock

TINY = DATA / "decks" / "tiny.json"


def dump(database: Database) -> list[str]:
    connection = sqlite3.connect(database.path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def questions(database: Database) -> dict[str, str]:
    connection = sqlite3.connect(database.path)
    try:
        rows = connection.execute("SELECT key, content FROM card").fetchall()
    finally:
        connection.close()
    return {key: json.loads(content).get("question", "") for key, content in rows}


def test_first_start_installs_the_bundled_deck(database: Database, clock: Clock) -> None:
    (report,) = opening.install_bundled_decks(database, clock())
    assert (report.new_deck, report.added) == (True, 8)
    (deck,) = deck_list.deck_overviews(database, clock())
    assert (deck.key, deck.total, deck.new, deck.due) == ("activation-recompute", 8, 8, 0)
    with database.reading() as transaction:
        hashes = transaction.options.bundled_deck_hashes()
    (entry,) = paths.bundled_decks()
    assert hashes == {entry.name: hashlib.sha256(entry.read_bytes()).hexdigest()}


def test_later_starts_change_nothing(bundled: Database, clock: Clock) -> None:
    before = dump(bundled)
    assert opening.install_bundled_decks(bundled, clock.advance(days=1)) == []
    assert dump(bundled) == before


def test_a_changed_bundled_deck_is_picked_up(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    folder = tmp_path / "decks"
    folder.mkdir()
    deck_file = folder / "tiny.json"
    deck_file.write_bytes(TINY.read_bytes())
    (first,) = opening.install_bundled_decks(database, clock(), [deck_file])
    assert first.new_deck
    assert opening.install_bundled_decks(database, clock(), [deck_file]) == []

    raw = json.loads(TINY.read_text())
    raw["cards"][0]["question"] = "What is two plus two?"
    deck_file.write_text(json.dumps(raw))
    (report,) = opening.install_bundled_decks(database, clock.advance(days=30), [deck_file])
    assert (report.new_deck, report.updated) == (False, 1)
    assert questions(database)["q1"] == "What is two plus two?"
    assert opening.install_bundled_decks(database, clock(), [deck_file]) == []


def test_a_deck_file_with_the_stored_hash_is_not_parsed(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    """A file that cannot be parsed passes once its hash is the stored one: it was not read."""
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"format": "recall-deck", "cards": [')
    with pytest.raises(DeckError, match=r"bundled deck broken\.json"):
        opening.install_bundled_decks(database, clock(), [broken])
    with database.reading() as transaction:
        assert transaction.options.bundled_deck_hashes() == {}  # not marked installed

    with database.transaction() as transaction:
        digest = hashlib.sha256(broken.read_bytes()).hexdigest()
        transaction.options.set_bundled_deck_hash("broken.json", digest)
    assert opening.install_bundled_decks(database, clock(), [broken]) == []


def test_open_library_installs_the_decks_unless_told_not_to(tmp_path: Path, clock: Clock) -> None:
    untouched = opening.open_library(tmp_path / "plain", clock(), install=False)
    try:
        assert deck_list.deck_overviews(untouched, clock()) == []
    finally:
        untouched.close()
    database = opening.open_library(tmp_path / "full", clock())
    try:
        assert [deck.key for deck in deck_list.deck_overviews(database, clock())] == [
            "activation-recompute"
        ]
    finally:
        database.close()


def test_an_unreadable_record_of_the_installed_decks_installs_them_again(
    bundled: Database, clock: Clock
) -> None:
    connection = sqlite3.connect(bundled.path)
    connection.execute("UPDATE preference SET value = '{not json' WHERE key = 'bundled_decks'")
    connection.commit()
    connection.close()
    (report,) = opening.install_bundled_decks(bundled, clock())
    assert (report.new_deck, report.added, report.updated) == (False, 0, 0)
    assert opening.install_bundled_decks(bundled, clock()) == []
