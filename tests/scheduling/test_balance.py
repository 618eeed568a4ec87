"""Load balancing and Easy Days: the day chosen inside a review's fuzz range."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from recall.core.memory import NEW_CARD, CardState, Rating
from recall.core.presets import Preset
from recall.scheduling import Scheduler
from recall.scheduling import chosen as chosen_schedule
from recall.scheduling.balance import DayLoad, balanced_review, choose
from recall.scheduling.load_simulation import simulate_days

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

    def loads(windows: Sequence[tuple[datetime, datetime]]) -> list[int]:
        # Every day of the range but the last has 500 reviews due.
        return [500] * (len(windows) - 1) + [0]

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
    assert on.daily_spread < 0.8 * off.daily_spread
    assert on.total < 1.05 * off.total


def test_over_simulated_days_a_minimum_weekday_carries_fewer_reviews() -> None:
    sunday = simulate_days(Preset(easy_sunday="minimum"), 500, 120, 10)
    assert sunday.weekday_average(6) < 0.7 * sunday.others_average(6)
