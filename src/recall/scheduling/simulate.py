"""The workload a preset would bring: fsrs-rs-python's simulator, fed with the learner's habits.

For each desired retention the simulator studies a deck for a number of days, drawing
ratings from how often the learner presses each one and charging each review the time
the learner takes for that kind of review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import fsrs_rs_python

from recall.scheduling.parameters import DEFAULT_PARAMETERS

_STATES = 3  # cost rows: learning, review, relearning


@dataclass(frozen=True)
class Habits:
    """How the learner studies, measured from their history (FSRS's defaults where too few).

    Attributes:
        first_rating: Shares of Again, Hard, Good, Easy on a card's first review.
        review_rating: Shares of Hard, Good, Easy among passed reviews of review cards.
        seconds: Seconds per review by kind (learning, review, relearning) and rating 1-4.
    """

    first_rating: tuple[float, float, float, float]
    review_rating: tuple[float, float, float]
    seconds: tuple[tuple[float, float, float, float], ...]


def default_habits() -> Habits:
    """FSRS's simulator defaults, measured on many learners."""
    config = fsrs_rs_python.default_simulator_config()
    first = tuple(config.first_rating_prob)
    review = tuple(config.review_rating_prob)
    seconds = tuple(tuple(row) for row in config.state_rating_costs)
    return Habits(
        first_rating=(first[0], first[1], first[2], first[3]),
        review_rating=(review[0], review[1], review[2]),
        seconds=tuple((row[0], row[1], row[2], row[3]) for row in seconds),
    )


@dataclass(frozen=True)
class Workload:
    """The simulated days at one desired retention.

    Attributes:
        reviews_per_day: Reviews (learning included) each day.
        minutes_per_day: Minutes of study each day.
        remembered: Cards expected to be remembered at the end of each day.
        introduced: Cards studied for the first time over the simulated days.
    """

    desired_retention: float
    reviews_per_day: tuple[int, ...]
    minutes_per_day: tuple[float, ...]
    remembered: tuple[float, ...]
    introduced: int

    @property
    def average_reviews(self) -> float:
        """Reviews per day, averaged over the simulated days."""
        return sum(self.reviews_per_day) / max(1, len(self.reviews_per_day))

    @property
    def average_minutes(self) -> float:
        """Minutes per day, averaged over the simulated days."""
        return sum(self.minutes_per_day) / max(1, len(self.minutes_per_day))

    @property
    def remembered_at_end(self) -> float:
        """Cards remembered on the last simulated day."""
        return self.remembered[-1] if self.remembered else 0.0


def simulate(
    parameters: Sequence[float],
    desired_retention: float,
    habits: Habits,
    cards: int,
    days: int,
    new_per_day: int,
    reviews_per_day: int,
    maximum_interval: int,
    learning_steps: int,
    relearning_steps: int,
    seed: int = 42,
) -> Workload:
    """Simulate ``days`` of study of ``cards`` new cards at one desired retention."""
    config = fsrs_rs_python.default_simulator_config()
    config.deck_size = max(1, cards)
    config.learn_span = days
    config.max_cost_perday = 86_400.0
    config.max_ivl = float(maximum_interval)
    config.learn_limit = new_per_day
    config.review_limit = reviews_per_day
    config.first_rating_prob = list(habits.first_rating)
    config.review_rating_prob = list(habits.review_rating)
    config.state_rating_costs = [list(row) for row in habits.seconds[:_STATES]]
    config.learning_step_count = learning_steps
    config.relearning_step_count = relearning_steps
    result = fsrs_rs_python.simulate(
        list(parameters) or list(DEFAULT_PARAMETERS), desired_retention, config, seed
    )
    reviews = tuple(
        int(review + learn)
        for review, learn in zip(result.review_cnt_per_day, result.learn_cnt_per_day, strict=True)
    )
    return Workload(
        desired_retention=desired_retention,
        reviews_per_day=reviews,
        minutes_per_day=tuple(float(cost) / 60 for cost in result.cost_per_day),
        remembered=tuple(float(count) for count in result.memorized_cnt_per_day),
        introduced=int(result.introduced_cnt_per_day[-1]) if result.introduced_cnt_per_day else 0,
    )
