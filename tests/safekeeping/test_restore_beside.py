"""A restore writes the backup into the live file while SQLite checks the same snapshot on
another thread: the copy commits only once the check has passed, a check that finds damage
rolls it back, and a backup in WAL mode is checked first and copied after."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import ClassVar

import pytest

from recall.safekeeping import backups
from recall.scheduling import Schedulers
from recall.storage import Database, contents, maintenance
from tests.conftest import Clock, answer_cards

STEP = 4  # pages per step of the copy: the bundled database spans many


class _Recorded(maintenance.IntegrityCheck):
    """SQLite's check of the backup as the restore runs it, noting what the live file held
    at the moment the copy asked for the check's findings."""

    made: ClassVar[list[_Recorded]] = []
    live: Path
    reviews_when_asked: list[int]

    def __init__(self, path: Path, full: bool = True) -> None:
        super().__init__(path, full)
        self.full = full
        self.reviews_when_asked = []
        _Recorded.made.append(self)

    def problems(self) -> list[str]:
        self.reviews_when_asked.append(contents(self.live).reviews)
        return super().problems()


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch, bundled: Database) -> list[_Recorded]:
    monkeypatch.setattr(maintenance, "RESTORE_STEP_PAGES", STEP)
    monkeypatch.setattr(maintenance, "IntegrityCheck", _Recorded)
    monkeypatch.setattr(_Recorded, "made", [])
    monkeypatch.setattr(_Recorded, "live", bundled.path, raising=False)
    return _Recorded.made


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"
            )
        ]
        return {
            table: connection.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall()
            for table in tables
        }
    finally:
        connection.close()


def test_the_copy_beside_the_check_commits_only_after_it_and_holds_the_backup(
    bundled: Database, clock: Clock, checks: list[_Recorded]
) -> None:
    answer_cards(bundled, clock, 2, fuzz=False)
    early = backups.make_backup(bundled, clock.advance(minutes=1))
    answer_cards(bundled, clock, 3, fuzz=False)
    pages = bundled.path.stat().st_size // 4096
    assert pages > 2 * STEP

    report = backups.restore(bundled, early, Schedulers(fuzz=False), clock.advance(minutes=1))

    assert [check.full for check in checks] == [False]  # SQLite's quick check, beside
    assert checks[0].reviews_when_asked == [5]  # nothing committed before its findings
    assert report.check.healthy, report.check.problems
    assert contents(report.safety_copy).reviews == 5
    assert contents(bundled.path).reviews == 2
    assert _rows(bundled.path) == _rows(early)
    answer_cards(bundled, clock, 1, fuzz=False)  # the restored database keeps working
    assert contents(bundled.path).reviews == 3


def test_damage_found_beside_the_copy_rolls_it_back_and_removes_the_before_restore_backup(
    bundled: Database, clock: Clock, tmp_path: Path, checks: list[_Recorded]
) -> None:
    answer_cards(bundled, clock, 3)
    backup = backups.make_backup(bundled, clock.advance(minutes=1))
    damaged = tmp_path / "recall-20260101-000000.sqlite3"
    data = bytearray(backup.read_bytes())
    connection = sqlite3.connect(backup)
    (root,) = connection.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'ix_set_aside_review_card_id'"
    ).fetchone()
    connection.close()
    size = int.from_bytes(data[16:18], "big")
    data[(root - 1) * size : (root - 1) * size + 64] = b"\xff" * 64
    damaged.write_bytes(bytes(data))
    answer_cards(bundled, clock, 1)
    folder = backups.backup_folder(bundled)
    kept = sorted(folder.iterdir())
    live = _rows(bundled.path)
    live_bytes = bundled.path.read_bytes()

    with pytest.raises(
        backups.BackupError, match=r"(?s)is damaged: SQLite quick check.*nothing was changed"
    ):
        backups.restore(bundled, damaged, Schedulers(), clock.advance(minutes=1))

    assert len(checks) == 1
    assert checks[0].reviews_when_asked == [4]
    assert sorted(folder.iterdir()) == kept  # the before-restore backup made is gone again
    assert bundled.path.read_bytes() == live_bytes
    assert _rows(bundled.path) == live
    assert contents(bundled.path).reviews == 4
    assert not any(check._thread.is_alive() for check in checks)


def test_a_backup_in_wal_mode_is_checked_before_it_is_copied(
    bundled: Database, clock: Clock, tmp_path: Path, checks: list[_Recorded]
) -> None:
    answer_cards(bundled, clock, 2, fuzz=False)
    made = backups.make_backup(bundled, clock.advance(minutes=1))
    in_wal = tmp_path / "recall-20260101-000000.sqlite3"
    in_wal.write_bytes(made.read_bytes())
    connection = sqlite3.connect(in_wal)
    assert connection.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
    connection.close()
    answer_cards(bundled, clock, 3, fuzz=False)

    report = backups.restore(bundled, in_wal, Schedulers(fuzz=False), clock.advance(minutes=1))

    # A reader of a file in WAL mode does not hold its writers back, so no second
    # connection could be sure to read the copy's snapshot: the check runs on the copy's.
    assert checks == []
    assert report.check.healthy, report.check.problems
    assert contents(bundled.path).reviews == 2
