"""A healthy database is never called damaged: full disks, locks and read-only folders.

Each case runs the real command line on a real file and checks what a learner would see
and that the database is byte for byte as it was, with nothing set aside.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.safekeeping import backups, recovery
from recall.scheduling import Schedulers
from recall.storage import Database, MissingDatabaseError, StorageError, is_unusable
from recall.storage.failures import explain
from tests.conftest import Clock
from tests.helpers.disks import fill, held, read_only, small_disk

DAMAGED_WORDS = ("not a Recall database", "damaged", "newest backup")


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    status = main(["--data-dir", str(data), *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(data: Path) -> list[str]:
    names = [path.name for path in data.iterdir()]
    return [name for name in names if ".damaged-" in name or name.endswith(".restoring")]


def big_deck(tmp_path: Path, cards: int) -> Path:
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "big",
        "name": "Big",
        "cards": [
            {"id": f"c{i}", "type": "basic", "front": f"front {i} " * 20, "back": "b" * 200}
            for i in range(cards)
        ],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(deck), encoding="utf-8")
    return path


def test_a_full_disk_is_called_full_and_nothing_is_set_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "disk" / "data"
    with small_disk(tmp_path / "disk") as mounted:
        if not mounted:  # no tmpfs here: a real SQLITE_FULL from SQLite's page limit
            connection = sqlite3.connect(tmp_path / "limited.sqlite3")
            connection.execute("CREATE TABLE t (x)")
            connection.execute("PRAGMA max_page_count = 2")
            with pytest.raises(sqlite3.Error) as raised:
                connection.execute("INSERT INTO t VALUES (zeroblob(100000))")
            assert "could not grow" in str(explain(raised.value, tmp_path / "limited.sqlite3"))
            assert not is_unusable(explain(raised.value, tmp_path / "limited.sqlite3"))
            return
        assert run(capsys, data, "decks")[0] == 0
        status, out, _ = run(capsys, data, "backup")
        backup = Path(out.strip())
        database = data / "recall.sqlite3"
        before = digest(database)
        filler = fill(tmp_path / "disk")

        for command in (["decks"], ["check"], ["backup"], ["restore", str(backup)]):
            status, _, err = run(capsys, data, *command)
            assert status == 1, command
            assert "is full" in err, (command, err)
            assert not any(words in err for words in DAMAGED_WORDS), (command, err)
        assert digest(database) == before
        assert leftovers(data) == []

        filler.unlink()
        status, out, err = run(capsys, data, "decks")
        assert (status, err) == (0, "")
        assert "activation-recompute" in out


def test_a_restore_that_does_not_fit_leaves_the_database_exactly_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    assert run(capsys, elsewhere, "import", str(big_deck(tmp_path, 4000)))[0] == 0
    status, out, _ = run(capsys, elsewhere, "backup")
    big_backup = Path(out.strip())
    data = tmp_path / "disk" / "data"
    with small_disk(tmp_path / "disk", "2m") as mounted:
        assert run(capsys, data, "decks")[0] == 0
        database = data / "recall.sqlite3"
        before = digest(database)
        if mounted:
            assert big_backup.stat().st_size > 2 * 1024 * 1024
            # Written straight into the live file, the restore fails when the disk is full.
            failure = "is full"
        else:  # no tmpfs here: the copy beside the database fails another real way
            (data / "recall.sqlite3.restoring").mkdir()
            (data / "recall.sqlite3.restoring" / "in-the-way").write_text("x")
            failure = "could not be read or written"

        status, _, err = run(capsys, data, "restore", str(big_backup))
        assert status == 1
        assert failure in err
        if not mounted:
            assert digest(database) == before
            return
        assert "nothing was changed" in err.lower()
        assert digest(database) == before
        assert leftovers(data) == []

        # A really damaged database is not renamed aside until the copy is complete either.
        database.write_bytes(b"\0garbage" * 512)
        Path(f"{database}-wal").unlink(missing_ok=True)
        status, _, err = run(capsys, data, "restore", str(big_backup))
        assert status == 1
        assert "has too little free space" in err
        assert database.read_bytes() == b"\0garbage" * 512
        assert leftovers(data) == []


# How long these tests let SQLite wait for the other process's lock: the wait's length is
# not what they check, and Recall's own (10 s) would only make them slow.
SHORT_WAIT_MS = 200


def open_and_write(path: Path) -> None:
    """Open the database and start a write, as any command that changes it does."""
    database = Database(path, busy_timeout_ms=SHORT_WAIT_MS)
    try:
        with database.transaction():
            pass
    finally:
        database.close()


@pytest.mark.parametrize(
    "statements",
    [
        (
            "BEGIN EXCLUSIVE",
            "INSERT INTO deck (id, key, name, description, added_at, updated_at) "
            "VALUES (99, 'x', 'x', '', 0, 0)",
        ),
        ("PRAGMA journal_mode = DELETE", "BEGIN EXCLUSIVE", "DELETE FROM card"),
        ("PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE", "DELETE FROM card"),
    ],
    ids=["write lock", "exclusive rollback journal", "exclusive locking mode"],
)
def test_a_database_another_process_holds_is_in_use_with_its_pid(
    tmp_path: Path, clock: Clock, statements: tuple[str, ...]
) -> None:
    data = tmp_path / "data"
    database = Database(data / "recall.sqlite3")
    backup = backups.make_backup(database, clock())
    database.close()
    with held(data / "recall.sqlite3", *statements) as holder:
        with pytest.raises(StorageError, match=f"in use by another program .*pid {holder.pid}"):
            open_and_write(data / "recall.sqlite3")
        with pytest.raises(backups.BackupError, match=r"in use|opens normally"):
            backups.replace_damaged(data / "recall.sqlite3", backup, clock(), SHORT_WAIT_MS)
    assert leftovers(data) == []
    reopened = Database(data / "recall.sqlite3")
    with reopened.transaction() as tx:
        assert tx.decks.by_key("x") is None  # the holder's write was never committed
    reopened.close()


def test_restore_while_another_program_holds_the_database_refuses(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert run(capsys, data, "decks")[0] == 0
    backup = Path(run(capsys, data, "backup")[1].strip())
    made = sorted((data / "backups").iterdir())
    with held(data / "recall.sqlite3", "PRAGMA journal_mode = DELETE", "BEGIN EXCLUSIVE"):
        before = digest(data / "recall.sqlite3")  # as the other program left it
        status, _out, err = run(capsys, data, "--lock-wait", "0.2", "restore", str(backup))
    assert status == 1
    assert "in use by another program" in err
    assert "waited 0.2 s" in err  # the wait the command line asked for
    assert not any(words in err for words in DAMAGED_WORDS), err
    assert digest(data / "recall.sqlite3") == before
    assert sorted((data / "backups").iterdir()) == made  # no half-made restore
    assert leftovers(data) == []


def test_a_read_only_folder_is_called_read_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert run(capsys, data, "decks")[0] == 0
    backup = Path(run(capsys, data, "backup")[1].strip())
    before = digest(data / "recall.sqlite3")
    with read_only(data):
        for command in (["decks"], ["check"], ["restore", str(backup)]):
            status, _, err = run(capsys, data, *command)
            assert status == 1, command
            assert "read-only" in err, (command, err)
            assert not any(words in err for words in DAMAGED_WORDS), (command, err)
    assert digest(data / "recall.sqlite3") == before
    assert leftovers(data) == []


def test_a_missing_database_is_never_silently_recreated(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert run(capsys, data, "decks")[0] == 0
    backup = Path(run(capsys, data, "backup")[1].strip())
    for companion in ("", "-wal", "-shm"):
        Path(f"{data / 'recall.sqlite3'}{companion}").unlink(missing_ok=True)

    status, _, err = run(capsys, data, "decks")
    assert status == 1
    assert "missing" in err
    assert f"recall restore {backup}" in err
    assert "recall restore --empty" in err
    assert not (data / "recall.sqlite3").exists()
    with pytest.raises(MissingDatabaseError):
        Database(data / "recall.sqlite3")

    status, out, _ = run(capsys, data, "restore", str(backup))
    assert status == 0, out
    assert "restored" in out
    assert run(capsys, data, "decks")[0] == 0


def test_the_marker_alone_stops_an_empty_database_and_restore_empty_starts_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert run(capsys, data, "decks")[0] == 0  # no backups yet: only the marker records it
    for companion in ("", "-wal", "-shm"):
        Path(f"{data / 'recall.sqlite3'}{companion}").unlink(missing_ok=True)
    status, _, err = run(capsys, data, "import", str(big_deck(tmp_path, 2)))
    assert status == 1
    assert "recall restore --empty" in err
    status, out, _ = run(capsys, data, "restore", "--empty")
    assert status == 0
    assert "started an empty database" in out
    assert run(capsys, data, "decks")[0] == 0
    status, _, err = run(capsys, data, "restore", "--empty")
    assert status == 1
    assert "is there" in err


def test_every_start_names_a_set_aside_database(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert run(capsys, data, "decks")[0] == 0
    backup = Path(run(capsys, data, "backup")[1].strip())
    (data / "recall.sqlite3").write_bytes(b"\0garbage" * 512)
    Path(f"{data / 'recall.sqlite3'}-wal").unlink(missing_ok=True)
    status, out, _ = run(capsys, data, "restore", str(backup))
    assert status == 0
    (aside,) = recovery.set_aside_files(data)
    assert f"kept as {aside}" in out
    assert aside.read_bytes() == b"\0garbage" * 512
    for command in (["decks"], ["backups"], ["check"]):
        status, _, err = run(capsys, data, *command)
        assert status == 0
        assert f"set aside, not deleted: {aside}" in err
        assert f"recall restore {aside}" in err
    # The set-aside file is restored like any other file, and refused when it is garbage.
    status, _, err = run(capsys, data, "restore", str(aside))
    assert status == 1
    assert "nothing was changed" in err


def test_a_healthy_database_is_never_set_aside(tmp_path: Path, clock: Clock) -> None:
    data = tmp_path / "data"
    database = Database(data / "recall.sqlite3")
    backup = backups.make_backup(database, clock())
    database.close()
    with pytest.raises(backups.BackupError, match="opens normally"):
        backups.replace_damaged(data / "recall.sqlite3", backup, clock())
    assert leftovers(data) == []
    report = recovery.restore_folder(data, backup, Schedulers(), clock())
    assert report.report is not None  # a normal restore, with its before-restore backup
    assert report.report.safety_copy.exists()
    assert leftovers(data) == []


def test_a_restore_blocked_at_the_last_step_leaves_the_database_as_it_was(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    early = backups.make_backup(bundled, clock())
    with bundled.transaction() as transaction:
        transaction.decks.rename(1, "Renamed", "", clock())
    bundled.close()
    database = Database(bundled.path, busy_timeout_ms=SHORT_WAIT_MS)
    # Another program holds the write lock: the staged copy and the before-restore backup
    # can be made (readers are not blocked), but writing into the live file is not.
    with (
        held(database.path, "BEGIN IMMEDIATE"),
        pytest.raises(backups.BackupError, match=r"in use by another program .*waited 0\.2 s"),
    ):
        backups.restore(database, early, Schedulers(), clock())
    with database.reading() as transaction:
        assert transaction.decks.get(1).name == "Renamed"
    database.close()
    assert leftovers(database.path.parent) == []
