"""Opening the database: file checks, connection pragmas, schema creation, transactions."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlmodel import Session, SQLModel

from recall.errors import RecallError
from recall.storage import tables  # noqa: F401  (registers the tables)
from recall.storage.store import Store

SCHEMA_VERSION = 1
APPLICATION_ID = 0x5245434C  # "RECL": marks the file as a Recall database
BUSY_TIMEOUT_MS = 10_000

_APPEND_ONLY_TRIGGER = """
CREATE TRIGGER review_append_only BEFORE UPDATE ON review
BEGIN
    SELECT RAISE(ABORT, 'reviews are append-only');
END
"""


class DatabaseError(RecallError):
    """The database file cannot be used: not Recall's, from a newer Recall, or unreadable."""


class Database:
    """One Recall database file; hand out a ``Store`` per unit of work with ``transaction``."""

    def __init__(self, path: Path) -> None:
        """Open (creating if needed) the database at ``path``.

        Raises:
            DatabaseError: The file exists but is not a Recall database, or a newer
                Recall made it, or it cannot be opened.
        """
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise DatabaseError(f"cannot create the data folder {path.parent}: {error}") from None
        _check_file(path)
        self._engine = _create_engine(path)
        self._create_schema()

    def close(self) -> None:
        """Release every connection."""
        self._engine.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """A store whose changes are committed together when the block ends without error.

        Any exception rolls every change back, so the database is as it was before.
        """
        with Session(self._engine, expire_on_commit=False) as session:
            try:
                yield Store(session)
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def _create_schema(self) -> None:
        with self._engine.begin() as connection:
            version = connection.exec_driver_sql("PRAGMA user_version").scalar_one()
            if version == SCHEMA_VERSION:
                return
            SQLModel.metadata.create_all(connection)
            connection.exec_driver_sql(_APPEND_ONLY_TRIGGER)
            connection.exec_driver_sql(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _check_file(path: Path) -> None:
    """Refuse, without writing anything, a file that is not a Recall database we can open."""
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            application_id = connection.execute("PRAGMA application_id").fetchone()[0]
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            table_count = connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise DatabaseError(f"{path} is not a Recall database ({error})") from None
    if application_id != APPLICATION_ID and (application_id != 0 or table_count > 0):
        raise DatabaseError(f"{path} is an SQLite database, but not one of Recall's")
    if version > SCHEMA_VERSION:
        raise DatabaseError(
            f"{path} was made by a newer Recall (schema {version}; this Recall knows "
            f"schema {SCHEMA_VERSION}). Update Recall to open it; nothing was changed."
        )


def _create_engine(path: Path) -> Engine:
    engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's BEGIN below start transactions instead of the sqlite3
        # module's implicit ones, which it starts late and skips for DDL.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # IMMEDIATE takes the write lock up front: a writer waits (busy_timeout) instead
        # of failing halfway when another process holds the database.
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine
