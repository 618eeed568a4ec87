"""Recall's SQLite database: the only package that talks to SQLModel and SQLAlchemy."""

from __future__ import annotations

from recall.storage.database import SCHEMA_VERSION, Database, DatabaseError
from recall.storage.records import CardRow, DeckCounts, DeckRow, NewCard, ReviewRow
from recall.storage.store import Store

__all__ = [
    "SCHEMA_VERSION",
    "CardRow",
    "Database",
    "DatabaseError",
    "DeckCounts",
    "DeckRow",
    "NewCard",
    "ReviewRow",
    "Store",
]
