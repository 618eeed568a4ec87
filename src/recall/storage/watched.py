"""A connection of its own, which tells whether anyone else changed the database.

SQLite's ``PRAGMA data_version``, read twice on one connection, differs exactly when
another connection committed in between: another connection of this process (the task
runner's, the card browser's, an import's) or of another process (``recall suspend``).
What the connection commits itself leaves it unchanged. So a reader that keeps something
in memory (today's queue) and writes only through this connection knows that what it
keeps is current while the stamp it took stays the stamp of the database; its own commits
are counted here, so two readers sharing the connection still see each other's changes.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace

from recall.storage.transaction import Transaction

Opener = Callable[[], sqlite3.Connection]
UnitRunner = Callable[[sqlite3.Connection, str], AbstractContextManager[Transaction]]


@dataclass(frozen=True, slots=True)
class Stamp:
    """Where the database stood, as the watched connection sees it.

    Attributes:
        opening: Which opening of the connection (a restore reopens it).
        others: ``PRAGMA data_version``: changes when another connection commits.
        own: Commits made through the watched connection.
    """

    opening: int
    others: int
    own: int

    def after_own_commit(self) -> Stamp:
        """The stamp once one more commit through the watched connection succeeded."""
        return replace(self, own=self.own + 1)


class WatchedConnection:
    """One connection of a database, used by one reader at a time; made by ``Database``."""

    def __init__(self, open_connection: Opener, run_unit: UnitRunner) -> None:
        self._open = open_connection
        self._run = run_unit
        self._connection: sqlite3.Connection | None = None
        self._openings = 0
        self._commits = 0
        self._lock = threading.RLock()

    @contextmanager
    def reading(self) -> Iterator[Transaction]:
        """A read transaction on the watched connection (no write lock)."""
        with self._unit("BEGIN") as transaction:
            yield transaction

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """A write transaction (``BEGIN IMMEDIATE``) on the watched connection.

        While it runs no other connection can commit, so a stamp taken in it stays true
        until it commits; the commit is then counted as the connection's own.
        """
        with self._unit("BEGIN IMMEDIATE") as transaction:
            yield transaction
        self._commits += 1

    def stamp(self, transaction: Transaction) -> Stamp:
        """The stamp of the database now, inside a unit of this connection."""
        if transaction.sql.connection is not self._connection:
            raise ValueError("a stamp is taken inside a unit of the watched connection")
        others = int(transaction.sql.value("PRAGMA data_version"))
        return Stamp(opening=self._openings, others=others, own=self._commits)

    def current(self) -> Stamp:
        """The stamp of the database now, read on its own (no unit needed).

        For a reader whose kept values need no further read when the stamp is unchanged.
        """
        with self._lock:
            if self._connection is None:
                # Never opened: no stamp can match, whatever is returned.
                return Stamp(opening=self._openings + 1, others=-1, own=self._commits)
            try:
                row = self._connection.execute("PRAGMA data_version").fetchone()
            except sqlite3.Error:
                return Stamp(opening=self._openings, others=-1, own=self._commits)
            return Stamp(opening=self._openings, others=int(row[0]), own=self._commits)

    def current_if_free(self) -> Stamp | None:
        """``current``, or None at once when another thread is using the connection (a
        long read, or one waiting for a restore to finish writing the file): for a caller
        on the window's thread that can look again later rather than wait."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return self.current()
        finally:
            self._lock.release()

    def close(self) -> None:
        """Close the connection; the next unit opens a fresh one (a new opening)."""
        with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                connection.close()

    @contextmanager
    def _unit(self, begin: str) -> Iterator[Transaction]:
        with self._lock:
            if self._connection is None:
                self._connection = self._open()
                self._openings += 1
            with self._run(self._connection, begin) as transaction:
                yield transaction
