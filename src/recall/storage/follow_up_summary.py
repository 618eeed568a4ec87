"""Each card's follow-ups on misconceptions as a summary kept in the file (schema 22).

The follow-ups are worked out from a card's history (``scheduling.follow_ups``); doing so for
every picked card at each start and each statistics opening took seconds at 100,000 cards.
``follow_up_summary`` holds, per card and option, everything ``study.follow_ups.CardFollowUp``
holds but the card's own state: where the follow-up is (active, waiting or faded), its picks,
whether the card's latest answer picked it, the option's note, and its schedule, the due
time both with the interval fuzz as studying uses it and without (as tests schedule). A
partial index holds the active ones by due, so the follow-ups due today are read with their
cards without working out any card's.

The summary is derived, never the truth: triggers mark a card's summary stale in
``follow_up_stale`` whenever something it is worked out from changes, whoever writes
through SQLite (an answer, undo, an import with history, a sync merge, the card's text,
deck or seed, a preset, the preferences' rollover hour or time zone). A reader works out
the stale cards again (few) in its own transaction before it reads; a writer stores them
(``study.follow_up_summary``). ``recall check`` compares the table with a recomputation
from the history. Sync does not carry it: every computer keeps its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from recall.core.memory import CardState
from recall.storage.sql import Row, Sql

if TYPE_CHECKING:
    from sqlalchemy import Connection

ACTIVE, WAITING, FADED = 0, 1, 2
"""The ``standing`` column's values."""

