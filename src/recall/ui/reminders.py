"""The daily reminder: once a day, at the learner's chosen time, and only when cards are due."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime, time, tzinfo

from PySide6.QtCore import QObject, QTimer, Signal

from recall.core import days

# QTimer counts milliseconds in an int: wait at most a day at a time, then look again.
LONGEST_WAIT_MS = 24 * 60 * 60 * 1000


class DailyReminder(QObject):
    """Fires ``due`` at the reminder time when cards are due; never twice on one local day.

    The timer is armed from the window's clock for the next reminder time (a timer that wakes
    early, or a clock that jumped back, arms it again). At that time the due count is read;
    when nothing is due the day passes without a reminder, and nothing is said later that day.
    A window opened after the day's time waits for the next day's.

    Args:
        clock: Now, aware UTC (tests pass a fake clock and call ``check``).
        zone: The learner's time zone; None for the computer's.
        count_due: Cards due today, read when the reminder time comes.
        parent: Owns the reminder.
    """

    due = Signal(int)  # the number of cards due

    def __init__(
        self,
        clock: Callable[[], datetime],
        zone: tzinfo | None,
        count_due: Callable[[], int],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._zone = zone
        self._count_due = count_due
        self._at: time | None = None
        self._next: datetime | None = None
        self._last_day: date | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.check)

    @property
    def next_time(self) -> datetime | None:
        """When the reminder is due next, aware UTC; None when it is off."""
        return self._next

    def set_time(self, at: time | None) -> None:
        """Remind at ``at`` local time from now on; None turns the reminder off."""
        self._at = at
        self._arm()

    def check(self) -> None:
        """Remind if the reminder time has come and cards are due, then wait for the next."""
        if self._next is None:
            return
        now = self._clock()
        if now >= self._next:
            day = self._next.astimezone(self._zone).date()
            if day != self._last_day:
                self._last_day = day  # a day with nothing due is spent too: once a day at most
                count = self._count_due()
                if count > 0:
                    self.due.emit(count)
        self._arm()

    def _arm(self) -> None:
        self.timer.stop()
        if self._at is None:
            self._next = None
            return
        now = self._clock()
        # From now, always: a timer that woke early finds the same time again, and a clock
        # set back finds the time it now comes to first.
        self._next = days.next_local_time(now, self._at, self._zone)
        wait = (self._next - now).total_seconds() * 1000
        self.timer.start(max(0, min(LONGEST_WAIT_MS, math.ceil(wait))))
