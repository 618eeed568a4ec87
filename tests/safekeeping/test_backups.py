"""Backups: thinning rules, snapshots of a live database, restore with a safety copy."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.safekeeping import backups
from recall.scheduling import Schedulers
from recall.storage import SCHEMA_VERSION, Database, contents, read_header
from tests.conftest import DATA, Clock, answer_cards

NOW = datetime(2026, 6, 30, 12, 0, tzinfo=UTC)


def thinned_daily(days: int, start: datetime, per_day: int = 1) -> tuple[datetime, set[datetime]]:
    """Back up ``per_day`` times a day for ``days`` days, thinning after each backup."""
    kept: set[datetime] = set()
    now = start
    for step in range(days * per_day):
        now = start + timedelta(days=step / per_day)
        kept = backups.to_keep(kept | {now}, now)
    return now, kept


def test_thinning_keeps_recent_all_then_daily_weekly_monthly() -> None:
    now, kept = thinned_daily(400, NOW - timedelta(days=400), per_day=4)
    ages = sorted(now - moment for moment in kept)
    assert [age for age in ages if age < timedelta(days=2)] == [
        timedelta(hours=6 * n) for n in range(8)
    ]
    older = ages[backups.KEEP_NEWEST :]  # the 10 newest are kept whatever their age
    daily = [now - age for age in older if age < timedelta(days=14)]
    assert len({moment.date() for moment in daily}) == len(daily) >= 11
    weekly = [now - age for age in older if timedelta(days=14) <= age < timedelta(days=84)]
    assert len({moment.isocalendar()[:2] for moment in weekly}) == len(weekly) >= 9
    monthly = [now - age for age in older if timedelta(days=84) <= age]
    assert len({(moment.year, moment.month) for moment in monthly}) == len(monthly) >= 8
    assert max(ages) < timedelta(days=14 + 70 + 9 * 31)
    assert len(kept) <= 45


def test_thinning_keeps_the_newest_of_each_day_of_age() -> None:
    recent = [NOW - timedelta(hours=hours) for hours in range(0, 48, 4)]
    times = [NOW - timedelta(days=3, hours=hours) for hours in (1, 2, 3)]
    assert backups.to_keep(recent + times, NOW) == {*recent, NOW - timedelta(days=3, hours=1)}


@pytest.mark.parametrize("jump", [timedelta(days=365), -timedelta(days=365)])
def test_a_clock_a_year_off_deletes_no_earlier_backup(jump: timedelta) -> None:
    now, kept = thinned_daily(60, NOW - timedelta(days=60), per_day=2)
    wrong = now + jump
    after = set(kept)
    for step in range(48):  # a day of backups every 30 minutes with the wrong clock
        moment = wrong + timedelta(minutes=30 * step)
        after = backups.to_keep(after | {moment}, moment)
    # No bucket is emptied: every week and month keeps a backup, and every day keeps its
    # newest backup until it would have aged out of the daily ones anyway (the jump counts
    # as at most two days).
    before = {m for m in after if m <= now}
    assert {m.isocalendar()[:2] for m in kept} <= {m.isocalendar()[:2] for m in before}
    assert {m.month for m in kept} <= {m.month for m in before}
    assert {m.date() for m in kept if now - m < timedelta(days=11)} <= {m.date() for m in before}
    assert wrong + timedelta(minutes=30 * 47) in after  # the newest is kept too
    # Once the clock is right again, the next backup deletes no day the jump left either.
    later = backups.to_keep(after | {now + timedelta(hours=1)}, now + timedelta(hours=1))
    assert {m.date() for m in before} <= {m.date() for m in later}


def test_backup_is_a_self_contained_snapshot(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 3, fuzz=False)
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
    answer_cards(bundled, clock, 1, fuzz=False)
    assert backups.changed_since_last_backup(bundled)


def test_restore_saves_the_current_database_first(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 2, fuzz=False)
    early = backups.make_backup(bundled, clock.advance(minutes=1))
    answer_cards(bundled, clock, 3, fuzz=False)

    report = backups.restore(bundled, early, Schedulers(fuzz=False), clock.advance(minutes=1))

    assert report.check.healthy
    assert contents(report.safety_copy).reviews == 5
    assert contents(bundled.path).reviews == 2
    with bundled.transaction() as tx:
        assert len(list(tx.history.all())) == 2
    # The restored database keeps working: answer again.
    answer_cards(bundled, clock, 1, fuzz=False)
    assert contents(bundled.path).reviews == 3


def test_restoring_something_that_is_not_a_backup_changes_nothing(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    answer_cards(bundled, clock, 2, fuzz=False)
    bogus = tmp_path / "notes.sqlite3"
    connection = sqlite3.connect(bogus)
    connection.execute("CREATE TABLE notes (text TEXT)")
    connection.commit()
    connection.close()
    with pytest.raises(backups.BackupError, match="not one of Recall's; nothing was changed"):
        backups.restore(bundled, bogus, Schedulers(), clock())
    assert contents(bundled.path).reviews == 2


def test_thin_deletes_files_the_rules_do_not_keep(bundled: Database, clock: Clock) -> None:
    folder = backups.backup_folder(bundled)
    made = [backups.make_backup(bundled, clock.advance(hours=8)) for _ in range(3 * 8)]
    kept = {backup.path for backup in backups.list_backups(folder)}
    assert made[-1] in kept
    assert set(made[-backups.KEEP_NEWEST :]) <= kept
    assert len(kept) < len(made)  # older days keep only their newest backup
    deleted = [path for path in made if path not in kept]
    assert deleted
    assert not any(path.exists() for path in deleted)


def test_a_year_without_backups_ages_the_older_ones_by_two_days_only(
    bundled: Database, clock: Clock
) -> None:
    folder = backups.backup_folder(bundled)
    made = [backups.make_backup(bundled, clock.advance(hours=6)) for _ in range(20)]
    backups.make_backup(bundled, clock.advance(days=365))
    left = [path for path in made if path.exists()]
    assert made[-(backups.KEEP_NEWEST - 1) :] == left[-(backups.KEEP_NEWEST - 1) :]
    # Every day before the gap keeps its newest backup.
    made_days = {backups._time_of(path.name).date() for path in made}  # type: ignore[union-attr]
    kept_days = {backup.made_at.date() for backup in backups.list_backups(folder)}
    assert made_days | {clock().date()} == kept_days


def test_a_backup_from_an_older_recall_is_restored_and_upgraded(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    old = tmp_path / "recall-20260301-080000.sqlite3"
    old.write_bytes((DATA / "schema-1.sqlite3").read_bytes())
    clock.now = datetime(2026, 4, 1, tzinfo=UTC)  # after the fixture's last review
    report = backups.restore(bundled, old, Schedulers(fuzz=True), clock())
    assert report.check.healthy, report.check.problems
    assert read_header(bundled.path).schema_version == SCHEMA_VERSION
    assert contents(bundled.path).reviews == contents(old).reviews > 100
    answer_cards(bundled, clock, 1, fuzz=False)  # and it keeps working
    assert contents(bundled.path).reviews == contents(old).reviews + 1


def test_a_backup_from_a_newer_recall_is_refused(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    newer = backups.make_backup(bundled, clock())
    connection = sqlite3.connect(newer)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(backups.BackupError, match="made by a newer Recall"):
        backups.restore(bundled, newer, Schedulers(), clock())
    assert read_header(bundled.path).schema_version == SCHEMA_VERSION


def _refused_unchanged(
    bundled: Database,
    clock: Clock,
    tmp_path: Path,
    pages: Callable[[Path], list[int]],
    refused: str,
) -> None:
    """A backup of three answers with the first 64 bytes of ``pages`` (numbered from 1,
    given the backup) overwritten is refused with ``refused``, and nothing is written."""
    answer_cards(bundled, clock, 3)
    backup = backups.make_backup(bundled, clock.advance(minutes=1))
    damaged = tmp_path / "recall-20260101-000000.sqlite3"
    data = bytearray(backup.read_bytes())
    size = int.from_bytes(data[16:18], "big")  # the header's page size
    for number in pages(backup):
        start = (number - 1) * size
        data[start : start + 64] = b"\xff" * 64
    damaged.write_bytes(bytes(data))
    folder = backups.backup_folder(bundled)
    made = sorted(folder.iterdir())
    live = bundled.path.read_bytes()

    with pytest.raises(backups.BackupError, match=refused):
        backups.restore(bundled, damaged, Schedulers(), clock.advance(minutes=1))

    assert sorted(folder.iterdir()) == made  # not even the before-restore backup
    assert bundled.path.read_bytes() == live
    assert contents(bundled.path).reviews == 3


def _index_root(backup: Path) -> list[int]:
    """A page of an index that opening the file never reads (only SQLite's check does): the
    last page of the file was one, until the layout moved and opening met it first."""
    connection = sqlite3.connect(backup)
    (root,) = connection.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'ix_set_aside_review_card_id'"
    ).fetchone()
    connection.close()
    return [int(root)]


def _all_but_the_first(backup: Path) -> list[int]:
    size = int.from_bytes(backup.read_bytes()[16:18], "big")
    return list(range(2, backup.stat().st_size // size + 1))


def test_a_damaged_backup_is_refused_before_anything_is_written(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    _refused_unchanged(
        bundled,
        clock,
        tmp_path,
        _index_root,
        r"(?s)is damaged: SQLite quick check.*nothing was changed",
    )


def test_a_backup_damaged_where_opening_reads_is_refused_before_anything_is_written(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    _refused_unchanged(
        bundled, clock, tmp_path, _all_but_the_first, r"(?s)damaged.*nothing was changed"
    )
