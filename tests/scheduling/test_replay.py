"""The fast replay equals py-fsrs's review step to the bit, over random presets and histories."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import fsrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.core.days import StudyDays
from recall.core.memory import NEW_CARD, CardState, MemoryState, Rating, ReviewKind
from recall.core.presets import Preset
from recall.scheduling import PastReview, Scheduler
from recall.scheduling.replay import NEW, Replayer

START = datetime(2025, 3, 1, 7, 30, tzinfo=UTC)
_LOWER = fsrs.scheduler.LOWER_BOUNDS_PARAMETERS
_UPPER = fsrs.scheduler.UPPER_BOUNDS_PARAMETERS

parameters = st.one_of(
    st.just(()),
    st.tuples(
        *(
            st.floats(min_value=low, max_value=high, allow_nan=False)
            for low, high in zip(_LOWER, _UPPER, strict=True)
        )
    ),
)
steps = st.lists(
    st.timedeltas(min_value=timedelta(seconds=1), max_value=timedelta(days=2)), max_size=3
).map(tuple)
presets = st.builds(
    Preset,
    parameters=parameters,
    desired_retention=st.floats(min_value=0.7, max_value=0.99),
    learning_steps=steps,
    relearning_steps=steps,
    maximum_interval=st.integers(min_value=1, max_value=36_500),
)
# Gaps from a second to over a year: same-day (short-term) reviews and long ones both.
gaps = st.one_of(
    st.timedeltas(min_value=timedelta(seconds=1), max_value=timedelta(hours=30)),
    st.timedeltas(min_value=timedelta(days=1), max_value=timedelta(days=500)),
)
# Study days in zones with daylight saving, half-hour offsets and a half-hour change.
study_days = st.builds(
    StudyDays,
    hour=st.integers(min_value=0, max_value=23),
    zone=st.sampled_from(["UTC", "Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe"]),
)
entries = st.one_of(
    st.tuples(st.sampled_from(list(Rating)), gaps),
    # An answer whose due date scheduling chose (load balancing, Easy Days, an exam date).
    st.tuples(st.sampled_from(list(Rating)), gaps, st.just(True)),
    st.tuples(st.just(ReviewKind.FORGET), gaps),
    st.tuples(st.just(ReviewKind.SET_DUE), gaps),
    st.tuples(st.just(ReviewKind.MEMORY), gaps),
)


def _history(steps: Sequence[tuple[Any, ...]]) -> list[PastReview]:
    history, now = [], START
    for what, gap, *chosen in steps:
        if isinstance(what, Rating) and chosen:
            due = now + gap * 2 + timedelta(days=1)
            history.append(PastReview(now, what, ReviewKind.ANSWER, due))
        elif isinstance(what, Rating):
            history.append(PastReview(now, what))
        elif what is ReviewKind.FORGET:
            history.append(PastReview(now, None, ReviewKind.FORGET))
        elif what is ReviewKind.SET_DUE:
            history.append(PastReview(now, None, ReviewKind.SET_DUE, now + gap * 3))
        else:  # a memory state kept from another app, within FSRS's bounds
            days = gap / timedelta(days=1)
            memory = (0.001 + days * 7.3, 1 + (days * 3.7) % 9)
            history.append(PastReview(now, None, ReviewKind.MEMORY, now + gap * 3, *memory))
        now += gap
    return history


def _same(left: MemoryState, right: MemoryState) -> bool:
    """Equal to the bit: floats compared by their exact value, not within a tolerance."""
    return left == right and all(
        (a is None and b is None) or (a is not None and b is not None and a.hex() == b.hex())
        for a, b in (
            (left.stability, right.stability),
            (left.difficulty, right.difficulty),
        )
    )


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    preset=presets,
    card_id=st.integers(min_value=1, max_value=10**9),
    steps=st.lists(entries, min_size=0, max_size=25),
    fuzz=st.booleans(),
    days=study_days,
)
def test_replay_equals_py_fsrs_step_by_step(
    preset: Preset,
    card_id: int,
    steps: list[tuple[Any, ...]],
    fuzz: bool,
    days: StudyDays,
) -> None:
    scheduler = Scheduler(preset, fuzz=fuzz, days=days)
    history = _history(steps)
    fast = scheduler.replay(card_id, history)
    assert _same(fast, scheduler.replay_by_steps(card_id, history))
    memory = NEW_CARD
    for past in history:
        memory = scheduler.apply(card_id, memory, past)
    assert _same(fast, memory)
    states, replayed = scheduler.replay_with_states(card_id, history)
    assert states == scheduler.states_before(card_id, history)
    assert _same(replayed, fast)


@settings(max_examples=200, deadline=None)
@given(
    card_id=st.integers(min_value=1, max_value=10**9),
    steps=st.lists(st.tuples(st.sampled_from(list(Rating)), gaps), min_size=1, max_size=40),
)
def test_long_default_histories_equal_py_fsrs(
    card_id: int, steps: list[tuple[Rating, timedelta]]
) -> None:
    scheduler = Scheduler()
    history = _history(list(steps))
    assert _same(scheduler.replay(card_id, history), scheduler.replay_by_steps(card_id, history))


def test_the_raw_replay_is_the_stored_columns() -> None:
    scheduler = Scheduler()
    micros = (START - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    day = 86_400_000_000
    raw = scheduler.replay_raw(
        5, [(5, micros, 3, 0, None, None, None), (5, micros + day, 3, 0, None, None, None)]
    )
    memory = scheduler.replay(
        5, [PastReview(START, Rating.GOOD), PastReview(START + timedelta(days=1), Rating.GOOD)]
    )
    assert memory.due is not None
    assert memory.last_review is not None
    assert raw == (
        int(memory.state),
        memory.step,
        memory.stability,
        memory.difficulty,
        micros + (memory.due - START) // timedelta(microseconds=1),
        micros + day,
    )
    assert memory.state is CardState.LEARNING or raw[1] is None


def test_an_empty_history_or_a_forget_last_is_a_new_card() -> None:
    replayer = Replayer(fsrs.scheduler.DEFAULT_PARAMETERS, 0.9, (), (), 36_500, fuzz=True)
    assert replayer.replay(1, []) == NEW
    assert (
        replayer.replay(
            1, [(1, 10**15, 3, 0, None, None, None), (1, 10**15 + 1, 0, 1, None, None, None)]
        )
        == NEW
    )


def test_an_unknown_history_kind_is_refused() -> None:
    replayer = Replayer(fsrs.scheduler.DEFAULT_PARAMETERS, 0.9, (), (), 36_500, fuzz=True)
    with pytest.raises(ValueError, match="kind 7"):
        replayer.replay(1, [(1, 10**15, 0, 7, None, None, None)])


def test_the_fuzz_seed_is_the_review_times_timestamp() -> None:
    for micros in (0, 1, 999_999, 1_764_000_000_123_457, 4_102_444_800_000_001):
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)
        assert round(moment.timestamp() * 1_000_000) == round(micros / 10**6 * 1_000_000)


@pytest.mark.parametrize("answered", [True, False], ids=["after-answers", "never-answered"])
def test_a_memory_entry_sets_its_memory_and_keeps_the_last_answer(answered: bool) -> None:
    scheduler = Scheduler(fuzz=True)
    answers = [PastReview(START, Rating.GOOD), PastReview(START + timedelta(days=2), Rating.HARD)]
    kept_at = START + timedelta(days=3)
    due = START + timedelta(days=20, hours=5)
    entry = PastReview(kept_at, None, ReviewKind.MEMORY, due, 17.25, 3.5)
    history = [*answers, entry] if answered else [entry]
    memory = scheduler.replay(5, history)
    last = answers[-1].reviewed_at if answered else kept_at
    assert memory == MemoryState(CardState.REVIEW, None, 17.25, 3.5, due, last)
    assert scheduler.replay_by_steps(5, history) == memory
    # The next answer counts its elapsed days from the last answer, in both replays.
    then = [*history, PastReview(due, Rating.GOOD)]
    assert scheduler.replay(5, then) == scheduler.replay_by_steps(5, then)
    assert (
        scheduler.replay(5, then).stability != scheduler.replay(5, [*answers, then[-1]]).stability
    )


def test_a_memory_entry_without_its_memory_state_is_refused() -> None:
    replayer = Replayer(fsrs.scheduler.DEFAULT_PARAMETERS, 0.9, (), (), 36_500, fuzz=True)
    with pytest.raises(ValueError, match="memory entry"):
        replayer.replay(1, [(1, 10**15, 0, 4, 10**15 + 10**11, None, None)])


def test_an_answers_chosen_due_date_replaces_the_fuzz_draw_only_in_review() -> None:
    scheduler = Scheduler()
    graduated = [PastReview(START, Rating.GOOD), PastReview(START + timedelta(days=1), Rating.GOOD)]
    drawn = scheduler.replay(7, graduated)
    assert drawn.state is CardState.REVIEW
    assert drawn.due is not None
    chosen = drawn.due + timedelta(days=1)
    kept = [graduated[0], graduated[1]._replace(set_due=chosen)]
    replayed = scheduler.replay(7, kept)
    assert replayed.due == chosen
    assert replayed.stability == drawn.stability
    assert replayed.difficulty == drawn.difficulty
    assert scheduler.replay_by_steps(7, kept) == replayed
    # An answer that leaves the card learning has no chosen day: its step stands.
    learning = [PastReview(START, Rating.AGAIN, ReviewKind.ANSWER, START + timedelta(days=9))]
    assert scheduler.replay(7, learning) == scheduler.replay(7, [PastReview(START, Rating.AGAIN)])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    preset=presets,
    card_id=st.integers(min_value=1, max_value=10**9),
    steps=st.lists(entries, min_size=0, max_size=20),
    rating=st.sampled_from(list(Rating)),
    gap=gaps,
    fuzz=st.booleans(),
    days=study_days,
)
def test_one_answer_on_integers_equals_py_fsrs_review_card(
    preset: Preset,
    card_id: int,
    steps: list[tuple[Any, ...]],
    rating: Rating,
    gap: timedelta,
    fuzz: bool,
    days: StudyDays,
) -> None:
    """An answer from any schedule a history leads to (learning, review, relearning, kept
    from another app, due dates set by hand, forgotten): the same schedule and fuzz range,
    to the bit, as py-fsrs's ``review_card`` gives, before and after each entry."""
    scheduler = Scheduler(preset, fuzz=fuzz, days=days)
    history = _history(steps)
    memory = NEW_CARD
    moments = [past.reviewed_at for past in history[1:]]
    moments.append((history[-1].reviewed_at if history else START) + gap)
    for past, moment in zip([None, *history], [START, *moments], strict=False):
        if past is not None:
            memory = scheduler.apply(card_id, memory, past)
        for answered_at in (moment, moment + gap / 3):
            fast = scheduler.review(card_id, memory, rating, answered_at)
            assert _same(fast, scheduler.review_by_steps(card_id, memory, rating, answered_at))
            ranged, bounds = scheduler.review_in_range(card_id, memory, rating, answered_at)
            slow, slow_bounds = scheduler.review_in_range_by_steps(
                card_id, memory, rating, answered_at
            )
            assert _same(ranged, slow)
            assert bounds == slow_bounds


def test_one_replayer_over_many_cards_draws_as_a_fresh_one_per_card() -> None:
    # A replayer keeps each interval's fuzz range once worked out: many cards, and the
    # same card again later, must draw exactly as a replayer that never saw another card.
    def replayer() -> Replayer:
        return Replayer(fsrs.scheduler.DEFAULT_PARAMETERS, 0.9, (), (), 200, fuzz=True)

    day = 86_400_000_000
    start = 1_740_000_000_000_000
    histories = [
        [(1, start, 3, 0, None, None, None), (1, start + gap * day, rating, 0, None, None, None)]
        for gap in (1, 3, 8, 30, 90, 400)
        for rating in (2, 3, 4)
    ]
    shared = replayer()
    cards = [(seed, history) for seed in (1, 77, 2**40) for history in histories]
    drawn = [shared.replay(seed, history) for seed, history in cards + cards[::-1]]
    fresh = [replayer().replay(seed, history) for seed, history in cards + cards[::-1]]
    assert drawn == fresh
    # The intervals span every fuzz range, and the maximum interval caps some of them.
    assert len({memory[4] for memory in drawn}) > len(histories)
