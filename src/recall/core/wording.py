"""How Recall words numbers for people: counts with their nouns, time spent, shares, days.

Units, shares and dates are translated (``recall.core.i18n``); ``count`` and ``word`` give
English plurals for text not shown translated (logs, reports for developers), while a
message for the learner says its count with ``trn`` and ``number``.
"""

from __future__ import annotations

import math
from datetime import date

from recall.core import i18n
from recall.core.i18n import mark, tr, trp

# Time spent past this many days is a broken clock or a corrupt row, not study: it is shown
# as a bound instead of a figure nobody can read.
DAYS_SHOWN = 1000

_SECOND = 1000
_MINUTE = 60 * _SECOND
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
_MONTHS = (
    mark("January"),
    mark("February"),
    mark("March"),
    mark("April"),
    mark("May"),
    mark("June"),
    mark("July"),
    mark("August"),
    mark("September"),
    mark("October"),
    mark("November"),
    mark("December"),
)
_SHORT_MONTHS = (
    mark("Jan"),
    mark("Feb"),
    mark("Mar"),
    mark("Apr"),
    mark("May"),
    mark("Jun"),
    mark("Jul"),
    mark("Aug"),
    mark("Sep"),
    mark("Oct"),
    mark("Nov"),
    mark("Dec"),
)


def _nearest(value: float) -> int:
    """``value`` rounded to the nearest whole number, halves up (``round`` sends 2.5 to 2)."""
    return math.floor(value + 0.5)


def word(n: float, singular: str, plural: str | None = None) -> str:
    """The form of a word that agrees with a count: a noun, or a verb such as "is"/"are".

    Args:
        n: The count the word goes with; rounded to a whole number first.
        singular: The form for exactly one ("card", "is", "comes").
        plural: The form for any other count; ``singular + "s"`` when left out.

    Returns:
        ``singular`` when ``n`` rounds to 1, else the plural.
    """
    if _nearest(n) == 1:
        return singular
    return singular + "s" if plural is None else plural


def count(n: float, singular: str, plural: str | None = None) -> str:
    """A count with its noun: "1 card", "0 cards", "1,204 cards", "2 media files".

    Args:
        n: How many; rounded to a whole number, shown with thousands separators.
        singular: The noun for one thing.
        plural: The noun for any other count, for irregular plurals ("children");
            ``singular + "s"`` when left out.

    Returns:
        The count and the noun that agrees with it.
    """
    return f"{number(n)} {word(n, singular, plural)}"


def number(n: float) -> str:
    """A count as a message shows it: rounded to a whole number, with thousands separators
    ("1,204"), for ``trn("{count} card", "{count} cards", n).format(count=number(n))``."""
    return i18n.number(_nearest(n))


def duration(milliseconds: float) -> str:
    """Time spent, in the one style the whole app shows it.

    "45 s" under a minute, "3 min 20 s" under an hour, "1 h 5 min" under a day, "2 d 3 h"
    beyond; each rounded to its smaller unit, which is left out when it is zero ("1 h").

    Args:
        milliseconds: The time spent. Negative values (a clock set back) show as "0 s";
            more than ``DAYS_SHOWN`` days shows as "over 1,000 d"; NaN as "-".

    Returns:
        The time in words.
    """
    if math.isnan(milliseconds):
        return "-"
    if milliseconds > DAYS_SHOWN * _DAY:
        return tr("over {days} d").format(days=f"{DAYS_SHOWN:,}")
    seconds = _nearest(max(milliseconds, 0) / _SECOND)
    if seconds < 60:
        return f"{seconds} {trp('unit', 's')}"
    if seconds < 60 * 60:
        return _two(*divmod(seconds, 60), trp("unit", "min"), trp("unit", "s"))
    minutes = _nearest(seconds / 60)
    if minutes < 24 * 60:
        return _two(*divmod(minutes, 60), trp("unit", "h"), trp("unit", "min"))
    return _two(*divmod(_nearest(minutes / 60), 24), trp("unit", "d"), trp("unit", "h"))


def _two(large: int, small: int, large_unit: str, small_unit: str) -> str:
    return f"{large:,} {large_unit}" + (f" {small} {small_unit}" if small else "")


def percent(share: float | None) -> str:
    """A share as a whole percentage ("38%", halves up), or "-" when there was nothing to
    divide."""
    return "-" if share is None else tr("{percent}%").format(percent=_nearest(share * 100))


def short_day(day: date) -> str:
    """A day within the year, as charts and notes name it: "5 Mar"."""
    return tr("{day} {month}").format(day=day.day, month=i18n.tr(_SHORT_MONTHS[day.month - 1]))


def long_day(day: date) -> str:
    """A day with its year, as the window names dates further off: "5 March 2025"."""
    return tr("{day} {month} {year}").format(
        day=day.day, month=i18n.tr(_MONTHS[day.month - 1]), year=day.year
    )
