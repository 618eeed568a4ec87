"""The schedules' figures on a collection whose every schedule is known: the forecast's
study days across both clock changes, the card counts, and each distribution's buckets
(rounded half away from zero) and averages, for one deck and for every deck."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from recall import stats
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, MemoryState
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler
from recall.stats.figures import Histogram
from recall.stats.local_time import local_time
from recall.stats.schedules import collect_forecast, collect_schedules
from recall.storage import Database, Transaction

BERLIN = ZoneInfo("Europe/Berlin")
SETTINGS = Preferences()  # the study day begins at 4 am


def at(text: str) -> datetime:
    """A Berlin wall-clock time as aware UTC (the first of a repeated hour)."""
    return datetime.fromisoformat(text).replace(tzinfo=BERLIN).astimezone(UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _deck(key: str, cards: int) -> str:
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": key,
            "name": key.capitalize(),
            "cards": [
                {"id": f"{key}{index}", "type": "basic", "front": f"{key} {index}", "back": "a"}
                for index in range(cards)
            ],
        }
    )


def build(database: Database, schedules: dict[str, list[MemoryState | None]]) -> dict[str, int]:
    """One deck per key, a card per schedule (None: left new); the database ids by deck."""
    for key, memories in schedules.items():
        deck = parse_deck(_deck(key, len(memories)), f"{key}.json")
        importing.import_deck(database, deck, utc("2026-01-01 12:00"))
    with database.transaction() as transaction:
        for key, memories in schedules.items():
            row = transaction.decks.by_key(key)
            assert row is not None
            ids = transaction.cards.keys(row.id)
            for index, memory in enumerate(memories):
                if memory is not None:
                    transaction.cards.set_memory(ids[f"{key}{index}"].id, memory)
    with database.reading() as transaction:
        return {key: _deck_id(transaction, key) for key in schedules}


def _deck_id(transaction: Transaction, key: str) -> int:
    row = transaction.decks.by_key(key)
    assert row is not None
    return int(row.id)


def review(due: datetime, days: float = 10.0, stability: float = 10.0) -> MemoryState:
    return MemoryState(CardState.REVIEW, None, stability, 5.0, due, due - timedelta(days=days))


def test_the_forecast_counts_each_study_day_across_the_spring_change(database: Database) -> None:
    # Summer time begins on 29 March 2026 at 2 am: the study day of the 28th lasts 23 hours.
    now = at("2026-03-27 12:00")
    build(
        database,
        {
            "exact": [
                review(at("2026-03-28 03:59:59")),  # today's study day, its last second
                review(at("2026-03-28 04:00")),  # tomorrow's first moment
                review(at("2026-03-29 01:59")),  # tomorrow, before the change
                review(utc("2026-03-29 01:00")),  # 3 am summer time: still tomorrow
                review(at("2026-03-29 03:59:59")),  # tomorrow's last second
                review(at("2026-03-29 04:00")),  # the day after
                review(at("2026-04-25 12:00")),  # the 30th day of the forecast
                review(at("2026-04-26 12:00")),  # past it
                review(at("2026-03-27 03:59:59")),  # overdue: before today began
                None,  # a new card is never due
            ],
            "other": [review(at("2026-03-28 12:00"))],
        },
    )
    exact = collect_forecast(database, SETTINGS, now, "exact", 30, BERLIN).forecast
    assert exact.days[:4] == (1, 4, 1, 0)
    assert exact.days[29] == 1
    assert sum(exact.days) == 7
    assert exact.overdue == 1
    every = collect_forecast(database, SETTINGS, now, None, 30, BERLIN).forecast
    assert every.days[:4] == (1, 5, 1, 0)
    assert every.days[4:] == exact.days[4:]
    assert every.overdue == 1


def test_the_forecast_counts_each_study_day_across_the_autumn_change(database: Database) -> None:
    # Winter time begins on 25 October 2026 at 3 am: the study day of the 24th lasts 25 hours.
    now = at("2026-10-23 12:00")
    build(
        database,
        {
            "exact": [
                review(utc("2026-10-25 00:30")),  # 2:30 summer time: tomorrow
                review(utc("2026-10-25 01:30")),  # 2:30 winter time: tomorrow still
                review(utc("2026-10-25 02:59:59")),  # 3:59:59 winter time: tomorrow's last
                review(utc("2026-10-25 03:00")),  # 4 am winter time: the day after
                review(utc("2026-10-24 01:59:59")),  # 3:59:59 summer time: today
            ],
        },
    )
    for deck_key in ("exact", None):
        forecast = collect_forecast(database, SETTINGS, now, deck_key, 30, BERLIN).forecast
        assert forecast.days[:4] == (1, 3, 1, 0), deck_key
        assert forecast.overdue == 0


def test_suspended_cards_are_not_in_the_forecast(database: Database) -> None:
    now = at("2026-01-05 12:00")
    ids = build(database, {"exact": [review(at("2026-01-06 12:00"))] * 3})
    connection = sqlite3.connect(database.path)
    with connection:
        connection.execute(
            "UPDATE card_memory SET suspended = 1 WHERE card_id = "
            "(SELECT min(card_id) FROM card_memory WHERE deck_id = ?)",
            (ids["exact"],),
        )
    connection.close()
    forecast = collect_forecast(database, SETTINGS, now, "exact", 30, BERLIN).forecast
    assert forecast.days[:3] == (0, 2, 0)


def _bins(histogram: Histogram) -> dict[tuple[float, float], int]:
    return {(item.low, item.high): item.count for item in histogram.bins if item.count}


def test_each_distribution_puts_each_card_in_its_rounded_bucket(database: Database) -> None:
    now = utc("2026-06-10 09:00")

    def card(
        interval: float, stability: float, difficulty: float, elapsed: timedelta
    ) -> MemoryState:
        last = now - elapsed
        return MemoryState(
            CardState.REVIEW, None, stability, difficulty, last + timedelta(days=interval), last
        )

    build(
        database,
        {
            "exact": [
                # Interval 0.5 days rounds up to 1, 2.5 to 3; stability likewise; difficulty
                # 5.25 is 52.5 tenths, rounded up to 5.3. Retrievability counts whole days:
                # 9 days 23 hours at stability 1.49 is 74.2% (10 days would be 73.2%), 2.5
                # days at 2.5 is 91.5% (as 2 days; 2.5 would be 90%), 21 days at 20.99 is
                # 89.997%, 30 at 30 is 90%, the learning card's 0 days 100%.
                card(0.5, 0.5, 5.25, timedelta(days=10)),
                card(1.49, 1.49, 5.24, timedelta(days=9, hours=23)),
                card(2.5, 2.5, 1.0, timedelta(days=2.5)),
                card(21.0, 20.99, 10.0, timedelta(days=21)),
                card(30.0, 30.0, 7.75, timedelta(days=30)),
                MemoryState(CardState.LEARNING, 0, 3.0, 6.0, now, now - timedelta(minutes=5)),
                None,
            ],
            "other": [card(400.0, 400.0, 9.0, timedelta(days=1))],
        },
    )
    schedules = collect_schedules(database, SETTINGS, now, "exact", 30, UTC)
    cards = schedules.cards
    counted = (cards.new, cards.learning, cards.young, cards.mature, cards.suspended)
    assert counted == (1, 1, 3, 2, 0)
    found = schedules.distributions
    # Intervals rounded 1, 1, 3, 21, 30 and the learning card's 0: bins 2 days wide to 32.
    assert _bins(found.interval) == {(0, 2): 3, (2, 4): 1, (20, 22): 1, (30, 32): 1}
    assert found.interval.average == pytest.approx((0.5 + 1.49 + 2.5 + 21 + 30 + 5 / 1440) / 6)
    # Stability rounded 1, 1, 3, 21, 30 and 3.
    assert _bins(found.stability) == {(0, 2): 2, (2, 4): 2, (20, 22): 1, (30, 32): 1}
    assert found.stability.average == pytest.approx((0.5 + 1.49 + 2.5 + 20.99 + 30 + 3) / 6)
    # Difficulty to a tenth: 5.3, 5.2, 1.0, 10.0, 7.8, 6.0, in half-point bins.
    assert _bins(found.difficulty) == {
        (1.0, 1.5): 1,
        (5.0, 5.5): 2,
        (6.0, 6.5): 1,
        (7.5, 8.0): 1,
        (9.5, 10.0 + 1e-9): 1,
    }
    retrievability = dict(_value_counts(database, now, "exact"))
    assert retrievability == {0.63: 1, 0.74: 1, 0.9: 2, 0.91: 1, 1.0: 1}
    assert found.known == pytest.approx(sum(_exact_retrievability()))
    every = collect_schedules(database, SETTINGS, now, None, 30, UTC)
    assert every.cards.mature == 3
    assert every.distributions.interval.cards == 7
    assert _bins(every.distributions.interval) == {(0, 30): 5, (30, 60): 1, (390, 420): 1}


def _value_counts(database: Database, now: datetime, key: str) -> list[tuple[float, int]]:
    with database.reading() as transaction:
        deck_id = _deck_id(transaction, key)
        walked = transaction.statistics.schedules(now, Scheduler().forgetting_curve(), [deck_id])
    return list(walked.retrievability.counts)


def _exact_retrievability() -> list[float]:
    decay, factor = Scheduler().forgetting_curve()
    days_and_stability = [(10, 0.5), (9, 1.49), (2, 2.5), (21, 20.99), (30, 30.0), (0, 3.0)]
    return [(1 + factor * days / stability) ** decay for days, stability in days_and_stability]


def test_the_statistics_json_holds_the_forecast_of_one_deck(database: Database) -> None:
    now = at("2026-03-27 12:00")
    build(database, {"exact": [review(at("2026-03-28 12:00")), review(at("2026-03-30 12:00"))]})
    figures = stats.collect(database, SETTINGS, now, "exact", None, zone=BERLIN)
    written = stats.to_json(figures)
    assert written["forecast"][:4] == [0, 1, 0, 1]
    assert written["cards"]["young"] == 2


@pytest.mark.parametrize(
    ("zone_name", "hour"),
    [
        ("Europe/Berlin", 4),
        ("Europe/Berlin", 0),
        ("America/New_York", 23),
        ("Australia/Lord_Howe", 2),  # a half-hour change, at 2 am
        ("Asia/Kathmandu", 4),  # a quarter-hour offset
        ("UTC", 4),
    ],
)
def test_each_deck_days_count_what_grouping_every_due_time_by_its_day_counts(
    database: Database, zone_name: str, hour: int
) -> None:
    """The forecast of some decks counts each study day's range of the index; every due
    time grouped by its study day in SQL (the forecast of every deck) must agree, day by
    day, for due times on every quarter hour around each clock change and at random."""
    zone = ZoneInfo(zone_name)
    now = utc("2026-01-10 12:00")
    rng = random.Random(zone_name)
    dues = [now + timedelta(minutes=rng.randrange(0, 365 * 24 * 60)) for _ in range(300)]
    for change in (utc("2026-03-29 01:00"), utc("2026-10-25 01:00"), utc("2026-04-04 15:00")):
        dues += [change + timedelta(minutes=15 * step) for step in range(-12, 13)]
    ids = build(database, {"exact": [review(due) for due in dues]})
    start, end = now - timedelta(days=1), now + timedelta(days=370)
    local = local_time(start, end, hour, zone)
    with database.reading() as transaction:
        queries = transaction.statistics
        ranged = queries.due_by_day(local, start, end, [ids["exact"]])
        grouped = queries.due_by_day(local, start, end, None)
    assert ranged == grouped
    assert sum(cards for _day, cards in ranged) == len(dues)
