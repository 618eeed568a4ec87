"""Whole-file operations with SQLite's own API: headers, backups, restores, integrity checks.

These work on a path, not through the ORM, because they treat the database as a file:
SQLite's online backup API copies a consistent snapshot while Recall keeps using it.

Nothing of sqlite3 leaves this module: a failure of SQLite, of the disk, or a bare
``ValueError`` (a path SQLite refuses) is raised as the storage error that says it in
words (``failures.explain``), so the callers outside ``storage/`` never import sqlite3.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from recall.host.paths import BACKUP_FOLDER
from recall.storage.failures import explain

APPLICATION_ID = 0x5245434C  # "RECL": marks the file as a Recall database
BUSY_TIMEOUT_MS = 10_000
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6

__all__ = ["BACKUP_FOLDER"]


@contextmanager
def _explained(
    path: Path | Callable[[BaseException], Path], busy_timeout_ms: int | None = None
) -> Iterator[None]:
    """Raise what fails inside as ``StorageError`` or ``DamagedDatabaseError``, in words.

    Args:
        path: The file to name, or a function choosing it from the error.
        busy_timeout_ms: How long SQLite waited for a lock, if it did.
    """
    try:
        yield
    except (sqlite3.Error, OSError, ValueError) as error:
        where = path(error) if callable(path) else path
        raise explain(error, where, busy_timeout_ms) from None


@dataclass(frozen=True)
class Header:
    """What a database file says about itself."""

    is_recall: bool
    schema_version: int
    tables: int


@dataclass(frozen=True)
class Contents:
    """How much a database holds."""

    decks: int
    cards: int
    reviews: int


def read_header(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Header:
    """Read a file's application id and schema version without changing it.

    Raises:
        StorageError: The file could not be read right now.
        DamagedDatabaseError: The file is not an SQLite database.
    """
    with (
        _explained(path, busy_timeout_ms),
        closing(connect_read_only(path, busy_timeout_ms)) as connection,
    ):
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
    recall = application_id == APPLICATION_ID or (application_id == 0 and tables == 0)
    return Header(is_recall=recall, schema_version=version, tables=tables)


def contents(path: Path) -> Contents:
    """Count a database's decks, cards and reviews, reading only.

    Raises:
        StorageError: The file could not be read (or is not there).
        DamagedDatabaseError: The file is damaged or not a database.
    """
    with _explained(path), closing(connect_read_only(path)) as connection:
        decks, cards, reviews = connection.execute(
            "SELECT (SELECT count(*) FROM deck), (SELECT count(*) FROM card), "
            "(SELECT count(*) FROM review)"
        ).fetchone()
    return Contents(decks=decks, cards=cards, reviews=reviews)


def fingerprint(path: Path) -> tuple[int, ...]:
    """Numbers that change whenever a deck, card or review is added, changed or removed.

    Raises:
        StorageError: The file could not be read (or is not there).
        DamagedDatabaseError: The file is damaged or not a database.
    """
    with _explained(path), closing(connect_read_only(path)) as connection:
        row = connection.execute(
            "SELECT (SELECT count(*) FROM deck), (SELECT coalesce(max(updated_at), 0) FROM deck),"
            " (SELECT count(*) FROM card), (SELECT coalesce(max(updated_at), 0) FROM card),"
            " (SELECT count(*) FROM review), (SELECT coalesce(max(id), 0) FROM review)"
        ).fetchone()
    return tuple(int(value) for value in row)


def copy_database(source: Path, target: Path) -> None:
    """Snapshot ``source`` into a new self-contained file ``target`` (no -wal file).

    The copy is written beside the target and renamed over it once complete and flushed
    to disk, so a crash never leaves half a backup under the final name.

    Raises:
        StorageError: The copy could not be written (named by the target), or the source
            is held by another program (named by the source); no partial file is left.
        DamagedDatabaseError: The source is damaged.
    """
    with _explained(lambda error: source if _is_lock(error) else target):
        _copy(source, target)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        with closing(sqlite3.connect(source)) as origin, closing(sqlite3.connect(partial)) as copy:
            origin.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            origin.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")
        fsync_file(partial)
        partial.replace(target)
        fsync_file(target.parent)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def restore_into(source: Path, target: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
    """Replace the contents of the live database ``target`` with those of ``source``.

    Goes through SQLite's backup API on the live file in one step, which is one write
    transaction: connections that stay open see the restored data, and a failure part way
    (a full disk) rolls back, leaving the live database as it was. Check ``source`` first.

    Raises:
        StorageError: SQLite could not write the live file (a full disk, a lock held by
            another program for longer than ``busy_timeout_ms``); it is unchanged.
    """
    with (
        _explained(target, busy_timeout_ms),
        closing(connect_read_only(source)) as origin,
        closing(sqlite3.connect(target)) as live,
    ):
        live.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        origin.backup(live, progress=_give_up_when_busy)


def _give_up_when_busy(status: int, _remaining: int, _total: int) -> None:
    # The busy handler has already waited the busy timeout for this step: without this,
    # Python's backup() would retry a locked database for ever.
    if status in (_SQLITE_BUSY, _SQLITE_LOCKED):
        error = sqlite3.OperationalError("database is locked")
        error.sqlite_errorcode = status
        error.sqlite_errorname = "SQLITE_BUSY"
        raise error


@contextmanager
def read_snapshot(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to ``path`` inside one read transaction: what it reads and
    copies is one snapshot, whatever another program writes meanwhile.

    Raises:
        StorageError: ``path`` could not be read (SQLite's failures while the block reads
            it are explained the same way, naming ``path``).
    """
    with _explained(path), closing(connect_read_only(path)) as connection:
        connection.execute("BEGIN")
        try:
            yield connection
        finally:
            connection.rollback()


