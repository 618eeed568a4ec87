"""A large batch of schedules, updated with the check's note trigger lifted, leaves the
cards noted as the trigger would: the next check replays every one of them, and the file's
triggers are as they were, after a batch that succeeded or one that failed."""

from __future__ import annotations

import dataclasses
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.core.memory import CardState, MemoryState
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, NewCard, bulk_rows
from recall.storage import cards as cards_module
from recall.storage.failures import StorageError
from recall.storage.schema import schema_problems
from recall.storage.sql import StatementError
from tests.conftest import Clock, answer_cards
from tests.helpers.sync_devices import Device, large_history

_FALLBACK = datetime(2026, 1, 1, tzinfo=UTC)
_TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"


def _verified(database: Database, clock: Clock) -> list[tuple[object, ...]]:
    """The bundled deck studied and checked in full (every note forgotten); its triggers."""
    answer_cards(database, clock, 10)
    assert integrity.check(database, Schedulers(), clock()).healthy
    assert integrity.check(database, Schedulers(), clock()).replayed == 0
    with database.reading() as transaction:
        return transaction.sql.rows(_TRIGGERS)


def _off_by_a_day(database: Database, card_ids: list[int]) -> list[tuple[int, MemoryState]]:
    """Each card's schedule as learnt, due a day after the replay puts it."""
    with database.reading() as transaction:
        out = []
        for card_id in card_ids:
            memory = transaction.cards.get(card_id).memory
            last = memory.last_review or _FALLBACK
            due = (memory.due or last) + timedelta(days=1)
            learnt = MemoryState(
                CardState.REVIEW, None, memory.stability or 2.0, memory.difficulty or 5.0, due, last
            )
            out.append((card_id, learnt))
        return out


def _healthy_schema(database: Database, triggers: list[tuple[object, ...]]) -> None:
    with database.reading() as transaction:
        assert transaction.sql.rows(_TRIGGERS) == triggers
    connection = sqlite3.connect(database.path)
    try:
        assert schema_problems(connection) == []
    finally:
        connection.close()


@pytest.mark.parametrize("batched_from", [1, 10**9], ids=["batched", "by-trigger"])
def test_every_card_a_batch_rescheduled_is_replayed_by_the_next_check(
    bundled: Database, clock: Clock, monkeypatch: pytest.MonkeyPatch, batched_from: int
) -> None:
    triggers = _verified(bundled, clock)
    monkeypatch.setattr(cards_module, "SCHEDULES_BATCHED_FROM", batched_from)
    # Twice the same card, and an id no card has.
    changed = _off_by_a_day(bundled, [2, 5, 5, 7])
    with bundled.transaction() as transaction:
        transaction.cards.set_memories([*changed, (9_999, changed[0][1])])
    _healthy_schema(bundled, triggers)
    report = integrity.check(bundled, Schedulers(), clock())
    assert report.replayed == 3
    assert sorted(report.stale) == [2, 5, 7]
    assert sorted(integrity.check(bundled, Schedulers(), clock(), full=True).stale) == [2, 5, 7]


