"""Recall's SQLite database: the only package that talks to SQLModel and SQLAlchemy."""

from __future__ import annotations

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

__all__ = [
    "SCHEMA_VERSION",
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
