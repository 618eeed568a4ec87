"""Hostile collections: views, triggers, virtual tables, slow reads and huge numbers refused."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import genanki
import pytest

from recall.collection import imported_history, importing
from recall.core.errors import DeckError, ImportCancelledError
from recall.core.memory import Rating
from recall.importers import ImportedReview, _collection_guard
from recall.importers._collection import open_collection
from recall.importers.apkg import read_apkg
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.helpers.anki_packages import TIMESTAMP, build_package, edit_collection, rewrite

RECURSIVE_NOTES = (
    "CREATE VIEW notes AS WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n) "
    "SELECT id, 1 AS mid, 'x' AS flds, '' AS tags FROM n"
)
HUGE = "9" * 5000


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return build_package(tmp_path)


@pytest.fixture
def staging(tmp_path: Path) -> Path:
    folder = tmp_path / "staging"
    folder.mkdir()
    return folder


def problem_of(path: Path, staging: Path) -> str:
    with pytest.raises(DeckError) as caught:
        read_apkg(path, staging)
    (problem,) = caught.value.problems
    assert list(staging.iterdir()) == []
    return problem


def statements(*sql: str) -> Callable[[sqlite3.Connection], None]:
    def edit(connection: sqlite3.Connection) -> None:
        for statement in sql:
            connection.execute(statement)

    return edit


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        (
            ("DROP TABLE notes", RECURSIVE_NOTES),
            "the collection defines a view ('notes'); Anki's collections have none, so "
            "Recall does not read this file",
        ),
        (
            (
                "ALTER TABLE revlog RENAME TO real_revlog",
                "CREATE VIEW revlog AS SELECT a.* FROM real_revlog a, real_revlog b, "
                "real_revlog c, real_revlog d",
            ),
            "the collection defines a view ('revlog'); Anki's collections have none, so "
            "Recall does not read this file",
        ),
        (
            ("CREATE TRIGGER spin AFTER INSERT ON notes BEGIN SELECT 1; END",),
            "the collection defines a trigger ('spin'); Anki's collections have none, so "
            "Recall does not read this file",
        ),
        (
            ("DROP TABLE revlog", "CREATE VIRTUAL TABLE revlog USING fts5(id, cid)"),
            "the collection defines a virtual table ('revlog'); Anki's collections have "
            "none, so Recall does not read this file",
        ),
        (
            (
                "ALTER TABLE notes RENAME TO old_notes",
                "CREATE TABLE notes (id integer primary key, mid integer, tags text, "
                "flds text GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL)",
                "INSERT INTO notes (id, mid, tags) SELECT id, mid, tags FROM old_notes",
                "DROP TABLE old_notes",
            ),
            "table 'notes' computes column 'flds'; Anki's tables compute nothing, so Recall "
            "does not read this file",
        ),
        (
            ("DROP TABLE cards",),
            "not an Anki collection (it has no 'cards' table)",
        ),
    ],
)
def test_only_real_tables_are_read(
    sql: tuple[str, ...], problem: str, package: Path, staging: Path
) -> None:
    edit_collection(package, statements(*sql))
    assert problem_of(package, staging) == f"zip entry 'collection.anki2': {problem}"


def test_a_read_past_the_step_budget_is_refused(
    package: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_collection_guard, "MIN_STEPS", 2 * _collection_guard.STEPS_PER_CHECK)
    monkeypatch.setattr(_collection_guard, "STEPS_PER_BYTE", 0)
    edit_collection(
        package,
        statements(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
            "SELECT i, 1, -1, 3, 1, 0, 2500, 1000, 1 FROM n"
        ),
    )
    assert problem_of(package, staging) == (
        "zip entry 'collection.anki2': reading the collection takes far more work than any "
        "Anki collection needs; refusing a file made to be slow"
    )


def test_cancel_interrupts_sqlite_while_it_works(tmp_path: Path) -> None:
    path = tmp_path / "big.anki2"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE filler (id integer primary key, text text)")
    connection.executemany(
        "INSERT INTO filler (text) VALUES (?)", ((f"row {i}" * 20,) for i in range(20_000))
    )
    connection.commit()
    connection.close()
    calls: list[int] = []

    def cancelled() -> bool:
        calls.append(1)
        return True

    with (
        pytest.raises(ImportCancelledError),
        open_collection(path, "collection.anki2", str(path), cancelled),
    ):
        pass
    assert calls  # SQLite asked, in the middle of its quick_check


@pytest.mark.parametrize("column", ["models", "decks"])
def test_numbers_past_pythons_digit_limit_are_a_message(
    column: str, package: Path, staging: Path
) -> None:
    edit_collection(package, statements(f"UPDATE col SET {column} = '{{\"1\": {HUGE}}}'"))
    assert problem_of(package, staging) == (
        f"zip entry 'collection.anki2': col.{column}: a number has more than 4,300 digits"
    )


def test_a_huge_number_in_the_media_list_is_a_message(package: Path, staging: Path) -> None:
    rewrite(package, {"media": f'{{"0": {HUGE}}}'.encode()})
    assert problem_of(package, staging) == "zip entry 'media': a number has more than 4,300 digits"


def test_deeply_nested_cloze_deletions_give_a_message_or_import(
    tmp_path: Path, staging: Path
) -> None:
    text = "{{c1::" * 3000 + "deep" + "}}" * 3000
    note = genanki.Note(model=genanki.CLOZE_MODEL, fields=[text, ""])
    path = build_package(tmp_path, {"Deep": [note]})
    outcome: object
    try:
        outcome = read_apkg(path, staging).decks
    except DeckError as error:
        outcome = error.problems[0]
    assert outcome == (
        f"zip entry 'collection.anki2': note {TIMESTAMP * 1000} (card {TIMESTAMP * 1000 + 1}): "
        "its cloze deletions are nested too deeply to read"
    ) or (isinstance(outcome, list) and len(outcome) == 1)


def test_cancel_and_progress_reach_the_replay_of_a_long_imported_history(
    tmp_path: Path, staging: Path, database: Database, schedulers: Schedulers
) -> None:
    notes = [genanki.Note(model=genanki.BASIC_MODEL, fields=[f"q{i}", "a"]) for i in range(250)]
    (deck,) = read_apkg(build_package(tmp_path, {"Many": notes}), staging).decks
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    importing.import_deck(database, deck, moment)
    reviews = {
        (deck.id, card.id): [ImportedReview(moment, Rating.GOOD, 1000)] for card in deck.cards
    }
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return True

    with (
        pytest.raises(ImportCancelledError),
        database.transaction() as transaction,
    ):
        imported_history.write_history(transaction, schedulers, deck, reviews, cancelled)
    assert len(asked) == 1  # after the first 200 cards, long before the 250th
    done: list[int] = []
    with database.transaction() as transaction:
        replayed = imported_history.write_history(
            transaction, schedulers, deck, reviews, replayed=done.append
        )
    assert replayed == 250
    assert done == [200]  # progress while the history is replayed
