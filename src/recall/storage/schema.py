"""The schema this Recall creates, and a check that a file's schema is exactly that.

A file can carry Recall's stamp (application id and version) and still hold other tables:
a table dropped by hand, a version stamp that lies, a trigger another program added. Such a
file is refused when it is opened and before a restore is accepted, instead of failing
later with "no such table" or running a stranger's trigger on every answer.

The expected schema is the table definitions (``tables.py``), the append-only trigger
below, the triggers that keep the card search index (``card_index.TRIGGERS``) and those
that note what check must replay again (``verification.TRIGGERS``), written
out as plain values (a test holds them equal to the definitions) so that opening a file
never imports SQLAlchemy: every table with exactly its columns, every named index on its
table, each of those triggers with exactly its text, and nothing else that runs code (no
other trigger, no view).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from recall.storage import (
    card_index,
    follow_up_summary,
    pick_counts,
    study_day_schema,
    sync_triggers,
    verification,
)

APPEND_ONLY_TRIGGER = """
CREATE TRIGGER review_append_only BEFORE UPDATE ON review
BEGIN
    SELECT RAISE(ABORT, 'reviews are append-only');
END
"""


# A card's position copied beside its schedule (schema 18), so searches sorted by due read
# it there: every change of it, by whoever writes through SQLite, follows. Rows are inserted
# with it.
POSITION_TRIGGER = """
CREATE TRIGGER card_position_kept AFTER UPDATE OF position ON card
BEGIN
    UPDATE card_memory SET position = NEW.position WHERE card_id = NEW.id;
