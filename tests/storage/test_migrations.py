"""Schema versions: an old database opens with every review intact; upgrades are all-or-nothing."""

from __future__ import annotations

import io
import shutil
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import Connection

from recall.collection import opening, review_log
from recall.core.memory import Rating
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import SCHEMA_VERSION, Database, DatabaseError, read_header
from recall.storage import database as database_module
from recall.storage.migrations import MIGRATIONS
from recall.study.session import StudySession
from tests.conftest import DATA

FIXTURE = DATA / "schema-1.sqlite3"
FIXTURE_REVIEWS = DATA / "schema-1.reviews.csv"
# Every schema a released Recall wrote: each must open with every review intact.
FIXTURES = sorted(DATA.glob("schema-*.sqlite3"), key=lambda path: int(path.stem.split("-")[1]))
AFTER_FIXTURE = datetime(2026, 4, 1, tzinfo=UTC)  # later than every review in the fixture


def copy_fixture(tmp_path: Path, fixture: Path = FIXTURE) -> Path:
    target = tmp_path / "data" / "recall.sqlite3"
    target.parent.mkdir()
    shutil.copyfile(fixture, target)
    return target


def test_there_is_a_fixture_for_every_schema() -> None:
    assert [path.name for path in FIXTURES] == [
        f"schema-{version}.sqlite3" for version in range(1, SCHEMA_VERSION + 1)
    ]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.stem)
def test_every_old_database_opens_with_every_review_intact(tmp_path: Path, fixture: Path) -> None:
    database = Database(copy_fixture(tmp_path, fixture))
    out = io.StringIO()
    review_log.export_reviews(database, out)
    lines = out.getvalue().splitlines()
    # The same rows, oldest first; reviews of one instant come in the order of their ids
    # shared by every device (schema 10), not the order this file stored them in.
    assert sorted(lines) == sorted(fixture.with_suffix(".reviews.csv").read_text().splitlines())
    times = [int(line.split(",")[1]) for line in lines[1:]]
    assert times == sorted(times)
    assert len(lines) > 100
    opening.upgrade_schedules(database, AFTER_FIXTURE)  # as opening the library does
    report = integrity.check(database, Schedulers(fuzz=True), AFTER_FIXTURE)
    assert report.healthy, report.problems
    assert read_header(database.path).schema_version == SCHEMA_VERSION
    database.close()


def _mark_deck_names(connection: Connection) -> None:
    connection.exec_driver_sql("UPDATE deck SET name = name || ' (upgraded)'")


def test_an_older_schema_is_upgraded_after_a_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy_fixture(tmp_path)
    later = SCHEMA_VERSION + 1
    monkeypatch.setattr(database_module, "SCHEMA_VERSION", later)
    monkeypatch.setattr(
        database_module, "MIGRATIONS", {**MIGRATIONS, SCHEMA_VERSION: _mark_deck_names}
    )

    database = Database(path)

    assert read_header(path).schema_version == later
    names = [row[0] for row in sqlite3.connect(path).execute("SELECT name FROM deck")]
    assert names
    assert all(name.endswith(" (upgraded)") for name in names)
    (backup,) = (path.parent / "backups").glob("*before-upgrade-from-schema-1.sqlite3")
    assert read_header(backup).schema_version == 1
    out = io.StringIO()
    review_log.export_reviews(database, out)
    assert out.getvalue() == FIXTURE_REVIEWS.read_text()
    database.close()


def _broken_step(connection: Connection) -> None:
    connection.exec_driver_sql("ALTER TABLE review ADD COLUMN note TEXT")
    raise RuntimeError("step failed halfway")


def test_a_failed_upgrade_leaves_the_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy_fixture(tmp_path)
    later = SCHEMA_VERSION + 1
    monkeypatch.setattr(database_module, "SCHEMA_VERSION", later)
    steps = {**MIGRATIONS, SCHEMA_VERSION: _broken_step}
    monkeypatch.setattr(database_module, "MIGRATIONS", steps)
    with pytest.raises(RuntimeError, match="halfway"):
        Database(path)
    assert read_header(path).schema_version == 1
    columns = {row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(review)")}
    assert "note" not in columns


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path)
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match="made by a newer Recall"):
        Database(path)
    assert path.read_bytes() == before


def test_schema_4_gains_an_empty_proposed_rating_and_new_reviews_fill_it(
    tmp_path: Path,
) -> None:
    path = copy_fixture(tmp_path, DATA / "schema-4.sqlite3")
    database = Database(path)
    connection = sqlite3.connect(path)
    try:
        before = connection.execute(
            "SELECT count(*), count(proposed_rating) FROM review"
        ).fetchone()
    finally:
        connection.close()
    assert before[0] > 100
    assert before[1] == 0  # older reviews never recorded it
    schedulers = Schedulers(fuzz=True)
    session = StudySession(database, schedulers, "activation-recompute")
    shown = session.next_card(AFTER_FIXTURE)
    assert shown is not None
    answer = session.answer_choice(shown, {shown.order[0]}, AFTER_FIXTURE)
    session.record(answer, Rating.EASY, AFTER_FIXTURE)
    connection = sqlite3.connect(path)
    try:
        latest = connection.execute(
            "SELECT rating, proposed_rating FROM review ORDER BY id DESC LIMIT 1"
        ).fetchone()
    finally:
        connection.close()
    assert latest == (int(Rating.EASY), int(answer.proposed))
    opening.upgrade_schedules(database, AFTER_FIXTURE)  # as opening the library does
    assert integrity.check(database, schedulers, AFTER_FIXTURE).healthy
    database.close()


