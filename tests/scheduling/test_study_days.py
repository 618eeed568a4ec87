"""Elapsed time is counted in study days, as Anki counts it: the formulas stay py-fsrs's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import fsrs
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.core.days import StudyDays
from recall.core.memory import Rating
from recall.scheduling import PastReview, Scheduler

BERLIN = ZoneInfo("Europe/Berlin")
DAYS = StudyDays(4, "Europe/Berlin")


def _local(year: int, month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=BERLIN).astimezone(UTC)


def test_twenty_hundred_to_nineteen_hundred_the_next_day_is_one_day() -> None:
    first, second = _local(2026, 3, 10, 20), _local(2026, 3, 11, 19)
    assert second - first < timedelta(days=1)
    assert DAYS.elapsed(first, second) == 1


def test_reviews_before_and_after_the_rollover_hour_are_on_two_days() -> None:
    assert DAYS.elapsed(_local(2026, 3, 10, 3, 30), _local(2026, 3, 10, 4, 30)) == 1
    assert DAYS.elapsed(_local(2026, 3, 10, 4, 30), _local(2026, 3, 11, 3, 59)) == 0


def test_study_days_are_consecutive_across_daylight_saving_changes() -> None:
    # Berlin moves its clocks on 2026-03-29 (to summer time) and 2026-10-25 (back).
    for change in (_local(2026, 3, 28, 12), _local(2026, 10, 24, 12)):
        numbers = [DAYS.day_number(_micros(change + timedelta(hours=h))) for h in range(0, 72)]
        assert sorted(numbers) == numbers
        assert set(numbers) == {numbers[0], numbers[0] + 1, numbers[0] + 2, numbers[0] + 3}
    # The rollover stays at 04:00 local time on either side of a change.
    assert DAYS.elapsed(_local(2026, 3, 29, 3, 59), _local(2026, 3, 29, 4, 0)) == 1
    assert DAYS.elapsed(_local(2026, 10, 25, 3, 59), _local(2026, 10, 25, 4, 0)) == 1


def test_the_same_study_day_is_a_short_term_review() -> None:
    scheduler = Scheduler(fuzz=False, days=DAYS)
    evening, late = _local(2026, 3, 10, 20), _local(2026, 3, 11, 3)
    history = [PastReview(evening - timedelta(days=3), Rating.GOOD)]
    history += [PastReview(evening - timedelta(days=2), Rating.GOOD)]
    before = scheduler.replay(1, [*history, PastReview(evening, Rating.GOOD)])
    after = scheduler.replay(
        1, [*history, PastReview(evening, Rating.GOOD), PastReview(late, Rating.GOOD)]
    )
    assert before.stability is not None
    assert after.stability is not None
    # Seven hours apart but on one study day: FSRS's short-term formula, which barely
    # moves a card this stable, where a long-term review would move it well.
    short = fsrs.Scheduler(enable_fuzzing=False)
    card = fsrs.Card(
        state=fsrs.State.Review,
        stability=before.stability,
        difficulty=before.difficulty,
        last_review=late,
        due=late,
    )
    expected, _ = short.review_card(card, fsrs.Rating.Good, late)
    assert after.stability == expected.stability


def test_the_next_study_day_is_a_long_term_review_even_within_24_hours() -> None:
    scheduler = Scheduler(fuzz=False, days=DAYS)
    first, second = _local(2026, 3, 10, 20), _local(2026, 3, 11, 19)
    after = scheduler.replay(1, [PastReview(first, Rating.GOOD), PastReview(second, Rating.GOOD)])
    in_hours = Scheduler(fuzz=False, days=StudyDays(first.astimezone(BERLIN).hour, "Europe/Berlin"))
    same_day = in_hours.replay(1, [PastReview(first, Rating.GOOD), PastReview(second, Rating.GOOD)])
    assert after.stability != same_day.stability
    reference = fsrs.Scheduler(enable_fuzzing=False)
    card, _ = reference.review_card(fsrs.Card(), fsrs.Rating.Good, first)
    card.last_review = second - timedelta(days=1)
    expected, _ = reference.review_card(card, fsrs.Rating.Good, second)
    assert (after.stability, after.difficulty, after.due) == (
        expected.stability,
        expected.difficulty,
        expected.due,
    )


@settings(max_examples=150, deadline=None)
@given(
    hour=st.integers(min_value=0, max_value=23),
    gaps=st.lists(
        st.timedeltas(min_value=timedelta(minutes=1), max_value=timedelta(days=40)),
        min_size=1,
        max_size=12,
    ),
    ratings=st.lists(st.sampled_from(list(Rating)), min_size=13, max_size=13),
)
def test_given_the_same_elapsed_days_the_step_is_py_fsrs_s(
    hour: int, gaps: list[timedelta], ratings: list[Rating]
) -> None:
    days = StudyDays(hour, "Europe/Berlin")
    scheduler = Scheduler(fuzz=False, days=days)
    reference = fsrs.Scheduler(enable_fuzzing=False)
    moment = _local(2026, 1, 5, 21, 17)
    history = [PastReview(moment, ratings[0])]
    card = _reference_step(reference, fsrs.Card(), ratings[0], moment)
    for gap, rating in zip(gaps, ratings[1:], strict=False):
        later = moment + gap
        history.append(PastReview(later, rating))
        assert card.last_review is not None
        card.last_review = later - timedelta(days=days.elapsed(moment, later))
        card = _reference_step(reference, card, rating, later)
        moment = later
    replayed = scheduler.replay(7, history)
    assert (replayed.stability, replayed.difficulty, replayed.due) == (
        card.stability,
        card.difficulty,
        card.due,
    )


def _reference_step(
    reference: fsrs.Scheduler, card: fsrs.Card, rating: Rating, at: datetime
) -> fsrs.Card:
    """py-fsrs's step, with the one rule Recall adds to it: a learning card's Easy waits
    at least a day longer than its Good (as Anki's does)."""
    after, _ = reference.review_card(card, fsrs.Rating(int(rating)), at)
    if rating is Rating.EASY and card.state is not fsrs.State.Review:
        good, _ = reference.review_card(card, fsrs.Rating.Good, at)
        good_days = (good.due - at).days
        if after.state is fsrs.State.Review and (after.due - at).days <= good_days:
            after.due = at + timedelta(days=min(good_days + 1, reference.maximum_interval))
    return after


def _micros(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
