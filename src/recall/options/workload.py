"""Use case: what each desired retention would cost a preset's decks, from the learner's habits.

The learner's rating shares and review times are read from the history of the preset's
decks (FSRS's measured defaults stand in where there are fewer than ``MIN_SAMPLES``);
fsrs-rs-python's simulator then studies the decks' cards for a year at each desired
retention from 0.70 to 0.99. The suggestion is the retention, searched from 0.70 to 0.97, that
keeps the most cards remembered after the year per minute of study, among those that keep at
least ``KNOWLEDGE_FLOOR`` of the studied cards remembered (knowledge per minute alone always
favours the cheapest, forgetful end). A suggestion at an end of that range says so, and with too
few cards or reviews to tell, the default 0.90 is kept and the reason says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from recall.core.i18n import tr
from recall.core.memory import CardState
from recall.core.presets import DeckPresets, Preset
from recall.scheduling.simulate import Habits, Workload, default_habits, simulate
from recall.storage import Database

MIN_SAMPLES = 10
DAYS = 365
RETENTIONS = tuple(round(0.70 + step / 100, 2) for step in range(30))  # 0.70 ... 0.99
LOWEST_SUGGESTION = 0.70
HIGHEST_SUGGESTION = 0.97  # beyond it the workload climbs steeply for little more memory
DEFAULT_RETENTION = 0.90
KNOWLEDGE_FLOOR = 0.90  # share of the studied cards still remembered after the year
MIN_REVIEWS = 100  # below this the habits are mostly FSRS's averages, not the learner's
MIN_CARDS = 50  # below this one simulated card more or less remembered swings the figures
Progress = Callable[[int, int], None]


class Basis(Enum):
    """Why the suggestion is what it is."""

    BEST = "best"  # the most knowledge per minute, inside the searched range
    EDGE = "edge"  # the most knowledge per minute, at an end of the searched range
    UNREACHED = "unreached"  # no retention searched reaches the knowledge floor
    TOO_LITTLE = "too little"  # too few cards or reviews: the default is kept


def per_minute(workload: Workload) -> float:
    """Cards remembered after the simulated days per minute of study over them."""
    minutes = sum(workload.minutes_per_day)
    return workload.remembered_at_end / minutes if minutes > 0 else 0.0


def knowledge_share(workload: Workload) -> float:
    """The share of the cards studied that are remembered after the simulated days."""
    return workload.remembered_at_end / workload.introduced if workload.introduced else 0.0


@dataclass(frozen=True)
class Simulation:
    """A year of study at each desired retention, and the retention suggested.

    Attributes:
        cards: Cards the simulation studies (those of the preset's decks).
        reviews_measured: Reviews the learner's habits were measured from.
        workloads: One per desired retention, in increasing order.
        suggested: The retention suggested (see the module's docstring).
        basis: Why it is the one suggested.
    """

    cards: int
    reviews_measured: int
    habits: Habits
    workloads: tuple[Workload, ...]
    suggested: float
    basis: Basis

    def at(self, retention: float) -> Workload:
        """The workload simulated nearest to ``retention``."""
        return min(self.workloads, key=lambda item: abs(item.desired_retention - retention))

    def suggestion_words(self, current: float) -> str:
        """The suggestion and its reason in plain sentences, beside the current retention."""
        if self.basis is Basis.TOO_LITTLE:
            return tr(
                "Suggested: desired retention {retention}, the default, kept: {cards} cards and "
                "{reviews} reviews of yours are too few to tell what suits you (a suggestion "
                "needs at least {least_cards} cards and {least_reviews} reviews)."
            ).format(
                retention=f"{self.suggested:.2f}",
                cards=f"{self.cards:,}",
                reviews=f"{self.reviews_measured:,}",
                least_cards=MIN_CARDS,
                least_reviews=MIN_REVIEWS,
            )
        best, now = self.at(self.suggested), self.at(current)
        if self.basis is Basis.UNREACHED:
            words = tr(
                "Suggested: desired retention {retention}. No retention up to {highest} keeps "
                "{floor} of your cards remembered after a year (the daily limits hold reviews "
                "back); this one keeps the most."
            ).format(
                retention=f"{self.suggested:.2f}",
                highest=f"{HIGHEST_SUGGESTION:.2f}",
                floor=f"{KNOWLEDGE_FLOOR:.0%}",
            )
        else:
            words = tr(
                "Suggested: desired retention {retention}. Of the retentions that keep at least "
                "{floor} of your cards remembered after a year, it gives the most knowledge per "
                "minute: {per_minute} cards remembered per minute of study ({remembered} cards "
                "for {minutes} min over the year, about {daily} min a day), against "
                "{now_per_minute} at your {current} ({now_remembered} cards for {now_minutes} "
                "min)."
            ).format(
                retention=f"{self.suggested:.2f}",
                floor=f"{KNOWLEDGE_FLOOR:.0%}",
                per_minute=f"{per_minute(best):.2f}",
                remembered=f"{best.remembered_at_end:,.0f}",
                minutes=f"{sum(best.minutes_per_day):,.0f}",
                daily=_few(best.average_minutes),
                now_per_minute=f"{per_minute(now):.2f}",
                current=f"{current:.2f}",
                now_remembered=f"{now.remembered_at_end:,.0f}",
                now_minutes=f"{sum(now.minutes_per_day):,.0f}",
            )
            if self._floor_binds():
                words += " " + tr(
                    "Lower retentions cost less per card remembered but leave fewer than {floor} "
                    "remembered."
                ).format(floor=f"{KNOWLEDGE_FLOOR:.0%}")
        if self.basis is Basis.EDGE or (
            self.basis is Basis.UNREACHED and self.suggested >= HIGHEST_SUGGESTION
        ):
            words += " " + _edge_words(self.suggested)
        return words

    def _floor_binds(self) -> bool:
        """Whether a retention below the suggestion did more per minute but forgot too much."""
        best = per_minute(self.at(self.suggested))
        return any(
            per_minute(item) > best
            for item in self.workloads
            if LOWEST_SUGGESTION <= item.desired_retention < self.suggested
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
    suggested, basis = suggestion(workloads, cards, measured)
    return Simulation(
        cards=cards,
        reviews_measured=measured,
        habits=habits,
        workloads=tuple(workloads),
        suggested=suggested,
        basis=basis,
    )


def suggestion(workloads: list[Workload], cards: int, reviews: int) -> tuple[float, Basis]:
    """The retention to suggest from a year simulated at each retention, and why.

    Args:
        workloads: The simulated year at each desired retention.
        cards: Cards the simulation studied.
        reviews: Reviews of the learner's the habits were measured from.

    Returns:
        The retention and its basis: the most cards remembered per minute among the
        retentions from 0.70 to 0.97 that keep ``KNOWLEDGE_FLOOR`` of the cards remembered.
    """
    searched = [
        item
        for item in workloads
        if LOWEST_SUGGESTION - 1e-9 <= item.desired_retention <= HIGHEST_SUGGESTION + 1e-9
    ]
    if cards < MIN_CARDS or reviews < MIN_REVIEWS or not searched:
        return DEFAULT_RETENTION, Basis.TOO_LITTLE
    enough = [item for item in searched if knowledge_share(item) >= KNOWLEDGE_FLOOR]
    if not enough:
        most = max(searched, key=lambda item: item.remembered_at_end)
        return most.desired_retention, Basis.UNREACHED
    best = max(enough, key=per_minute).desired_retention
    edges = (searched[0].desired_retention, searched[-1].desired_retention)
    return best, Basis.EDGE if best in edges else Basis.BEST


def _edge_words(retention: float) -> str:
    if retention <= LOWEST_SUGGESTION + 1e-9:
        return tr(
            "The best lies at the edge of what was simulated: {retention} is the lowest "
            "retention searched, and a lower one might do better still, at a higher share of "
            "forgotten cards."
        ).format(retention=f"{retention:.2f}")
    return tr(
        "The best lies at the edge of what was simulated: {retention} is the highest retention "
        "searched, as above it the workload climbs steeply for little more memory."
    ).format(retention=f"{retention:.2f}")


def _few(value: float) -> str:
    """A daily figure: one decimal below 10, whole above."""
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"
