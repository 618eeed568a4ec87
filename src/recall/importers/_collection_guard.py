"""Bounds on an untrusted Anki collection: only real tables, and SQLite's work capped.

A collection is a SQLite file chosen by whoever made the package. Byte limits and
``trusted_schema=OFF`` do not stop a view that recurses, a trigger, a virtual table or a
computed column from making a plain ``SELECT`` do unbounded work, so those are refused
outright, and every statement runs under a step budget (proportional to the file's size)
that also checks the learner's Cancel, with caps on value sizes and nesting.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from recall.core.i18n import tr
from recall.importers import Cancelled

if TYPE_CHECKING:
    from recall.importers._collection import Collection

# The tables Recall reads; each must be an ordinary table, never a view or a virtual table.
LEGACY_TABLES = ("col", "notes", "cards", "revlog")
CURRENT_TABLES = ("notetypes", "fields", "templates", "decks")
# SQLite's work on an untrusted collection: virtual-machine steps between checks, and the
# steps allowed per byte of the file (plus a floor), far above what reading a real one takes.
STEPS_PER_CHECK = 10_000
STEPS_PER_BYTE = 200
MIN_STEPS = 100_000_000
MAX_VALUE_BYTES = 256 * 1024**2  # one text or blob value, or one row
CACHE_KIB = 16 * 1024


def bound(connection: sqlite3.Connection, size: int, cancelled: Cancelled) -> None:
    """Limit what SQLite may do on this connection: steps, value sizes, nesting, attachments.

    Args:
        connection: The collection's connection, before any statement runs.
        size: The collection file's size in bytes; the step budget grows with it.
        cancelled: Asked every ``STEPS_PER_CHECK`` steps; once true SQLite stops.
    """
    budget = max(MIN_STEPS, size * STEPS_PER_BYTE) // STEPS_PER_CHECK
    spent = 0

    def check() -> int:
        nonlocal spent
        spent += 1
        return 1 if spent > budget or cancelled() else 0

    connection.set_progress_handler(check, STEPS_PER_CHECK)
    connection.create_collation("unicase", _unicase)  # Anki's collation for names
    for limit, value in (
        (sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES),
        (sqlite3.SQLITE_LIMIT_ATTACHED, 0),
        (sqlite3.SQLITE_LIMIT_EXPR_DEPTH, 100),
        (sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, 10),
        (sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH, 1),
    ):
        connection.setlimit(limit, value)


def _unicase(left: str, right: str) -> int:
    a, b = left.casefold(), right.casefold()
    return (a > b) - (a < b)


def check_schema(collection: Collection) -> None:
    """Refuse views, triggers, virtual tables, and generated columns in the tables Recall reads.

    Anki's collections have none; a view or trigger would make a read do work the file
    chooses.

    Raises:
        DeckError: The collection holds one, or lacks a table Recall needs.
    """
    found = collection.rows("SELECT type, name, coalesce(sql, '') FROM sqlite_master")
    for kind, name, sql in found:
        shown = repr(str(name)[:60])
        if kind in ("view", "trigger"):
            raise collection.error(
                (
                    tr(
                        "the collection defines a view ({name}); Anki's collections have none, so "
                        "Recall does not read this file"
                    )
                    if kind == "view"
                    else tr(
                        "the collection defines a trigger ({name}); Anki's collections have none, "
                        "so Recall does not read this file"
                    )
                ).format(name=shown)
            )
        if kind == "table" and str(sql).lstrip().upper().startswith("CREATE VIRTUAL"):
            raise collection.error(
                tr(
                    "the collection defines a virtual table ({name}); Anki's collections have "
                    "none, so Recall does not read this file"
                ).format(name=shown)
            )
    tables = {str(name) for kind, name, _ in found if kind == "table"}
    for name in (*LEGACY_TABLES, *CURRENT_TABLES):
        if name not in tables:
            if name in LEGACY_TABLES:
                raise collection.error(
                    tr("not an Anki collection (it has no {table} table)").format(table=repr(name))
                )
            continue
        for column in collection.rows(f"PRAGMA table_xinfo({name})"):
            if column[-1] not in (0, 1):  # 2 and 3: generated columns
                raise collection.error(
                    tr(
                        "table {table} computes column {column}; Anki's tables compute nothing, so "
                        "Recall does not read this file"
                    ).format(table=repr(name), column=repr(str(column[1])[:40]))
                )