def test_a_batch_inside_an_imports_lifted_triggers_notes_old_cards_and_new(
    bundled: Database, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As an import with history does: cards added with the insert triggers lifted, then
    schedules set for those and for cards already there, in the same block."""
    triggers = _verified(bundled, clock)
    monkeypatch.setattr(cards_module, "SCHEDULES_BATCHED_FROM", 2)
    old = _off_by_a_day(bundled, [1, 4])
    content = '{"id": "n%d", "question": "Q%d", "choices": [{"text": "a", "correct": true}]}'
    with bundled.transaction() as transaction:
        deck = transaction.decks.add("more", "More", "", clock())
        with bulk_rows.triggers_lifted(transaction.sql):
            first = int(transaction.sql.value("SELECT max(id) FROM card")) + 1
            transaction.cards.add(
                deck.id,
                [NewCard(f"n{i}", i, "choice", content % (i, i), seed=1000 + i) for i in range(3)],
                clock(),
            )
            new_ids = [first, first + 1, first + 2]
            new = [(card_id, old[0][1]) for card_id in new_ids]
            transaction.cards.set_memories([*old, *new])
    _healthy_schema(bundled, triggers)
    report = integrity.check(bundled, Schedulers(), clock())
    assert sorted(report.stale) == sorted([1, 4, *new_ids])
    assert report.replayed == 5


def test_a_batch_that_fails_midway_rolls_back_and_the_trigger_notes_again(
    bundled: Database, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    triggers = _verified(bundled, clock)
    monkeypatch.setattr(cards_module, "SCHEDULES_BATCHED_FROM", 2)
    changed = _off_by_a_day(bundled, [2, 3, 6])
    # The third row cannot be bound: SQLite has updated the first two when it fails.
    broken = (6, dataclasses.replace(changed[2][1], step=[1]))  # type: ignore[arg-type]
    with pytest.raises(StorageError), bundled.transaction() as transaction:
        transaction.cards.set_memories([changed[0], changed[1], broken])
    _healthy_schema(bundled, triggers)
    with bundled.reading() as transaction:
        assert transaction.verification.changed() == {}
    assert integrity.check(bundled, Schedulers(), clock()).healthy
    # The trigger is back: one schedule set on its own is noted by it.
    with bundled.transaction() as transaction:
        transaction.cards.set_memories([changed[1]])
    assert sorted(integrity.check(bundled, Schedulers(), clock()).stale) == [3]


def test_a_failed_batch_in_a_transaction_that_goes_on_leaves_nothing_unnoted(
    bundled: Database, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caller that catches the failure and commits what else it wrote: the rows SQLite
    updated before the failing one are in the file, and must be noted."""
    triggers = _verified(bundled, clock)
    monkeypatch.setattr(cards_module, "SCHEDULES_BATCHED_FROM", 2)
    changed = _off_by_a_day(bundled, [2, 3, 6])
    broken = (6, dataclasses.replace(changed[2][1], step=[1]))  # type: ignore[arg-type]
    with bundled.transaction() as transaction:
        with pytest.raises(StatementError):
            transaction.cards.set_memories([changed[0], changed[1], broken])
        assert transaction.sql.value(_TRIGGERS.replace("name, sql", "count(*)")) == len(triggers)
    with bundled.reading() as transaction:
        updated = [transaction.cards.get(card).memory for card in (2, 3)]
    assert updated == [changed[0][1], changed[1][1]]  # SQLite kept the rows before the failure
    assert sorted(integrity.check(bundled, Schedulers(), clock()).stale) == [2, 3]


def test_a_real_batch_of_a_thousand_schedules_is_noted(tmp_path: Path, clock: Clock) -> None:
    database = Database(tmp_path / "data" / "recall.sqlite3")
    try:
        content = '{"id": "c%d", "question": "Q%d", "choices": [{"text": "a", "correct": true}]}'
        count = bulk_rows.SCHEDULES_BATCHED_FROM + 5
        with database.transaction() as transaction:
            deck = transaction.decks.add("big", "Big", "", clock())
            transaction.cards.add(
                deck.id,
                [NewCard(f"c{i}", i, "choice", content % (i, i), seed=i + 1) for i in range(count)],
                clock(),
            )
            triggers = transaction.sql.rows(_TRIGGERS)
        assert integrity.check(database, Schedulers(), clock()).healthy
        with database.reading() as transaction:
            assert transaction.verification.changed() == {}
        learnt = MemoryState(CardState.REVIEW, None, 3.5, 5.0, clock() + timedelta(days=3), clock())
        with database.transaction() as transaction:
            transaction.cards.set_memories([(card, learnt) for card in range(1, count + 1)])
        _healthy_schema(database, triggers)
        report = integrity.check(database, Schedulers(), clock())
        assert report.replayed == count
        assert sorted(report.stale) == list(range(1, count + 1))
    finally:
        database.close()


def test_a_sync_merging_a_thousand_schedules_leaves_the_check_healthy(
    tmp_path: Path, clock: Clock
) -> None:
    """The deck's cards arrive first and are checked; their answers then arrive, and the
    merge replays more than a thousand schedules in one batch."""
    shared = tmp_path / "shared"
    shared.mkdir()
    count = bulk_rows.SCHEDULES_BATCHED_FROM + 50
    large_history(shared, count, clock())
    answers = shared / "Recall" / ("a" * 32)
    aside = tmp_path / "answers"
    answers.rename(aside)
    desk = Device(tmp_path, "desk", shared)
    try:
        desk.sync(clock())
        with desk.database.reading() as transaction:
            triggers = transaction.sql.rows(_TRIGGERS)
            assert transaction.cards.count() == count
        assert desk.healthy(clock()) == []
        with desk.database.reading() as transaction:
            assert transaction.verification.changed() == {}
            before = transaction.sql.rows("SELECT card_id, due FROM card_memory")
        aside.rename(answers)
        desk.sync(clock())
        with desk.database.reading() as transaction:
            after = transaction.sql.rows("SELECT card_id, due FROM card_memory")
            rescheduled = {card for card, due in set(after) - set(before)}
            assert len(rescheduled) == count
            assert rescheduled <= set(transaction.verification.changed())
        _healthy_schema(desk.database, triggers)
        report = integrity.check(desk.database, desk.schedulers, clock())
        assert report.healthy, report.problems
        assert report.replayed >= count
        assert integrity.check(desk.database, desk.schedulers, clock(), full=True).healthy
    finally:
        desk.close()
