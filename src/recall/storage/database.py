"""Opening the database: file checks, connection pragmas, schema creation, transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from recall.errors import RecallError
from recall.storage import maintenance
from recall.storage.migrations import MIGRATIONS, SCHEMA_VERSION
from recall.storage.sql import StatementError
from recall.storage.transaction import Transaction

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

APPLICATION_ID = maintenance.APPLICATION_ID
BUSY_TIMEOUT_MS = 10_000
Synchronous = Literal["FULL", "NORMAL"]

_APPEND_ONLY_TRIGGER = """
CREATE TRIGGER review_append_only BEFORE UPDATE ON review
BEGIN
    SELECT RAISE(ABORT, 'reviews are append-only');
END
"""


class DatabaseError(RecallError):
    """The database file cannot be used: not Recall's, from a newer Recall, or unreadable."""


class NewerDatabaseError(DatabaseError):
    """The file comes from a newer Recall; it is left untouched."""


class StorageError(RecallError):
    """A write or read failed for a reason outside Recall: a full disk, a read-only folder,
    another program holding the database, a damaged file. Nothing was changed."""


class DamagedDatabaseError(StorageError):
    """SQLite found the file damaged while reading or writing it."""


def is_unusable(error: BaseException) -> bool:
    """Whether ``error`` means the file itself is broken or foreign, so a backup can replace it.

    A database from a newer Recall is not unusable: it is refused, and kept as it is.
    """
    if isinstance(error, NewerDatabaseError):
        return False
    return isinstance(error, DatabaseError | DamagedDatabaseError)


