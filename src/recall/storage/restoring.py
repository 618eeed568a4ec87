"""Putting a backup in place of the live database without ever risking the live one.

Every restore first copies the chosen file beside the live database (``recall.sqlite3
.restoring``), flushes it to disk, brings it to today's schema and checks it there: its
header, SQLite's quick check and its tables, columns, indexes and triggers. Only a copy
that passed all of that reaches the live file, and then in one step:

- a live database that opens is overwritten through SQLite's backup API in one write
  transaction, which a failure (a full disk, a lock) rolls back;
- a backup of today's schema going into a live database that opens needs no copy beside
  it: it is checked and copied from one read snapshot, the check beside the copy, whose
  transaction commits only once the check has passed (``overwrite_checked``);
- a live database that is really damaged (or missing) is renamed aside, never deleted, and
  the checked copy is renamed into its place.

Nothing here decides whether a file is damaged from a failure that could be passing (a
full disk, a lock, a read-only folder): ``diagnose`` asks the same questions opening does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing, suppress
from pathlib import Path

from recall.core.errors import RecallError
from recall.storage import maintenance
from recall.storage.database import BUSY_TIMEOUT_MS, schema_engine, upgrade_file
from recall.storage.failures import DamagedDatabaseError, MissingDatabaseError, explain
from recall.storage.migrations import SCHEMA_VERSION
from recall.storage.presence import check_file, has_contents
from recall.storage.schema import schema_problems

STAGED_SUFFIX = ".restoring"
_COMPANIONS = ("", "-wal", "-shm")


def stage(source: Path, live: Path) -> Path:
    """Copy ``source`` beside ``live``, bring it to today's schema and check it.

    Returns:
        The checked copy, ready for ``overwrite`` or ``put_in_place``.

    Raises:
        RecallError: ``source`` is not a healthy Recall database (``DatabaseError`` and
            its kinds), or the copy could not be written (``StorageError``). Nothing
            was changed and no copy is left behind.
    """
    version = check_file(source)
    if version == 0:
        raise DamagedDatabaseError(f"{source} is an empty database, not a Recall backup")
    problems = maintenance.integrity_problems(source, full=False)
    if problems:
        raise DamagedDatabaseError(f"{source} is damaged: {problems[0]}")
    staged = live.with_name(live.name + STAGED_SUFFIX)
    _remove(staged)
    try:
        maintenance.copy_database(source, staged)
        if version < SCHEMA_VERSION:
            engine = schema_engine(staged, "FULL", BUSY_TIMEOUT_MS)
            try:
                upgrade_file(engine, source, version)
            finally:
                engine.dispose()
        with closing(sqlite3.connect(staged)) as connection:
            problems = schema_problems(connection)
        if problems:
            raise DamagedDatabaseError(
                f"{source} carries Recall's stamp, but its tables are not Recall's: {problems[0]}"
            )
        maintenance.fsync_file(staged)
    except BaseException:
        _remove(staged)
        raise
    return staged


def overwrite_checked(
    source: Path,
    live: Path,
    before: Callable[[], None],
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> None:
    """Check a backup of today's schema and write it into the live database, unstaged.

    One read transaction on ``source`` holds it still from the check to the copy: its
    schema is checked, then ``before()`` is called (the before-restore backup), then the
    same snapshot is written into the live file through SQLite's backup API in one write
    transaction, which commits only once SQLite's ``quick_check`` (every page, record and
    constraint) and foreign-key check of that snapshot, run beside the copy, found nothing
    (``maintenance.write_checked``). The file is read about twice, where staging it read it
    three times and wrote it once more.

    Args:
        source: The backup.
        live: The database file.
        before: Called before anything is written; when the restore then fails, the live
            file is unchanged and the caller undoes what ``before`` made.
        busy_timeout_ms: How long to wait for another program writing to ``live``.

    Raises:
        DamagedDatabaseError: ``source`` is not a healthy Recall database of today's
            schema; nothing was written (``before`` is not called when its stamp or its
            schema says so, only when SQLite's check does).
        StorageError: The live file could not be written (full disk, held by another
            program); it is exactly as it was.
        RecallError: Whatever ``before`` raised; nothing changed.
    """
    version = check_file(source)
    if version != SCHEMA_VERSION:
        raise DamagedDatabaseError(f"{source} is schema {version}, not {SCHEMA_VERSION}")
    with maintenance.read_snapshot(source) as origin:
        problems = schema_problems(origin)
        if problems:
            raise DamagedDatabaseError(
                f"{source} carries Recall's stamp, but its tables are not Recall's: {problems[0]}"
            )
        before()
        problems = maintenance.write_checked(origin, source, live, busy_timeout_ms)
        if problems:
            raise DamagedDatabaseError(f"{source} is damaged: {problems[0]}")


def is_current(source: Path) -> bool:
    """Whether ``source`` carries Recall's stamp of today's schema (``overwrite_checked``
    can take it); False for anything else, which ``stage`` then explains."""
    try:
        return check_file(source) == SCHEMA_VERSION
    except RecallError:
        return False


def overwrite(staged: Path, live: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
    """Write a staged copy's contents into the live database, in one transaction.

    Args:
        staged: A copy made by ``stage``.
        live: The database file.
        busy_timeout_ms: How long to wait for another program writing to ``live``.

    Raises:
        StorageError: The live file could not be written (full disk, held by another
            program); it is exactly as it was. The staged copy is removed either way.
    """
    try:
        maintenance.restore_into(staged, live, busy_timeout_ms)
    finally:
        _remove(staged)


def put_in_place(staged: Path, live: Path, aside: Path) -> Path | None:
    """Rename a damaged (or missing) live database aside and the staged copy into its place.

    Args:
        staged: A copy made by ``stage``.
        live: The database file.
        aside: Where the damaged file goes (its -wal and -shm files go beside it).

    Returns:
        Where the damaged file now is, or None when there was none.

    Raises:
        StorageError: A rename failed; everything is back where it was.
    """
    moved: list[tuple[Path, Path]] = []
    try:
        for suffix in _COMPANIONS:
            companion = Path(f"{live}{suffix}")
            if companion.exists():
                target = Path(f"{aside}{suffix}")
                companion.replace(target)
                moved.append((target, companion))
        staged.replace(live)
        maintenance.fsync_file(live.parent)
    except OSError as error:
        for target, original in reversed(moved):
            target.replace(original)
        _remove(staged)
        raise explain(error, live) from None
    return aside if moved else None


def diagnose(live: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> RecallError | None:
    """What opening ``live`` would find wrong, reading only; None when it would open.

    Args:
        live: The database file.
        busy_timeout_ms: How long to wait for another program holding it.

    Returns:
        ``MissingDatabaseError`` when there is no file, a ``StorageError`` when it cannot
        be read right now, a ``DatabaseError`` kind when it is damaged or foreign.
    """
    if not has_contents(live):
        return MissingDatabaseError(f"{live} is missing")
    try:
        version = check_file(live, busy_timeout_ms)
    except RecallError as error:
        return error
    if version < SCHEMA_VERSION:
        return None  # opening upgrades it
    try:
        with closing(maintenance.connect_read_only(live, busy_timeout_ms)) as connection:
            problems = schema_problems(connection)
            checked = [row[0] for row in connection.execute("PRAGMA quick_check")]
    except (OSError, sqlite3.Error) as error:
        return explain(error, live)
    if problems:
        return DamagedDatabaseError(f"{live}: {problems[0]}")
    if checked != ["ok"]:
        return DamagedDatabaseError(f"{live} is damaged: {checked[0]}")
    return None


def discard(staged: Path) -> None:
    """Remove a staged copy that will not be used."""
    _remove(staged)


def _remove(staged: Path) -> None:
    for suffix in _COMPANIONS:
        with suppress(OSError):
            Path(f"{staged}{suffix}").unlink(missing_ok=True)
