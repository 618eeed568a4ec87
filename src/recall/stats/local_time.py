"""The learner's local time for SQL: UTC offsets over a span, and study-day numbers.

SQLite knows nothing of time zones, so the statistics' queries get the offset as segments
(from this UTC moment on, local time is UTC plus this much). The segments are found by
asking the time zone once a day over the span and, where the answer changes, bisecting to
the second of the change.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo

from recall.storage.statistics import DAY_US, HOUR_US, LocalTime
from recall.storage.times import to_micros

EPOCH_DAY = date(1970, 1, 1)


def offset_us(moment: datetime, zone: tzinfo | None) -> int:
    """Local time minus UTC at ``moment``, in microseconds (None: the system's zone)."""
    offset = moment.astimezone(zone).utcoffset()
    assert offset is not None
    return offset // timedelta(microseconds=1)


def local_time(start: datetime, end: datetime, hour: int, zone: tzinfo | None) -> LocalTime:
    """Offsets covering ``start`` to ``end`` (aware) and the rollover hour, for the queries."""
    start = start.astimezone(UTC) - timedelta(days=2)
    end = end.astimezone(UTC) + timedelta(days=2)
    segments = [(_micros(start), offset_us(start, zone))]
    probe = start
    while probe < end:
        following = min(probe + timedelta(days=1), end)
        if offset_us(following, zone) != segments[-1][1]:
            change = _first_change(probe, following, zone)
            segments.append((_micros(change), offset_us(change, zone)))
        probe = following
    return LocalTime(offsets=tuple(segments), rollover_hour=hour)


def day_number(moment: datetime, local: LocalTime, zone: tzinfo | None) -> int:
    """The study day ``moment`` falls in, as days since 1970-01-01 (the queries' numbering)."""
    return (_micros(moment) + offset_us(moment, zone) - local.rollover_hour * HOUR_US) // DAY_US


def day_date(number: int) -> date:
    """A study day's number as the local date it begins on."""
    return EPOCH_DAY + timedelta(days=number)


def _first_change(before: datetime, after: datetime, zone: tzinfo | None) -> datetime:
    """The first second at which the offset differs from the offset at ``before``."""
    offset = offset_us(before, zone)
    low, high = 0, int((after - before).total_seconds())
    while high - low > 1:
        middle = (low + high) // 2
        if offset_us(before + timedelta(seconds=middle), zone) == offset:
            low = middle
        else:
            high = middle
    return before + timedelta(seconds=high)


def _micros(moment: datetime) -> int:
    value = to_micros(moment)
    assert value is not None
    return value
