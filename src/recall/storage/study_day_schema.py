"""The schema of the counts by study day (``study_days``): their tables, the triggers that
mark them stale, and the state row, apart from the counting so that opening a database
loads none of the statistics' queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall.core.memory import ReviewKind

if TYPE_CHECKING:
    from sqlalchemy import Connection

ANSWER = int(ReviewKind.ANSWER)
NEVER = -(2**62)
"""``stale_from`` when every count must be made again."""

_STALE = (
    "UPDATE study_day_state SET stale_from = min(coalesce(stale_from, {time}), {time}), "
    "changes = changes + {count} WHERE {time} IS NOT NULL"
)

TRIGGERS = (
    f"""
CREATE TRIGGER study_days_answer_added AFTER INSERT ON review WHEN NEW.kind = {ANSWER}
BEGIN
    {_STALE.format(time="NEW.reviewed_at", count=1)};
END
""",
    f"""
CREATE TRIGGER study_days_answer_removed AFTER DELETE ON review WHEN OLD.kind = {ANSWER}
BEGIN
    {_STALE.format(time="OLD.reviewed_at", count=1)};
END
""",
    f"""
CREATE TRIGGER study_days_card_moved AFTER UPDATE OF deck_id ON card
WHEN OLD.deck_id IS NOT NEW.deck_id
BEGIN
    {
        _STALE.format(
            time=(
                f"(SELECT min(reviewed_at) FROM review WHERE card_id = NEW.id AND kind = {ANSWER})"
            ),
            count=1,
        )
    };
END
""",
)

ANSWERS_ADDED = _STALE.format(
    time=f"(SELECT min(reviewed_at) FROM review WHERE id > ?1 AND kind = {ANSWER})",
    count=f"(SELECT count(*) FROM review WHERE id > ?1 AND kind = {ANSWER})",
)
"""``study_days_answer_added`` for every review past an id (``?1``) at once."""

TABLES = (
    "CREATE TABLE study_day_count (deck_id INTEGER NOT NULL, day INTEGER NOT NULL, "
    "kind INTEGER NOT NULL, first_of_day BOOLEAN NOT NULL, rating INTEGER NOT NULL, "
    "correct BOOLEAN NOT NULL, reviews INTEGER NOT NULL, time_ms INTEGER NOT NULL, "
    "PRIMARY KEY (deck_id, day, kind, first_of_day, rating, correct))",
    "CREATE TABLE study_hour_count (deck_id INTEGER NOT NULL, day INTEGER NOT NULL, "
    "hour INTEGER NOT NULL, rating INTEGER NOT NULL, proposed INTEGER NOT NULL, "
    "correct BOOLEAN NOT NULL, reviews INTEGER NOT NULL, "
    "PRIMARY KEY (deck_id, day, hour, rating, proposed, correct))",
    "CREATE TABLE study_day_state (id INTEGER NOT NULL, local_key VARCHAR NOT NULL, "
    "stale_from BIGINT, changes INTEGER NOT NULL, PRIMARY KEY (id))",
)


def create_triggers(connection: Connection) -> None:
    """Create the triggers and the state row (counts not made yet) of a new or upgraded file."""
    for trigger in TRIGGERS:
        connection.exec_driver_sql(trigger)
    connection.exec_driver_sql(
        "INSERT INTO study_day_state (id, local_key, stale_from, changes) "
        f"VALUES (1, '', {NEVER}, 0)"
    )
