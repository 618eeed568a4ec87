"""Each card's follow-ups on misconceptions as a summary kept in the file (schema 20).

The follow-ups are worked out from a card's history (``scheduling.follow_ups``); doing so for
every picked card at each start and each statistics opening took seconds at 100,000 cards.
``follow_up_summary`` holds, per card and option, what the queue, the deck list and the
statistics read: where the follow-up is (active, waiting or faded), whether the card's
latest answer picked it, and the active one's due time (with the interval fuzz as studying
uses it, and without, as tests schedule). A partial index holds the active ones by due, so
the follow-ups due today are found without working out any other card's.

The summary is derived, never the truth: triggers mark a card's summary stale in
``follow_up_stale`` whenever something it is worked out from changes, whoever writes
through SQLite (an answer, undo, an import with history, a sync merge, the card's text,
deck or seed, a preset, the preferences' study days). A reader works out the stale cards
again (few) in its own transaction before it reads; a writer stores them
(``study.follow_up_summary``). ``recall check`` compares the table with a recomputation
from the history. Sync does not carry it: every computer keeps its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from recall.storage.sql import Sql

if TYPE_CHECKING:
    from sqlalchemy import Connection

ACTIVE, WAITING, FADED = 0, 1, 2
"""The ``standing`` column's values."""

TABLES = (
    "CREATE TABLE follow_up_summary (card_id INTEGER NOT NULL, option VARCHAR NOT NULL, "
    "standing INTEGER NOT NULL, persisting BOOLEAN NOT NULL, due BIGINT, due_unfuzzed BIGINT, "
    "PRIMARY KEY (card_id, option))",
    "CREATE TABLE follow_up_stale (card_id INTEGER NOT NULL, PRIMARY KEY (card_id))",
)
INDEX = (
    "CREATE INDEX ix_follow_up_summary_due ON follow_up_summary (due, due_unfuzzed, card_id) "
    f"WHERE standing = {ACTIVE}"
)


def _mark(card: str) -> str:
    return f"INSERT INTO follow_up_stale (card_id) VALUES ({card}) ON CONFLICT DO NOTHING;"


def _may_have(card: str) -> str:
    """A card that may have follow-ups: some wrong answer picked an option, or it has some."""
    return (
        f"(EXISTS (SELECT 1 FROM wrong_pick_count WHERE wrong_pick_count.card_id = {card}) "
        f"OR EXISTS (SELECT 1 FROM follow_up_summary WHERE follow_up_summary.card_id = {card}))"
    )


# An upsert, not INSERT OR IGNORE: a statement that fires the trigger with an ON CONFLICT
# clause of its own (the preferences' upsert) would override the trigger's OR IGNORE.
_MARK_ALL = (
    "INSERT INTO follow_up_stale (card_id) SELECT card_id FROM "
    "(SELECT card_id FROM wrong_pick_count WHERE times >= 2 "
    "UNION SELECT card_id FROM follow_up_summary) WHERE true ON CONFLICT DO NOTHING;"
)
"""Every card that may have follow-ups: a preset or the study days changed."""

TRIGGERS = (
    f"""
CREATE TRIGGER follow_up_review_added AFTER INSERT ON review WHEN {_may_have("NEW.card_id")}
BEGIN
    {_mark("NEW.card_id")}
END
""",
    f"""
CREATE TRIGGER follow_up_review_removed AFTER DELETE ON review WHEN {_may_have("OLD.card_id")}
BEGIN
    {_mark("OLD.card_id")}
END
""",
    f"""
CREATE TRIGGER follow_up_review_changed AFTER UPDATE ON review
BEGIN
    {_mark("OLD.card_id")}
    {_mark("NEW.card_id")}
END
""",
    f"""
CREATE TRIGGER follow_up_card_changed AFTER UPDATE OF id, deck_id, seed, kind, content ON card
WHEN {_may_have("OLD.id")} OR {_may_have("NEW.id")}
BEGIN
    {_mark("OLD.id")}
    {_mark("NEW.id")}
END
""",
    """
CREATE TRIGGER follow_up_card_removed AFTER DELETE ON card
BEGIN
    DELETE FROM follow_up_summary WHERE card_id = OLD.id;
    DELETE FROM follow_up_stale WHERE card_id = OLD.id;
END
""",
    *(
        f"""
CREATE TRIGGER follow_up_{table}_{event.lower()} AFTER {event} ON {table}
BEGIN
    {_MARK_ALL}
END
"""
        for table in ("preset", "deck_preset")
        for event in ("INSERT", "UPDATE", "DELETE")
    ),
    f"""
CREATE TRIGGER follow_up_preferences_changed AFTER UPDATE ON preference
WHEN NEW.key = 'preferences' AND OLD.value IS NOT NEW.value
BEGIN
    {_MARK_ALL}
END
""",
)


