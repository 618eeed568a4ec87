"""The database file: survives reopening, refuses what is not Recall's, keeps reviews."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from recall.collection import deck_list, opening
from recall.core.memory import CardState, Rating
from recall.scheduling import Schedulers
from recall.storage import SCHEMA_VERSION, Database, DatabaseError, NewReview, StorageError
from recall.storage.history import _INSERT, _values
from recall.storage.review_ids import card_keys, free_uid, review_uid
from recall.storage.times import to_micros
from recall.study.session import StudySession
from tests.conftest import Clock


def _answer_all(database: Database, schedulers: Schedulers, clock: Clock) -> int:
    session = StudySession(database, schedulers, "activation-recompute")
    answered = 0
    while (shown := session.next_card(clock())) is not None:
        clock.advance(seconds=7)
        answer = session.answer_choice(shown, {shown.order[0]}, clock())
        session.record(answer, answer.proposed, clock())
        answered += 1
    return answered


def test_reopening_keeps_decks_cards_reviews_and_state(
    tmp_path: Path, schedulers: Schedulers, clock: Clock
) -> None:
    path = tmp_path / "recall.sqlite3"
    first = Database(path)
    opening.install_bundled_decks(first, clock())
    answered = _answer_all(first, schedulers, clock)
    before = deck_list.deck_overviews(first, clock())
    with first.transaction() as tx:
        reviews_before = list(tx.history.all())
        cards_before = tx.cards.of_deck(tx.decks.by_key("activation-recompute").id)  # type: ignore[union-attr]
    first.close()

    second = Database(path)
    assert deck_list.deck_overviews(second, clock()) == before
    with second.transaction() as tx:
        assert list(tx.history.all()) == reviews_before
        deck = tx.decks.by_key("activation-recompute")
        assert deck is not None
        assert tx.cards.of_deck(deck.id) == cards_before
    assert len(reviews_before) == answered >= 8
    second.close()


def test_times_come_back_aware_and_exact(database: Database, clock: Clock) -> None:
    moment = datetime(2026, 1, 15, 9, 0, 0, 123456, tzinfo=clock().tzinfo)
    with database.transaction() as tx:
        deck = tx.decks.add("d", "D", "", moment)
    with database.transaction() as tx:
        deck_again = tx.decks.by_key("d")
    assert deck_again == deck
    connection = sqlite3.connect(database.path)
    (stored,) = connection.execute("SELECT added_at FROM deck").fetchone()
    connection.close()
    assert stored == round(moment.timestamp() * 1_000_000)


def test_naive_time_is_never_stored(database: Database) -> None:
    with pytest.raises(Exception, match="naive"), database.transaction() as tx:
        tx.decks.add("d", "D", "", datetime(2026, 1, 1, 9))
    with database.transaction() as tx:
        assert tx.decks.by_key("d") is None


def test_reviews_cannot_be_rewritten(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    _answer_all(bundled, schedulers, clock)
    connection = sqlite3.connect(bundled.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        connection.execute("UPDATE review SET rating = 4")
    connection.close()


def test_reviews_must_point_at_a_card(database: Database, clock: Clock) -> None:
    with pytest.raises(sqlite3.IntegrityError), database.transaction() as tx:
        tx.history.add(NewReview.rated(999, clock(), Rating.GOOD, 1, CardState.NEW))


def test_pragmas_and_stamps(database: Database) -> None:
    connection = sqlite3.connect(database.path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert connection.execute("PRAGMA application_id").fetchone()[0] == 0x5245434C
    connection.close()


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE notes (body TEXT)")
    connection.commit()
    connection.close()
    with pytest.raises(DatabaseError, match="not one of Recall's"):
        Database(path)


def test_garbage_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "recall.sqlite3"
    path.write_bytes(b"this is not a database, it is a shopping list\n" * 100)
    with pytest.raises(DatabaseError, match="not a Recall database"):
        Database(path)
    assert path.read_bytes().startswith(b"this is not a database")


def test_data_folder_that_cannot_be_created_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError, match="cannot create the data folder"):
        Database(blocker / "sub" / "recall.sqlite3")


def _dump(path: Path) -> dict[str, set[tuple[object, ...]]]:
    """Every table's rows, with the outbox's clock and the replay marks (random) left out."""
    connection = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        dump = {table: set(connection.execute(f'SELECT * FROM "{table}"')) for table in tables}
    finally:
        connection.close()
    dump["sync_outbox"] = {row[:-1] for row in dump["sync_outbox"]}
    dump["replay_change"] = {row[:1] for row in dump["replay_change"]}
    return dump


def test_entries_alike_in_every_key_get_the_ids_a_look_up_first_gave(
    tmp_path: Path, clock: Clock
) -> None:
    """Three wrong answers of one card at one instant with one rating: the second and third
    inserts are turned away by the unique ids and take the next counts, and they change
    the file as when each id was looked up before its insert (the triggers' rows too)."""
    moment = clock()
    changes = []
    for name, look_up_first in (("new", False), ("old", True)):
        database = Database(tmp_path / name / "recall.sqlite3")
        opening.install_bundled_decks(database, moment)
        before = _dump(database.path)
        with database.transaction() as tx:
            deck = tx.decks.by_key("activation-recompute")
            assert deck is not None
            card = tx.cards.of_deck(deck.id)[0]
            review = NewReview.rated(
                card.id, moment, Rating.AGAIN, 5, CardState.NEW, picked=("x",), correct=False
            )
            keys = card_keys(tx.sql, [card.id])[card.id]
            micros = to_micros(moment) or 0
            ids = []
            for _ in range(3):
                if look_up_first:
                    uid = free_uid(tx.sql, keys, micros, 0, int(Rating.AGAIN))
                    ids.append(tx.sql.run(_INSERT, (*_values(review), uid)))
                else:
                    ids.append(tx.history.add(review))
        database.close()
        after = _dump(tmp_path / name / "recall.sqlite3")
        assert {row[-1] for row in after["review"]} == {
            review_uid(*keys, micros, 0, int(Rating.AGAIN), repeat) for repeat in range(3)
        }
        assert set(ids) == {row[0] for row in after["review"]}
        changes.append(
            {table: (rows - before[table], before[table] - rows) for table, rows in after.items()}
        )
    new, old = changes
    assert new == old
    assert new["wrong_pick_count"][0], "the wrong picks were counted"
