"""The review history counted by study day, kept in the database so the statistics do not
read a million reviews each time.

``study_day_count`` holds every answer counted by deck, study day, kind (learning, young,
mature, relearning), first review of the day, rating and result; ``study_hour_count`` by
deck, study day, local hour, rating, rating proposed and result: what the statistics'
history figures sum. A study day depends on the learner's time zone and rollover hour, so
the tables belong to one way of counting days, written in ``study_day_state`` as
``local_key``; another key counts everything again.

Triggers keep them honest without any write path having to remember it: an answer added
or removed (answering, undo, an import with history, a sync merge, setting reviews aside)
and a card moved to another deck mark the counts stale from that answer's time on
(``stale_from``), and the next statistics count again from the day before that answer's
study day on, before they read them: counted in a read transaction, stored in a short
write one unless the triggers' change count moved meanwhile (``Recount``). A review's kind
and first-of-the-day depend on its card's previous answer, which is always earlier:
counting again from the first changed answer's day on covers every count the change
touched (the day before too, since a local day can step back by one where the clocks go
back). A restored backup brings its own counts with the reviews they count.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from recall.core.memory import LONGEST_ANSWER_MS, CardState
from recall.storage.rows import REVIEW_ORDER
from recall.storage.sql import Row, Sql
from recall.storage.statistics import (
    DAY_US,
    KIND_LEARNING,
    KIND_MATURE,
    KIND_RELEARNING,
    KIND_YOUNG,
    MATURE_DAYS,
    AnswerGroup,
    DayGroup,
    LocalTime,
)
from recall.storage.study_day_schema import ANSWER as _ANSWER
from recall.storage.study_day_schema import NEVER as _NEVER


def local_key(local: LocalTime, since_us: int, until_us: int) -> str:
    """What identifies a way of counting study days between two times (the first review and
    now): the rollover hour, the offset at the first and each change of it up to the second.
    The counts are made again when it changes: in another time zone, after the clocks
    change (twice a year where they do), or once an earlier review arrives."""
    offset = local.offsets[0][1]
    changes = []
    for start, value in local.offsets[1:]:
        if start <= since_us:
            offset = value
        elif start <= until_us:
            changes.append((start, value))
    return json.dumps([local.rollover_hour, offset, changes])


@dataclass(frozen=True)
class Recount:
    """What is stale, as read before counting it again.

    Attributes:
        key: The way of counting days the counts will be for.
        first_day: Count the days from this one on; None: every day.
        early: A time before ``first_day`` began, to read the reviews from; None: all.
        changes: The state's count of changes when read: if it moved by the time the new
            counts are stored, answers changed meanwhile and the counting is done again.
    """

    key: str
    first_day: int | None
    early: int | None
    changes: int


@dataclass(frozen=True)
class Counted:
    """New counts for the days a ``Recount`` names: rows of the two tables."""

    days: list[tuple[int, ...]]
    hours: list[tuple[int, ...]]


class StudyDayQueries:
    """The counts by study day, in the transaction whose SQL is given."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def recount(self, local: LocalTime, key: str) -> Recount | None:
        """What to count again, None when the counts are up to date for ``key``."""
        ((kept_key, stale_from, changes),) = self._sql.rows(
            "SELECT local_key, stale_from, changes FROM study_day_state WHERE id = 1"
        )
        if kept_key == key and stale_from is None:
            return None
        if kept_key != key or stale_from == _NEVER:
            return Recount(key, None, None, int(changes))
        # Counted again: the days from the day before the first change on (a local day can
        # step back by one where the clocks go back), from the reviews of three days before
        # the change on, which hold all of those days' reviews.
        ((changed_day,),) = self._sql.rows(f"SELECT {local.day(str(int(stale_from)))}")
        return Recount(key, int(changed_day) - 1, int(stale_from) - 3 * DAY_US, int(changes))

    def count(self, local: LocalTime, recount: Recount) -> Counted:
        """Count the days ``recount`` names from the reviews; only reads."""
        start = (
            None
            if recount.first_day is None or recount.early is None
            else (
                recount.first_day,
                recount.early,
            )
        )
        sql = f"""
            WITH c AS ({_counting(local, start)})
            SELECT 0, deck_id, day, kind, first_of_day, rating, correct, sum(reviews),
                sum(time_ms) FROM c GROUP BY 2, 3, 4, 5, 6, 7
            UNION ALL
            SELECT 1, deck_id, day, hour, rating, proposed, correct, sum(reviews), NULL
            FROM c GROUP BY 2, 3, 4, 5, 6, 7
        """
        counted = Counted([], [])
        for which, *row in self._sql.rows(sql):
            if which == 0:
                counted.days.append(tuple(int(value) for value in row))
            else:
                counted.hours.append(tuple(int(value) for value in row[:-1]))
        return counted

    def store(self, recount: Recount, counted: Counted) -> bool:
        """Put new counts in place of the stale ones, unless answers changed since
        ``recount`` was read (then nothing is written: False). Writes."""
        ((changes,),) = self._sql.rows("SELECT changes FROM study_day_state WHERE id = 1")
        if int(changes) != recount.changes:
            return False
        since = _NEVER if recount.first_day is None else recount.first_day
        self._sql.run("DELETE FROM study_day_count WHERE day >= ?", (since,))
        self._sql.run("DELETE FROM study_hour_count WHERE day >= ?", (since,))
        self._sql.run_many(
            "INSERT INTO study_day_count (deck_id, day, kind, first_of_day, rating, correct, "
            "reviews, time_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            counted.days,
        )
        self._sql.run_many(
            "INSERT INTO study_hour_count (deck_id, day, hour, rating, proposed, correct, "
            "reviews) VALUES (?, ?, ?, ?, ?, ?, ?)",
            counted.hours,
        )
        self._sql.run(
            "UPDATE study_day_state SET local_key = ?, stale_from = NULL WHERE id = 1",
            (recount.key,),
        )
        return True

    def bring_up_to_date(self, local: LocalTime, key: str) -> None:
        """Count again what is stale, in this (write) transaction."""
        recount = self.recount(local, key)
        if recount is not None:
            stored = self.store(recount, self.count(local, recount))
            assert stored  # nothing else writes inside this transaction

    def groups(
        self, since_day: int | None, deck_ids: Sequence[int] | None
    ) -> tuple[list[DayGroup], list[AnswerGroup]]:
        """The counts summed two ways: by day (all of them) and by hour (from ``since_day``).

        Returns:
            The groups by study day, kind, first of the day, rating and result, and the
            groups by local hour, rating, proposed rating and result.
        """
        deck = "" if deck_ids is None else f"AND deck_id IN ({_ids(deck_ids)})"
        since = _NEVER if since_day is None else int(since_day)
        sql = f"""
            SELECT 0, day, kind, first_of_day, rating, correct, sum(reviews), sum(time_ms)
            FROM study_day_count WHERE 1 {deck} GROUP BY 2, 3, 4, 5, 6
            UNION ALL
            SELECT 1, hour, rating, proposed, correct, NULL, sum(reviews), NULL
            FROM study_hour_count WHERE day >= {since} {deck} GROUP BY 2, 3, 4, 5
        """
        return _split(self._sql.rows(sql))

    def counted_afresh(
        self, local: LocalTime, since_day: int | None, deck_ids: Sequence[int] | None
    ) -> tuple[list[DayGroup], list[AnswerGroup]]:
        """What ``groups`` gives, counted from the reviews themselves (for checks and tests)."""
        deck = "" if deck_ids is None else f"AND deck_id IN ({_ids(deck_ids)})"
        since = _NEVER if since_day is None else int(since_day)
        counts = f"({_counting(local, None)})"
        sql = f"""
            SELECT 0, day, kind, first_of_day, rating, correct, sum(reviews), sum(time_ms)
            FROM {counts} WHERE 1 {deck} GROUP BY 2, 3, 4, 5, 6
            UNION ALL
            SELECT 1, hour, rating, proposed, correct, NULL, sum(reviews), NULL
            FROM {counts} WHERE day >= {since} {deck} GROUP BY 2, 3, 4, 5
        """
        return _split(self._sql.rows(sql))


