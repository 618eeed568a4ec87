"""The statistics as plain values: what the window draws, the CLI prints and --json holds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

KINDS = ("learning", "young", "mature", "relearning")
"""The kinds of review, in the order of ``DayReviews.reviews``: a young card's interval is
under 21 days, a mature card's at least 21."""

RETENTION_WINDOWS = ("today", "yesterday", "last 7 days", "last 30 days", "last year", "all time")
RETENTION_DAYS = (1, 1, 7, 30, 365, None)
"""How many study days each window of the true retention table covers (None: all)."""


@dataclass(frozen=True)
class Today:
    """The current study day: cards studied, answers, time, right answers and Again ratings.

    Attributes:
        cram: Cram answers today, counted apart: they are in none of the other figures (nor
            in retention or FSRS's), since they move no schedule.
    """

    cards: int
    reviews: int
    time_ms: int
    correct: int
    again: int
    cram: int = 0

    @property
    def share_correct(self) -> float | None:
        """Right answers as a share of all answers, None before the first."""
        return self.correct / self.reviews if self.reviews else None


@dataclass(frozen=True)
class Streak:
    """Consecutive study days with at least one review.

    Attributes:
        current: The run that ends today, or yesterday while today has no review yet.
        longest: The longest run ever.
    """

    current: int
    longest: int


@dataclass(frozen=True)
class Forecast:
    """Studied cards coming due, per study day ahead.

    Attributes:
        days: Cards due on each study day, index 0 today (not counting the overdue).
        overdue: Cards that fell due before today began and are still waiting.
    """

    days: tuple[int, ...]
    overdue: int

    @property
    def cumulative(self) -> tuple[int, ...]:
        """Cards due by the end of each day, the overdue included."""
        running, out = self.overdue, []
        for count in self.days:
            running += count
            out.append(running)
        return tuple(out)


@dataclass(frozen=True)
class DayReviews:
    """Reviews in one bar of the reviews chart: a study day, or a week starting that day.

    Attributes:
        reviews: Counts by kind, in ``KINDS`` order.
        time_ms: Answer time by kind, in ``KINDS`` order.
    """

    day: date
    reviews: tuple[int, int, int, int]
    time_ms: tuple[int, int, int, int]


@dataclass(frozen=True)
class Totals:
    """Answers over the period: how many, how many right, rated Again, and the time taken."""

    reviews: int
    correct: int
    again: int
    time_ms: int


@dataclass(frozen=True)
class CardCounts:
    """Cards by where they are now; young and mature by their current interval; a suspended
    card counts as suspended only."""

    new: int
    learning: int
    relearning: int
    young: int
    mature: int
    suspended: int

    @property
    def total(self) -> int:
        """Every card."""
        total = self.new + self.learning + self.relearning + self.young + self.mature
        return total + self.suspended


@dataclass(frozen=True)
class Bin:
    """One bar of a histogram: values from ``low`` up to (not including) ``high``."""

    low: float
    high: float
    count: int


@dataclass(frozen=True)
class Histogram:
    """How studied cards spread over one measure, with its average (None without cards)."""

    bins: tuple[Bin, ...]
    average: float | None

    @property
    def cards(self) -> int:
        """Cards counted."""
        return sum(item.count for item in self.bins)


@dataclass(frozen=True)
class Distributions:
    """Intervals (days), stability (days), difficulty (1-10) and retrievability (0-1) now.

    Attributes:
        known: The sum of every studied card's retrievability: how many cards the learner
            would get right if asked all of them now.
    """

    interval: Histogram
    stability: Histogram
    difficulty: Histogram
    retrievability: Histogram
    known: float


@dataclass(frozen=True)
class Retention:
    """First reviews of the day of review cards: passed (Hard, Good, Easy) and failed (Again)."""

    passed: int
    failed: int

    @property
    def rate(self) -> float | None:
        """The pass rate, None without reviews."""
        total = self.passed + self.failed
        return self.passed / total if total else None


@dataclass(frozen=True)
class RetentionRow:
    """True retention over one window of study days."""

    window: str
    young: Retention
    mature: Retention

    @property
    def all(self) -> Retention:
        """Young and mature together."""
        return Retention(
            self.young.passed + self.mature.passed, self.young.failed + self.mature.failed
        )


@dataclass(frozen=True)
class HourCount:
    """Reviews started in one local hour, and how many were right."""

    hour: int
    reviews: int
    correct: int


@dataclass(frozen=True)
class Ratings:
    """The ratings answers got, and how often the learner changed the one Recall proposed.

    Attributes:
        counts: Again, Hard, Good, Easy.
        proposed_known: Answers whose proposed rating was recorded (older ones lack it).
        changed: Of those, answers the learner rated differently.
        raised: Of those, answers rated higher than proposed.
    """

    counts: tuple[int, int, int, int]
    proposed_known: int
    changed: int
    raised: int

    @property
    def lowered(self) -> int:
        """Answers rated lower than proposed."""
        return self.changed - self.raised


@dataclass(frozen=True)
class Misconception:
    """A wrong option picked on a card, how often, when last, and whether it still is.

    Attributes:
        still: Whether the card's latest review picked it.
        follow_up: Where its follow-up is (``scheduling.follow_ups``): "persisting" (the
            card's latest answer picked it), "fading" (asked or waiting, not picked
            lately), "faded" (retired), or "" when it has none (picked once).
    """

    deck_key: str
    card_id: int
    card_key: str
    question: str
    choice: str
    times: int
    last: datetime
    still: bool
    follow_up: str = ""


@dataclass(frozen=True)
class FollowUpFigures:
    """The follow-ups on misconceptions of the decks, by where they are, and their answers.

    Attributes:
        persisting: Follow-ups whose option the card's latest answer picked.
        fading: Follow-ups asked or waiting whose option was not picked lately.
        faded: Follow-ups retired: not picked in three follow-up answers across three weeks.
        answers: Follow-up answers given, all told.
        wrong: Those of them answered wrongly (their picks count among the misconceptions).
    """

    persisting: int = 0
    fading: int = 0
    faded: int = 0
    answers: int = 0
    wrong: int = 0


@dataclass(frozen=True)
class Coming:
    """The forecast alone: the first chart the statistics window paints."""

    deck_key: str | None
    today_date: date
    forecast: Forecast


@dataclass(frozen=True)
class Schedules:
    """The figures read from the schedules alone (no history): quick at any size."""

    deck_key: str | None
    deck_name: str
    today_date: date
    forecast: Forecast
    cards: CardCounts
    distributions: Distributions


@dataclass(frozen=True)
class Statistics:
    """Every figure of the statistics window for one deck (or all) over one period.

    Attributes:
        deck_key: The deck, or None for the whole collection.
        period_days: The study days the period covers, today included.
        whole_history: Whether the period is all time (from the first review on).
        reviews: Bars of the reviews chart, oldest first (per day, or per week when
            ``by_week``).
        calendar: Reviews on each of the last 365 study days, oldest first.
    """

    now: datetime
    today_date: date
    deck_key: str | None
    deck_name: str
    period_days: int
    whole_history: bool
    today: Today
    streak: Streak
    forecast: Forecast
    calendar: tuple[tuple[date, int], ...]
    reviews: tuple[DayReviews, ...]
    by_week: bool
    totals: Totals
    cards: CardCounts
    distributions: Distributions
    retention: tuple[RetentionRow, ...]
    period_retention: RetentionRow
    hours: tuple[HourCount, ...]
    ratings: Ratings
    misconceptions: tuple[Misconception, ...]
    follow_ups: FollowUpFigures = FollowUpFigures()
