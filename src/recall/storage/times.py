"""Times as stored: aware UTC as integer microseconds since the epoch.

Exact (no rounding, unlike SQLite's text dates), sortable, and always read back aware, so
nothing below the UI ever sees a naive time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)  # made once: an import converts a time per column


def to_micros(value: datetime | None) -> int | None:
    """An aware time as stored: integer microseconds since the epoch.

    Raises:
        ValueError: ``value`` is naive.
    """
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError(f"refusing to store a naive time: {value!r}")
    return (value - _EPOCH) // _MICROSECOND


def from_micros(value: int | None) -> datetime | None:
    """A stored time read back, aware UTC."""
    if value is None:
        return None
    return _EPOCH + timedelta(microseconds=value)