def snapshot_problems(connection: sqlite3.Connection) -> list[str]:
    """What SQLite's ``quick_check`` and foreign-key check find on an open connection."""
    return _problems(connection, full=False)


def write_into(
    origin: sqlite3.Connection, target: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> None:
    """``restore_into`` from an open connection (a ``read_snapshot``).

    Raises:
        StorageError: SQLite could not write the live file (a full disk, a lock held by
            another program for longer than ``busy_timeout_ms``); it is unchanged.
    """
    with _explained(target, busy_timeout_ms), closing(sqlite3.connect(target)) as live:
        live.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        origin.backup(live, progress=_give_up_when_busy)


# Pages copied per step of a restore while SQLite checks the same snapshot beside it (16 MiB
# of 4 KiB pages): the last step, which commits the copy, waits for the check.
RESTORE_STEP_PAGES = 4096


class _RefusedError(Exception):
    """The check beside a restore's copy found the source damaged: roll the copy back."""


def write_checked(
    origin: sqlite3.Connection,
    source: Path,
    target: Path,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    step_pages: int | None = None,
) -> list[str]:
    """``snapshot_problems`` of ``origin``'s snapshot, then ``write_into`` if it finds none.

    On a file in rollback-journal mode (every backup Recall makes) the check runs on a
    thread and connection of its own while the copy is written, so the two take about the
    longer of their times instead of the sum: ``origin``'s read transaction keeps any writer
    from committing to ``source`` meanwhile, so both read the same snapshot, and the copy's
    last step, which would commit it, waits for the check. When the check finds a problem,
    the copy's one write transaction is rolled back unfinished and ``target`` is as it was.
    A file in WAL mode (whose writers a reader does not hold back), or one of at most two
    steps, is checked first and then copied.

    Args:
        origin: A ``read_snapshot`` of ``source``.
        source: The file ``origin`` reads.
        target: The live database.
        busy_timeout_ms: How long to wait for another program writing to ``target``.
        step_pages: Pages copied per step (``RESTORE_STEP_PAGES`` when not given).

    Returns:
        What the check found; when it found anything, nothing was written.

    Raises:
        StorageError: SQLite could not write the live file (a full disk, a lock held by
            another program for longer than ``busy_timeout_ms``), or the check could not
            read ``source``; the live file is unchanged.
    """
    step = RESTORE_STEP_PAGES if step_pages is None else step_pages
    (pages,) = origin.execute("PRAGMA page_count").fetchone()
    (mode,) = origin.execute("PRAGMA journal_mode").fetchone()
    if str(mode).lower() == "wal" or pages <= 2 * step:
        problems = snapshot_problems(origin)
        if not problems:
            write_into(origin, target, busy_timeout_ms)
        return problems
    check = IntegrityCheck(source, full=False)
    found: list[str] = []

    def progress(status: int, remaining: int, total: int) -> None:
        _give_up_when_busy(status, remaining, total)
        if 0 < remaining <= step:  # the next step copies the rest and commits
            found.extend(check.problems())
            if found:
                raise _RefusedError

    try:
        with _explained(target, busy_timeout_ms), closing(sqlite3.connect(target)) as live:
            live.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
            origin.backup(live, pages=step, progress=progress)
    except _RefusedError:
        pass
    finally:
        check.stop()  # at once when it has finished; else interrupted (the copy failed)
    return found


def integrity_problems(path: Path, full: bool = True) -> list[str]:
    """What SQLite's integrity and foreign-key checks find, in words; empty when healthy.

    Args:
        path: The database file.
        full: SQLite's ``integrity_check``; False runs its ``quick_check``, which checks
            every page, record and constraint but not that each index matches its table
            (about a sixth of the time on a million reviews).

    Raises:
        StorageError: The file could not be read right now (a lock, an I/O error).
    """
    try:
        with closing(_checking_connection(path, full)) as connection:
            return _problems(connection, full)
    except sqlite3.DatabaseError as error:
        return [f"the file cannot be read as a database ({error})"]
    except (sqlite3.Error, OSError, ValueError) as error:
        raise explain(error, path) from None


# The page cache of the connection that checks a file: ``integrity_check`` seeks every row
# of a table in each of its indexes, in another order than the rows' own, so with SQLite's
# default 2 MiB it reads most pages many times over on a large file (x16 per x10 cards
# measured at a million). Only what is read is allocated; the cap bounds it on a huge file.
_CHECK_CACHE_KIB = 256 * 1024


def _checking_connection(path: Path, full: bool) -> sqlite3.Connection:
    # Made by one thread and used (and interrupted) by another, never by two at once.
    if not path.exists():
        raise sqlite3.DatabaseError(f"no such file: {path}")
    connection = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
    )
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if full:  # ``quick_check`` reads each page once: a larger cache would only fill up
        connection.execute(f"PRAGMA cache_size = -{_CHECK_CACHE_KIB}")
    return connection


