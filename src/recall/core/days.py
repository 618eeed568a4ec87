"""Recall's day: it ends at the rollover hour in the learner's local time, not at midnight."""

from __future__ import annotations

import contextlib
import os
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path

from recall.core.i18n import tr


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


# By (rollover hour, zone): each hour's UTC offset less the rollover hour, by hour since
# the epoch (at most about 9,000 a year of history).
_HOURLY_OFFSETS: dict[tuple[int, str], dict[int, int]] = {}
_MICROS_PER_DAY = 86_400_000_000
_MICROS_PER_HOUR = 3_600_000_000


@dataclass(frozen=True)
class StudyDays:
    """How moments fall into study days, for counting the days between two reviews.

    Anki, and the review logs FSRS's parameters are fitted on, count the time between two
    reviews in study days: a review at 20:00 and the next at 19:00 the following day are
    one day apart, two reviews on one study day none. The zone is named (an IANA name, as
    the preferences store it), never the machine's current one, so a history replays to
    the same schedule on every computer.

    Attributes:
        hour: The local hour at which a study day begins (0-23).
        zone: The IANA time zone the study days are counted in.
    """

    hour: int = 4
    zone: str = "UTC"

    def __post_init__(self) -> None:
        # The hourly offsets are cached as moments come by, shared by every equal value
        # (each read of the presets makes one) so a check starts with what the last found.
        object.__setattr__(self, "_info", _zone_info(self.zone))
        object.__setattr__(self, "_offsets", _HOURLY_OFFSETS.setdefault((self.hour, self.zone), {}))

    @property
    def key(self) -> str:
        """The hour and zone in words, as a replay's result depends on them."""
        return f"study days from {self.hour:02d}:00 {self.zone}"

    def day_number(self, micros: int) -> int:
        """The number of the study day a moment (microseconds since the epoch) falls in.

        Consecutive study days have consecutive numbers, across daylight saving changes.
        """
        offsets: dict[int, int] = self.__dict__["_offsets"]
        offset = offsets.get(micros // _MICROS_PER_HOUR)
        if offset is None:
            offset = self._offset_of_hour(micros)
        return (micros + offset) // _MICROS_PER_DAY

    def hourly_offsets(self) -> tuple[dict[int, int], Callable[[int], int]]:
        """What ``day_number`` reads, for a loop that inlines it: the cached offset (less
        the rollover hour) of each hour seen, by hour since the epoch, and the function
        that works out one missing (and caches it)."""
        return self.__dict__["_offsets"], self._offset_of_hour

    def _offset_of_hour(self, micros: int) -> int:
        """The UTC offset at ``micros`` less the rollover hour, cached for its whole hour
        when the offset is the same at both ends of it (zones change at most twice a year,
        so an hour whose ends agree has no change inside it)."""
        bucket = micros // _MICROS_PER_HOUR
        start = self._offset(bucket * _MICROS_PER_HOUR)
        end = self._offset((bucket + 1) * _MICROS_PER_HOUR - 1)
        shift = self.hour * _MICROS_PER_HOUR
        if start == end:
            self.__dict__["_offsets"][bucket] = start - shift
            return start - shift
        return self._offset(micros) - shift

    def day_of(self, moment: datetime) -> int:
        """The number of the study day an aware moment falls in."""
        return self.day_number(_micros(moment))

    def bounds(self, moment: datetime) -> tuple[datetime, datetime]:
        """The start and the end of the study day an aware moment falls in, as aware UTC."""
        return study_day(moment, self.hour, self.__dict__["_info"])

    def start_of(self, number: int) -> datetime:
        """When the study day of a number (``day_number``'s) begins, as aware UTC."""
        # Study day n is the local date n days after 1 January 1970, from the rollover hour.
        return _local_moment(
            _EPOCH.date() + timedelta(days=number), self.hour, self.__dict__["_info"]
        )

    def weekday(self, moment: datetime) -> int:
        """The weekday (0 Monday to 6 Sunday) of the study day an aware moment falls in."""
        return weekday_of(self.day_of(moment))

    def elapsed(self, earlier: datetime, later: datetime) -> int:
        """Study days from one moment to a later one (0 on the same study day)."""
        return self.day_number(_micros(later)) - self.day_number(_micros(earlier))

    def _offset(self, micros: int) -> int:
        info: tzinfo = self.__dict__["_info"]
        moment = _EPOCH + timedelta(microseconds=micros)
        offset = moment.astimezone(info).utcoffset()
        assert offset is not None
        return offset // timedelta(microseconds=1)


def weekday_of(number: int) -> int:
    """The weekday (0 Monday to 6 Sunday) of a study day by its number."""
    return (number + 3) % 7  # study day 0 is 1 January 1970, a Thursday


def machine_zone() -> str:
    """The IANA name of this machine's time zone, or "UTC" when it cannot be named."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    with contextlib.suppress(OSError):
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    try:
        target = str(Path("/etc/localtime").readlink())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        candidates.append(target.split("zoneinfo/", 1)[1])
    for name in candidates:
        if name and zone_problem(name) is None:
            return name
    return "UTC"


def zone_problem(name: str) -> str | None:
    """Why ``name`` is not a time zone this computer knows, or None."""
    try:
        _zone_info(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return tr("{name} is not a time zone name such as Europe/Berlin").format(name=repr(name))
    return None


def _zone_info(name: str) -> tzinfo:
    if name == "UTC":
        return UTC
    return zoneinfo.ZoneInfo(name)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)
