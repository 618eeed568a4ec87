"""Opening the database: file checks, connection pragmas, schema creation, transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from recall.core.errors import RecallError
from recall.storage import (
    card_index,
    follow_up_summary,
    maintenance,
    pick_counts,
    study_day_schema,
    sync_triggers,
    verification,
)
from recall.storage.failures import (
    DamagedDatabaseError,
    DatabaseError,
    MissingDatabaseError,
    NewerDatabaseError,
    StorageError,
    explain,
    is_statement_fault,
    is_unusable,
)
from recall.storage.migrations import MIGRATIONS, SCHEMA_VERSION
from recall.storage.presence import (
    check_file,
    has_contents,
    traces_of_database,
    write_marker,
)
from recall.storage.schema import APPEND_ONLY_TRIGGER, POSITION_TRIGGER, schema_problems
from recall.storage.sql import StatementError
from recall.storage.transaction import Transaction
from recall.storage.watched import WatchedConnection

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = [
    "DamagedDatabaseError",
    "Database",
    "DatabaseError",
    "MissingDatabaseError",
    "NewerDatabaseError",
    "StorageError",
    "check_file",
    "has_contents",
    "is_unusable",
]

APPLICATION_ID = maintenance.APPLICATION_ID
BUSY_TIMEOUT_MS = maintenance.BUSY_TIMEOUT_MS
Synchronous = Literal["FULL", "NORMAL"]


class Database:
    """One Recall database file; hands out a ``Transaction`` per unit of work."""

    def __init__(
        self,
        path: Path,
        synchronous: Synchronous = "FULL",
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        start_empty: bool = False,
    ) -> None:
        """Open (creating if needed, upgrading if older) the database at ``path``.

        Args:
            path: The database file.
            synchronous: SQLite's ``synchronous`` setting. FULL (the default) makes every
                committed transaction survive a power cut, not only a crash of Recall.
            busy_timeout_ms: How long to wait for another program holding the database
                before giving up with "in use".
            start_empty: Create an empty database even where one existed before (its
                marker, a set-aside damaged file or backups are beside it). Only an explicit
                request from the learner passes True.

        Raises:
            StorageError: The file cannot be opened or written right now (full disk,
                read-only folder, held by another program); nothing was changed.
            DatabaseError: The file is damaged, not a Recall database, from a newer Recall
                (``NewerDatabaseError``), or missing where one existed
                (``MissingDatabaseError``).
        """
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StorageError(f"cannot create the data folder {path.parent}: {error}") from None
        if not start_empty and not has_contents(path):
            traces = traces_of_database(path)
            if traces:
                raise MissingDatabaseError(
                    f"{path} is missing, but a database existed here ({traces[0].name} is "
                    "beside it); Recall will not start an empty one in its place"
                )
        version = check_file(path, busy_timeout_ms)
        self._busy_timeout_ms = busy_timeout_ms
        self._synchronous: Synchronous = synchronous
        self._connections = _Connections(path, synchronous, busy_timeout_ms)
        self._watched: WatchedConnection | None = None
        try:
            if version != SCHEMA_VERSION:
                # Only here is SQLAlchemy imported: an up-to-date file needs no schema work.
                if 0 < version < SCHEMA_VERSION:
                    self._upgrade(version)
                self._create_schema()
            self._verify_schema()
        except sqlite3.Error as error:
            self._connections.close()
            raise storage_error(error, path, busy_timeout_ms) from None
        except BaseException:
            self._connections.close()
            raise
        write_marker(path)

    @property
    def busy_timeout_ms(self) -> int:
        """How long each connection waits for another program holding the database."""
        return self._busy_timeout_ms

    def bring_up_to_date(self) -> None:
        """Start fresh connections and check the file again, as opening does.

        Called after a restore replaced the file's contents: connections opened before may
        hold its old schema.

        Raises:
            NewerDatabaseError: The file now holds a newer Recall's schema.
            DamagedDatabaseError: Its schema is not what this Recall creates.
        """
        self._connections.close()
        if self._watched is not None:
            self._watched.close()
        version = check_file(self.path, self._busy_timeout_ms)
        try:
            if 0 < version < SCHEMA_VERSION:
                self._upgrade(version)
            self._verify_schema()
        except sqlite3.Error as error:
            raise storage_error(error, self.path, self._busy_timeout_ms) from None

    def close(self) -> None:
        """Release every connection."""
        self._connections.close()
        if self._watched is not None:
            self._watched.close()

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """A unit of work whose changes are committed together when the block ends.

        It takes the write lock up front (``BEGIN IMMEDIATE``): a writer waits for another
        process (the busy timeout) instead of failing halfway. Any exception rolls every
        change back, so the database is as it was before.

        Raises:
            StorageError: SQLite could not read or write (disk full, read-only folder,
                database held by another program); nothing was changed.
            DamagedDatabaseError: SQLite found the file damaged.
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

    def watched(self) -> WatchedConnection:
        """The database's watched connection, for a reader that keeps what it read in memory.

        One per database, opened on first use; closing the database (or a restore) closes it.
        """
        if self._watched is None:
            self._watched = WatchedConnection(self._open_connection, self._unit_on)
        return self._watched

    def _open_connection(self) -> sqlite3.Connection:
        try:
            return self._connections.open()
        except sqlite3.Error as error:
            raise storage_error(error, self.path, self._busy_timeout_ms) from None

    @contextmanager
    def _unit(self, begin: str) -> Iterator[Transaction]:
        try:
            connection = self._connections.take()
        except sqlite3.Error as error:
            raise storage_error(error, self.path, self._busy_timeout_ms) from None
        try:
            with self._unit_on(connection, begin) as transaction:
                yield transaction
        finally:
            self._connections.give_back(connection)

    @contextmanager
    def _unit_on(self, connection: sqlite3.Connection, begin: str) -> Iterator[Transaction]:
        """One unit of work on a connection: begun, committed, or rolled back on any error."""
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
            if isinstance(error, StatementError) and is_statement_fault(cause):
                raise error from cause  # the statement is wrong, not the disk: a bug
            if isinstance(cause, sqlite3.Error):
                raise storage_error(cause, self.path, self._busy_timeout_ms) from None
            raise

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
                connection.exec_driver_sql(APPEND_ONLY_TRIGGER)
                connection.exec_driver_sql(POSITION_TRIGGER)
                card_index.create_triggers(connection)
                verification.create(connection, tables=False)
                study_day_schema.create_triggers(connection)
                pick_counts.create_triggers(connection)
                sync_triggers.create_triggers(connection)
                follow_up_summary.create(connection, tables=False)
                connection.exec_driver_sql(f"PRAGMA application_id = {APPLICATION_ID}")
                connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
        finally:
            engine.dispose()

    def _verify_schema(self) -> None:
        connection = self._connections.take()
        try:
            problems = schema_problems(connection)
        finally:
            self._connections.give_back(connection)
        if problems:
            raise _mismatch(self.path, SCHEMA_VERSION, problems)

    def _upgrade(self, version: int) -> None:
        """Bring an older schema up to date: a trial first, then a backup, then one transaction.

        The trial runs every step and checks the result, then rolls back: a file whose tables
        do not match its version stamp is refused without a backup being made for it.
        """
        engine = schema_engine(self.path, self._synchronous, self._busy_timeout_ms)
        try:
            upgrade_file(engine, self.path, version, dry_run=True)
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            backup = (
                self.path.parent
                / maintenance.BACKUP_FOLDER
                / (f"recall-{stamp}-before-upgrade-from-schema-{version}.sqlite3")
            )
            try:
                maintenance.copy_database(self.path, backup)
            except RecallError as error:
                raise StorageError(
                    f"cannot back up the database before upgrading it: {error}"
                ) from None
            upgrade_file(engine, self.path, version)
        finally:
            engine.dispose()

    def _schema_engine(self) -> Engine:
        return schema_engine(self.path, self._synchronous, self._busy_timeout_ms)