def _problems(connection: sqlite3.Connection, full: bool) -> list[str]:
    pragma = "integrity_check" if full else "quick_check"
    rows = [row[0] for row in connection.execute(f"PRAGMA {pragma}")]
    name = pragma.replace("_", " ")
    problems = [] if rows == ["ok"] else [f"SQLite {name}: {row}" for row in rows]
    for table, rowid, parent, _ in connection.execute("PRAGMA foreign_key_check"):
        problems.append(f"{table} row {rowid} points at a missing {parent}")
    return problems


class IntegrityCheck:
    """``integrity_problems`` on a thread of its own, started at once.

    SQLite lets go of Python's lock while it checks, so the check runs beside Python work
    on the same file (``recall check`` replays every card meanwhile) on a second core.

    Args:
        path: The database file.
        full: ``integrity_check`` rather than ``quick_check``.
    """

    def __init__(self, path: Path, full: bool = True) -> None:
        self._path = path
        self._full = full
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._stopped = False
        self._problems: list[str] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="sqlite-check", daemon=True)
        self._thread.start()

    def problems(self) -> list[str]:
        """What the check found, once it has finished (waits for it).

        Raises:
            StorageError: The file could not be read right now (a lock, an I/O error).
        """
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._problems

    def stop(self) -> None:
        """Interrupt the check and wait for its thread to end; its findings are dropped."""
        with self._lock:
            self._stopped = True
            if self._connection is not None:
                self._connection.interrupt()
        self._thread.join()

    def _run(self) -> None:
        try:
            connection = _checking_connection(self._path, self._full)
            try:
                with self._lock:
                    if self._stopped:
                        return
                    self._connection = connection
                self._problems = _problems(connection, self._full)
            finally:
                with self._lock:
                    self._connection = None
                connection.close()
        except sqlite3.DatabaseError as error:
            self._problems = [f"the file cannot be read as a database ({error})"]
        except (sqlite3.Error, OSError, ValueError) as error:
            self._error = explain(error, self._path)
        except BaseException as error:  # a bug: raised where the findings are asked for
            self._error = error


def _is_lock(error: BaseException) -> bool:
    """Whether SQLite gave up waiting for a lock another connection holds."""
    code = getattr(error, "sqlite_errorcode", 0)
    return isinstance(code, int) and code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)


def connect_read_only(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """A read-only connection to an existing file (it is never created)."""
    if not path.exists():
        raise sqlite3.DatabaseError(f"no such file: {path}")
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    connection.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
    return connection


def fsync_file(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
