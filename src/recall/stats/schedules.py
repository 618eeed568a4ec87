"""The figures that need no history: cards due ahead, card counts, memory now.

They are cheap whatever the history's size (a walk of the schedules), so the statistics
window shows them first while the history is still being read.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, tzinfo

from recall.core import days, deck_tree
from recall.core.errors import UnknownDeckError
from recall.core.i18n import tr
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler
from recall.stats.figures import (
    Bin,
    CardCounts,
    Coming,
    Distributions,
    Forecast,
    Histogram,
    Schedules,
)
from recall.stats.local_time import day_date, day_number, local_time
from recall.storage import Database, Transaction
from recall.storage.statistics import (
    KIND_LEARNING,
    KIND_MATURE,
    KIND_RELEARNING,
    KIND_YOUNG,
    LocalTime,
    StatisticsQueries,
    ValueCounts,
)

FORECAST_DAYS = 30
LONGEST_FORECAST = 365


def deck_ids_of(
    transaction: Transaction, deck_key: str | None
) -> tuple[tuple[int, ...] | None, str]:
    """The decks a deck's figures cover (it and its subdecks; None for all) and its name.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    if deck_key is None:
        return None, tr("All decks")
    deck = transaction.decks.by_key(deck_key)
    if deck is None:
        raise UnknownDeckError(deck_key)
    subtree = deck_tree.subtree(transaction.browsing.decks(), deck)
    return tuple(row.id for row in subtree), deck.name


def forecast_length(period_days: int | None, forecast_days: int | None = None) -> int:
    """Days ahead the forecast covers: as given, else the period's length (a year for all
    time), at least 30 and at most 365."""
    if forecast_days is not None:
        return forecast_days
    return min(max(period_days or LONGEST_FORECAST, FORECAST_DAYS), LONGEST_FORECAST)


def collect_forecast(
    database: Database,
    settings: Preferences,
    now: datetime,
    deck_key: str | None = None,
    period_days: int | None = 30,
    zone: tzinfo | None = None,
) -> Coming:
    """The forecast alone (two walks of the due index), for one deck (or all).

    Args:
        database: Where the schedules are.
        settings: For the day rollover hour.
        now: The current time, aware UTC.
        deck_key: Only this deck (its file id); None for every deck.
        period_days: The period's study days (None: all time), for the forecast's length.
        zone: The learner's time zone; None is the system's.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    today_start = days.study_day(now, settings.day_rollover_hour, zone)[0]
    ahead = forecast_length(period_days)
    local = _local_ahead(today_start, ahead, settings, zone)
    today = day_number(now, local, zone)
    with database.reading() as transaction:
        deck_ids, _name = deck_ids_of(transaction, deck_key)
        forecast = read_forecast(
            transaction.statistics, local, now, today, ahead, settings, zone, deck_ids
        )
    return Coming(deck_key=deck_key, today_date=day_date(today), forecast=forecast)


def _local_ahead(
    today_start: datetime, ahead: int, settings: Preferences, zone: tzinfo | None
) -> LocalTime:
    return local_time(
        today_start - timedelta(days=1),
        today_start + timedelta(days=ahead + 1),
        settings.day_rollover_hour,
        zone,
    )


def collect_schedules(
    database: Database,
    settings: Preferences,
    now: datetime,
    deck_key: str | None = None,
    period_days: int | None = 30,
    zone: tzinfo | None = None,
) -> Schedules:
    """The figures of the schedules alone, for one deck (or all).

    Args:
        database: Where the schedules are.
        settings: For the day rollover hour and FSRS's forgetting curve.
        now: The current time, aware UTC.
        deck_key: Only this deck (its file id); None for every deck.
        period_days: The period's study days (None: all time), for the forecast's length.
        zone: The learner's time zone; None is the system's.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    hour = settings.day_rollover_hour
    today_start = days.study_day(now, hour, zone)[0]
    ahead = forecast_length(period_days)
    local = _local_ahead(today_start, ahead, settings, zone)
    with database.reading() as transaction:
        deck_ids, deck_name = deck_ids_of(transaction, deck_key)
        schedules = read_schedules(
            transaction.statistics,
            local,
            now,
            day_number(now, local, zone),
            ahead,
            settings,
            zone,
            deck_ids,
        )
    return Schedules(
        deck_key=deck_key,
        deck_name=deck_name,
        today_date=schedules.today_date,
        forecast=schedules.forecast,
        cards=schedules.cards,
        distributions=schedules.distributions,
    )


