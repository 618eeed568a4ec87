"""Backups: thinning rules, snapshots of a live database, restore with a safety copy."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall import backups, library
from recall.scheduling import Scheduler
from recall.settings import Settings
from recall.storage import SCHEMA_VERSION, Database, contents, read_header
from tests.conftest import DATA, Clock, answer_cards

NOW = datetime(2026, 6, 30, 12, 0, tzinfo=UTC)


def test_thinning_keeps_recent_all_then_daily_weekly_monthly() -> None:
    hourly = [NOW - timedelta(hours=hours) for hours in range(0, 24 * 400, 6)]
    kept = backups.to_keep(hourly, NOW)
    recent = {moment for moment in hourly if NOW - moment < timedelta(days=2)}
    assert recent <= kept
    daily = [NOW - m for m in kept if timedelta(days=2) <= NOW - m < timedelta(days=14)]
    assert sorted(age.days for age in daily) == list(range(2, 14))
    weekly = [NOW - m for m in kept if timedelta(days=14) <= NOW - m < timedelta(days=84)]
    assert sorted((age.days - 14) // 7 for age in weekly) == list(range(10))
    monthly = [NOW - m for m in kept if timedelta(days=84) <= NOW - m < timedelta(days=354)]
    assert sorted((age.days - 84) // 30 for age in monthly) == list(range(9))
    assert len(kept) == len(recent) + 12 + 10 + 9


def test_thinning_keeps_the_newest_of_each_day_of_age() -> None:
    times = [NOW - timedelta(days=4, hours=hours) for hours in (21, 22, 23)]
    assert backups.to_keep(times, NOW) == {NOW - timedelta(days=4, hours=21)}


def test_backup_is_a_self_contained_snapshot(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 3, Settings(fuzz=False))
    path = backups.make_backup(bundled, clock())
    assert path.parent == bundled.path.parent / "backups"
    assert not Path(f"{path}-wal").exists()
    assert contents(path).reviews == 3
    (listed,) = backups.list_backups(path.parent)
    assert (listed.path, listed.cards, listed.reviews) == (path, 8, 3)
    assert listed.made_at == clock()


def test_changes_are_detected_for_automatic_backups(bundled: Database, clock: Clock) -> None:
    assert backups.changed_since_last_backup(bundled)
    backups.make_backup(bundled, clock())
    assert not backups.changed_since_last_backup(bundled)
    answer_cards(bundled, clock, 1, Settings(fuzz=False))
    assert backups.changed_since_last_backup(bundled)


def test_restore_saves_the_current_database_first(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 2, Settings(fuzz=False))
    early = backups.make_backup(bundled, clock.advance(minutes=1))
    answer_cards(bundled, clock, 3, Settings(fuzz=False))

    report = backups.restore(
        bundled, early, Scheduler(Settings(fuzz=False)), clock.advance(minutes=1)
    )

    assert report.check.healthy
    assert contents(report.safety_copy).reviews == 5
    assert contents(bundled.path).reviews == 2
    with bundled.transaction() as tx:
        assert len(list(tx.history.all())) == 2
    # The restored database keeps working: answer again.
    answer_cards(bundled, clock, 1, Settings(fuzz=False))
    assert contents(bundled.path).reviews == 3


def test_restoring_something_that_is_not_a_backup_changes_nothing(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    answer_cards(bundled, clock, 2, Settings(fuzz=False))
    bogus = tmp_path / "notes.sqlite3"
    connection = sqlite3.connect(bogus)
    connection.execute("CREATE TABLE notes (text TEXT)")
    connection.commit()
    connection.close()
    with pytest.raises(backups.BackupError, match="not a Recall database"):
        backups.restore(bundled, bogus, Scheduler(Settings()), clock())
    assert contents(bundled.path).reviews == 2


def test_thin_deletes_old_backups(bundled: Database, clock: Clock) -> None:
    folder = backups.backup_folder(bundled)
    old = backups.make_backup(bundled, clock() - timedelta(days=400))
    recent = backups.make_backup(bundled, clock())
    assert not old.exists()
    assert recent.exists()
    library.install_bundled_decks(bundled, clock())
    assert [b.path for b in backups.list_backups(folder)] == [recent]


def test_a_backup_from_an_older_recall_is_restored_and_upgraded(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    old = tmp_path / "recall-20260301-080000.sqlite3"
    old.write_bytes((DATA / "schema-1.sqlite3").read_bytes())
    clock.now = datetime(2026, 4, 1, tzinfo=UTC)  # after the fixture's last review
    report = backups.restore(bundled, old, Scheduler(Settings(fuzz=True)), clock())
    assert report.check.healthy, report.check.problems
    assert read_header(bundled.path).schema_version == SCHEMA_VERSION
    assert contents(bundled.path).reviews == contents(old).reviews > 100
    answer_cards(bundled, clock, 1, Settings(fuzz=False))  # and it keeps working
    assert contents(bundled.path).reviews == contents(old).reviews + 1


def test_a_backup_from_a_newer_recall_is_refused(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    newer = backups.make_backup(bundled, clock())
    connection = sqlite3.connect(newer)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(backups.BackupError, match="made by a newer Recall"):
        backups.restore(bundled, newer, Scheduler(Settings()), clock())
    assert read_header(bundled.path).schema_version == SCHEMA_VERSION
