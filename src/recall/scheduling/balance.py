"""Load balancing and Easy Days: a review's due day chosen inside its fuzz range by load.

As Anki's load balancer: each day the fuzz draw could give is weighed by the reviews already
due that study day (fewer is likelier) and slightly by its distance (sooner is likelier,
which keeps intervals from drifting long), and by the preset's Easy Days setting for its
weekday: a "minimum" day is left out whenever another day is possible, a "reduced" one only
once it holds more than half of an ordinary day's share. The day is then drawn, seeded from
the card and the answer's time, so the same answer gives the same day in every test and on
every computer. The chosen day depends on other cards, so it is stored with the answer
(``NewReview.chosen_due``) and replay reads it from there; nothing here is used in replay.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from recall.core.days import weekday_of
from recall.core.memory import MemoryState, Rating
from recall.core.presets import Preset
from recall.scheduling.review import Scheduler, chosen

# As Anki: a card sent further out than this is left to the fuzz draw; spreading it by a
# day or two there evens out little, and the loads read stay a few months ahead.
BALANCED_UP_TO = 90
# Each Easy Days setting's share of an ordinary day's reviews, as Anki's.
_SHARES = {"normal": 1.0, "reduced": 0.5, "minimum": 0.0}
_LOAD_EXPONENT = 2.15  # Anki's: how strongly a busier day is avoided
_DISTANCE_EXPONENT = 3  # Anki's: how strongly a later day is avoided

# Given the start and end of each candidate study day (aware UTC), the reviews due on each.
Loads = Callable[[Sequence[tuple[datetime, datetime]]], Sequence[int]]


class DayLoad(NamedTuple):
    """One day a review could be due on.

    Attributes:
        interval: Days from the answer to it.
        load: Reviews already due that study day.
        weekday: Its weekday, 0 Monday to 6 Sunday.
    """

    interval: int
    load: int
    weekday: int


def balances(preset: Preset) -> bool:
    """Whether a preset's answers have their day chosen (balancing on, or an Easy Day set)."""
    return preset.load_balancing or any(day != "normal" for day in preset.easy_days)


def choose(
    days: Sequence[DayLoad], easy_days: Sequence[str], seed: str, balance: bool = True
) -> int:
    """The interval, of ``days``, a review gets.

    Args:
        days: The candidate days (the fuzz range), at least one.
        easy_days: Each weekday's Easy Days setting, Monday first ("normal", "reduced",
            "minimum").
        seed: Seeds the draw (the card's seed and the answer's time).
        balance: Weigh each day by its load; without it only Easy Days weigh (loads still
            say when a reduced day has its share).

    Returns:
        One of the days' intervals.
    """
    shares = easy_day_shares(days, easy_days)
    if not any(shares):
        shares = [1.0] * len(days)  # every day is a minimum day: they count alike
    weights = [
        share * _load_weight(day) if balance else share
        for share, day in zip(shares, days, strict=True)
    ]
    pick = random.Random(seed).random() * sum(weights)
    last = days[0].interval
    for day, weight in zip(days, weights, strict=True):
        if weight <= 0.0:
            continue
        if pick < weight:
            return day.interval
        pick -= weight
        last = day.interval  # rounding can leave the draw just past the last weight
    return last


def easy_day_shares(days: Sequence[DayLoad], easy_days: Sequence[str]) -> list[float]:
    """Whether each day may take the review: 1.0 yes, 0.0 no (only when none other can).

    A reduced day may while its load is under half an ordinary day's, the ordinary day's
    being the other days' loads over their shares, as Anki's ``calculate_easy_days_modifiers``.
    """
    settings = [easy_days[day.weekday] for day in days]
    total_load = sum(day.load for day in days)
    total_share = sum(_SHARES[setting] for setting in settings)
    shares = []
    for day, setting in zip(days, settings, strict=True):
        if setting == "reduced":
            others_share = total_share - _SHARES["reduced"]
            ordinary = (total_load - day.load) / others_share if others_share > 0 else None
            full = ordinary is not None and day.load / _SHARES["reduced"] > ordinary
            shares.append(0.0 if full else 1.0)
        else:
            shares.append(1.0 if setting == "normal" else 0.0)
    return shares


def _load_weight(day: DayLoad) -> float:
    # One more than the load, so an empty day is likeliest without Anki's jump from 1.0
    # (empty) to a thousandth (one card).
    return float((day.load + 1) ** -_LOAD_EXPONENT * max(day.interval, 1) ** -_DISTANCE_EXPONENT)


def balanced_review(
    scheduler: Scheduler,
    seed: int,
    memory: MemoryState,
    rating: Rating,
    now: datetime,
    loads: Loads,
) -> tuple[MemoryState, datetime | None]:
    """An answer's schedule, its due day chosen by load and Easy Days when its preset says so.

    Args:
        scheduler: The card's preset's scheduler.
        seed: The card's seed.
        memory: The card's schedule before the answer.
        rating: The rating given.
        now: When the answer was given, aware UTC.
        loads: Reads the reviews due on the candidate days (the app reads the database;
            a simulation its own counts).

    Returns:
        The schedule, and the due date chosen (to store with the answer), or None when
        the fuzz draw's date stands: the preset does not balance, the answer leaves the
        card learning, or the interval has no range or is longer than ``BALANCED_UP_TO``.
    """
    preset = scheduler.preset
    if not balances(preset):
        return scheduler.review(seed, memory, rating, now), None
    after, fuzz = scheduler.review_in_range(seed, memory, rating, now)
    if fuzz is None or fuzz.interval > BALANCED_UP_TO:
        return after, None
    study_days = scheduler.days
    intervals = range(fuzz.shortest, fuzz.longest + 1)
    numbers = [study_days.day_of(now + timedelta(days=days)) for days in intervals]
    starts = {number: study_days.start_of(number) for number in range(numbers[0], numbers[-1] + 2)}
    counts = loads([(starts[number], starts[number + 1]) for number in numbers])
    candidates = [
        DayLoad(days, count, weekday_of(number))
        for days, number, count in zip(intervals, numbers, counts, strict=True)
    ]
    draw = f"{seed}:{round(now.timestamp() * 1_000_000)}:balance"
    interval = choose(candidates, preset.easy_days, draw, preset.load_balancing)
    due = now + timedelta(days=interval)
    return chosen(after, due), due
