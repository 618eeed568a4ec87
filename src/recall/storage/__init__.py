"""Recall's SQLite database: the only package that talks to SQLModel and SQLAlchemy."""

from __future__ import annotations

import sqlite3

from recall.storage.database import BUSY_TIMEOUT_MS, Database
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
    IntegrityCheck,
    contents,
    copy_database,
    fingerprint,
    integrity_problems,
    read_header,
    restore_into,
)
from recall.storage.migrations import SCHEMA_VERSION
from recall.storage.options import OptionQueries, PresetNameError
from recall.storage.presence import traces_of_database
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
from recall.storage.watched import Stamp, WatchedConnection

SQLITE_VERSION = sqlite3.sqlite_version
"""The version of the SQLite library Recall runs on."""

__all__ = [
    "BUSY_TIMEOUT_MS",
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
    "IntegrityCheck",
    "MissingDatabaseError",
    "NewCard",
    "NewReview",
    "NewerDatabaseError",
    "OptionQueries",
    "PresetNameError",
    "ReviewRow",
    "Stamp",
    "StorageError",
    "Transaction",
    "WatchedConnection",
    "contents",
    "copy_database",
    "fingerprint",
    "integrity_problems",
    "is_unusable",
    "read_header",
    "restore_into",
    "traces_of_database",
]
