"""FSRS scheduling: golden intervals, replay equals live reviews, fuzz that replays exactly."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import fsrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.core.memory import NEW_CARD, CardState, Rating
from recall.scheduling import PastReview, Scheduler, fuzz_draw

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)

# FSRS-6 default parameters, retention 0.9, steps 1m/10m, relearning 10m, no fuzz.
GOLDEN = [
    (Rating.GOOD, timedelta(minutes=10), CardState.LEARNING),
    (Rating.GOOD, timedelta(days=2), CardState.REVIEW),
    (Rating.GOOD, timedelta(days=11), CardState.REVIEW),
    (Rating.GOOD, timedelta(days=46), CardState.REVIEW),
    (Rating.AGAIN, timedelta(minutes=10), CardState.RELEARNING),
    (Rating.GOOD, timedelta(days=3), CardState.REVIEW),
    (Rating.GOOD, timedelta(days=8), CardState.REVIEW),
    (Rating.EASY, timedelta(days=28), CardState.REVIEW),
    (Rating.HARD, timedelta(days=52), CardState.REVIEW),
]


def test_golden_interval_sequence(scheduler: Scheduler) -> None:
    memory, now = NEW_CARD, START
    for rating, interval, state in GOLDEN:
        memory = scheduler.review(1, memory, rating, now)
        assert memory.due is not None
        assert (memory.due - now, memory.state) == (interval, state)
        now = memory.due


def test_matches_fsrs_itself_when_fuzz_is_off(scheduler: Scheduler) -> None:
    reference = fsrs.Scheduler(enable_fuzzing=False)
    card = fsrs.Card(card_id=1, due=START)
    memory, now = NEW_CARD, START
    for rating, _interval, _state in GOLDEN:
        card, _ = reference.review_card(card, fsrs.Rating(int(rating)), now)
        memory = scheduler.review(1, memory, rating, now)
        assert (memory.stability, memory.difficulty, memory.due) == (
            card.stability,
            card.difficulty,
            card.due,
        )
        now = card.due


def test_first_answer_previews_anki_like_intervals(scheduler: Scheduler) -> None:
    preview = scheduler.preview(1, NEW_CARD, START)
    assert preview[Rating.AGAIN] == timedelta(minutes=1)
    assert preview[Rating.GOOD] == timedelta(minutes=10)
    assert preview[Rating.AGAIN] < preview[Rating.HARD] < preview[Rating.GOOD]
    assert preview[Rating.EASY] >= timedelta(days=1)


def test_naive_times_are_refused(scheduler: Scheduler) -> None:
    with pytest.raises(ValueError, match="aware UTC"):
        scheduler.review(1, NEW_CARD, Rating.GOOD, datetime(2026, 1, 1, 9))


def test_fuzz_spreads_intervals_between_cards_but_replays_exactly() -> None:
    fuzzed = Scheduler(fuzz=True)
    history = [
        PastReview(START, Rating.GOOD),
        PastReview(START + timedelta(minutes=10), Rating.GOOD),
        PastReview(START + timedelta(days=3), Rating.GOOD),
        PastReview(START + timedelta(days=14), Rating.GOOD),
    ]
    dues = {fuzzed.replay(card_id, history).due for card_id in range(40)}
    assert len(dues) > 1, "fuzz should give different cards different due dates"
    for card_id in range(5):
        assert fuzzed.replay(card_id, history) == fuzzed.replay(card_id, history)


def test_fuzzed_interval_stays_near_the_plain_one() -> None:
    plain = Scheduler(fuzz=False)
    fuzzed = Scheduler(fuzz=True)
    history = [PastReview(START, Rating.EASY), PastReview(START + timedelta(days=8), Rating.GOOD)]
    base = plain.replay(7, history)
    assert base.due is not None
    for card_id in range(30):
        spread = fuzzed.replay(card_id, history)
        assert spread.due is not None
        assert abs(spread.due - base.due) <= 0.2 * (base.due - history[-1].reviewed_at)
        assert spread.stability == base.stability


ratings = st.sampled_from(list(Rating))
gaps = st.timedeltas(min_value=timedelta(seconds=1), max_value=timedelta(days=400))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ratings, gaps), min_size=1, max_size=12), st.booleans())
def test_replay_equals_reviewing_one_by_one(
    steps: list[tuple[Rating, timedelta]], fuzz: bool
) -> None:
    scheduler = Scheduler(fuzz=fuzz)
    memory, now, history = NEW_CARD, START, []
    for rating, gap in steps:
        memory = scheduler.review(3, memory, rating, now)
        history.append(PastReview(now, rating))
        now += gap
    assert scheduler.replay(3, history) == memory
    assert scheduler.replay_with_states(3, history) == (
        scheduler.states_before(3, history),
        memory,
    )


@given(
    card_id=st.integers(min_value=1, max_value=10**12),
    micros=st.integers(min_value=0, max_value=10**17),
    shortest=st.integers(min_value=2, max_value=36_500),
    width=st.integers(min_value=0, max_value=5_000),
)
def test_fuzz_draw_equals_pythons_own_generator(
    card_id: int, micros: int, shortest: int, width: int
) -> None:
    seed = f"{card_id}:{micros}"
    longest = shortest + width
    assert fuzz_draw(seed, shortest, longest) == random.Random(seed).randint(shortest, longest)