TABLES = (
    "CREATE TABLE follow_up_summary (card_id INTEGER NOT NULL, option VARCHAR NOT NULL, "
    "standing INTEGER NOT NULL, picks INTEGER NOT NULL, last_pick BIGINT NOT NULL, "
    "answers INTEGER NOT NULL, picked_lately BOOLEAN NOT NULL, why VARCHAR NOT NULL, "
    "state INTEGER NOT NULL, step INTEGER, stability FLOAT, difficulty FLOAT, due BIGINT, "
    "due_unfuzzed BIGINT, last_review BIGINT, PRIMARY KEY (card_id, option))",
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


def _study_days_differ(old: str, new: str) -> str:
    """The preferences' study days (rollover hour, time zone) differ: the follow-ups'
    schedules count elapsed time in them."""
    differ = " OR ".join(
        f"json_extract({old}, '$.{name}') IS NOT json_extract({new}, '$.{name}')"
        for name in ("day_rollover_hour", "time_zone")
    )
    # A value that is not JSON (written by another program) counts as a change.
    return f"CASE WHEN json_valid({old}) AND json_valid({new}) THEN {differ} ELSE 1 END"


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
WHEN NEW.key = 'preferences' AND ({_study_days_differ("OLD.value", "NEW.value")})
BEGIN
    {_MARK_ALL}
END
""",
    f"""
CREATE TRIGGER follow_up_preferences_added AFTER INSERT ON preference
WHEN NEW.key = 'preferences'
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
    """One follow-up as the table keeps it: ``scheduling.follow_ups.FollowUp`` in columns.

    Attributes:
        standing: ``ACTIVE``, ``WAITING`` or ``FADED``.
        picks: Wrong answers of the card that picked the option.
        last_pick: When one last did (microseconds).
        answers: Its follow-up answers since it last became a follow-up.
        picked_lately: Whether the card's latest answer picked it.
        why: The option's note in the card's text ('' when none).
        state: Its own schedule's state, with ``step``, ``stability``, ``difficulty``,
            ``due`` (microseconds, fuzzed as studying schedules it), ``due_unfuzzed`` (the
            same without the interval fuzz) and ``last_review``.
    """

    card_id: int
    option: str
    standing: int
    picks: int
    last_pick: int
    answers: int
    picked_lately: bool
    why: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: int | None
    due_unfuzzed: int | None
    last_review: int | None


class DueRow(NamedTuple):
    """A kept follow-up with its card as the queue reads it (``studiable_from``: 0 when
    now, None when suspended, else microseconds)."""

    follow_up: SummaryRow
    deck_id: int
    key: str
    seed: int
    card_state: int
    studiable_from: int | None


_COLUMNS = (
    "s.card_id, s.option, s.standing, s.picks, s.last_pick, s.answers, s.picked_lately, s.why, "
    "s.state, s.step, s.stability, s.difficulty, s.due, s.due_unfuzzed, s.last_review"
)


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
            (int(row[0]), SummaryRow(*row[1:]))
            for row in self._sql.rows(
                f"SELECT card.deck_id, {_COLUMNS} FROM follow_up_summary AS s "
                f"CROSS JOIN card ON card.id = s.card_id{condition} ORDER BY s.card_id, s.option",
                parameters,
            )
        ]

    def standing_counts(self, deck_ids: Sequence[int] | None = None) -> tuple[int, int, int]:
        """The kept rows (of the cards of some decks, or all) but the stale cards', counted
        in SQL, no row read out: ``(faded, picked lately, the others)``.

        Summed, not grouped: a ``GROUP BY`` made SQLite look each card up in its table
        (its text included) rather than in the index by deck, and sort the rows.
        """
        condition, parameters = _decks(deck_ids)
        where = " AND" if condition else " WHERE"
        join = " CROSS JOIN card ON card.id = s.card_id" if condition else ""
        ((faded, lately, rows),) = self._sql.rows(
            f"SELECT coalesce(sum(s.standing = {FADED}), 0), "
            f"coalesce(sum(s.standing <> {FADED} AND s.picked_lately), 0), count(*) "
            f"FROM follow_up_summary AS s{join}{condition}{where} "
            "s.card_id NOT IN (SELECT card_id FROM follow_up_stale)",
            parameters,
        )
        return int(faded), int(lately), int(rows) - int(faded) - int(lately)

    def of_cards(self, card_ids: Sequence[int]) -> list[SummaryRow]:
        """The kept rows of some cards (a few), by card and option."""
        if not card_ids:
            return []
        marks = ", ".join("?" * len(card_ids))
        return [
            SummaryRow(*row)
            for row in self._sql.rows(
                f"SELECT {_COLUMNS} FROM follow_up_summary AS s WHERE s.card_id IN ({marks}) "
                "ORDER BY s.card_id, s.option",
                tuple(card_ids),
            )
        ]

    def active_cards(self, deck_ids: Sequence[int] | None = None) -> set[int]:
        """The cards (of some decks, or all) with an active follow-up, due or not."""
        condition, parameters = _decks(deck_ids)
        where = " AND" if condition else " WHERE"
        return {
            int(row[0])
            for row in self._sql.rows(
                "SELECT s.card_id FROM follow_up_summary AS s "
                f"CROSS JOIN card ON card.id = s.card_id{condition}{where} s.standing = {ACTIVE}",
                parameters,
            )
        }

    def active_before(
        self, before: int, fuzz: bool, deck_ids: Sequence[int] | None = None
    ) -> list[DueRow]:
        """The active follow-ups due before ``before`` (microseconds; scheduled with fuzz or
        without), found along the index of the active ones by due, with their cards."""
        column = "s.due" if fuzz else "s.due_unfuzzed"
        condition, parameters = _decks(deck_ids)
        where = " AND" if condition else " WHERE"
        return [
            DueRow(SummaryRow(*row[:15]), *row[15:])
            for row in self._sql.rows(
                f"SELECT {_COLUMNS}, card.deck_id, card.key, card.seed, card_memory.state, "
                "CASE WHEN card_memory.suspended THEN NULL "
                "ELSE coalesce(card_memory.buried_until, 0) END "
                "FROM follow_up_summary AS s CROSS JOIN card ON card.id = s.card_id "
                f"JOIN card_memory ON card_memory.card_id = s.card_id{condition}"
                f"{where} s.standing = {ACTIVE} AND {column} < ? ORDER BY s.card_id",
                (*parameters, before),
            )
        ]

    def askable_before(
        self, before: int, fuzz: bool, at: int, deck_ids: Sequence[int] | None = None
    ) -> list[Row]:
        """The active follow-ups due before ``before`` that may be asked at ``at``
        (microseconds): their cards studiable then and not in learning, the cards marked
        stale left out. Plain rows as ``active_before`` reads them (a ``DueRow``'s columns
        in order), soonest due first, then by card."""
        column = "s.due" if fuzz else "s.due_unfuzzed"
        condition, parameters = self._askable(column, deck_ids)
        return self._sql.rows(
            f"SELECT {_COLUMNS}, card_memory.deck_id, card.key, card.seed, card_memory.state, "
            "coalesce(card_memory.buried_until, 0) "
            f"{condition.replace(_MEMORY_JOIN, _MEMORY_JOIN + _CARD_JOIN)} "
            f"ORDER BY {column}, s.card_id",
            (*parameters, before, at),
        )

    def askable_counts(
        self, before: int, fuzz: bool, at: int, deck_ids: Sequence[int] | None = None
    ) -> dict[int, int]:
        """How many follow-ups ``askable_before`` finds, per deck of their cards."""
        column = "s.due" if fuzz else "s.due_unfuzzed"
        condition, parameters = self._askable(column, deck_ids)
        return {
            int(row[0]): int(row[1])
            for row in self._sql.rows(
                f"SELECT card_memory.deck_id, count(*) {condition} GROUP BY card_memory.deck_id",
                (*parameters, before, at),
            )
        }

    @staticmethod
    def _askable(column: str, deck_ids: Sequence[int] | None) -> tuple[str, tuple[int, ...]]:
        """The FROM and WHERE of the askable follow-ups (``study.follow_ups`` has the rules),
        and the decks' parameters; the due bound and the moment come after them.

        The deck is the schedule's copy of the card's (as the queue reads it), so counting
        them looks no card up: the card's own row is wide (its text and search text).
        """
        condition, parameters = _decks(deck_ids, "card_memory")
        where = " AND" if condition else " WHERE"
        learning = f"{int(CardState.LEARNING)}, {int(CardState.RELEARNING)}"
        return (
            f"FROM follow_up_summary AS s{_MEMORY_JOIN}{condition}"
            f"{where} s.standing = {ACTIVE} AND {column} < ? "
            "AND NOT coalesce(card_memory.suspended, 0) "
            "AND coalesce(card_memory.buried_until, 0) <= ? "
            f"AND card_memory.state NOT IN ({learning}) "
            "AND s.card_id NOT IN (SELECT card_id FROM follow_up_stale)",
            parameters,
        )

    def decks_with(self) -> set[int]:
        """The decks with a card that has a kept follow-up (of any standing), the cards
        marked stale left out."""
        return {
            int(row[0])
            for row in self._sql.rows(
                "SELECT DISTINCT card.deck_id FROM card WHERE card.id IN "
                "(SELECT card_id FROM follow_up_summary WHERE card_id NOT IN "
                "(SELECT card_id FROM follow_up_stale))"
            )
        }

    def store(self, card_ids: Iterable[int], rows: Iterable[SummaryRow]) -> None:
        """Put ``rows`` in place of the kept rows of ``card_ids`` and forget their marks."""
        ids = [(card_id,) for card_id in card_ids]
        self._sql.run_many("DELETE FROM follow_up_summary WHERE card_id = ?", ids)
        self._sql.run_many(
            f"INSERT INTO follow_up_summary ({_COLUMNS.replace('s.', '')}) "
            f"VALUES ({', '.join('?' * len(SummaryRow._fields))})",
            [tuple(row) for row in rows],
        )
        self._sql.run_many("DELETE FROM follow_up_stale WHERE card_id = ?", ids)


_MEMORY_JOIN = " CROSS JOIN card_memory ON card_memory.card_id = s.card_id"
_CARD_JOIN = " CROSS JOIN card ON card.id = s.card_id"


def _decks(deck_ids: Sequence[int] | None, table: str = "card") -> tuple[str, tuple[int, ...]]:
    if deck_ids is None:
        return "", ()
    marks = ", ".join("?" * len(deck_ids)) or "NULL"
    return f" WHERE {table}.deck_id IN ({marks})", tuple(deck_ids)