def _code(path: Path) -> set[tuple[str, str]]:
    connection = sqlite3.connect(path)
    try:
        return {
            (name, " ".join(sql.split()))
            for name, sql in connection.execute(
                "SELECT name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger') "
                "AND sql IS NOT NULL"
            )
        }
    finally:
        connection.close()


def test_schema_8_upgraded_has_the_indexes_and_triggers_of_a_new_database(
    tmp_path: Path,
) -> None:
    upgraded = Database(copy_fixture(tmp_path, DATA / "schema-8.sqlite3"))
    fresh = Database(tmp_path / "fresh.sqlite3")
    upgraded.close()
    fresh.close()
    made = _code(fresh.path)
    assert {name for name, _ in made} >= {"ix_review_reviewed_at", "replay_review_added"}
    assert _code(upgraded.path) == made
    # The first check after the upgrade replays every card, then trusts its notes.
    again = Database(upgraded.path)
    try:
        opening.upgrade_schedules(again, AFTER_FIXTURE)  # as opening the library does
        first = integrity.check(again, Schedulers(), AFTER_FIXTURE)
        assert first.healthy, first.problems
        assert first.replayed == first.cards > 0
        assert integrity.check(again, Schedulers(), AFTER_FIXTURE).replayed == 0
    finally:
        again.close()


def _table_columns(path: Path, table: str) -> list[tuple[str, str, int, int]]:
    connection = sqlite3.connect(path)
    try:
        return [
            (name, kind, not_null, primary)
            for _cid, name, kind, not_null, _default, primary in connection.execute(
                f"PRAGMA table_info({table})"
            )
        ]
    finally:
        connection.close()


def test_schema_12_upgraded_gains_the_empty_table_of_wanted_media(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, DATA / "schema-12.sqlite3")
    before = sqlite3.connect(path)
    tables = {row[0] for row in before.execute("SELECT name FROM sqlite_schema")}
    counts = {
        table: before.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in ("card", "review", "deck", "sync_entity")
    }
    before.close()
    assert "sync_media_wanted" not in tables

    upgraded = Database(path)
    fresh = Database(tmp_path / "fresh.sqlite3")
    upgraded.close()
    fresh.close()

    assert read_header(path).schema_version == SCHEMA_VERSION
    assert _table_columns(path, "sync_media_wanted") == _table_columns(
        fresh.path, "sync_media_wanted"
    )
    after = sqlite3.connect(path)
    try:
        assert after.execute("SELECT count(*) FROM sync_media_wanted").fetchone()[0] == 0
        # Additive: nothing already stored changed.
        assert {
            table: after.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in counts
        } == counts
    finally:
        after.close()
    reopened = Database(path)
    try:
        with reopened.transaction() as transaction:
            transaction.sql.run(
                "INSERT INTO sync_media_wanted (name, deck_key, card_key) VALUES (?, ?, ?)",
                ("a" * 64 + ".png", "tiny", "q1"),
            )
        opening.upgrade_schedules(reopened, AFTER_FIXTURE)  # as opening the library does
        report = integrity.check(reopened, Schedulers(fuzz=True), AFTER_FIXTURE)
        assert report.healthy, report.problems
    finally:
        reopened.close()


def test_schema_15_upgraded_gains_an_empty_exam_date_that_sync_notes(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, DATA / "schema-15.sqlite3")
    upgraded = Database(path)
    fresh = Database(tmp_path / "fresh.sqlite3")
    upgraded.close()
    fresh.close()
    assert read_header(path).schema_version == SCHEMA_VERSION
    assert _table_columns(path, "deck") == _table_columns(fresh.path, "deck")
    assert _code(path) == _code(fresh.path)
    reopened = Database(path)
    try:
        with reopened.transaction() as transaction:
            assert transaction.decks.exam_dates() == {}
            deck_id = next(iter(transaction.decks.keys()))
            before = transaction.sql.value("SELECT count(*) FROM sync_outbox WHERE kind = 'deck'")
            transaction.decks.set_exam_date(deck_id, date(2027, 1, 15), AFTER_FIXTURE)
            after = transaction.sql.value("SELECT count(*) FROM sync_outbox WHERE kind = 'deck'")
        assert after == before + 1  # the next sync round sends the deck's new exam date
        with reopened.reading() as reading:
            assert reading.decks.exam_dates() == {deck_id: date(2027, 1, 15)}
    finally:
        reopened.close()


def test_schema_16_upgraded_gains_the_empty_table_of_anki_note_types(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, DATA / "schema-16.sqlite3")
    upgraded = Database(path)
    fresh = Database(tmp_path / "fresh.sqlite3")
    upgraded.close()
    fresh.close()
    assert read_header(path).schema_version == SCHEMA_VERSION
    assert _table_columns(path, "anki_note_type") == _table_columns(fresh.path, "anki_note_type")
    assert _code(path) == _code(fresh.path)
    reopened = Database(path)
    try:
        with reopened.transaction() as transaction:
            assert transaction.note_types.stored_keys() == []
            assert transaction.note_types.missing() == []  # no card stored before names one
            assert transaction.note_types.add("a" * 64, "{}")
            assert not transaction.note_types.add("a" * 64, "{}")  # a key is kept once
        report = integrity.check(reopened, Schedulers(fuzz=True), AFTER_FIXTURE)
        assert report.healthy, report.problems
    finally:
        reopened.close()
