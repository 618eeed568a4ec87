"""The statistics' queries: the review history and the schedules, grouped by study day in SQL.

A study day ends at the rollover hour in local time, which moves against UTC when daylight
saving time starts or ends. The caller passes the local time's UTC offset as a list of
segments (from this moment on, this offset); the queries turn that into one ``CASE``
expression, so a review's study day is ``(time + offset - rollover) / day`` counted from
1970-01-01, exact on either side of a change, and ``GROUP BY`` runs in SQLite.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from recall.core.memory import CardState, ReviewKind
from recall.storage.sql import Sql
from recall.storage.times import from_micros, to_micros

HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US
_ANSWER = int(ReviewKind.ANSWER)
MATURE_DAYS = 21
"""A review card whose interval is at least this many days is mature (as in Anki)."""

# What kind of review a row is: learning (new or learning card), young, mature, relearning.
KIND_LEARNING, KIND_YOUNG, KIND_MATURE, KIND_RELEARNING = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class LocalTime:
    """How UTC becomes the learner's study day and hour.

    Attributes:
        offsets: ``(from_us, offset_us)`` pairs, oldest first: from ``from_us`` (UTC
            microseconds) on, local time is UTC plus ``offset_us``. The first pair's offset
            also holds before it.
        rollover_hour: The local hour at which a study day begins.
    """

    offsets: tuple[tuple[int, int], ...]
    rollover_hour: int

    def local(self, column: str) -> str:
        """SQL for the local wall time of a UTC microseconds column, in microseconds."""
        (_, first), *later = self.offsets
        if not later:
            return f"({column} + {int(first)})"
        whens = " ".join(
            f"WHEN {column} < {int(start)} THEN {int(previous)}"
            for (start, _), (_, previous) in zip(later, self.offsets, strict=False)
        )
        return f"({column} + CASE {whens} ELSE {int(later[-1][1])} END)"

    def day(self, column: str) -> str:
        """SQL for the study day of a UTC microseconds column: days since 1970-01-01."""
        return f"(({self.local(column)} - {int(self.rollover_hour) * HOUR_US}) / {DAY_US})"

    def day_spans(self, since: int, until: int) -> list[tuple[int, int, int]] | None:
        """The times from ``since`` up to ``until`` (UTC microseconds) cut where ``day``
        changes: ``(day, from, to)``, in order. None when a time in them is before the
        first study day of 1970 (where SQL's division truncates towards zero)."""
        rollover = int(self.rollover_hour) * HOUR_US
        spans: list[tuple[int, int, int]] = []
        later = since  # ``local``'s CASE takes the first offset whose start is not reached
        for index, (start, offset) in enumerate(self.offsets):
            if index:
                later = max(later, start)
            following = self.offsets[index + 1][0] if index + 1 < len(self.offsets) else until
            low, high, shift = later, min(until, following), offset - rollover
            if low >= high:
                continue
            if low + shift < 0:
                return None
            day = (low + shift) // DAY_US
            while day * DAY_US - shift < high:
                begins, ends = day * DAY_US - shift, (day + 1) * DAY_US - shift
                spans.append((day, max(low, begins), min(high, ends)))
                day += 1
        return spans

    def hour(self, column: str) -> str:
        """SQL for the local hour (0-23) of a UTC microseconds column."""
        return f"(({self.local(column)} / {HOUR_US}) % 24)"


@dataclass(frozen=True, slots=True)
class DayGroup:
    """Reviews of one study day that share a kind, a rating and whether they were right.

    Attributes:
        day: Days since 1970-01-01 of the study day.
        kind: ``KIND_LEARNING``, ``KIND_YOUNG``, ``KIND_MATURE`` or ``KIND_RELEARNING``.
        first_of_day: Whether these are each card's first review of the day.
        rating: 1-4.
        correct: Whether the answers were right.
        reviews: How many reviews.
        time_ms: Their total answer time.
    """

    day: int
    kind: int
    first_of_day: bool
    rating: int
    correct: bool
    reviews: int
    time_ms: int


@dataclass(frozen=True, slots=True)
class AnswerGroup:
    """Answers counted by local hour, rating given, rating proposed and result.

    Attributes:
        hour: The local hour (0-23) they were made in.
        rating: The rating given, 1-4.
        proposed: The rating Recall proposed, None when not recorded.
        correct: Whether the answers were right.
        reviews: How many answers.
    """

    hour: int
    rating: int
    proposed: int | None
    correct: bool
    reviews: int


@dataclass(frozen=True, slots=True)
class ValueCounts:
    """A histogram as SQL counted it: each rounded value with its count, and the average."""

    counts: tuple[tuple[float, int], ...]
    average: float | None
    total: float


@dataclass(frozen=True, slots=True)
class ScheduleCounts:
    """What one walk of the schedules counts: cards by kind, and four histograms.

    Attributes:
        kinds: Cards by kind (see ``StatisticsQueries.schedules``); kinds without a card
            are left out.
    """

    kinds: dict[int, int]
    interval: ValueCounts
    stability: ValueCounts
    difficulty: ValueCounts
    retrievability: ValueCounts


@dataclass(frozen=True, slots=True)
class PickedOption:
    """A wrong option picked on a card, with how often and when last."""

    deck_key: str
    card_id: int
    card_key: str
    question: str
    choice: str
    times: int
    last: datetime
    still: bool


class StatisticsQueries:
    """The statistics' reads, in the transaction whose rows function is given."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql
        self._walks: dict[tuple[int, ...], str] = {}

    def _schedules(self, deck_ids: Sequence[int] | None) -> str:
        """The schedules to walk for every card of some decks: along the index on deck when
        they hold under a quarter of the cards, else the whole table in its order, which
        reads each row once instead of looking it up from the index (twice as fast).

        The cards are counted by their largest id (one look-up; at least their count, so a
        collection with ids left by deleted cards may walk the index where the table would
        do), and the decks' cards only up to a quarter of that, not all of them.
        """
        if deck_ids is None:
            return "card_memory"
        key = tuple(deck_ids)
        if key not in self._walks:
            ((everyone,),) = self._rows("SELECT coalesce(max(card_id), 0) FROM card_memory", ())
            quarter = int(everyone) // 4 + 1
            ((mine,),) = self._rows(
                "SELECT count(*) FROM (SELECT 1 FROM card_memory "
                f"WHERE deck_id IN ({_ids(key)}) LIMIT ?)",
                (quarter,),
            )
            few = int(mine) * 4 < int(everyone)
            self._walks[key] = "card_memory" if few else "card_memory NOT INDEXED"
        return self._walks[key]

    def _rows(self, sql: str, parameters: Sequence[Any]) -> list[tuple[Any, ...]]:
        return self._sql.rows(sql, parameters)

    def first_review(self) -> datetime | None:
        """When the first review was made (the head of the index on review times)."""
        ((first,),) = self._rows("SELECT min(reviewed_at) FROM review", ())
        return from_micros(first)

    def cards_reviewed(
        self, since: datetime, until: datetime, deck_ids: Sequence[int] | None = None
    ) -> int:
        """How many different cards were reviewed between two times."""
        source, parameters = _reviews_since(since, deck_ids)
        ((count,),) = self._rows(
            f"SELECT count(DISTINCT review.card_id) FROM {source} AND review.reviewed_at < ?",
            (*parameters, to_micros(until)),
        )
        return int(count)

    def cram_answers(
        self, since: datetime, until: datetime, deck_ids: Sequence[int] | None = None
    ) -> int:
        """How many cram answers were given between two times (they count nowhere else)."""
        source, parameters = _reviews_since(since, deck_ids, int(ReviewKind.CRAM))
        ((count,),) = self._rows(
            f"SELECT count(*) FROM {source} AND review.reviewed_at < ?",
            (*parameters, to_micros(until)),
        )
        return int(count)

    def due_by_day(
        self,
        local: LocalTime,
        since: datetime,
        until: datetime,
        deck_ids: Sequence[int] | None = None,
    ) -> list[tuple[int, int]]:
        """Studied cards due between two times, by study day: ``(day, cards)``, days
        without a card left out.

        For some decks, each study day's cards are counted along the index by deck and due
        between the day's first and last moment, one range of the index per day and deck:
        no row read out and no sort, where grouping every card's due time by its day sorted
        them all (a third of the time at 100,000 cards).
        """
        start, end = to_micros(since), to_micros(until)
        assert start is not None
        assert end is not None
        studied = f"state <> {int(CardState.NEW)} AND NOT suspended"
        spans = None if deck_ids is None else local.day_spans(start, end)
        if spans is None or deck_ids is None:
            deck = "" if deck_ids is None else f"AND deck_id IN ({_ids(deck_ids)})"
            sql = (
                f"SELECT {local.day('due')}, count(*) FROM card_memory "
                f"WHERE {studied} AND due >= ? AND due < ? {deck} GROUP BY 1 ORDER BY 1"
            )
            return [(int(d), int(n)) for d, n in self._rows(sql, (start, end))]
        if not spans:
            return []
        values = ", ".join(f"({int(day)}, {int(low)}, {int(high)})" for day, low, high in spans)
        sql = (
            f"WITH span (day, low, high) AS (VALUES {values}) "
            f"SELECT span.day, (SELECT count(*) FROM card_memory WHERE {studied} "
            f"AND due >= span.low AND due < span.high AND deck_id IN ({_ids(deck_ids)})) "
            "FROM span"
        )
        counts: dict[int, int] = {}
        for day, cards in self._rows(sql, ()):
            counts[int(day)] = counts.get(int(day), 0) + int(cards)
        return sorted((day, cards) for day, cards in counts.items() if cards)

    def due_before(self, moment: datetime, deck_ids: Sequence[int] | None = None) -> int:
        """How many studied cards fell due before a time (the overdue backlog)."""
        deck = "" if deck_ids is None else f"AND deck_id IN ({_ids(deck_ids)})"
        ((count,),) = self._rows(
            f"SELECT count(*) FROM card_memory WHERE state <> {int(CardState.NEW)} "
            f"AND NOT suspended AND due < ? {deck}",
            (to_micros(moment),),
        )
        return int(count)

    def schedules(
        self, now: datetime, curve: tuple[float, float], deck_ids: Sequence[int] | None = None
    ) -> ScheduleCounts:
        """Cards by kind now, and how studied cards spread over four measures of memory, in
        one walk of the schedules.

        The kinds: -2 for suspended, -1 for new, else the ``KIND_*`` numbers (by scheduled
        interval). The measures, of the studied cards (not new, stability above 0):
        interval (days, rounded), stability (days, rounded), difficulty (1-10, to a tenth)
        and retrievability now (0-1, to 1%), which is ``(1 + factor * days / stability) **
        decay`` with whole days since the last review, as fsrs counts them, and ``curve``
        FSRS's ``(decay, factor)``. Each value is worked out with SQLite's arithmetic and its
        ``round`` (half away from zero), as the four grouped walks that this one replaced
        did in SQL: one read of each row and no sort, instead of five walks each sorting
        every row by its group.
        """
        decay, factor = curve
        where = "" if deck_ids is None else f"WHERE deck_id IN ({_ids(deck_ids)})"
        rows = self._rows(
            "SELECT suspended, state, due - last_review, stability, difficulty, last_review "
            f"FROM {self._schedules(deck_ids)} {where}",
            (),
        )
        kinds = dict.fromkeys((-2, -1, KIND_LEARNING, KIND_RELEARNING, KIND_YOUNG, KIND_MATURE), 0)
        buckets: tuple[dict[float, list[float]], ...] = ({}, {}, {}, {})
        interval, stability, difficulty, retrievability = buckets
        mature, day, moment = MATURE_DAYS * DAY_US, float(DAY_US), to_micros(now) or 0
        new, learning = int(CardState.NEW), int(CardState.LEARNING)
        relearning = int(CardState.RELEARNING)
        power = math.pow
        interval_get, stability_get = interval.get, stability.get
        difficulty_get, retrievability_get = difficulty.get, retrievability.get
        for suspended, state, span, stable, hard, last in rows:
            if suspended:
                kinds[-2] += 1
            elif state == new:
                kinds[-1] += 1
            elif state == learning:
                kinds[KIND_LEARNING] += 1
            elif state == relearning:
                kinds[KIND_RELEARNING] += 1
            elif span is not None and span < mature:
                kinds[KIND_YOUNG] += 1
            else:
                kinds[KIND_MATURE] += 1
            if state == new or stable is None or not stable > 0:
                continue
            # Each measure counted in the bucket of SQLite's round(value * scale) (half
            # away from zero) and added to the bucket's sum, written out for each: a call
            # per value was half the walk's Python time at 1,000,000 cards.
            if span is not None:
                value = span / day
                key = float(int(value + 0.5)) if value >= 0 else -float(int(-value + 0.5))
                found = interval_get(key)
                if found is None:
                    interval[key] = [1.0, value]
                else:
                    found[0] += 1.0
                    found[1] += value
            key = float(int(stable + 0.5))  # stable > 0
            found = stability_get(key)
            if found is None:
                stability[key] = [1.0, stable]
            else:
                found[0] += 1.0
                found[1] += stable
            if hard is not None:
                scaled = hard * 10.0
                key = float(int(scaled + 0.5)) if scaled >= 0 else -float(int(-scaled + 0.5))
                found = difficulty_get(key)
                if found is None:
                    difficulty[key] = [1.0, hard]
                else:
                    found[0] += 1.0
                    found[1] += hard
            if last is not None:
                elapsed = moment - last
                value = power(
                    1.0 + factor * (elapsed // DAY_US if elapsed > 0 else 0) / stable, decay
                )
                scaled = value * 100.0
                key = float(int(scaled + 0.5)) if scaled >= 0 else -float(int(-scaled + 0.5))
                found = retrievability_get(key)
                if found is None:
                    retrievability[key] = [1.0, value]
                else:
                    found[0] += 1.0
                    found[1] += value
        counted = (
            _value_counts(interval, 1.0),
            _value_counts(stability, 1.0),
            _value_counts(difficulty, 10.0),
            _value_counts(retrievability, 100.0),
        )
        return ScheduleCounts(
            kinds={kind: count for kind, count in kinds.items() if count},
            interval=counted[0],
            stability=counted[1],
            difficulty=counted[2],
            retrievability=counted[3],
        )

    def wrong_picks(
        self, deck_ids: Sequence[int] | None = None, limit: int = -1
    ) -> list[PickedOption]:
        """Wrong options picked on choice cards, most picked first.

        An option is wrong when the card's current text does not mark it correct. It is
        "still" picked when the card's latest review picked it.
        """
        condition = "card.kind = 'choice'"
        if deck_ids is not None:
            condition += f" AND card.deck_id IN ({_ids(deck_ids)})"
        # The counts kept per card and text (pick_counts), walked most picked first along
        # their index until enough of them are wrong on a card of these decks.
        sql = f"""
            SELECT deck.key, card.id, card.key, json_extract(card.content, '$.question'),
                w.choice, w.times, w.last_at,
                EXISTS (SELECT 1 FROM json_each((SELECT latest.picked FROM review AS latest
                        WHERE latest.card_id = card.id
                        ORDER BY latest.reviewed_at DESC, latest.id DESC LIMIT 1)) AS l
                    WHERE l.value = w.choice)
            FROM wrong_pick_count AS w CROSS JOIN card ON card.id = w.card_id
                CROSS JOIN deck ON deck.id = card.deck_id
            WHERE {condition} AND w.choice NOT IN (
                SELECT json_extract(c.value, '$.text')
                FROM json_each(card.content, '$.choices') AS c
                WHERE json_extract(c.value, '$.correct'))
            ORDER BY w.times DESC, w.last_at DESC, w.card_id, w.choice
            LIMIT ?
        """
        rows = self._rows(sql, (limit,))
        return [
            PickedOption(
                deck_key=str(deck_key),
                card_id=int(cid),
                card_key=str(ckey),
                question=str(question or ""),
                choice=str(choice),
                times=int(times),
                last=_moment(last),
                still=bool(still),
            )
            for deck_key, cid, ckey, question, choice, times, last, still in rows
        ]

    def option_picks(self, card_id: int) -> list[tuple[str, int, datetime]]:
        """Each option text picked on a card: ``(text, times, last time)``, most picked first."""
        sql = """
            SELECT picked.value, count(*), max(review.reviewed_at)
            FROM review, json_each(review.picked) AS picked
            WHERE review.card_id = ? AND review.picked IS NOT NULL
            GROUP BY 1 ORDER BY 2 DESC, 1
        """
        return [(str(text), int(n), _moment(last)) for text, n, last in self._rows(sql, (card_id,))]


def _value_counts(buckets: dict[float, list[float]], scale: float) -> ValueCounts:
    ordered = sorted(buckets.items())
    cards = sum(int(count) for _, (count, _) in ordered)
    total = sum(bucket_sum for _, (_, bucket_sum) in ordered)
    return ValueCounts(
        counts=tuple((key / scale, int(count)) for key, (count, _) in ordered),
        average=total / cards if cards else None,
        total=total,
    )


def _ids(deck_ids: Sequence[int]) -> str:
    """Deck ids as an SQL list; they are integers, so they go in as text safely."""
    return ", ".join(str(int(deck_id)) for deck_id in deck_ids) or "NULL"


def _reviews_since(
    since: datetime, deck_ids: Sequence[int] | None, kind: int = _ANSWER
) -> tuple[str, tuple[Any, ...]]:
    """A FROM clause (with WHERE) of answers from a time on (read along the index of review
    times), optionally of one deck only; of ``kind`` (cram answers apart from answers)."""
    answers = f"review.kind = {int(kind)}"  # not the schedule changes made by hand
    if deck_ids is None:
        return f"review WHERE {answers} AND review.reviewed_at >= ?", (to_micros(since),)
    return (
        "review CROSS JOIN card ON card.id = review.card_id "
        f"WHERE card.deck_id IN ({_ids(deck_ids)}) AND {answers} AND review.reviewed_at >= ?",
        (to_micros(since),),
    )


def _moment(value: int) -> datetime:
    moment = from_micros(value)
    assert moment is not None
    return moment
