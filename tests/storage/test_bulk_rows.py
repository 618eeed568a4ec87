"""Rows added with the per-row insert triggers lifted come out as the triggers write them."""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.core.memory import CardState, MemoryState, Rating
from recall.storage import Database, NewCard, NewReview, bulk_rows
from recall.storage import cards as cards_module
from recall.storage.bulk_rows import indexes_lifted, triggers_lifted

NOW = datetime(2026, 2, 1, 8, tzinfo=UTC)
CONTENT = (
    '{"id": "%s", "type": "choice", "question": "Q %s", "tags": ["a", " b ", ""], '
    '"choices": [{"text": "x", "correct": true, "why": "w"}, {"text": "y"}]}'
)
# What differs whatever the path: the outbox's order and SQLite's clock, a random mark.
DUMPS = {
    "card": "SELECT id, key, content, search_text, seed FROM card",
    "card_tag": "SELECT card_id, tag FROM card_tag",
    "card_memory": "SELECT * FROM card_memory",
    "review": "SELECT * FROM review",
    "wrong_pick_count": "SELECT * FROM wrong_pick_count",
    "replay_change": "SELECT card_id FROM replay_change",
    "study_day_state": "SELECT * FROM study_day_state",
    "sync_outbox": "SELECT kind, row_id, detail FROM sync_outbox",
    "triggers": "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'",
}


def _written(path: Path, lifted: bool) -> dict[str, list[tuple[object, ...]]]:
    database = Database(path)
    try:
        with database.transaction() as transaction:
            deck = transaction.decks.add("deck", "Deck", "", NOW)
            first = [NewCard(f"c{i}", i, "choice", CONTENT % (i, i), seed=i + 1) for i in range(3)]
            transaction.cards.add(deck.id, first, NOW)  # before the block, triggers firing
            transaction.history.add_many(
                [NewReview.rated(1, NOW, Rating.AGAIN, 1000, CardState.NEW, ("y",), False)]
            )
            transaction.sql.run("DELETE FROM replay_change")  # as a check verifying them does
        with (
            database.transaction() as transaction,
            triggers_lifted(transaction.sql) if lifted else contextlib.nullcontext(),
        ):
            more = [NewCard(f"d{i}", i, "choice", CONTENT % (i, i), seed=i + 9) for i in range(4)]
            transaction.cards.add(deck.id, more, NOW)
            transaction.history.add_many(
                [
                    NewReview.rated(
                        card_id,
                        NOW + timedelta(hours=hours),
                        rating,
                        2000,
                        CardState.NEW,
                        picked,
                        correct,
                    )
                    for card_id, hours, rating, picked, correct in (
                        (1, 2, Rating.AGAIN, ("y", "y"), False),
                        (2, 3, Rating.GOOD, ("x",), True),
                        (5, 1, Rating.AGAIN, ("y", "x"), False),
                        (5, 9, Rating.HARD, None, None),
                    )
                ]
            )
    finally:
        database.close()
    connection = sqlite3.connect(path)
    try:
        return {
            name: sorted(connection.execute(query).fetchall(), key=repr)
            for name, query in DUMPS.items()
        }
    finally:
        connection.close()


def test_rows_added_with_the_triggers_lifted_are_the_rows_the_triggers_write(
    tmp_path: Path,
) -> None:
    by_rows = _written(tmp_path / "rows.sqlite3", lifted=False)
    lifted = _written(tmp_path / "lifted.sqlite3", lifted=True)
    assert by_rows["wrong_pick_count"]
    assert by_rows["card_tag"]
    assert lifted == by_rows


def test_a_failed_block_leaves_the_triggers_and_rows_as_they_were(tmp_path: Path) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    try:
        with database.reading() as transaction:
            triggers = transaction.sql.rows(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
            )
        try:
            with database.transaction() as transaction, triggers_lifted(transaction.sql):
                deck = transaction.decks.add("deck", "Deck", "", NOW)
                transaction.cards.add(deck.id, [NewCard("c", 0, "choice", CONTENT % (0, 0))], NOW)
                raise RuntimeError("stop")
        except RuntimeError:
            pass
        with database.reading() as transaction:
            assert (
                transaction.sql.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
                == triggers
            )
            assert transaction.sql.value("SELECT count(*) FROM card") == 0
    finally:
        database.close()


