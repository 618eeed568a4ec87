"""How often each option was picked in a wrong answer, per card, kept by triggers.

The misconceptions list ranks the wrong options picked most; counting them from the
reviews means reading every wrong answer's picks. ``wrong_pick_count`` holds, per card and
option text, how many wrong answers picked it and when last. Triggers on ``review`` keep it
whatever writes the history (answering, undo, imports with history, sync merges, reviews
set aside): an answer added counts its picks, an answer removed takes them back and looks
up when the option was last picked among the card's remaining answers. Whether an option is
wrong is still decided when the list is read, from the card's current text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection

_COUNTED = "{row}.picked IS NOT NULL AND NOT {row}.correct"
"""The answers whose picks are counted: wrong ones that picked something."""

TABLE = (
    "CREATE TABLE wrong_pick_count (card_id INTEGER NOT NULL, choice VARCHAR NOT NULL, "
    "times INTEGER NOT NULL, last_at BIGINT NOT NULL, PRIMARY KEY (card_id, choice))"
)
INDEX = (
    "CREATE INDEX ix_wrong_pick_count_rank ON wrong_pick_count "
    "(times DESC, last_at DESC, card_id, choice)"
)

TRIGGERS = (
    f"""
CREATE TRIGGER wrong_picks_added AFTER INSERT ON review WHEN {_COUNTED.format(row="NEW")}
BEGIN
    INSERT INTO wrong_pick_count (card_id, choice, times, last_at)
    SELECT NEW.card_id, value, 1, NEW.reviewed_at FROM json_each(NEW.picked) WHERE true
    ON CONFLICT (card_id, choice) DO UPDATE
    SET times = times + 1, last_at = max(last_at, excluded.last_at);
END
""",
    f"""
CREATE TRIGGER wrong_picks_removed AFTER DELETE ON review WHEN {_COUNTED.format(row="OLD")}
BEGIN
    UPDATE wrong_pick_count SET times = times - 1,
        last_at = coalesce((SELECT max(r.reviewed_at) FROM review AS r, json_each(r.picked) AS p
            WHERE r.card_id = OLD.card_id AND {_COUNTED.format(row="r")}
                AND p.value = wrong_pick_count.choice), last_at)
    WHERE card_id = OLD.card_id AND choice IN (SELECT value FROM json_each(OLD.picked));
    DELETE FROM wrong_pick_count WHERE card_id = OLD.card_id AND times <= 0;
END
""",
)

PICKS_ADDED = f"""
    INSERT INTO wrong_pick_count (card_id, choice, times, last_at)
    SELECT review.card_id, p.value, count(*), max(review.reviewed_at)
    FROM review, json_each(review.picked) AS p
    WHERE review.id > ? AND {_COUNTED.format(row="review")} GROUP BY 1, 2
    ON CONFLICT (card_id, choice) DO UPDATE
    SET times = times + excluded.times, last_at = max(last_at, excluded.last_at)
"""
"""``wrong_picks_added`` for every review past an id at once."""

COUNTING = f"""
    SELECT review.card_id, p.value, count(*), max(review.reviewed_at)
    FROM review, json_each(review.picked) AS p
    WHERE {_COUNTED.format(row="review")} GROUP BY 1, 2
"""
"""The counts made afresh from the reviews: ``(card, option, times, last)``."""


def create(connection: Connection, fill: bool) -> None:
    """Create the table, its index and triggers; ``fill`` counts the history there is."""
    connection.exec_driver_sql(TABLE)
    connection.exec_driver_sql(INDEX)
    create_triggers(connection, fill)


def create_triggers(connection: Connection, fill: bool = False) -> None:
    """Create the triggers (the table exists); ``fill`` counts the history there is."""
    for trigger in TRIGGERS:
        connection.exec_driver_sql(trigger)
    if fill:
        connection.exec_driver_sql(
            f"INSERT INTO wrong_pick_count (card_id, choice, times, last_at) {COUNTING}"
        )
