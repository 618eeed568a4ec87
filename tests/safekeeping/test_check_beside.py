"""SQLite's own check runs on a thread beside the replay: its findings come first, and it
never outlives ``check``."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, IntegrityCheck, integrity_problems
from tests.conftest import Clock, answer_cards


def _checks_alive() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "sqlite-check"]


def _misdeclare_an_index(path: Path) -> None:
    """Make an index's entries no longer match its declared columns: only SQLite's full
    integrity check can tell."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA writable_schema = ON")
        connection.execute(
            "UPDATE sqlite_schema SET sql = replace(sql, '(state, due,', '(due, state,') "
            "WHERE name = 'ix_card_memory_state_due'"
        )
        connection.commit()
    finally:
        connection.close()


def test_sqlite_findings_come_before_the_replays_and_the_thread_ends(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 6)
    bundled.close()
    connection = sqlite3.connect(bundled.path)
    connection.execute(
        "UPDATE card_memory SET stability = stability * 2 WHERE card_id = "
        "(SELECT min(card_id) FROM review)"
    )
    connection.commit()
    connection.close()
    _misdeclare_an_index(bundled.path)
    database = Database(bundled.path)
    try:
        quick = integrity.check(database, Schedulers(), clock())
        full = integrity.check(database, Schedulers(), clock(), full=True)
    finally:
        database.close()
    assert not any(problem.startswith("SQLite") for problem in quick.problems), quick.problems
    sqlite_found = integrity_problems(bundled.path, full=True)
    assert sqlite_found
    assert sqlite_found[0].startswith("SQLite integrity check: ")
    assert full.problems[: len(sqlite_found)] == sqlite_found
    assert full.stale
    assert any("differs from its history" in p for p in full.problems)
    assert full.problems[len(sqlite_found) :] == quick.problems
    assert _checks_alive() == []


def test_the_thread_finds_what_the_call_finds(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 4)
    bundled.close()
    _misdeclare_an_index(bundled.path)
    for full in (True, False):
        beside = IntegrityCheck(bundled.path, full=full)
        assert beside.problems() == integrity_problems(bundled.path, full=full)
    not_a_database = bundled.path.with_name("other.sqlite3")
    not_a_database.write_bytes(b"not a database at all" * 100)
    found = IntegrityCheck(not_a_database).problems()
    assert found == integrity_problems(not_a_database)
    assert found[0].startswith("the file cannot be read as a database")


def test_a_stopped_check_ends_its_thread(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 4)
    beside = IntegrityCheck(bundled.path)
    beside.stop()
    assert _checks_alive() == []
    beside.stop()  # stopping twice, or after the end, is harmless