def create(connection: Connection, tables: bool) -> None:
    """Add the triggers and the index (and the tables, when ``tables``)."""
    if tables:
        for sql in TABLES:
            connection.exec_driver_sql(sql)
        connection.exec_driver_sql(INDEX)
    for sql in TRIGGERS:
        connection.exec_driver_sql(sql)


def fill(connection: Connection) -> None:
    """Mark every card that may have follow-ups stale: the first reader works them out and
    the first writer stores them (an upgrade runs in SQL alone, without the scheduler)."""
    connection.exec_driver_sql(_MARK_ALL)


class SummaryRow(NamedTuple):
    """One follow-up as the table keeps it.

    Attributes:
        standing: ``ACTIVE``, ``WAITING`` or ``FADED``.
        persisting: Not faded, and the card's latest answer picked the option.
        due: The active one's due time (microseconds), fuzzed as studying schedules it.
        due_unfuzzed: The same without the interval fuzz.
    """

    card_id: int
    option: str
    standing: int
    persisting: bool
    due: int | None
    due_unfuzzed: int | None


class FollowUpSummaryQueries:
    """The kept summary, its stale marks, and its rows due before a time."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def stale(self) -> list[int]:
        """The cards whose summary must be worked out again, by id."""
        return [int(row[0]) for row in self._sql.rows("SELECT card_id FROM follow_up_stale")]

    def picked(self) -> list[int]:
        """Every card with an option picked in two wrong answers: those that may have
        follow-ups, by id."""
        return [
            int(row[0])
            for row in self._sql.rows(
                "SELECT DISTINCT card_id FROM wrong_pick_count WHERE times >= 2 ORDER BY card_id"
            )
        ]

    def rows(self, deck_ids: Sequence[int] | None = None) -> list[tuple[int, SummaryRow]]:
        """Every kept row (of the cards of some decks, or all), each with its card's deck,
        by card and option."""
        condition, parameters = _decks(deck_ids)
        return [
            (int(row[0]), _row(row[1:]))
            for row in self._sql.rows(
                "SELECT card.deck_id, s.card_id, s.option, s.standing, s.persisting, s.due, "
                "s.due_unfuzzed FROM follow_up_summary AS s CROSS JOIN card ON card.id = s.card_id"
                f"{condition} ORDER BY s.card_id, s.option",
                parameters,
            )
        ]

    def active_before(
        self, before: int, fuzz: bool, deck_ids: Sequence[int] | None = None
    ) -> list[tuple[int, int]]:
        """The cards (with their decks) whose active follow-up is due before ``before``
        (microseconds), found along the index of the active ones by due."""
        column = "s.due" if fuzz else "s.due_unfuzzed"
        condition, parameters = _decks(deck_ids)
        where = " AND" if condition else " WHERE"
        return [
            (int(row[0]), int(row[1]))
            for row in self._sql.rows(
                "SELECT DISTINCT card.deck_id, s.card_id FROM follow_up_summary AS s "
                f"CROSS JOIN card ON card.id = s.card_id{condition}"
                f"{where} s.standing = {ACTIVE} AND {column} < ?",
                (*parameters, before),
            )
        ]

    def store(self, card_ids: Iterable[int], rows: Iterable[SummaryRow]) -> None:
        """Put ``rows`` in place of the kept rows of ``card_ids`` and forget their marks."""
        ids = [(card_id,) for card_id in card_ids]
        self._sql.run_many("DELETE FROM follow_up_summary WHERE card_id = ?", ids)
        self._sql.run_many(
            "INSERT INTO follow_up_summary "
            "(card_id, option, standing, persisting, due, due_unfuzzed) VALUES (?, ?, ?, ?, ?, ?)",
            [tuple(row) for row in rows],
        )
        self._sql.run_many("DELETE FROM follow_up_stale WHERE card_id = ?", ids)


def _decks(deck_ids: Sequence[int] | None) -> tuple[str, tuple[int, ...]]:
    if deck_ids is None:
        return "", ()
    marks = ", ".join("?" * len(deck_ids)) or "NULL"
    return f" WHERE card.deck_id IN ({marks})", tuple(deck_ids)


def _row(row: Sequence[object]) -> SummaryRow:
    card_id, option, standing, persisting, due, due_unfuzzed = row
    return SummaryRow(
        int(str(card_id)),
        str(option),
        int(str(standing)),
        bool(persisting),
        None if due is None else int(str(due)),
        None if due_unfuzzed is None else int(str(due_unfuzzed)),
    )
