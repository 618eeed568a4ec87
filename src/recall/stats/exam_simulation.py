"""The days until an exam, simulated card by card: how much of a deck is remembered on it.

Each study day from the first simulated one to the day before the exam, the learner
gives up to a number of answers, one every 20 seconds, in the order study shows cards:
learning cards due, review cards due (the most overdue first), new cards in deck order,
then learning cards due within the learn-ahead limit; a learning step due later than that
waits for the next day. A review card is remembered with its FSRS retrievability then
(Good, else Again); a card in its learning steps is answered Good. Every answer's due
date is capped as study does before an exam (``scheduling.exam``). The share remembered
on the exam day is the mean retrievability then, a card never studied counting 0.

The draws are seeded by the card's seed and the day, so two plans compared (today done or
skipped, more or fewer answers a day) meet the same luck on the same card and day.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from recall.core.days import StudyDays
from recall.core.errors import CancelledError
from recall.core.memory import CardState, MemoryState, Rating
from recall.core.progress import Cancelled, never_cancelled
from recall.scheduling import Scheduler, exam

# Each simulated study day's answers start this many hours after its rollover (today's
# from now), one every ``_ANSWER_TIME``, so learning steps come back as they do in study.
_ANSWER_HOUR = 6
_ANSWER_TIME = timedelta(seconds=20)
_LEARN_AHEAD = timedelta(minutes=20)  # the preferences' default learn-ahead limit
# With no limit on a day's answers, no card is answered more often than this in a day.
MAX_ANSWERS = 12


@dataclass(frozen=True)
class ExamCard:
    """One card as the forecast needs it.

    Attributes:
        seed: The card's seed (its fuzz, its spread over the last days, its draws here).
        memory: Its schedule now.
        scheduler: Its deck's preset's scheduler.
        position: Its place among the deck's new cards.
    """

    seed: int
    memory: MemoryState
    scheduler: Scheduler
    position: int = 0


def share_remembered(cards: Sequence[ExamCard], at: datetime) -> tuple[float, float | None]:
    """The mean retrievability at ``at``: over every card (new ones as 0), and over those
    studied (None when none is).

    Args:
        cards: The deck's cards.
        at: The moment asked about (``exam.exam_moment``), aware UTC.
    """
    chances = [card.scheduler.retrievability(card.seed, card.memory, at) for card in cards]
    studied = [
        chance
        for card, chance in zip(cards, chances, strict=True)
        if card.memory.state is not CardState.NEW
    ]
    overall = sum(chances) / len(chances) if chances else 0.0
    return overall, (sum(studied) / len(studied) if studied else None)


def simulate(
    cards: Sequence[ExamCard],
    exam_day: date,
    days: StudyDays,
    now: datetime,
    per_day: int | None,
    skip_today: bool = False,
    seed: int = 0,
    cancelled: Cancelled = never_cancelled,
) -> list[MemoryState]:
    """Every card's schedule on the exam day after studying until then.

    Args:
        cards: The deck's cards as they are now.
        exam_day: The exam's day.
        days: How moments fall into study days.
        now: The current moment; today's answers are given from it.
        per_day: At most this many answers a study day; None for no limit.
        skip_today: Leave today out: its due cards wait until tomorrow.
        seed: Seeds the draws, with each card's seed and the day.
        cancelled: Stops the work with ``CancelledError`` when it returns True.

    Returns:
        The cards' schedules, in the order given.
    """
    memories = [card.memory for card in cards]
    new = deque(
        sorted(
            (index for index, card in enumerate(cards) if card.memory.state is CardState.NEW),
            key=lambda index: (cards[index].position, index),
        )
    )
    for day in range(days.day_of(now) + int(skip_today), exam.day_number(exam_day)):
        if cancelled():
            raise CancelledError()
        _study_day(cards, memories, new, day, exam_day, days, now, per_day, seed)
    return memories


def _study_day(
    cards: Sequence[ExamCard],
    memories: list[MemoryState],
    new: deque[int],
    day: int,
    exam_day: date,
    days: StudyDays,
    now: datetime,
    per_day: int | None,
    seed: int,
) -> None:
    """One study day, in the order study shows cards: learning cards due, review cards due
    (the most overdue first), new cards, then learning cards due within the learn-ahead
    limit; the day ends when none is left or the day's answers are given."""
    moment = max(now, exam.day_start(day, days) + timedelta(hours=_ANSWER_HOUR))
    end_of_day = exam.day_start(day + 1, days)
    learning: list[tuple[datetime, int]] = []
    reviews: list[tuple[datetime, int]] = []
    for index, memory in enumerate(memories):
        if memory.state is CardState.NEW or memory.due is None or memory.due >= end_of_day:
            continue
        if memory.state is CardState.REVIEW:
            reviews.append((memory.due, index))
        else:
            learning.append((memory.due, index))
    heapq.heapify(learning)
    waiting = deque(index for _, index in sorted(reviews))
    budget = per_day if per_day is not None else len(cards) * MAX_ANSWERS
    draws: dict[int, random.Random] = {}
    while budget > 0 and moment < end_of_day:
        if learning and learning[0][0] < moment:
            index = heapq.heappop(learning)[1]
        elif waiting:
            index = waiting.popleft()
        elif new:
            index = new.popleft()
        elif learning and learning[0][0] < moment + _LEARN_AHEAD:
            index = heapq.heappop(learning)[1]
        else:
            break  # nothing left to show: the learner stops for the day
        card = cards[index]
        memory = memories[index]
        rating = Rating.GOOD
        if memory.state is CardState.REVIEW:
            chance = card.scheduler.retrievability(card.seed, memory, moment)
            luck = draws.setdefault(index, random.Random(hash((seed, card.seed, day))))
            rating = Rating.GOOD if luck.random() < chance else Rating.AGAIN
        after = card.scheduler.review(card.seed, memory, rating, moment)
        memory = exam.with_cap(after, card.seed, exam_day, card.scheduler.days, moment)
        memories[index] = memory
        if (
            memory.state is not CardState.REVIEW
            and memory.due is not None
            and (memory.due < end_of_day)
        ):
            heapq.heappush(learning, (memory.due, index))
        budget -= 1
        moment += _ANSWER_TIME


def share_on_exam(
    cards: Sequence[ExamCard], memories: Sequence[MemoryState], at: datetime
) -> float:
    """The mean retrievability at ``at`` of the cards with these schedules (new ones 0)."""
    if not cards:
        return 0.0
    total = sum(
        card.scheduler.retrievability(card.seed, memory, at)
        for card, memory in zip(cards, memories, strict=True)
    )
    return total / len(cards)
