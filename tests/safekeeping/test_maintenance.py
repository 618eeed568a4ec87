"""Whole-file operations say what failed in Recall's storage errors, never sqlite3's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from recall.storage import (
    DamagedDatabaseError,
    Database,
    StorageError,
    contents,
    copy_database,
    fingerprint,
    integrity_problems,
    read_header,
)

READERS: list[Callable[[Path], object]] = [read_header, contents, fingerprint]


@pytest.mark.parametrize("read", READERS)
def test_a_file_that_is_not_a_database_is_damaged(
    read: Callable[[Path], object], tmp_path: Path
) -> None:
    junk = tmp_path / "recall-20260101-000000.sqlite3"
    junk.write_bytes(b"not a database, only text " * 200)
    with pytest.raises(DamagedDatabaseError, match="is damaged or is not a database"):
        read(junk)


@pytest.mark.parametrize("read", READERS)
def test_a_missing_file_cannot_be_read_right_now(
    read: Callable[[Path], object], tmp_path: Path
) -> None:
    with pytest.raises(StorageError, match=r"missing\.sqlite3"):
        read(tmp_path / "missing.sqlite3")


@pytest.mark.parametrize("read", READERS)
def test_a_path_the_system_refuses_is_a_storage_error(
    read: Callable[[Path], object], tmp_path: Path
) -> None:
    with pytest.raises(StorageError, match="bad"):
        read(tmp_path / "bad\x00name.sqlite3")


def test_a_bare_value_error_from_sqlite3_is_a_storage_error(
    database: Database, tmp_path: Path
) -> None:
    """Python's sqlite3 answers a NUL in a path it opens with a bare ValueError."""
    with pytest.raises(StorageError, match="null"):
        copy_database(database.path, tmp_path / "bad\x00name.sqlite3")
    assert integrity_problems(tmp_path / "bad\x00name.sqlite3") != []


def test_a_copy_that_cannot_be_written_names_its_target(database: Database, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the backup folder should be")
    target = blocker / "recall-copy.sqlite3"
    with pytest.raises(StorageError, match="not-a-folder"):
        copy_database(database.path, target)
    assert not blocker.with_name("recall-copy.sqlite3.partial").exists()


def test_a_damaged_source_is_not_copied(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database, only text " * 200)
    target = tmp_path / "copy.sqlite3"
    with pytest.raises(DamagedDatabaseError):
        copy_database(junk, target)
    assert not target.exists()
    assert not target.with_name("copy.sqlite3.partial").exists()
