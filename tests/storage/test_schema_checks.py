"""A file with Recall's stamp but not Recall's tables is refused: when opened, and before a
restore is accepted; a version stamp that lies never costs a backup at every command."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.safekeeping import backups
from recall.scheduling import Schedulers
from recall.storage import DamagedDatabaseError, Database, is_unusable, schema
from tests.conftest import Clock

CHANGES = {
    "a table dropped": "DROP TABLE review",
    "a column dropped": "ALTER TABLE deck DROP COLUMN description",
    "an extra trigger": (
        "CREATE TRIGGER spy AFTER INSERT ON review BEGIN DELETE FROM card_memory; END"
    ),
    "the append-only trigger changed": (
        "DROP TRIGGER review_append_only; CREATE TRIGGER review_append_only BEFORE UPDATE "
        "ON review BEGIN SELECT 1; END"
    ),
    "a view": "CREATE VIEW deck_names AS SELECT name FROM deck",
}


def changed_copy(source: Path, target: Path, change: str) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(target)
    sqlite3.connect(source).backup(connection)
    connection.executescript(change)
    connection.close()
    return target


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_file_that_is_not_recalls_schema_is_refused_when_opened_and_restored(
    bundled: Database, clock: Clock, tmp_path: Path, change: str
) -> None:
    backup = backups.make_backup(bundled, clock())
    odd = changed_copy(backup, tmp_path / "odd" / "recall-20260101-000000.sqlite3", change)

    with pytest.raises(DamagedDatabaseError, match="its tables are not Recall's") as raised:
        Database(odd).close()
    assert is_unusable(raised.value)

    before = hashlib.sha256(bundled.path.read_bytes()).hexdigest()
    with pytest.raises(backups.BackupError, match=r"tables are not Recall's.*nothing was changed"):
        backups.restore(bundled, odd, Schedulers(), clock())
    assert hashlib.sha256(bundled.path.read_bytes()).hexdigest() == before
    assert not list(bundled.path.parent.glob("*.restoring"))


def test_a_version_stamp_that_lies_is_refused_without_a_backup_each_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "decks"]) == 0
    connection = sqlite3.connect(data / "recall.sqlite3")
    connection.execute("PRAGMA user_version = 1")  # the tables are schema 3's
    connection.close()
    capsys.readouterr()
    for _ in range(3):
        assert main(["--data-dir", str(data), "decks"]) == 1
        err = capsys.readouterr().err
        assert "carries Recall's stamp (schema 1), but its tables are not Recall's" in err
    assert not list((data / "backups").glob("*before-upgrade*"))


def test_the_expected_schema_is_what_the_table_definitions_declare() -> None:
    assert schema.declared() == schema.EXPECTED
