"""The driver plumbing every query object shares: one transaction's sqlite3 connection.

Recall's queries are plain SQL on the connection of the transaction they run in: through
the ORM each statement cost about a millisecond of Python (and loading a review as an ORM
object ~35 µs), more than SQLite takes to run it. Errors are turned into words in one
place, ``database.storage_error``; here they only carry the statement that failed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

Row = tuple[Any, ...]


class StatementError(Exception):
    """A statement failed; ``__cause__`` is SQLite's error, ``sql`` the statement."""

    def __init__(self, sql: str, error: sqlite3.Error) -> None:
        super().__init__(f"{error} [{sql.split()[0] if sql.split() else sql}]")
        self.sql = sql
        self.error = error


class Sql:
    """One transaction's connection, as every query object sees it."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """Every row of one statement."""
        try:
            return self.connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            raise StatementError(sql, error) from error

    def each(self, sql: str, parameters: Sequence[Any] = ()) -> Iterator[Row]:
        """The rows of one statement, one at a time (for results too large to list)."""
        try:
            cursor = self.connection.execute(sql, parameters)
            while batch := cursor.fetchmany(4096):
                yield from batch
        except sqlite3.Error as error:
            raise StatementError(sql, error) from error

    def batches(
        self, sql: str, parameters: Sequence[Any] = (), size: int = 10_000
    ) -> Iterator[list[Row]]:
        """The rows of one statement, ``size`` at a time."""
        try:
            cursor = self.connection.execute(sql, parameters)
            while batch := cursor.fetchmany(size):
                yield batch
        except sqlite3.Error as error:
            raise StatementError(sql, error) from error

    def value(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        """The first column of the single row a statement returns (None if no row)."""
        rows = self.rows(sql, parameters)
        return rows[0][0] if rows else None

    def run(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run a statement that writes; returns the last inserted row id (0 if none)."""
        try:
            cursor = self.connection.execute(sql, parameters)
        except sqlite3.Error as error:
            raise StatementError(sql, error) from error
        return cursor.lastrowid or 0

    def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one writing statement for every row, in one batch."""
        try:
            self.connection.executemany(sql, rows)
        except sqlite3.Error as error:
            raise StatementError(sql, error) from error

    def changes(self) -> int:
        """How many rows this connection has changed since it opened."""
        return self.connection.total_changes