def _counting(local: LocalTime, start: tuple[int, int] | None) -> str:
    """SQL counting the answers by the table's columns, all of them or from a study day on.

    ``start`` is ``(first day, a time before it began)``: the answers from that time on
    are read, and those on that day or later counted. A card's previous answer comes from a
    window over its answers in the order they happened, read along the index on card and
    time; the first one read looks its previous one up before that time.
    """
    if start is None:
        where, before, counted = "", "NULL", ""
    else:
        first_day, early = start
        where = f"AND review.reviewed_at >= {int(early)}"
        before = (
            "(SELECT max(p.reviewed_at) FROM review AS p WHERE p.card_id = review.card_id "
            f"AND p.kind = {_ANSWER} AND p.reviewed_at < {int(early)})"
        )
        counted = f"WHERE {local.day('t')} >= {int(first_day)}"
    return f"""
        WITH r AS (
            SELECT review.reviewed_at AS t, review.rating AS rating,
                min(max(review.duration_ms, 0), {LONGEST_ANSWER_MS}) AS ms,
                review.state_before AS s, review.correct AS ok,
                coalesce(review.proposed_rating, 0) AS proposed, card.deck_id AS deck_id,
                coalesce(lag(review.reviewed_at) OVER (
                    PARTITION BY review.card_id ORDER BY {REVIEW_ORDER}), {before}) AS prev
            FROM review CROSS JOIN card ON card.id = review.card_id
            WHERE review.kind = {_ANSWER} {where}
        )
        SELECT deck_id, {local.day("t")} AS day,
            CASE WHEN s IN ({int(CardState.NEW)}, {int(CardState.LEARNING)})
                    THEN {KIND_LEARNING}
                WHEN s = {int(CardState.RELEARNING)} THEN {KIND_RELEARNING}
                WHEN prev IS NULL OR t - prev < {MATURE_DAYS * DAY_US} THEN {KIND_YOUNG}
                ELSE {KIND_MATURE} END AS kind,
            (prev IS NULL OR {local.day("prev")} <> {local.day("t")}) AS first_of_day,
            rating, ok AS correct, {local.hour("t")} AS hour, proposed,
            count(*) AS reviews, sum(ms) AS time_ms
        FROM r {counted} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    """


def _split(rows: list[Row]) -> tuple[list[DayGroup], list[AnswerGroup]]:
    """The two halves of a ``groups`` result; SQLite gives each count as an integer."""
    days: list[DayGroup] = []
    answers: list[AnswerGroup] = []
    for which, a, b, c, d, e, n, ms in rows:
        if which == 0:
            days.append(DayGroup(a, b, bool(c), d, bool(e), n, ms or 0))
        else:
            answers.append(AnswerGroup(a, b, None if c == 0 else c, bool(d), n))
    return days, answers


def _ids(deck_ids: Sequence[int]) -> str:
    """Deck ids as an SQL list; they are integers, so they go in as text safely."""
    return ", ".join(str(int(deck_id)) for deck_id in deck_ids) or "NULL"
