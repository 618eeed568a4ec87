"""The study day ends at the rollover hour in local time, across daylight-saving changes."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from recall.core.days import StudyDays, next_local_time, next_rollover, previous_rollover

BERLIN = ZoneInfo("Europe/Berlin")


def local(year: int, month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=BERLIN)


def test_evening_rolls_over_at_four_next_morning() -> None:
    now = local(2026, 1, 15, 22, 30).astimezone(UTC)
    assert next_rollover(now, 4, BERLIN) == local(2026, 1, 16, 4)
    assert previous_rollover(now, 4, BERLIN) == local(2026, 1, 15, 4)


def test_small_hours_still_belong_to_yesterday() -> None:
    now = local(2026, 1, 16, 2, 0).astimezone(UTC)
    assert next_rollover(now, 4, BERLIN) == local(2026, 1, 16, 4)
    assert previous_rollover(now, 4, BERLIN) == local(2026, 1, 15, 4)


def test_exactly_at_rollover_starts_a_new_day() -> None:
    now = local(2026, 1, 16, 4, 0).astimezone(UTC)
    assert next_rollover(now, 4, BERLIN) == local(2026, 1, 17, 4)
    assert previous_rollover(now, 4, BERLIN) == local(2026, 1, 16, 4)


def test_daylight_saving_day_is_23_hours() -> None:
    # Clocks go forward at 02:00 on 29 March 2026 in Berlin.
    now = local(2026, 3, 28, 12, 0).astimezone(UTC)
    start = previous_rollover(now, 4, BERLIN)
    end = next_rollover(now, 4, BERLIN)
    assert start.astimezone(BERLIN).hour == 4
    assert end.astimezone(BERLIN).hour == 4
    assert (end - start).total_seconds() == 23 * 3600


def test_reminder_time_comes_next_at_the_local_clock_across_daylight_saving() -> None:
    nine = time(9, 0)
    assert next_local_time(local(2026, 3, 28, 10, 0), nine, BERLIN) == local(2026, 3, 29, 9)
    # Summer time began overnight: the local 09:00 is an hour earlier in UTC.
    assert next_local_time(local(2026, 3, 29, 9), nine, BERLIN) == local(2026, 3, 30, 9)
    assert local(2026, 3, 29, 9).astimezone(UTC).hour == 7
    assert next_local_time(local(2026, 3, 28, 8, 59), nine, BERLIN) == local(2026, 3, 28, 9)


def test_a_study_days_number_starts_and_ends_where_its_moments_fall() -> None:
    for days in (StudyDays(4, "Europe/Berlin"), StudyDays(0, "America/New_York"), StudyDays()):
        start = datetime(2027, 3, 1, 1, tzinfo=UTC)  # across the spring's clock change
        for hours in range(0, 24 * 60, 5):
            moment = start + timedelta(hours=hours)
            number = days.day_of(moment)
            assert (days.start_of(number), days.start_of(number + 1)) == days.bounds(moment)
            assert (
                days.weekday(moment)
                == days.bounds(moment)[0].astimezone(ZoneInfo(days.zone)).weekday()
            )