def read_schedules(
    queries: StatisticsQueries,
    local: LocalTime,
    now: datetime,
    today: int,
    ahead: int,
    settings: Preferences,
    zone: tzinfo | None,
    deck_ids: Sequence[int] | None,
) -> Schedules:
    """The schedules' figures, read in a transaction the caller holds (deck fields empty)."""
    curve = Scheduler().forgetting_curve()
    forecast = read_forecast(queries, local, now, today, ahead, settings, zone, deck_ids)
    walked = queries.schedules(now, curve, deck_ids)
    counts = walked.kinds
    return Schedules(
        deck_key=None,
        deck_name="",
        today_date=day_date(today),
        forecast=forecast,
        cards=CardCounts(
            new=counts.get(-1, 0),
            learning=counts.get(KIND_LEARNING, 0),
            relearning=counts.get(KIND_RELEARNING, 0),
            young=counts.get(KIND_YOUNG, 0),
            mature=counts.get(KIND_MATURE, 0),
            suspended=counts.get(-2, 0),
        ),
        distributions=Distributions(
            interval=_histogram(walked.interval, _day_edges),
            stability=_histogram(walked.stability, _day_edges),
            difficulty=_histogram(walked.difficulty, lambda _top: _steps(1.0, 10.0, 0.5)),
            retrievability=_histogram(walked.retrievability, lambda _top: _steps(0.0, 1.0, 0.05)),
            known=walked.retrievability.total,
        ),
    )


def read_forecast(
    queries: StatisticsQueries,
    local: LocalTime,
    now: datetime,
    today: int,
    ahead: int,
    settings: Preferences,
    zone: tzinfo | None,
    deck_ids: Sequence[int] | None,
) -> Forecast:
    """Cards due on each of ``ahead`` study days from today, and the overdue backlog."""
    hour = settings.day_rollover_hour
    today_start = days.study_day(now, hour, zone)[0]
    horizon = days.study_day(today_start + timedelta(days=ahead, hours=12), hour, zone)[0]
    due = queries.due_by_day(local, today_start, horizon, deck_ids)
    overdue = queries.due_before(today_start, deck_ids)
    return _forecast(due, today, ahead, overdue)


def _forecast(due: Sequence[tuple[int, int]], today: int, ahead: int, overdue: int) -> Forecast:
    counts = [0] * ahead
    for day, cards in due:
        if 0 <= day - today < ahead:
            counts[day - today] += cards
    return Forecast(days=tuple(counts), overdue=overdue)


def _histogram(values: ValueCounts, edges_for: Callable[[float], list[float]]) -> Histogram:
    top = values.counts[-1][0] if values.counts else 0.0
    edges = edges_for(top)
    bins = [0] * (len(edges) - 1)
    for value, count in values.counts:
        index = bisect.bisect_right(edges, value) - 1
        bins[min(max(0, index), len(bins) - 1)] += count
    return Histogram(
        bins=tuple(Bin(edges[i], edges[i + 1], bins[i]) for i in range(len(bins))),
        average=values.average,
    )


def _day_edges(top: float) -> list[float]:
    """About 20 bins of a round width (1, 2, 5, 10, ... days) from 0 past the largest value."""
    width = 1.0
    for step in (1, 2, 5, 7, 10, 14, 30, 60, 90, 180, 365, 730, 1825, 3650):
        width = float(step)
        if top / step < 20:
            break
    count = max(1, math.floor(top / width) + 1)
    return [index * width for index in range(count + 1)]


def _steps(low: float, high: float, width: float) -> list[float]:
    count = round((high - low) / width)
    edges = [low + index * width for index in range(count + 1)]
    edges[-1] = high + 1e-9  # the top value belongs to the last bin
    return edges
