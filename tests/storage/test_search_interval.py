"""``prop:ivl`` compares the span from the last review to due, and matches the same cards as
the whole days worked out per card (``interval_days_sql``) compared with the number.

The spans sit on every boundary the rounding has (whole and half days, one microsecond either
side), with new cards and missing times beside them; hypothesis adds spans and numbers of
any size.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.content import search
from recall.storage import search_sql

_DAY = 86_400_000_000
_LAST_REVIEW = 1_700_000_000_000_000
_COMPARISONS = ("<", "<=", "=", "!=", ">", ">=")
_CONTEXT = search_sql.SearchContext(
    now=datetime(2026, 3, 10, 9, 30, tzinfo=UTC),
    day_start=datetime(2026, 3, 10, 4, tzinfo=UTC),
    day_end=datetime(2026, 3, 11, 4, tzinfo=UTC),
    decay=-0.5,
    factor=19 / 81,
)
_NUMBERS = (-3, -1, -0.5, 0, 0.3, 0.5, 1, 2.5, 3, 9.5, 10, 10.2, 40, 1e300, -1e300)


def _spans() -> list[int]:
    spans = []
    for halves in range(-8, 90):
        for offset in (-1, 0, 1):
            spans.append(halves * _DAY // 2 + offset)
    return spans


@pytest.fixture(scope="module")
def schedules() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.execute(
        "CREATE TABLE card_memory (card_id INTEGER PRIMARY KEY, state INTEGER, due INTEGER, "
        "last_review INTEGER)"
    )
    rows: list[tuple[int, int | None, int | None]] = []
    for span in _spans():
        rows += [(state, _LAST_REVIEW + span, _LAST_REVIEW) for state in (1, 2, 3)]
        rows.append((0, _LAST_REVIEW + span, _LAST_REVIEW))  # a new card is never matched
    rows += [(2, None, _LAST_REVIEW), (2, _LAST_REVIEW, None), (0, None, None)]
    connection.executemany(
        "INSERT INTO card_memory (state, due, last_review) VALUES (?, ?, ?)", rows
    )
    yield connection
    connection.close()


def _matched(connection: sqlite3.Connection, query: str) -> list[int]:
    condition = search_sql.compile_query(search.parse(query), _CONTEXT)
    return [
        row[0]
        for row in connection.execute(
            f"SELECT card_id FROM card_memory WHERE {condition.sql} ORDER BY card_id",
            condition.parameters,
        )
    ]


def _by_whole_days(
    connection: sqlite3.Connection, comparison: str, number: float, negated: bool = False
) -> list[int]:
    operator = "<>" if comparison == "!=" else comparison
    term = f"({search_sql.interval_days_sql()} {operator} ?)"
    if negated:
        term = f"({term}) IS NOT 1"
    return [
        row[0]
        for row in connection.execute(
            f"SELECT card_id FROM card_memory WHERE {term} ORDER BY card_id", (number,)
        )
    ]


@pytest.mark.parametrize("comparison", _COMPARISONS)
def test_the_span_matches_the_cards_the_whole_days_match(
    schedules: sqlite3.Connection, comparison: str
) -> None:
    for number in _NUMBERS:
        query = f"prop:ivl{comparison}{number!r}"
        expected = _by_whole_days(schedules, comparison, number)
        assert _matched(schedules, query) == expected, query
        negated = _by_whole_days(schedules, comparison, number, negated=True)
        assert _matched(schedules, f"-{query}") == negated, query
    # 10 days are the spans from 9.5 days to a microsecond short of 10.5, in each of the three
    # states of a reviewed card.
    matched = _matched(schedules, "prop:ivl=10")
    ((shortest, longest),) = schedules.execute(
        f"SELECT min(due - last_review), max(due - last_review) FROM card_memory "
        f"WHERE card_id IN ({', '.join('?' * len(matched))})",
        matched,
    ).fetchall()
    assert (shortest, longest, len(matched)) == (19 * _DAY // 2, 21 * _DAY // 2 - 1, 3 * 6)


def test_the_days_round_half_away_from_zero_as_sqlite_rounds(
    schedules: sqlite3.Connection,
) -> None:
    # 9.5 days is 10 days, a microsecond less is 9; -0.5 days is -1 day.
    half = _DAY // 2
    for span, days in ((19 * half, 10), (19 * half - 1, 9), (-half, -1), (-half + 1, 0)):
        ((rounded,),) = schedules.execute(
            f"SELECT {search_sql.interval_days_sql()} FROM (SELECT 2 AS state, ? AS due, "
            "? AS last_review) AS card_memory",
            (_LAST_REVIEW + span, _LAST_REVIEW),
        ).fetchall()
        assert rounded == days
        query = f"prop:ivl={days}"
        condition = search_sql.compile_query(search.parse(query), _CONTEXT)
        ((matched,),) = schedules.execute(
            f"SELECT {condition.sql} FROM (SELECT 2 AS state, ? AS due, ? AS last_review) "
            "AS card_memory",
            (*condition.parameters, _LAST_REVIEW + span, _LAST_REVIEW),
        ).fetchall()
        assert matched == 1, (span, days)


@settings(max_examples=200, deadline=None)
@given(
    spans=st.lists(st.integers(min_value=-(10**16), max_value=10**16), min_size=1, max_size=20),
    comparison=st.sampled_from(_COMPARISONS),
    number=st.one_of(
        st.integers(min_value=-(10**6), max_value=10**6).map(lambda days: days / 2),
        st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
    ),
)
def test_any_span_and_number_match_as_the_whole_days_do(
    spans: list[int], comparison: str, number: float
) -> None:
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute(
            "CREATE TABLE card_memory (card_id INTEGER PRIMARY KEY, state INTEGER, "
            "due INTEGER, last_review INTEGER)"
        )
        connection.executemany(
            "INSERT INTO card_memory (state, due, last_review) VALUES (2, ?, ?)",
            [(_LAST_REVIEW + span, _LAST_REVIEW) for span in spans],
        )
        query = f"prop:ivl{comparison}{number!r}"
        assert _matched(connection, query) == _by_whole_days(connection, comparison, number)
    finally:
        connection.close()
