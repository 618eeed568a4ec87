"""Load balancing and Easy Days: a review's due day chosen inside its range by load.

As Anki's load balancer: each day the fuzz draw could give is weighed by the cards already
due that study day (learning and relearning ones too, as Anki counts every card due on a
day), slightly by its distance (sooner is likelier), and by the preset's Easy Days setting
for its weekday: a "minimum" day is left out whenever another day is possible, a "reduced"
one only once it holds more than half of an ordinary day's share. The day is then drawn,
seeded from the card and the answer's time, so the same answer gives the same day in every
test and on every computer. The chosen day depends on other cards, so it is stored with the
answer (``NewReview.chosen_due``) and replay reads it from there; nothing here is used in
replay.

Two things differ from Anki's, both for days that come out even (docs/performance.md has
the simulated year that showed them):

- A day's load is weighed against the load its neighbouring days suggest for it (a straight
  line through the loads of the days up to three either side), not by its bare count. A
  nearer day always holds more of the cards it will have than a later one (the answers of
  the days before it have yet to add theirs), so bare counts make later days look light;
  Anki offsets that with a strong pull toward sooner days (the distance cubed), which
  leaves its pull toward a lighter day weak (the load to the power 2.15). Against its
  neighbours the pull can be strong (the eighth power of the day's share of the line) and
  the pull toward sooner days slight (the distance itself).
- With load balancing on, an interval of one or two days, which has no fuzz range, is
  balanced too: one day over one or two, two days over one to three (``SHORT_RANGES``).
  These come after a relearning step or a Hard on a young card, after every other card
  due that day has had its day chosen, so nothing else can make room for them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from recall.core.days import weekday_of
from recall.core.memory import CardState, MemoryState, Rating
from recall.core.presets import Preset
from recall.scheduling.history import chosen
from recall.scheduling.review import FuzzRange, Scheduler

# As Anki: a card sent further out than this is left to the fuzz draw; spreading it by a
# day or two there evens out little, and the loads read stay a few months ahead.
BALANCED_UP_TO = 90
# The days (shortest, longest) an interval with no fuzz range is balanced over.
SHORT_RANGES = {1: (1, 2), 2: (1, 3)}
# Each Easy Days setting's share of an ordinary day's reviews, as Anki's.
_SHARES = {"normal": 1.0, "reduced": 0.5, "minimum": 0.0}
_NEIGHBOURS = 3  # days either side whose loads say what a day's load should be
_LOAD_EXPONENT = 8  # how strongly a day heavier than its neighbours suggest is avoided
_DISTANCE_EXPONENT = 1  # how strongly a later day is avoided

# Given the start and end of each candidate study day (aware UTC), the cards due on each.
Loads = Callable[[Sequence[tuple[datetime, datetime]]], Sequence[int]]


class DayLoad(NamedTuple):
    """One day a review could be due on.

    Attributes:
        interval: Days from the answer to it.
        load: Cards already due that study day.
        weekday: Its weekday, 0 Monday to 6 Sunday.
    """

    interval: int
    load: int
    weekday: int


def balances(preset: Preset) -> bool:
    """Whether a preset's answers have their day chosen (balancing on, or an Easy Day set)."""
    return preset.load_balancing or any(day != "normal" for day in preset.easy_days)


