"""Recall's SQLite database: the only package that talks to SQLModel and SQLAlchemy."""

from __future__ import annotations

import sqlite3

from recall.storage.database import (
    DamagedDatabaseError,
    Database,
    DatabaseError,
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
from recall.storage.records import (
    CardKey,
    CardRow,
    DeckCounts,
    DeckRow,
    NewCard,
    NewReview,
    ReviewRow,
)
from recall.storage.transaction import Transaction

SQLITE_VERSION = sqlite3.sqlite_version
"""The version of the SQLite library Recall runs on."""

__all__ = [
    "SCHEMA_VERSION",
    "SQLITE_VERSION",
    "CardKey",
    "CardRow",
    "Contents",
    "DamagedDatabaseError",
    "Database",
    "DatabaseError",
    "DeckCounts",
    "DeckRow",
    "NewCard",
    "NewReview",
    "NewerDatabaseError",
    "ReviewRow",
    "StorageError",
    "Transaction",
    "contents",
    "copy_database",
    "fingerprint",
    "integrity_problems",
    "is_unusable",
    "read_header",
    "restore_into",
]
