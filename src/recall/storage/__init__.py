"""Recall's SQLite database: the only package that talks to SQLModel and SQLAlchemy."""

from __future__ import annotations

from recall.storage.database import Database, traces_of_database
from recall.storage.failures import (
    DamagedDatabaseError,
    DatabaseError,
    MissingDatabaseError,
    NewerDatabaseError,
    StorageError,
    is_unusable,
)
from recall.storage.maintenance import (
    Contents,
    contents,
    copy_database,
    fingerprint,
    integrity_problems,
    read_header,
    restore_into,
)
from recall.storage.migrations import SCHEMA_VERSION
from recall.storage.records import CardRow, DeckCounts, DeckRow, NewCard, ReviewRow
from recall.storage.store import Store

__all__ = [
    "SCHEMA_VERSION",
    "CardRow",
    "Contents",
    "DamagedDatabaseError",
    "Database",
    "DatabaseError",
    "DeckCounts",
    "DeckRow",
    "MissingDatabaseError",
    "NewCard",
    "NewerDatabaseError",
    "ReviewRow",
    "StorageError",
    "Store",
    "contents",
    "copy_database",
    "fingerprint",
    "integrity_problems",
    "is_unusable",
    "read_header",
    "restore_into",
    "traces_of_database",
]