def _reviews(
    path: Path, lifted_from: int, monkeypatch: pytest.MonkeyPatch
) -> list[list[sqlite3.Row]]:
    monkeypatch.setattr(bulk_rows, "INDEXES_LIFTED_FROM", lifted_from)
    database = Database(path)
    try:
        with database.transaction() as transaction:
            deck = transaction.decks.add("deck", "Deck", "", NOW)
            cards = [NewCard(f"c{i}", i, "choice", CONTENT % (i, i), seed=i + 1) for i in range(3)]
            transaction.cards.add(deck.id, cards, NOW)
            transaction.history.add_many(
                [
                    NewReview.rated(
                        1 + i % 3, NOW + timedelta(minutes=i), Rating.GOOD, 900, CardState.NEW
                    )
                    for i in range(12)
                ]
            )
    finally:
        database.close()
    connection = sqlite3.connect(path)
    try:
        return [
            connection.execute("SELECT * FROM review ORDER BY id").fetchall(),
            connection.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
            ).fetchall(),
            connection.execute("PRAGMA integrity_check").fetchall(),
        ]
    finally:
        connection.close()


def test_reviews_written_with_the_indexes_built_afterwards_are_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = _reviews(tmp_path / "kept.sqlite3", 10**9, monkeypatch)
    lifted = _reviews(tmp_path / "lifted.sqlite3", 1, monkeypatch)
    assert len(kept[0]) == 12
    assert any(name == "ix_review_uid" for name, _ in kept[1])
    assert lifted == kept


def _two_reviews_one_uid(database: Database) -> None:
    with database.transaction() as transaction:
        deck = transaction.decks.add("deck", "Deck", "", NOW)
        transaction.cards.add(deck.id, [NewCard("c", 0, "choice", CONTENT % (0, 0))], NOW)
        with indexes_lifted(transaction.sql, "review", 10**9):
            for moment in (1, 2):
                transaction.sql.run(
                    "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, "
                    "state_before, correct, kind, uid) VALUES (1, ?, 3, 0, 0, 1, 0, 'u')",
                    (moment,),
                )


def test_a_broken_unique_index_refuses_the_batch_and_restores_the_indexes(
    tmp_path: Path,
) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    try:
        with database.reading() as transaction:
            indexes = transaction.sql.rows(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
            )
        with pytest.raises(sqlite3.IntegrityError, match=r"UNIQUE constraint failed: review\.uid"):
            _two_reviews_one_uid(database)
        with database.reading() as transaction:
            assert (
                transaction.sql.rows(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
                )
                == indexes
            )
            assert transaction.sql.value("SELECT count(*) FROM review") == 0
    finally:
        database.close()


def _schedules_set(path: Path, batched_from: int, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Six cards noted as verified, then four of their schedules set in one batch (one of
    them a card without a schedule), and what ``recall check`` is told to look at again."""
    monkeypatch.setattr(cards_module, "SCHEDULES_BATCHED_FROM", batched_from)
    database = Database(path)
    try:
        with database.transaction() as transaction:
            deck = transaction.decks.add("deck", "Deck", "", NOW)
            cards = [NewCard(f"c{i}", i, "choice", CONTENT % (i, i), seed=i + 1) for i in range(6)]
            transaction.cards.add(deck.id, cards, NOW)
            transaction.sql.run("DELETE FROM card_memory WHERE card_id = 6")
            transaction.sql.run("DELETE FROM replay_change")  # as a check verifying them does
        learnt = MemoryState(CardState.REVIEW, None, 3.5, 5.0, NOW + timedelta(days=3), NOW)
        with database.transaction() as transaction:
            transaction.cards.set_memories([(card, learnt) for card in (2, 4, 5, 6)])
    finally:
        database.close()
    connection = sqlite3.connect(path)
    try:
        return [
            connection.execute("SELECT card_id FROM replay_change ORDER BY card_id").fetchall(),
            connection.execute("SELECT * FROM card_memory ORDER BY card_id").fetchall(),
            connection.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
            ).fetchall(),
        ]
    finally:
        connection.close()


def test_a_large_batch_of_schedules_notes_the_cards_the_trigger_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_trigger = _schedules_set(tmp_path / "trigger.sqlite3", 10**9, monkeypatch)
    batched = _schedules_set(tmp_path / "batched.sqlite3", 1, monkeypatch)
    assert by_trigger[0] == [(2,), (4,), (5,)]
    assert batched == by_trigger


def test_a_failed_batch_of_schedules_restores_the_trigger(tmp_path: Path) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    try:
        with database.reading() as transaction:
            triggers = transaction.sql.rows(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
            )
        with (
            pytest.raises(RuntimeError, match="stop"),
            database.transaction() as transaction,
            bulk_rows.schedule_notes_batched(transaction.sql, [1]),
        ):
            raise RuntimeError("stop")
        with database.reading() as transaction:
            assert (
                transaction.sql.rows(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
                )
                == triggers
            )
    finally:
        database.close()