def choose(
    days: Sequence[DayLoad],
    easy_days: Sequence[str],
    seed: str,
    balance: bool = True,
    around: Mapping[int, int] | None = None,
) -> int:
    """The interval, of ``days``, a review gets.

    Args:
        days: The candidate days (the fuzz range), at least one.
        easy_days: Each weekday's Easy Days setting, Monday first ("normal", "reduced",
            "minimum").
        seed: Seeds the draw (the card's seed and the answer's time).
        balance: Weigh each day by its load; without it only Easy Days weigh (loads still
            say when a reduced day has its share).
        around: The loads of days next to the range, by interval: with the candidates'
            own, what each candidate's load is weighed against (``expected_loads``).

    Returns:
        One of the days' intervals.
    """
    shares = easy_day_shares(days, easy_days)
    if not any(shares):
        shares = [1.0] * len(days)  # every day is a minimum day: they count alike
    weights = shares
    if balance:
        expected = expected_loads(days, around or {})
        weights = [
            share * _load_weight(day, load)
            for share, day, load in zip(shares, days, expected, strict=True)
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


def expected_loads(days: Sequence[DayLoad], around: Mapping[int, int]) -> list[float]:
    """The load each day's neighbours suggest for it: the least-squares line through the
    loads of the days up to three either side of it (the candidates' and ``around``'s),
    taken at the day, and never below none."""
    known = {**around, **{day.interval: day.load for day in days}}
    expected = []
    for day in days:
        points = [
            (interval, load)
            for interval, load in known.items()
            if abs(interval - day.interval) <= _NEIGHBOURS
        ]
        expected.append(max(_line_at(points, day.interval), 0.0))
    return expected


def _line_at(points: Sequence[tuple[int, int]], at: int) -> float:
    count = len(points)
    mean_x = sum(x for x, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if not spread:
        return mean_y
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    return mean_y + slope * (at - mean_x)


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


def _load_weight(day: DayLoad, expected: float) -> float:
    # One more than each load, so an empty day (or one expected empty) needs no case of
    # its own.
    share = (day.load + 1) / (expected + 1)
    return float(share**-_LOAD_EXPONENT * max(day.interval, 1) ** -_DISTANCE_EXPONENT)


def short_range(scheduler: Scheduler, after: MemoryState, now: datetime) -> FuzzRange | None:
    """The days an answer's interval of one or two days is balanced over (``SHORT_RANGES``,
    no longer than the preset's maximum interval), or None for any other schedule or a
    scheduler without fuzz."""
    if not scheduler.fuzzes or after.state is not CardState.REVIEW or after.due is None:
        return None
    interval = (after.due - now).days
    bounds = SHORT_RANGES.get(interval)
    if bounds is None:
        return None
    shortest, longest = bounds[0], min(bounds[1], scheduler.preset.maximum_interval)
    return FuzzRange(interval, shortest, longest) if shortest < longest else None


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
        loads: Reads the cards due on the candidate days and the three days either side
            (the app reads the database; a simulation its own counts).

    Returns:
        The schedule, and the due date chosen (to store with the answer), or None when
        the fuzz draw's date stands: the preset does not balance, the answer leaves the
        card learning, the interval is longer than ``BALANCED_UP_TO``, or it has no range
        (with load balancing off, intervals under three days have none).
    """
    preset = scheduler.preset
    if not balances(preset):
        return scheduler.review(seed, memory, rating, now), None
    after, fuzz = scheduler.review_in_range(seed, memory, rating, now)
    if fuzz is None and preset.load_balancing:
        fuzz = short_range(scheduler, after, now)
    if fuzz is None or fuzz.interval > BALANCED_UP_TO:
        return after, None
    study_days = scheduler.days
    intervals = range(max(1, fuzz.shortest - _NEIGHBOURS), fuzz.longest + _NEIGHBOURS + 1)
    numbers = [study_days.day_of(now + timedelta(days=days)) for days in intervals]
    starts = {number: study_days.start_of(number) for number in range(numbers[0], numbers[-1] + 2)}
    counts = dict(zip(intervals, loads([(starts[n], starts[n + 1]) for n in numbers]), strict=True))
    in_range = range(fuzz.shortest, fuzz.longest + 1)
    candidates = [
        DayLoad(days, counts[days], weekday_of(number))
        for days, number in zip(intervals, numbers, strict=True)
        if days in in_range
    ]
    around = {days: count for days, count in counts.items() if days not in in_range}
    draw = f"{seed}:{round(now.timestamp() * 1_000_000)}:balance"
    interval = choose(candidates, preset.easy_days, draw, preset.load_balancing, around)
    due = now + timedelta(days=interval)
    return chosen(after, due), due
