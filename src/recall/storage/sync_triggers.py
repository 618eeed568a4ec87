"""The triggers that note every change sync carries, so no write path can forget to.

Each writes one row to ``sync_outbox`` naming the deck, card or review changed (and, for a
row deleted or re-keyed, the keys it had); the next sync round reads the rows, compares
what they name with what was last sent, and writes the difference as events. While a
round applies other devices' events a row sits in ``sync_quiet`` and they record nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection

# SQLite's clock in UTC microseconds: when the change was made (julianday 2440587.5 is 1970).
_NOW = "CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)"
_LOUD = "WHEN NOT EXISTS (SELECT 1 FROM sync_quiet)"
_OLD_CARD = "json_array((SELECT key FROM deck WHERE id = OLD.deck_id), OLD.key)"


_OUTBOX = "INSERT INTO sync_outbox (kind, row_id, detail, at)"


def _trigger(name: str, event: str, kind: str, row: str, detail: str) -> str:
    return f"""
CREATE TRIGGER {name} AFTER {event} {_LOUD}
BEGIN
    {_OUTBOX} VALUES ('{kind}', {row}, {detail}, {_NOW});
END
"""


def _added(kind: str, table: str, detail: str) -> str:
    """What the insert trigger of ``table`` writes, for every row past an id (the one
    parameter) at once, in id order."""
    return (
        f"{_OUTBOX} SELECT '{kind}', NEW.id, {detail}, {_NOW} FROM {table} AS NEW "
        "WHERE NEW.id > ? AND NOT EXISTS (SELECT 1 FROM sync_quiet) ORDER BY NEW.id"
    )


CARDS_ADDED = _added("card", "card", "NULL")
"""``sync_card_insert`` for every card past an id: a bulk import's cards, with it lifted."""
REVIEWS_ADDED = _added("review", "review", "NEW.uid")
"""``sync_review_insert`` for every review past an id."""


DECK_UPDATE = _trigger(
    "sync_deck_update",
    "UPDATE OF key, name, description, exam_on ON deck",
    "deck",
    "NEW.id",
    "OLD.key",
)

TRIGGERS = (
    _trigger("sync_deck_insert", "INSERT ON deck", "deck", "NEW.id", "NULL"),
    DECK_UPDATE,
    _trigger("sync_deck_delete", "DELETE ON deck", "deck", "OLD.id", "OLD.key"),
    _trigger("sync_card_insert", "INSERT ON card", "card", "NEW.id", "NULL"),
    _trigger(
        "sync_card_update",
        "UPDATE OF deck_id, key, position, kind, content, flag, edited ON card",
        "card",
        "NEW.id",
        _OLD_CARD,
    ),
    _trigger("sync_card_delete", "DELETE ON card", "card", "OLD.id", _OLD_CARD),
    _trigger(
        "sync_schedule_update",
        "UPDATE OF suspended, buried_until ON card_memory",
        "card",
        "NEW.card_id",
        "NULL",
    ),
    _trigger("sync_review_insert", "INSERT ON review", "review", "NEW.id", "NEW.uid"),
    _trigger("sync_review_delete", "DELETE ON review", "unreview", "OLD.id", "OLD.uid"),
    _trigger("sync_preset_insert", "INSERT ON preset", "preset", "NEW.id", "NULL"),
    _trigger("sync_preset_update", "UPDATE ON preset", "preset", "NEW.id", "OLD.name"),
    _trigger("sync_preset_delete", "DELETE ON preset", "preset", "OLD.id", "OLD.name"),
    _trigger("sync_deck_preset_insert", "INSERT ON deck_preset", "deck", "NEW.deck_id", "NULL"),
    _trigger("sync_deck_preset_delete", "DELETE ON deck_preset", "deck", "OLD.deck_id", "NULL"),
)


def recreate_deck_update_trigger(connection: Connection) -> None:
    """Replace the trigger on a deck's changes with this version's (schema 16 adds a column)."""
    connection.exec_driver_sql("DROP TRIGGER IF EXISTS sync_deck_update")
    connection.exec_driver_sql(DECK_UPDATE)


def create_triggers(connection: Connection) -> None:
    """Create the triggers that fill ``sync_outbox``."""
    for trigger in TRIGGERS:
        connection.exec_driver_sql(trigger)
