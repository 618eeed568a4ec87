"""Every history is read through one covering index by card, with no sort and no row look-up."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from recall.storage import Database
from recall.storage.follow_ups import ENTRIES_OF
from recall.storage.history import EVERY_HISTORY
from recall.storage.rows import FOLLOW_UP_ENTRIES
from tests.conftest import DATA, Clock, answer_cards
from tests.storage.test_migrations import copy_fixture


def _plan(path: Path, sql: str) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return [row[3] for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}")]
    finally:
        connection.close()


def _indexes(path: Path) -> dict[str, str]:
    connection = sqlite3.connect(path)
    try:
        return dict(
            connection.execute(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'review' "
                "AND sql IS NOT NULL"
            ).fetchall()
        )
    finally:
        connection.close()


def test_every_history_is_one_walk_of_the_covering_index(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 5)
    plan = _plan(bundled.path, EVERY_HISTORY)
    assert plan == ["SCAN review USING COVERING INDEX ix_review_card_history"], plan


def test_the_covering_index_reads_the_histories_in_replay_order(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 5)
    clock.advance(days=3)
    answer_cards(bundled, clock, 5)
    connection = sqlite3.connect(bundled.path)
    try:
        walked = connection.execute(EVERY_HISTORY).fetchall()
        # The same rows, sorted by SQLite from the table itself without any index.
        sorted_rows = connection.execute(
            "SELECT card_id, reviewed_at, rating, kind, set_due, set_stability, set_difficulty "
            "FROM review NOT INDEXED "
            "ORDER BY card_id, reviewed_at, uid"
        ).fetchall()
    finally:
        connection.close()
    assert len(walked) == 10
    assert walked == sorted_rows


def test_schema_13_upgraded_trades_the_index_by_card_and_time_for_the_covering_one(
    tmp_path: Path,
) -> None:
    path = copy_fixture(tmp_path, DATA / "schema-13.sqlite3")
    assert "ix_review_card_time" in _indexes(path)
    before = sqlite3.connect(path)
    # Schema 13 had no memory entries: their stability and difficulty read as none.
    older = EVERY_HISTORY.replace("review.set_stability", "NULL").replace(
        "review.set_difficulty", "NULL"
    )
    rows = before.execute(older.replace("uid", "id")).fetchall()
    before.close()

    Database(path).close()
    fresh = Database(tmp_path / "fresh.sqlite3")
    fresh.close()

    upgraded = _indexes(path)
    assert "ix_review_card_time" not in upgraded
    assert upgraded == _indexes(fresh.path)
    assert _plan(path, EVERY_HISTORY) == ["SCAN review USING COVERING INDEX ix_review_card_history"]
    after = sqlite3.connect(path)
    assert after.execute(EVERY_HISTORY).fetchall() == rows
    after.close()


def test_the_entries_follow_ups_are_made_from_are_one_search_of_their_index(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    """On a new database and on one upgraded from schema 16: the follow-ups' read of some
    cards' entries searches the partial index that holds them alone, never the table."""
    answer_cards(bundled, clock, 5)
    old = tmp_path / "old"
    old.mkdir()
    upgraded = Database(copy_fixture(old, DATA / "schema-16.sqlite3"))
    upgraded.close()
    query = ENTRIES_OF.format(marks="1, 2, 3")
    for path in (bundled.path, upgraded.path):
        plan = _plan(path, query)
        assert plan == [
            "SEARCH review USING COVERING INDEX ix_review_follow_up_entries (card_id=?)"
        ], plan
    assert (
        _indexes(upgraded.path)["ix_review_follow_up_entries"]
        == (_indexes(bundled.path)["ix_review_follow_up_entries"])
    )


def test_the_follow_up_index_holds_exactly_follow_up_answers_and_wrong_picks(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 30)
    connection = sqlite3.connect(bundled.path)
    try:
        indexed = connection.execute(
            "SELECT id FROM review INDEXED BY ix_review_follow_up_entries "
            f"WHERE card_id > 0 AND ({FOLLOW_UP_ENTRIES}) ORDER BY id"
        ).fetchall()
        every = connection.execute(
            "SELECT id, kind, correct, picked FROM review NOT INDEXED ORDER BY id"
        ).fetchall()
    finally:
        connection.close()
    expected = [
        (row_id,)
        for row_id, kind, correct, picked in every
        if kind == 5 or (kind in (0, 3) and not correct and picked is not None)
    ]
    assert 0 < len(expected) < len(every)
    assert indexed == expected