class Database:
    """One Recall database file; hands out a ``Transaction`` per unit of work."""

    def __init__(
        self,
        path: Path,
        synchronous: Synchronous = "FULL",
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        """Open (creating if needed, upgrading if older) the database at ``path``.

        Args:
            path: The database file.
            synchronous: SQLite's ``synchronous`` setting. FULL (the default) makes every
                committed transaction survive a power cut, not only a crash of Recall.
            busy_timeout_ms: How long to wait for another program holding the database
                before giving up with "in use".

        Raises:
            DatabaseError: The file exists but is not a Recall database, or a newer
                Recall made it, or it cannot be opened.
        """
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise DatabaseError(f"cannot create the data folder {path.parent}: {error}") from None
        version = _check_file(path)
        self._busy_timeout_ms = busy_timeout_ms
        self._synchronous: Synchronous = synchronous
        self._connections = _Connections(path, synchronous, busy_timeout_ms)
        if version == SCHEMA_VERSION:
            return  # the usual start: no schema work, so SQLAlchemy is never imported
        try:
            if 0 < version < SCHEMA_VERSION:
                self._upgrade(version)
            self._create_schema()
        except sqlite3.Error as error:
            self._connections.close()
            raise storage_error(error, path, busy_timeout_ms) from None

    def bring_up_to_date(self) -> None:
        """Upgrade the file's schema if it is older, as opening does (a restore may need it).

        Raises:
            NewerDatabaseError: The file now holds a newer Recall's schema.
        """
        # Connections opened before the file changed under them may hold its old schema.
        self._connections.close()
        version = _check_file(self.path)
        if 0 < version < SCHEMA_VERSION:
            try:
                self._upgrade(version)
            except sqlite3.Error as error:
                raise storage_error(error, self.path, self._busy_timeout_ms) from None

    def close(self) -> None:
        """Release every connection."""
        self._connections.close()

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """A unit of work whose changes are committed together when the block ends.

        It takes the write lock up front (``BEGIN IMMEDIATE``): a writer waits for another
        process (the busy timeout) instead of failing halfway. Any exception rolls every
        change back, so the database is as it was before.

        Raises:
            StorageError: SQLite could not read or write (disk full, read-only folder,
                database held by another program, damaged file); nothing was changed.
        """
        with self._unit("BEGIN IMMEDIATE") as transaction:
            yield transaction

    @contextmanager
    def reading(self) -> Iterator[Transaction]:
        """A unit of work that only reads: one consistent snapshot, without the write lock.

        In WAL mode it neither waits for a writer nor holds one up. Writing in it fails.

        Raises:
            StorageError: SQLite could not read the file.
        """
        with self._unit("BEGIN") as transaction:
            yield transaction

    @contextmanager
    def _unit(self, begin: str) -> Iterator[Transaction]:
        try:
            connection = self._connections.take()
        except sqlite3.Error as error:
            raise storage_error(error, self.path, self._busy_timeout_ms) from None
        try:
            try:
                connection.execute(begin)
                yield Transaction(connection)
                connection.execute("COMMIT")
            except BaseException as error:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                cause = error.error if isinstance(error, StatementError) else error
                if isinstance(cause, sqlite3.IntegrityError):
                    raise cause from None
                if isinstance(cause, sqlite3.Error):
                    raise storage_error(cause, self.path, self._busy_timeout_ms) from None
                raise
        finally:
            self._connections.give_back(connection)

    def _create_schema(self) -> None:
        from sqlmodel import SQLModel

        from recall.storage import tables  # noqa: F401  (importing it declares the tables)

        engine = self._schema_engine()
        try:
            with engine.begin() as connection:
                version = connection.exec_driver_sql("PRAGMA user_version").scalar_one()
                if version == SCHEMA_VERSION:
                    return
                SQLModel.metadata.create_all(connection)
                connection.exec_driver_sql(_APPEND_ONLY_TRIGGER)
                connection.exec_driver_sql(f"PRAGMA application_id = {APPLICATION_ID}")
                connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
        finally:
            engine.dispose()

    def _upgrade(self, version: int) -> None:
        """Bring an older schema up to date: a backup first, then one transaction."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        backup = (
            self.path.parent
            / maintenance.BACKUP_FOLDER
            / (f"recall-{stamp}-before-upgrade-from-schema-{version}.sqlite3")
        )
        maintenance.copy_database(self.path, backup)
        engine = self._schema_engine()
        try:
            with engine.begin() as connection:
                _apply_migrations(connection, version)
                connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
        finally:
            engine.dispose()

    def _schema_engine(self) -> Engine:
        """SQLAlchemy, for creating the schema from its declaration and for migrations.

        Its errors reach the caller as sqlite3's, like every other query's.
        """
        from sqlalchemy import create_engine, event

        engine = create_engine(f"sqlite:///{self.path}")

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            _configure(dbapi_connection, self._synchronous, self._busy_timeout_ms)

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        @event.listens_for(engine, "handle_error")
        def _on_error(context: Any) -> None:
            if isinstance(context.original_exception, sqlite3.Error):
                raise context.original_exception

        return engine


def _apply_migrations(connection: Connection, version: int) -> None:
    for step in range(version, SCHEMA_VERSION):
        MIGRATIONS[step](connection)


def storage_error(error: BaseException | None, path: Path, busy_timeout_ms: int) -> StorageError:
    """Say in words what SQLite's error means for the learner (the one place that does)."""
    detail = str(error).lower()
    folder = path.parent
    if "locked" in detail or "busy" in detail:
        what = (
            f"the database is in use by another program (waited {busy_timeout_ms / 1000:g} s); "
            "close the other Recall and try again"
        )
    elif "full" in detail:
        what = f"the disk holding {folder} is full; free some space and try again"
    elif "readonly" in detail or "read-only" in detail:
        what = f"the data folder {folder} is read-only; Recall needs to write there"
    elif "malformed" in detail or "not a database" in detail or "corrupt" in detail:
        return DamagedDatabaseError(
            f"the database {path} is damaged; run `recall check`, or restore a backup"
        )
    elif "disk i/o" in detail or "unable to open" in detail:
        what = f"the disk holding {path} could not be read or written ({error})"
    else:
        what = f"the database {path} failed: {error}"
    return StorageError(what)


def _check_file(path: Path) -> int:
    """Refuse, without writing anything, a file that is not a Recall database we can open.

    Returns:
        The file's schema version (0 for a new or empty file).
    """
    if not path.exists() or path.stat().st_size == 0:
        return 0
    try:
        header = maintenance.read_header(path)
    except sqlite3.DatabaseError as error:
        raise DatabaseError(f"{path} is not a Recall database ({error})") from None
    if not header.is_recall:
        raise DatabaseError(f"{path} is an SQLite database, but not one of Recall's")
    if header.schema_version > SCHEMA_VERSION:
        raise NewerDatabaseError(
            f"{path} was made by a newer Recall (schema {header.schema_version}; this Recall "
            f"knows schema {SCHEMA_VERSION}). Update Recall to open it; nothing was changed."
        )
    return header.schema_version


def _configure(connection: sqlite3.Connection, synchronous: str, busy_timeout_ms: int) -> None:
    """What every connection to a Recall database is set to."""
    # Transactions begin where Recall says (BEGIN IMMEDIATE to write, BEGIN to read), not
    # where the sqlite3 module would start them implicitly.
    connection.isolation_level = None
    connection.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute(f"PRAGMA synchronous = {synchronous}")
    connection.execute("PRAGMA foreign_keys = ON")


class _Connections:
    """The database's open connections, reused between units of work on any thread."""

    def __init__(self, path: Path, synchronous: str, busy_timeout_ms: int) -> None:
        self._path = path
        self._synchronous = synchronous
        self._busy_timeout_ms = busy_timeout_ms
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self.hooks: list[Callable[[sqlite3.Connection], None]] = []

    def take(self) -> sqlite3.Connection:
        """An idle connection, or a new one."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
        connection = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            _configure(connection, self._synchronous, self._busy_timeout_ms)
            for hook in self.hooks:
                hook(connection)
        except BaseException:
            connection.close()
            raise
        return connection

    def give_back(self, connection: sqlite3.Connection) -> None:
        """Keep a connection for the next unit of work."""
        with self._lock:
            self._idle.append(connection)

    def close(self) -> None:
        """Close the idle connections; the next unit of work opens a fresh one."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
