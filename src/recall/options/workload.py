"""Use case: what each desired retention would cost a preset's decks, from the learner's habits.

The learner's rating shares and review times are read from the history of the preset's
decks (FSRS's measured defaults stand in where there are fewer than ``MIN_SAMPLES``);
fsrs-rs-python's simulator then studies the decks' cards for a year at each desired
retention from 0.70 to 0.99. The suggestion is the retention that keeps the most cards
remembered per minute of study, kept at or below 0.97 (beyond it the workload climbs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from recall.core.memory import CardState
from recall.core.presets import DeckPresets, Preset
from recall.scheduling.simulate import Habits, Workload, default_habits, simulate
from recall.storage import Database

MIN_SAMPLES = 10
DAYS = 365
RETENTIONS = tuple(round(0.70 + step / 100, 2) for step in range(30))  # 0.70 ... 0.99
HIGHEST_SUGGESTION = 0.97
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Simulation:
    """A year of study at each desired retention, and the retention suggested.

    Attributes:
        cards: Cards the simulation studies (those of the preset's decks).
        reviews_measured: Reviews the learner's habits were measured from.
        workloads: One per desired retention, in increasing order.
        suggested: The retention with the most cards remembered per minute of study.
    """

    cards: int
    reviews_measured: int
    habits: Habits
    workloads: tuple[Workload, ...]
    suggested: float

    def at(self, retention: float) -> Workload:
        """The workload simulated nearest to ``retention``."""
        return min(self.workloads, key=lambda item: abs(item.desired_retention - retention))

    def suggestion_words(self, current: float) -> str:
        """The suggestion in words, beside the preset's current retention."""
        best, now = self.at(self.suggested), self.at(current)
        return (
            f"Suggested: desired retention {self.suggested:.2f} keeps the most cards "
            f"remembered per minute of study: about {_few(best.average_minutes)} min and "
            f"{_few(best.average_reviews)} reviews a day for {best.remembered_at_end:,.0f} cards "
            f"remembered after a year (now {current:.2f}: {_few(now.average_minutes)} min, "
            f"{now.remembered_at_end:,.0f} cards)."
        )


def habits_of(database: Database, deck_ids: list[int]) -> tuple[Habits, int]:
    """The learner's rating shares and review times in these decks, and the reviews counted."""
    with database.reading() as transaction:
        rows = transaction.options.rating_habits(deck_ids)
    defaults = default_habits()
    counts = {(state, rating): (count, seconds) for state, rating, count, seconds in rows}
    total = sum(count for count, _seconds in counts.values())

    def shares(
        state: int, ratings: tuple[int, ...], fallback: tuple[float, ...]
    ) -> tuple[float, ...]:
        found = [counts.get((state, rating), (0, 0.0))[0] for rating in ratings]
        if sum(found) < MIN_SAMPLES:
            return fallback
        return tuple(count / sum(found) for count in found)

    first = shares(int(CardState.NEW), (1, 2, 3, 4), defaults.first_rating)
    review = shares(int(CardState.REVIEW), (2, 3, 4), defaults.review_rating)
    kinds = (
        (CardState.NEW, CardState.LEARNING),
        (CardState.REVIEW,),
        (CardState.RELEARNING,),
    )
    seconds = []
    for row, states in enumerate(kinds):
        measured = []
        for rating in range(1, 5):
            found = [
                counts[(int(state), rating)] for state in states if (int(state), rating) in counts
            ]
            count = sum(item[0] for item in found)
            if count >= MIN_SAMPLES:
                measured.append(sum(item[0] * item[1] for item in found) / count)
            else:
                measured.append(defaults.seconds[row][rating - 1])
        seconds.append((measured[0], measured[1], measured[2], measured[3]))
    habits = Habits(
        first_rating=(first[0], first[1], first[2], first[3]),
        review_rating=(review[0], review[1], review[2]),
        seconds=tuple(seconds),
    )
    return habits, total


def simulate_preset(
    database: Database,
    preset_id: int,
    preset: Preset,
    progress: Progress | None = None,
    retentions: tuple[float, ...] = RETENTIONS,
    decks: list[int] | None = None,
) -> Simulation:
    """Simulate a year of the preset's decks at each desired retention.

    Args:
        database: Where the history is.
        preset_id: The preset whose decks are simulated.
        preset: Its options as they would be (limits, steps, parameters).
        progress: Called with (retentions done, retentions in all).
        retentions: The desired retentions to simulate.
        decks: Simulate these decks instead of those using the preset now.
    """
    with database.reading() as transaction:
        book: DeckPresets = transaction.options.deck_presets()
        if decks is None:
            decks = [
                deck.id
                for deck in transaction.options.decks()
                if book.preset_id_of(deck.id) == preset_id
            ]
        cards = transaction.options.card_count(decks)
    habits, measured = habits_of(database, decks)
    workloads = []
    for index, retention in enumerate(retentions):
        workloads.append(
            simulate(
                preset.parameters,
                retention,
                habits,
                cards=cards,
                days=DAYS,
                new_per_day=preset.new_per_day,
                reviews_per_day=preset.reviews_per_day,
                maximum_interval=preset.maximum_interval,
                learning_steps=len(preset.learning_steps),
                relearning_steps=len(preset.relearning_steps),
            )
        )
        if progress is not None:
            progress(index + 1, len(retentions))
    return Simulation(
        cards=cards,
        reviews_measured=measured,
        habits=habits,
        workloads=tuple(workloads),
        suggested=_suggestion(workloads),
    )


def _suggestion(workloads: list[Workload]) -> float:
    allowed = [item for item in workloads if item.desired_retention <= HIGHEST_SUGGESTION]
    if not allowed:
        return 0.9

    def efficiency(item: Workload) -> float:
        minutes = sum(item.minutes_per_day)
        return item.remembered_at_end / minutes if minutes > 0 else 0.0

    return max(allowed, key=efficiency).desired_retention


def _few(value: float) -> str:
    """A daily figure: one decimal below 10, whole above."""
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"
