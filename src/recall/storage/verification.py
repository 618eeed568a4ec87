"""What ``recall check`` has verified, and every card changed since: kept by SQLite triggers.

Replaying a million reviews takes seconds; most cards have not changed since the last
check. Triggers on ``review``, ``card_memory`` and ``card`` note the id of every card
whose history, schedule or deck changes, by anyone writing through SQLite (Recall, an
older Recall, the ``sqlite3`` shell), each with a random mark; triggers on ``preset`` and
``deck_preset`` bump a generation, since a preset change can change every card's replay.
A check after a full verification then replays only the noted cards, and forgets a note
only if its mark is still the one it read (a change made while it ran keeps its note).

The triggers are part of the schema: a file without them exactly is refused when opened
(``schema.schema_problems``). What they cannot see is the file's bytes changed outside
SQLite; ``recall check --full`` replays every card whatever the notes say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall.storage.sql import Sql

if TYPE_CHECKING:
    from sqlalchemy import Connection


def _note(card: str) -> str:
    return f"INSERT OR REPLACE INTO replay_change (card_id, mark) VALUES ({card}, random());"


_NOTE_EACH = (
    "INSERT OR REPLACE INTO replay_change (card_id, mark) SELECT {card}, random() FROM {rows}"
)
# ``replay_review_added`` and ``replay_schedule_added`` for every row past an id at once.
REVIEWS_ADDED = _NOTE_EACH.format(card="card_id", rows="review WHERE id > ? GROUP BY card_id")
SCHEDULES_ADDED = _NOTE_EACH.format(card="card_id", rows="card_memory WHERE card_id > ?")
# ``replay_schedule_changed`` for each card of a JSON list whose schedule a batch updated.
SCHEDULES_CHANGED = _NOTE_EACH.format(
    card="card_id", rows="card_memory WHERE card_id IN (SELECT value FROM json_each(?))"
)
_BUMP = "UPDATE replay_verified SET generation = generation + 1;"
# A card moved to another deck (another preset) or given another seed (the fuzz's) replays
# differently. Schema 10 added the seed; before, this trigger was ``replay_card_moved``.
CARD_TRIGGER = f"""
CREATE TRIGGER replay_card_changed AFTER UPDATE OF id, deck_id, seed ON card
BEGIN
    {_note("OLD.id")}
    {_note("NEW.id")}
END
"""

TRIGGERS = (
    f"""
CREATE TRIGGER replay_review_added AFTER INSERT ON review
BEGIN
    {_note("NEW.card_id")}
END
""",
    f"""
CREATE TRIGGER replay_review_removed AFTER DELETE ON review
BEGIN
    {_note("OLD.card_id")}
END
""",
    f"""
CREATE TRIGGER replay_review_changed AFTER UPDATE ON review
BEGIN
    {_note("OLD.card_id")}
    {_note("NEW.card_id")}
END
""",
    f"""
CREATE TRIGGER replay_schedule_added AFTER INSERT ON card_memory
BEGIN
    {_note("NEW.card_id")}
END
""",
    f"""
CREATE TRIGGER replay_schedule_changed
AFTER UPDATE OF card_id, state, step, stability, difficulty, due, last_review ON card_memory
BEGIN
    {_note("OLD.card_id")}
    {_note("NEW.card_id")}
END
""",
    f"""
CREATE TRIGGER replay_schedule_removed AFTER DELETE ON card_memory
BEGIN
    {_note("OLD.card_id")}
END
""",
    CARD_TRIGGER,
    *(
        f"""
CREATE TRIGGER replay_{table}_{event.lower()} AFTER {event} ON {table}
BEGIN
    {_BUMP}
END
"""
        for table in ("preset", "deck_preset")
        for event in ("INSERT", "UPDATE", "DELETE")
    ),
)

TABLES = (
    "CREATE TABLE replay_change (card_id INTEGER NOT NULL, mark INTEGER NOT NULL, "
    "PRIMARY KEY (card_id))",
    "CREATE TABLE replay_verified (id INTEGER NOT NULL, generation INTEGER NOT NULL, "
    "verified_generation INTEGER, version VARCHAR, PRIMARY KEY (id))",
)
_FIRST_ROW = "INSERT INTO replay_verified (id, generation) VALUES (1, 0)"


def create(connection: Connection, tables: bool) -> None:
    """Add the triggers (and the tables, when ``tables``) and the generation's one row."""
    if tables:
        for sql in TABLES:
            connection.exec_driver_sql(sql)
    for sql in TRIGGERS:
        connection.exec_driver_sql(sql)
    connection.exec_driver_sql(_FIRST_ROW)


class VerificationQueries:
    """What check verified last, and the cards changed since."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def trusted(self, version: str) -> bool:
        """Whether a full verification by this replay ``version`` covers the presets as
        they are: then only the cards noted since need replaying."""
        rows = self._sql.rows(
            "SELECT generation, verified_generation, version FROM replay_verified WHERE id = 1"
        )
        return bool(rows) and rows[0][1] == rows[0][0] and rows[0][2] == version

    def generation(self) -> int | None:
        """The presets' generation now; None if its row is gone."""
        value = self._sql.value("SELECT generation FROM replay_verified WHERE id = 1")
        return None if value is None else int(value)

    def changed(self) -> dict[int, int]:
        """The cards noted since they were last verified, each with its note's mark."""
        return {
            int(card_id): int(mark)
            for card_id, mark in self._sql.rows("SELECT card_id, mark FROM replay_change")
        }

    def record(self, verified: dict[int, int], generation: int | None, version: str) -> None:
        """Forget the notes of ``verified`` cards whose mark is unchanged, and when
        ``generation`` is given (a full verification) record it as verified by ``version``."""
        self._sql.run_many(
            "DELETE FROM replay_change WHERE card_id = ? AND mark = ?", verified.items()
        )
        if generation is not None:
            self._sql.run(
                "UPDATE replay_verified SET verified_generation = ?, version = ? WHERE id = 1",
                (generation, version),
            )
        elif self.generation() is None:
            self._sql.run(_FIRST_ROW)
