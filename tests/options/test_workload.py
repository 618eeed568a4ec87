"""The workload simulator: the learner's habits from their history, a year per retention."""

from __future__ import annotations

from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import workload
from recall.scheduling.simulate import default_habits
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
    assert result.suggested <= workload.HIGHEST_SUGGESTION
    assert result.suggestion_words(0.9).startswith(
        f"Suggested: desired retention {result.suggested:.2f} keeps the most cards"
    )