def schema_engine(path: Path, synchronous: str, busy_timeout_ms: int) -> Engine:
    """SQLAlchemy, for creating the schema from its declaration and for migrations.

    Its errors reach the caller as sqlite3's, like every other query's.
    """
    from sqlalchemy import create_engine, event

    engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        _configure(dbapi_connection, synchronous, busy_timeout_ms)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    @event.listens_for(engine, "handle_error")
    def _on_error(context: Any) -> None:
        if isinstance(context.original_exception, sqlite3.Error):
            raise context.original_exception

    return engine


class _TrialError(Exception):
    """Rolls a trial upgrade back."""


def upgrade_file(engine: Engine, path: Path, version: int, dry_run: bool = False) -> None:
    """Run every migration from ``version`` in one transaction and check the result.

    Args:
        engine: Connections to the file (``schema_engine``).
        path: The file, for messages.
        version: The schema version the file is stamped with.
        dry_run: Roll back at the end: only find out whether the upgrade would work.

    Raises:
        DamagedDatabaseError: The file's tables do not match its version stamp (a step
            failed, or the result is not this Recall's schema); nothing was changed.
    """
    try:
        with engine.begin() as connection:
            try:
                for step in range(version, SCHEMA_VERSION):
                    MIGRATIONS[step](connection)
            except sqlite3.OperationalError as error:
                if "no such" in str(error) or "duplicate" in str(error):
                    raise _mismatch(path, version, [str(error)]) from None
                raise
            connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
            driver = connection.connection.driver_connection
            assert isinstance(driver, sqlite3.Connection)
            problems = schema_problems(driver)
            if problems:
                raise _mismatch(path, version, problems)
            if dry_run:
                raise _TrialError
    except _TrialError:
        pass


def _mismatch(path: Path, version: int, problems: list[str]) -> DamagedDatabaseError:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return DamagedDatabaseError(
        f"{path} carries Recall's stamp (schema {version}), but its tables are not Recall's: "
        f"{problems[0]}{more}. Another program may have changed it"
    )


def storage_error(
    error: BaseException | None, path: Path, busy_timeout_ms: int
) -> StorageError | DamagedDatabaseError:
    """Say in words what SQLite's error means for the learner (the one place that does)."""
    return explain(error or StorageError("unknown"), path, busy_timeout_ms)


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
        return self.open()

    def open(self) -> sqlite3.Connection:
        """A new connection, configured, that the pool does not hold."""
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
