"""Load balancing and Easy Days: the day chosen inside a review's fuzz range."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recall.core.days import StudyDays
from recall.core.memory import NEW_CARD, CardState, MemoryState, Rating
from recall.core.presets import Preset
from recall.scheduling import Scheduler
from recall.scheduling import chosen as chosen_schedule
from recall.scheduling.balance import (
    DayLoad,
    balanced_review,
    choose,
    expected_loads,
    short_range,
)
from recall.scheduling.history import PastReview
from recall.scheduling.load_simulation import simulate_days
from recall.scheduling.review import FuzzRange

NORMAL = ("normal",) * 7
START = datetime(2027, 1, 4, 9, 0, tzinfo=UTC)  # a Monday


def draws(
    days: list[DayLoad], easy_days: tuple[str, ...] = NORMAL, count: int = 400
) -> Counter[int]:
    return Counter(choose(days, easy_days, f"card:{seed}") for seed in range(count))


def test_the_lighter_day_is_chosen_most_often() -> None:
    days = [DayLoad(10, 60, 0), DayLoad(11, 20, 1), DayLoad(12, 60, 2)]
    chosen = draws(days)
    assert set(chosen) <= {10, 11, 12}
    assert chosen[11] > chosen[10] + chosen[12]


@given(
    st.integers(2, 80),
    st.lists(st.integers(0, 5000), min_size=1, max_size=15),
    st.lists(st.sampled_from(["normal", "reduced", "minimum"]), min_size=7, max_size=7),
    st.text(max_size=12),
)
def test_the_chosen_day_never_leaves_the_range(
    shortest: int, loads: list[int], easy: list[str], seed: str
) -> None:
    days = [
        DayLoad(shortest + index, load, (shortest + index) % 7) for index, load in enumerate(loads)
    ]
    assert shortest <= choose(days, tuple(easy), seed) < shortest + len(loads)
    assert choose(days, tuple(easy), seed) == choose(days, tuple(easy), seed)


def test_a_minimum_day_gets_no_card_while_another_day_is_possible() -> None:
    # Sunday (6) is empty and the other days full: still no card goes there.
    easy = ("normal",) * 6 + ("minimum",)
    days = [DayLoad(20, 300, 5), DayLoad(21, 0, 6), DayLoad(22, 300, 0)]
    chosen = draws(days, easy)
    assert chosen[21] == 0
    assert chosen[20] > 0
    assert chosen[22] > 0
    # With no other day in the range, it takes the card.
    assert draws([DayLoad(21, 50, 6)], easy) == Counter({21: 400})
    both_minimum = ("minimum",) * 7
    assert set(draws(days, both_minimum)) <= {20, 21, 22}


def test_a_reduced_day_takes_cards_only_up_to_about_half_a_normal_days_load() -> None:
    easy = ("normal",) * 6 + ("reduced",)
    under = [DayLoad(20, 100, 5), DayLoad(21, 30, 6), DayLoad(22, 100, 0)]
    over = [DayLoad(20, 100, 5), DayLoad(21, 70, 6), DayLoad(22, 100, 0)]
    assert draws(under, easy)[21] > 0
    assert draws(over, easy)[21] == 0


def test_a_balanced_answer_is_due_on_its_chosen_day_inside_the_fuzz_range() -> None:
    scheduler = Scheduler(Preset())
    memory = NEW_CARD
    now = START
    for rating in (Rating.GOOD, Rating.GOOD):
        memory = scheduler.review(5, memory, rating, now)
        assert memory.due is not None
        now = max(memory.due, now + timedelta(days=1))
    assert memory.state is CardState.REVIEW
    _, fuzz = scheduler.review_in_range(5, memory, Rating.GOOD, now)
    assert fuzz is not None

    days = StudyDays()

    def loads(windows: Sequence[tuple[datetime, datetime]]) -> list[int]:
        # Every day around the range and in it has 500 cards due, but the range's last.
        last = days.day_of(now) + fuzz.longest
        return [0 if days.day_of(start) == last else 500 for start, _ in windows]

    after, chosen = balanced_review(scheduler, 5, memory, Rating.GOOD, now, loads)
    assert chosen == now + timedelta(days=fuzz.longest)
    assert after.due == chosen
    assert after == chosen_schedule(scheduler.review(5, memory, Rating.GOOD, now), chosen)
    # Balancing off and every Easy Day normal: the fuzz draw stands, nothing is chosen.
    unbalanced = Scheduler(Preset(load_balancing=False))
    drawn, none = balanced_review(unbalanced, 5, memory, Rating.GOOD, now, loads)
    assert none is None
    assert drawn == unbalanced.review(5, memory, Rating.GOOD, now)


def test_over_simulated_days_balancing_evens_out_the_reviews_per_day() -> None:
    off = simulate_days(Preset(load_balancing=False), 500, 120, 10)
    on = simulate_days(Preset(), 500, 120, 10)
    assert off.chosen == 0
    assert on.chosen > 1000
    assert on.daily_spread < 0.6 * off.daily_spread
    assert on.total < 1.03 * off.total


def test_over_simulated_days_a_minimum_weekday_carries_fewer_reviews() -> None:
    sunday = simulate_days(Preset(easy_sunday="minimum"), 500, 120, 10)
    assert sunday.weekday_average(6) < 0.7 * sunday.others_average(6)


def test_a_day_lighter_than_its_neighbours_suggest_wins_over_a_later_barer_one() -> None:
    # The load falls by ten cards a day ahead (later days have yet to fill): day 11 holds
    # ten fewer than the line through its neighbours, day 12 about as many as the line.
    # Weighed by bare counts the two would be alike.
    around = {7: 130, 8: 120, 9: 110, 13: 70, 14: 60, 15: 50}
    days = [DayLoad(10, 100, 0), DayLoad(11, 80, 1), DayLoad(12, 79, 2)]
    chosen = Counter(choose(days, NORMAL, f"card:{seed}", around=around) for seed in range(400))
    assert chosen[11] > chosen[10] + chosen[12]
    assert expected_loads(days, around) == pytest.approx([100.0, 90.0, 80.0], abs=4)


def test_expected_loads_are_the_neighbours_line_and_never_below_none() -> None:
    flat = [DayLoad(5, 40, 0)]
    assert expected_loads(flat, {}) == [40.0]
    assert expected_loads(flat, {2: 10, 3: 20, 4: 30, 6: 50, 7: 60, 8: 70}) == pytest.approx([40.0])
    # Far days (more than three away) are not its neighbours.
    assert expected_loads(flat, {1: 1000, 9: 1000}) == [40.0]
    falling = [DayLoad(6, 0, 0)]
    assert expected_loads(falling, {3: 30, 4: 20, 5: 10}) == [0.0]


def short_interval_card(scheduler: Scheduler) -> tuple[MemoryState, datetime, list[PastReview]]:
    """A relearned card whose next Good is two days, when it is answered, and its history."""
    memory, now, history = NEW_CARD, START, []
    for rating in (Rating.GOOD, Rating.GOOD, Rating.AGAIN, Rating.GOOD):
        memory = scheduler.review(5, memory, rating, now)
        history.append(PastReview(now, rating))
        assert memory.due is not None
        now = max(memory.due, now + timedelta(minutes=1))
    after = scheduler.review(5, memory, Rating.GOOD, now)
    assert after.state is CardState.REVIEW
    assert after.due == now + timedelta(days=2)
    return memory, now, history


def test_an_interval_of_a_day_or_two_is_balanced_only_with_load_balancing_on() -> None:
    scheduler = Scheduler(Preset())
    memory, now, history = short_interval_card(scheduler)
    days = StudyDays()
    today = days.day_of(now)

    def loads(windows: Sequence[tuple[datetime, datetime]]) -> list[int]:
        # The day after tomorrow is crowded, tomorrow and the day after it light.
        crowded = {1: 80, 2: 400, 3: 80, 4: 80, 5: 80, 6: 80}
        return [crowded[days.day_of(start) - today] for start, _ in windows]

    after, due = balanced_review(scheduler, 5, memory, Rating.GOOD, now, loads)
    assert due in (now + timedelta(days=1), now + timedelta(days=3))
    assert after == chosen_schedule(scheduler.review(5, memory, Rating.GOOD, now), due)
    # Replay reads the day from the answer.
    assert scheduler.replay(5, [*history, PastReview(now, Rating.GOOD, set_due=due)]) == after
    assert short_range(scheduler, scheduler.review(5, memory, Rating.GOOD, now), now) == (
        FuzzRange(2, 1, 3)
    )
    # Easy Days alone leave it its day (they choose only inside a fuzz range) ...
    easy_only = Scheduler(Preset(load_balancing=False, easy_monday="reduced"))
    drawn, none = balanced_review(easy_only, 5, memory, Rating.GOOD, now, loads)
    assert none is None
    assert drawn == easy_only.review(5, memory, Rating.GOOD, now)
    # ... as do a scheduler without fuzz and a maximum interval of one day.
    assert short_range(Scheduler(Preset(), fuzz=False), after, now) is None
    capped = Scheduler(Preset(maximum_interval=1))
    assert short_range(capped, capped.review(5, memory, Rating.GOOD, now), now) is None


@given(
    st.lists(st.sampled_from(list(Rating)), min_size=1, max_size=25),
    st.integers(0, 2**62),
    st.integers(0, 2**31),
)
def test_balanced_answers_replay_to_the_schedule_they_gave(
    ratings: list[Rating], seed: int, crowd: int
) -> None:
    scheduler = Scheduler(Preset(easy_saturday="reduced", easy_sunday="minimum"))

    def loads(windows: Sequence[tuple[datetime, datetime]]) -> list[int]:
        # Uneven days that depend on the day alone, as a collection's would.
        return [(start.toordinal() * 7919 + crowd) % 311 for start, _ in windows]

    memory, now, history = NEW_CARD, START, []
    for rating in ratings:
        memory, due = balanced_review(scheduler, seed, memory, rating, now, loads)
        history.append(PastReview(now, rating, set_due=due))
        assert memory.due is not None
        now = max(memory.due, now + timedelta(minutes=5))
    assert scheduler.replay(seed, history) == memory
    assert scheduler.replay_by_steps(seed, history) == memory


def test_over_a_simulated_mature_year_balancing_evens_out_the_days() -> None:
    off = simulate_days(Preset(load_balancing=False), 400, 90, 10, warm_up=60)
    on = simulate_days(Preset(), 400, 90, 10, warm_up=60)
    assert len(on.reviews_per_day) == 90
    # Every card came in during the warm-up: the days counted are reviews all but a few.
    assert sum(on.reviews_per_day) > 0.8 * on.total
    assert on.chosen > 0.8 * sum(on.reviews_per_day)
    assert on.daily_spread < 0.6 * off.daily_spread
    assert 0.0 < on.retention < 1.0
