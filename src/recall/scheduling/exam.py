"""An exam date's cap on intervals: a card due after the exam is seen shortly before it.

The decision is a pure function of the answer's schedule, the exam day and the study days,
so the window, the command line and the exam simulation cap alike. The due date it gives
is stored with the answer (``NewReview.chosen_due``), so replay, ``recall check`` and sync
reproduce it without knowing the exam date.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from recall.core import deck_tree
from recall.core.days import StudyDays
from recall.core.memory import CardState, MemoryState

# The cards capped are spread over the last few study days before the exam, by their
# seed, so they do not all fall due on its eve.
SPREAD_DAYS = 3
_EPOCH_DAY = date(1970, 1, 1)


def day_number(day: date) -> int:
    """The study-day number (``StudyDays.day_of``) of the study day that begins on ``day``."""
    return (day - _EPOCH_DAY).days


def day_start(number: int, days: StudyDays) -> datetime:
    """When the study day numbered ``number`` begins, aware UTC (the rollover hour, local)."""
    local_day = _EPOCH_DAY + timedelta(days=number)
    moment = datetime.combine(local_day, time(days.hour), ZoneInfo(days.zone)).astimezone(UTC)
    # A rollover hour inside a daylight-saving gap lands an hour off: step to the day.
    while days.day_of(moment) < number:
        moment += timedelta(hours=1)
    while days.day_of(moment) > number:
        moment -= timedelta(hours=1)
    return moment


def exam_moment(exam: date, days: StudyDays) -> datetime:
    """The moment the exam's figures are taken at: the start of the exam's study day."""
    return day_start(day_number(exam), days)


def exam_dates_in_tree(
    decks: Sequence[deck_tree.Named], own: Mapping[int, date]
) -> dict[int, date]:
    """Each deck's exam day: its own, else that of the nearest deck it is inside.

    Args:
        decks: Every deck.
        own: The exam day each deck was given, by deck id.

    Returns:
        By deck id, the exam day that caps its cards, for the decks under one.
    """
    found: dict[int, date] = {}
    for deck in decks:
        current: deck_tree.Named | None = deck
        while current is not None and current.id not in own:
            current = deck_tree.parent(decks, current)
        if current is not None:
            found[deck.id] = own[current.id]
    return found


def ahead(exam: date | None, days: StudyDays, now: datetime) -> bool:
    """Whether an exam is still to come: its study day is later than ``now``'s."""
    return exam is not None and days.day_of(now) < day_number(exam)


def capped_due(
    after: MemoryState, seed: int, exam: date | None, days: StudyDays, now: datetime
) -> datetime | None:
    """The due date an answer keeps so that its card is seen before the exam, if it needs one.

    An answer that leaves the card in review due on the exam's study day or later is moved
    to one of the last ``SPREAD_DAYS`` study days before it (chosen by the card's seed),
    never earlier than the next study day; with the exam tomorrow that is the exam day's
    morning. Nothing is moved once the exam's day has come, nor for cards still learning.

    Args:
        after: The schedule the answer gives.
        seed: The card's seed, which spreads the capped cards over the last days.
        exam: The deck's exam day, if it has one.
        days: How moments fall into study days.
        now: When the answer is given, aware UTC.

    Returns:
        The due date to record with the answer, or None to keep the one scheduling drew.
    """
    if exam is None or after.state is not CardState.REVIEW or after.due is None:
        return None
    exam_day = day_number(exam)
    today = days.day_of(now)
    if today >= exam_day or days.day_of(after.due) < exam_day:
        return None
    target = max(today + 1, exam_day - 1 - seed % SPREAD_DAYS)
    return day_start(target, days)


def with_cap(
    after: MemoryState, seed: int, exam: date | None, days: StudyDays, now: datetime
) -> MemoryState:
    """The schedule ``after`` with the exam's cap applied (``capped_due``)."""
    due = capped_due(after, seed, exam, days, now)
    return after if due is None else dataclasses.replace(after, due=due)