END
"""


def _collapse(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def _trigger_name(sql: str) -> str:
    found = re.search(r"CREATE TRIGGER (\w+)", sql)
    assert found is not None, sql
    return found.group(1)


@dataclass(frozen=True)
class Expected:
    """What the current code creates."""

    columns: dict[str, frozenset[str]]
    indexes: dict[str, str]  # index name -> table
    triggers: dict[str, str]  # trigger name -> its SQL, whitespace collapsed


# What tables.py declares, written out so that opening a file needs no SQLAlchemy;
# tests/storage/test_schema_checks.py holds it equal to ``declared()``.
EXPECTED = Expected(
    columns={
        "deck": frozenset(
            {"id", "key", "name", "description", "added_at", "updated_at", "exam_on"}
        ),
        "card": frozenset(
            {"id", "deck_id", "key", "position", "kind", "content", "added_at", "updated_at"}
            | {"search_text", "flag", "edited", "seed"}
        ),
        "card_memory": frozenset(
            {"card_id", "deck_id", "state", "step", "stability", "difficulty", "due"}
            | {"last_review", "suspended", "buried_until", "position"}
        ),
        "card_tag": frozenset({"card_id", "tag"}),
        "card_origin": frozenset({"card_id", "deck_key", "card_key"}),
        "review": frozenset(
            {"id", "card_id", "reviewed_at", "rating", "duration_ms", "state_before"}
            | {"picked", "correct", "kind", "set_due", "proposed_rating", "uid"}
            | {"set_stability", "set_difficulty"}
        ),
        "set_aside_review": frozenset(
            {"id", "card_id", "reviewed_at", "rating", "duration_ms", "state_before"}
            | {"picked", "correct", "kind", "set_due", "proposed_rating", "set_aside_at"}
            | {"reason", "uid", "set_stability", "set_difficulty"}
        ),
        "preference": frozenset({"key", "value"}),
        "anki_note_type": frozenset({"key", "content"}),
        "preset": frozenset({"id", "name", "config"}),
        "deck_preset": frozenset({"deck_id", "preset_id"}),
        "sync_device": frozenset(
            {"id", "name", "clock", "folder", "next_file", "last_sync", "owes_snapshot"}
        ),
        "sync_outbox": frozenset({"seq", "kind", "row_id", "detail", "at"}),
        "sync_quiet": frozenset({"id"}),
        "sync_entity": frozenset({"kind", "deck_key", "card_key", "fields"}),
        "sync_file": frozenset({"device", "name", "offset", "own"}),
        "sync_held_review": frozenset({"uid", "deck_key", "card_key", "event"}),
        "sync_retracted": frozenset({"uid"}),
        "sync_seen_device": frozenset({"id", "name", "last_file"}),
        "sync_preset": frozenset({"preset_id", "uid"}),
        "sync_held_change": frozenset({"id", "stamp", "event"}),
        "sync_revisit": frozenset({"device", "name", "offset", "known"}),
        "sync_pending": frozenset({"seq", "event"}),
        "sync_media_wanted": frozenset({"name", "deck_key", "card_key"}),
        "replay_change": frozenset({"card_id", "mark"}),
        "replay_verified": frozenset({"id", "generation", "verified_generation", "version"}),
        "study_day_count": frozenset(
            {"deck_id", "day", "kind", "first_of_day", "rating", "correct", "reviews", "time_ms"}
        ),
        "study_hour_count": frozenset(
            {"deck_id", "day", "hour", "rating", "proposed", "correct", "reviews"}
        ),
        "study_day_state": frozenset({"id", "local_key", "stale_from", "changes"}),
        "wrong_pick_count": frozenset({"card_id", "choice", "times", "last_at"}),
        "follow_up_summary": frozenset(
            {
                "card_id",
                "option",
                "standing",
                "picks",
                "last_pick",
                "answers",
                "picked_lately",
                "why",
                "state",
                "step",
                "stability",
                "difficulty",
                "due",
                "due_unfuzzed",
                "last_review",
            }
        ),
        "follow_up_stale": frozenset({"card_id"}),
    },
    indexes={
        "ix_card_deck_id": "card",
        "ix_card_deck_position": "card",
        "ix_card_seed": "card",
        "ix_card_anki_note_type": "card",
        "ix_card_anki_guid": "card",
        "ix_card_memory_state_due": "card_memory",
        "ix_card_memory_deck_queue": "card_memory",
        "ix_card_memory_buried": "card_memory",
        "ix_card_memory_studied_due": "card_memory",
        "ix_card_tag_tag": "card_tag",
        "ix_card_origin_key": "card_origin",
        "ix_review_card_history": "review",
        "ix_review_reviewed_at": "review",
        "ix_review_follow_up_entries": "review",
        "ix_set_aside_review_card_id": "set_aside_review",
        "ix_deck_preset_preset_id": "deck_preset",
        "ix_wrong_pick_count_rank": "wrong_pick_count",
        "ix_review_uid": "review",
        "ix_sync_held_review_deck_key": "sync_held_review",
        "ix_sync_preset_uid": "sync_preset",
        "ix_sync_held_change_stamp": "sync_held_change",
        "ix_follow_up_summary_due": "follow_up_summary",
    },
    triggers={
        _trigger_name(sql): _collapse(sql)
        for sql in (
            APPEND_ONLY_TRIGGER,
            POSITION_TRIGGER,
            *card_index.TRIGGERS,
            *study_day_schema.TRIGGERS,
            *pick_counts.TRIGGERS,
            *verification.TRIGGERS,
            *sync_triggers.TRIGGERS,
            *follow_up_summary.TRIGGERS,
        )
    },
)


def expected() -> Expected:
    """The schema this Recall creates."""
    return EXPECTED


def declared() -> Expected:
    """The schema the table definitions in ``tables.py`` give (imports SQLAlchemy)."""
    from sqlmodel import SQLModel

    from recall.storage import tables  # noqa: F401  (importing it declares the tables)

    return Expected(
        columns={
            name: frozenset(column.name for column in table.columns)
            for name, table in SQLModel.metadata.tables.items()
        },
        indexes={
            str(index.name): name
            for name, table in SQLModel.metadata.tables.items()
            for index in table.indexes
        },
        triggers=EXPECTED.triggers,
    )


def schema_problems(connection: sqlite3.Connection) -> list[str]:
    """How the connected file's schema differs from what this Recall creates, in words.

    Empty when they match. Only reads ``sqlite_schema`` and ``PRAGMA table_info``.
    """
    want = expected()
    found = connection.execute(
        "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema"
    ).fetchall()
    problems: list[str] = []
    present = {name: table for kind, name, table, _ in found if kind == "table"}
    for table, columns in sorted(want.columns.items()):
        if table not in present:
            problems.append(f"table {table!r} is missing")
            continue
        have = {row[1] for row in connection.execute(f"PRAGMA table_info('{table}')")}
        for column in sorted(columns - have):
            problems.append(f"table {table!r} has no column {column!r}")
        for column in sorted(have - columns):
            problems.append(f"table {table!r} has an unexpected column {column!r}")
    for kind, name, table, sql in found:
        if name.startswith("sqlite_"):
            continue  # SQLite's own: statistics, indexes of UNIQUE constraints
        if kind == "table" and name not in want.columns:
            problems.append(f"it holds an unexpected table {name!r}")
        elif kind == "view":
            problems.append(f"it holds a view {name!r}, which Recall never makes")
        elif kind == "trigger" and want.triggers.get(name) != _collapse(sql):
            problems.append(f"it holds an unexpected trigger {name!r} on {table!r}")
        elif kind == "index" and want.indexes.get(name) != table:
            problems.append(f"it holds an unexpected index {name!r} on {table!r}")
    names = {name for _, name, _, _ in found}
    for index, table in sorted(want.indexes.items()):
        if index not in names and table in present:
            problems.append(f"index {index!r} on {table!r} is missing")
    for trigger in sorted(want.triggers):
        if trigger not in names:
            problems.append(f"trigger {trigger!r} is missing")
    return problems
