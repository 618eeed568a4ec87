"""Days of study simulated answer by answer, to see what load balancing does to each day's load.

Unlike ``simulate`` (fsrs-rs-python's simulator, which has no load balancing), every answer
here goes through the app's own ``Scheduler`` and ``balance.balanced_review``, with the
loads counted as the study session reads them from the database: the cards due on each
study day (learning and relearning ones included). The learner studies every day, answers
every due card, and introduces new cards at a steady rate; ratings are drawn from FSRS's
retrievability with a seeded generator, so a run is the same every time. Days of warm-up
before the days counted give a mature collection.
"""

from __future__ import annotations

import heapq
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from recall.core.days import StudyDays
from recall.core.memory import NEW_CARD, CardState, MemoryState, Rating
from recall.core.presets import Preset
from recall.scheduling.balance import balanced_review
from recall.scheduling.review import Scheduler

# A Monday, 09:00 UTC: each simulated study session starts at this time of day.
_START = datetime(2027, 1, 4, 9, 0, tzinfo=UTC)
_ANSWER_GAP = timedelta(seconds=15)
# Learning answers: Again, Hard, Good, Easy (FSRS's simulator's first-rating shares, rounded).
_LEARNING_RATINGS = (0.25, 0.05, 0.6, 0.1)
# A recalled review card: Hard, Good, Easy.
_PASSED_RATINGS = (0.15, 0.75, 0.1)


@dataclass(frozen=True)
class DailyLoad:
    """What simulated days of study gave.

    Attributes:
        answers_per_day: Answers (learning ones included) on each study day.
        reviews_per_day: Answers to cards in review (due by their interval) on each study day.
        weekdays: Each day's weekday, 0 Monday to 6 Sunday.
        chosen: Answers whose due day balancing chose.
        lapses: Review cards forgotten (rated Again).
    """

    answers_per_day: tuple[int, ...]
    reviews_per_day: tuple[int, ...]
    weekdays: tuple[int, ...]
    chosen: int
    lapses: int

    @property
    def total(self) -> int:
        """Answers over all the days: the work the learner did."""
        return sum(self.answers_per_day)

    @property
    def spread(self) -> float:
        """Standard deviation of the reviews per day over their mean (trend and all)."""
        return _relative_deviation(self.reviews_per_day)

    @property
    def daily_spread(self) -> float:
        """The detrended spread: how far a day's reviews stray from their week's, the
        standard deviation of each day's reviews over the average of the seven days
        centred on it, so that the load's growth while new cards come in (or its slow fall
        in a mature deck) does not count, only day-to-day unevenness."""
        days = self.reviews_per_day
        ratios = [
            days[index] / (sum(days[index - 3 : index + 4]) / 7)
            for index in range(3, len(days) - 3)
            if sum(days[index - 3 : index + 4])
        ]
        return statistics.pstdev(ratios) if len(ratios) > 1 else 0.0

    @property
    def retention(self) -> float:
        """The share of reviews recalled."""
        reviews = sum(self.reviews_per_day)
        return 1.0 - self.lapses / reviews if reviews else 0.0

    def weekday_average(self, weekday: int) -> float:
        """Reviews on an average day of one weekday."""
        loads = [load for load, day in self._by_weekday() if day == weekday]
        return sum(loads) / max(1, len(loads))

    def others_average(self, weekday: int) -> float:
        """Reviews on an average day of the other six weekdays."""
        loads = [load for load, day in self._by_weekday() if day != weekday]
        return sum(loads) / max(1, len(loads))

    def _by_weekday(self) -> list[tuple[int, int]]:
        return list(zip(self.reviews_per_day, self.weekdays, strict=True))


def simulate_days(
    preset: Preset, cards: int, days: int, new_per_day: int, seed: int = 7, warm_up: int = 0
) -> DailyLoad:
    """Study ``cards`` new cards every day for ``days`` days under a preset, balanced as it says.

    Args:
        preset: The deck's options (load balancing and Easy Days among them).
        cards: New cards in the deck at the start.
        days: Study days counted.
        new_per_day: New cards introduced each day until none are left.
        seed: Seeds the ratings and the cards' seeds.
        warm_up: Study days simulated first and left out of the counts.
    """
    study_days = StudyDays()
    scheduler = Scheduler(preset, fuzz=True, days=study_days)
    rng = random.Random(seed)
    seeds = [rng.getrandbits(62) for _ in range(cards)]
    memories: list[MemoryState] = [NEW_CARD] * cards
    # Cards (all but new ones) by the study day they are due on: the loads balancing reads.
    due_on: Counter[int] = Counter()
    introduced = chosen = lapses = 0
    answers: list[int] = []
    reviews: list[int] = []
    weekdays: list[int] = []

    def loads(windows: Sequence[tuple[datetime, datetime]]) -> list[int]:
        return [due_on[study_days.day_of(start)] for start, _ in windows]

    first_day = study_days.day_of(_START)
    for day in range(warm_up + days):
        start = _START + timedelta(days=day)
        today = first_day + day
        end = study_days.bounds(start)[1]
        waiting = [
            (memory.due, index)
            for index, memory in enumerate(memories)
            if memory.state is not CardState.NEW and memory.due is not None and memory.due < end
        ]
        fresh = min(new_per_day, cards - introduced)
        waiting += [(start, index) for index in range(introduced, introduced + fresh)]
        introduced += fresh
        heapq.heapify(waiting)
        now, answered, reviewed = start, 0, 0
        while waiting:
            due, index = heapq.heappop(waiting)
            now = max(now + _ANSWER_GAP, due)
            before = memories[index]
            rating = _rating(rng, scheduler, seeds[index], before, now)
            if before.state is not CardState.NEW and before.due is not None:
                due_on[study_days.day_of(before.due)] -= 1
            after, day_chosen = balanced_review(scheduler, seeds[index], before, rating, now, loads)
            memories[index] = after
            assert after.due is not None
            due_on[study_days.day_of(after.due)] += 1
            if day >= warm_up:
                chosen += day_chosen is not None
                answered += 1
                reviewed += before.state is CardState.REVIEW
                lapses += before.state is CardState.REVIEW and rating is Rating.AGAIN
            if after.due < end:
                heapq.heappush(waiting, (after.due, index))
        del due_on[today]
        if day < warm_up:
            continue
        answers.append(answered)
        reviews.append(reviewed)
        weekdays.append(start.weekday())
    return DailyLoad(tuple(answers), tuple(reviews), tuple(weekdays), chosen, lapses)


def _rating(
    rng: random.Random, scheduler: Scheduler, seed: int, memory: MemoryState, now: datetime
) -> Rating:
    if memory.state is not CardState.REVIEW:
        return rng.choices(list(Rating), _LEARNING_RATINGS)[0]
    if rng.random() >= scheduler.retrievability(seed, memory, now):
        return Rating.AGAIN
    return rng.choices([Rating.HARD, Rating.GOOD, Rating.EASY], _PASSED_RATINGS)[0]


def _relative_deviation(values: Sequence[int]) -> float:
    mean = sum(values) / max(1, len(values))
    return statistics.pstdev(values) / mean if mean and len(values) > 1 else 0.0
