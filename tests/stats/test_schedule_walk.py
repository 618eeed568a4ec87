"""The one walk of the schedules counts what the grouped SQL walks it replaced counted.

The card counts and the four distributions (interval, stability, difficulty,
retrievability) were five ``GROUP BY`` walks of ``card_memory``; they are one walk now. Each
figure must be the same: the same buckets with the same counts, the same sums, on a
collection with new, learning, review, relearning and suspended cards over six decks, for
every deck, some decks and one, at moments that put retrievability on different days.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import pytest

from recall.core.memory import CardState
from recall.scheduling import Scheduler
from recall.storage import Database
from recall.storage.statistics import (
    DAY_US,
    KIND_LEARNING,
    KIND_MATURE,
    KIND_RELEARNING,
    KIND_YOUNG,
    MATURE_DAYS,
    ValueCounts,
)
from recall.storage.times import to_micros
from tests.helpers.collection import generate

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
CURVE = Scheduler().forgetting_curve()


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    path = tmp_path_factory.mktemp("walk") / "recall.sqlite3"
    database = Database(path)
    generate(database, Scheduler(fuzz=True), NOW)
    connection = sqlite3.connect(path)
    with connection:  # relearning and suspended review cards, and a difficulty never set
        connection.execute("UPDATE card_memory SET state = 3 WHERE state = 2 AND card_id % 7 = 0")
        connection.execute("UPDATE card_memory SET suspended = 1 WHERE card_id % 9 = 0")
        connection.execute(
            "UPDATE card_memory SET difficulty = NULL WHERE state = 2 AND card_id % 11 = 0"
        )
    connection.close()
    yield database
    database.close()


def _ids(deck_ids: Sequence[int] | None) -> str:
    return "" if deck_ids is None else ", ".join(str(deck_id) for deck_id in deck_ids)


def _kinds_before(connection: sqlite3.Connection, deck_ids: Sequence[int] | None) -> dict[int, int]:
    """The card counts as the grouped walk counted them."""
    where = "" if deck_ids is None else f"WHERE deck_id IN ({_ids(deck_ids)})"
    sql = f"""
        SELECT CASE WHEN suspended THEN -2 WHEN state = {int(CardState.NEW)} THEN -1
            WHEN state = {int(CardState.LEARNING)} THEN {KIND_LEARNING}
            WHEN state = {int(CardState.RELEARNING)} THEN {KIND_RELEARNING}
            WHEN due - last_review < {MATURE_DAYS * DAY_US} THEN {KIND_YOUNG}
            ELSE {KIND_MATURE} END, count(*)
        FROM card_memory {where} GROUP BY 1
    """
    return {int(kind): int(count) for kind, count in connection.execute(sql)}


def _distribution_before(
    connection: sqlite3.Connection, what: str, now: datetime, deck_ids: Sequence[int] | None
) -> ValueCounts:
    """One distribution as its grouped walk counted it."""
    decay, factor = CURVE
    elapsed = f"(max({to_micros(now)} - last_review, 0) / {DAY_US})"
    expression, scale = {
        "interval": (f"(due - last_review) / {float(DAY_US)}", 1.0),
        "stability": ("stability", 1.0),
        "difficulty": ("difficulty", 10.0),
        "retrievability": (
            f"pow(1.0 + {float(factor)} * {elapsed} / stability, {float(decay)})",
            100.0,
        ),
    }[what]
    deck = "" if deck_ids is None else f"AND deck_id IN ({_ids(deck_ids)})"
    rows = connection.execute(
        f"""
        WITH v AS (SELECT {expression} AS x FROM card_memory
            WHERE state <> {int(CardState.NEW)} AND stability > 0 {deck})
        SELECT round(x * {scale}) AS bucket, count(*), sum(x) FROM v
        WHERE x IS NOT NULL GROUP BY 1 ORDER BY 1
        """
    ).fetchall()
    cards = sum(int(n) for _, n, _ in rows)
    total = sum(float(s) for _, _, s in rows)
    return ValueCounts(
        counts=tuple((float(b) / scale, int(n)) for b, n, _ in rows),
        average=total / cards if cards else None,
        total=total,
    )


def _deck_choices(database: Database) -> list[list[int] | None]:
    with database.reading() as transaction:
        decks = sorted(deck.id for deck in transaction.browsing.decks())
    return [None, decks[:3], decks[-1:]]


@pytest.mark.parametrize("later", [timedelta(0), timedelta(hours=13), timedelta(days=40)])
def test_the_walk_counts_what_the_grouped_walks_counted(
    database: Database, later: timedelta
) -> None:
    now = NOW + later
    connection = sqlite3.connect(database.path)
    try:
        for deck_ids in _deck_choices(database):
            with database.reading() as transaction:
                walked = transaction.statistics.schedules(now, CURVE, deck_ids)
            assert walked.kinds == _kinds_before(connection, deck_ids), deck_ids
            for what in ("interval", "stability", "difficulty", "retrievability"):
                before = _distribution_before(connection, what, now, deck_ids)
                found: ValueCounts = getattr(walked, what)
                assert found.counts == before.counts, (what, deck_ids)
                assert found.total == pytest.approx(before.total, rel=1e-12), (what, deck_ids)
                if before.average is None:
                    assert found.average is None
                else:
                    assert found.average == pytest.approx(before.average, rel=1e-12)
    finally:
        connection.close()


def test_the_collection_holds_every_kind(database: Database) -> None:
    with database.reading() as transaction:
        walked = transaction.statistics.schedules(NOW, CURVE)
    assert set(walked.kinds) == {-2, -1, KIND_LEARNING, KIND_RELEARNING, KIND_YOUNG, KIND_MATURE}
    assert len(walked.retrievability.counts) > 5
    assert len(walked.difficulty.counts) > 5
