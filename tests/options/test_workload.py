"""The workload simulator: the learner's habits from their history, a year per retention."""

from __future__ import annotations

import pytest

from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import workload
from recall.scheduling.simulate import Workload, default_habits
from recall.storage import Database
from tests.scheduling.test_optimize import START, simulate, store_history, truth


def test_habits_come_from_the_history_where_there_are_enough(database: Database) -> None:
    store_history(database, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 80, 200, 6), START)
    with database.reading() as tx:
        decks = [deck.id for deck in tx.options.decks()]
    habits, measured = workload.habits_of(database, decks)
    defaults = default_habits()
    assert measured > 500
    # The generated learner presses Good on 60% of new cards (FSRS's average is 49.5%)...
    assert abs(habits.first_rating[2] - 0.6) < 0.1
    assert habits.first_rating != defaults.first_rating
    # ...and every review took 5 s in the stored history.
    assert habits.seconds[1][2] == 5.0
    assert abs(sum(habits.review_rating) - 1) < 1e-9


def test_with_no_history_the_averages_stand_in(database: Database) -> None:
    habits, measured = workload.habits_of(database, [])
    assert (habits, measured) == (default_habits(), 0)


def test_a_year_at_each_retention_costs_more_for_more_memory(database: Database) -> None:
    store_history(database, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 200, 100, 7), START)
    done: list[tuple[int, int]] = []
    result = workload.simulate_preset(
        database,
        DEFAULT_PRESET_ID,
        Preset(new_per_day=10),
        progress=lambda finished, total: done.append((finished, total)),
        retentions=(0.7, 0.8, 0.9, 0.97, 0.99),
    )
    assert result.cards == 200
    assert done[-1] == (5, 5)
    low, high = result.at(0.7), result.at(0.99)
    assert len(low.reviews_per_day) == workload.DAYS
    assert high.average_reviews > 2 * low.average_reviews
    assert high.average_minutes > low.average_minutes
    assert high.remembered_at_end > low.remembered_at_end
    assert workload.LOWEST_SUGGESTION <= result.suggested <= workload.HIGHEST_SUGGESTION
    assert result.suggestion_words(0.9).startswith(
        f"Suggested: desired retention {result.suggested:.2f}."
    )


def simulated(database: Database, cards: int, seed: int) -> workload.Simulation:
    """A year of a generated collection of ``cards`` cards with 100 days of history."""
    store_history(database, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), cards, 100, seed), START)
    return workload.simulate_preset(database, DEFAULT_PRESET_ID, Preset(new_per_day=20))


@pytest.mark.parametrize("cards", [10, 300])
def test_the_suggestion_is_no_bound_of_the_range_unless_it_says_so(
    database: Database, cards: int
) -> None:
    result = simulated(database, cards, 11)
    words = result.suggestion_words(0.9)
    if cards == 10:
        # Ten cards say nothing about the learner: the default stays, and the words say why.
        assert (result.suggested, result.basis) == (0.9, workload.Basis.TOO_LITTLE)
        assert "the default, kept: 10 cards" in words
    else:
        assert result.reviews_measured >= workload.MIN_REVIEWS
        assert result.basis is not workload.Basis.TOO_LITTLE
    at_bound = result.suggested in (workload.LOWEST_SUGGESTION, workload.HIGHEST_SUGGESTION)
    assert at_bound == ("the edge of what was simulated" in words)


def test_the_suggestion_maximises_knowledge_per_minute_above_the_floor(
    database: Database,
) -> None:
    result = simulated(database, 300, 12)
    # Worked out here from the simulation's own figures, not with the module's helpers.
    ratios = {}
    for item in result.workloads:
        share = item.remembered_at_end / item.introduced
        if 0.70 <= item.desired_retention <= 0.97 and share >= 0.90:
            ratios[item.desired_retention] = item.remembered_at_end / sum(item.minutes_per_day)
    assert len(ratios) >= 5
    assert result.suggested == max(ratios, key=lambda retention: ratios[retention])
    assert result.suggested > 0.70  # the floor keeps it off the forgetful end for this learner
    best, now = result.at(result.suggested), result.at(0.9)
    words = result.suggestion_words(0.9)
    assert f"{ratios[result.suggested]:.2f} cards remembered per minute" in words
    assert f"against {now.remembered_at_end / sum(now.minutes_per_day):.2f} at your 0.90" in words
    assert best.remembered_at_end / sum(best.minutes_per_day) >= ratios[0.9]


def year(retention: float, remembered: float, minutes: float, introduced: int = 100) -> Workload:
    """A simulated year with these totals, spread over 365 days."""
    return Workload(
        desired_retention=retention,
        reviews_per_day=(1,) * 365,
        minutes_per_day=(minutes / 365,) * 365,
        remembered=(remembered,) * 365,
        introduced=introduced,
    )


def test_a_best_at_the_bottom_of_the_range_says_it_lies_at_the_edge() -> None:
    # An easy collection: even 0.70 keeps 95% remembered, and it is the cheapest per card.
    years = [year(r / 100, 95 + (r - 70) / 10, 100 + 10 * (r - 70)) for r in range(70, 100)]
    retention, basis = workload.suggestion(years, cards=100, reviews=500)
    assert (retention, basis) == (0.70, workload.Basis.EDGE)
    result = workload.Simulation(100, 500, default_habits(), tuple(years), retention, basis)
    assert "the edge of what was simulated: 0.70 is the lowest" in result.suggestion_words(0.9)


def test_the_knowledge_floor_keeps_the_suggestion_off_the_forgetful_end_and_says_so() -> None:
    # Per minute, lower is always better here; but below 0.85 under 90 of 100 cards remain.
    years = [year(r / 100, 75 + (r - 70), 100 + 10 * (r - 70)) for r in range(70, 100)]
    retention, basis = workload.suggestion(years, cards=100, reviews=500)
    assert (retention, basis) == (0.85, workload.Basis.BEST)
    result = workload.Simulation(100, 500, default_habits(), tuple(years), retention, basis)
    words = result.suggestion_words(0.9)
    assert (
        "Lower retentions cost less per card remembered but leave fewer than 90% remembered"
        in words
    )
    assert "the edge of what was simulated" not in words


def test_too_few_reviews_keep_the_default_and_say_why() -> None:
    years = [year(r / 100, 95, 100) for r in range(70, 100)]
    assert workload.suggestion(years, cards=300, reviews=99) == (0.9, workload.Basis.TOO_LITTLE)
    result = workload.Simulation(
        300, 99, default_habits(), tuple(years), 0.9, workload.Basis.TOO_LITTLE
    )
    assert "300 cards and 99 reviews of yours are too few" in result.suggestion_words(0.8)
