"""Recall's day: it ends at the rollover hour in the learner's local time, not at midnight."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo


def next_rollover(now: datetime, hour: int, zone: tzinfo | None = None) -> datetime:
    """The first moment of the next study day.

    Args:
        now: The current time, aware.
        hour: The local hour at which a new study day begins (0-23).
        zone: The learner's time zone; None means the system's local time.

    Returns:
        The next ``hour:00`` local time strictly after ``now``, as aware UTC. Daylight
        saving changes are respected because each candidate is built from a local date.
    """
    local_date = now.astimezone(zone).date()
    for day_offset in (0, 1):
        candidate = _local_moment(local_date + timedelta(days=day_offset), hour, zone)
        if candidate > now:
            return candidate
    return _local_moment(local_date + timedelta(days=2), hour, zone)


def previous_rollover(now: datetime, hour: int, zone: tzinfo | None = None) -> datetime:
    """The first moment of the current study day, as aware UTC."""
    return study_day(now, hour, zone)[0]


def study_day(now: datetime, hour: int, zone: tzinfo | None = None) -> tuple[datetime, datetime]:
    """The start and the end of the study day ``now`` falls in, as aware UTC."""
    end = next_rollover(now, hour, zone)
    start = _local_moment(end.astimezone(zone).date() - timedelta(days=1), hour, zone)
    return start, end


def next_local_time(now: datetime, at: time, zone: tzinfo | None = None) -> datetime:
    """The next moment, strictly after ``now``, at which the local clock reads ``at``.

    Args:
        now: The current time, aware.
        at: A local time of day, naive (the learner's wall clock).
        zone: The learner's time zone; None means the system's local time.

    Returns:
        That moment as aware UTC; each candidate is built from a local date, so a daylight
        saving change moves it with the wall clock.
    """
    local_date = now.astimezone(zone).date()
    for day_offset in (0, 1, 2):
        candidate = _local_moment(local_date + timedelta(days=day_offset), at, zone)
        if candidate > now:
            return candidate
    return _local_moment(local_date + timedelta(days=3), at, zone)


def _local_moment(day: date, hour: int | time, zone: tzinfo | None) -> datetime:
    naive = datetime.combine(day, hour if isinstance(hour, time) else time(hour))
    local = naive.replace(tzinfo=zone) if zone is not None else naive.astimezone()
    return local.astimezone(UTC)
