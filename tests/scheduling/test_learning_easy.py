"""A learning or relearning card's Easy is always longer than its Good, as in Anki."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from recall.core.memory import NEW_CARD, CardState, Rating
from recall.core.presets import Preset
from recall.scheduling import PastReview, Scheduler
from recall.scheduling.parameters import DEFAULT_PARAMETERS
from tests.scheduling.test_replay import _history, _same, entries, presets

START = datetime(2025, 3, 1, 7, 30, tzinfo=UTC)
_DAY = timedelta(days=1)


def test_easy_graduates_a_day_after_good_when_fsrs_gives_both_the_same() -> None:
    # Good and Easy of equal first stability: py-fsrs gives both 3 days.
    same = list(DEFAULT_PARAMETERS)
    same[2] = same[3] = 3.0
    scheduler = Scheduler(Preset(parameters=tuple(same), learning_steps=()), fuzz=False)
    intervals = scheduler.preview(7, NEW_CARD, START)
    assert intervals[Rating.GOOD] == timedelta(days=3)
    assert intervals[Rating.EASY] == timedelta(days=4)
    history = [PastReview(START, Rating.EASY)]
    assert scheduler.replay(7, history).due == START + timedelta(days=4)
    assert _same(scheduler.replay(7, history), scheduler.replay_by_steps(7, history))


@settings(max_examples=120, deadline=None)
@given(
    preset=presets,
    card_id=st.integers(min_value=1, max_value=10**9),
    steps=st.lists(entries, min_size=0, max_size=8),
    gap=st.timedeltas(min_value=timedelta(seconds=1), max_value=timedelta(days=60)),
)
def test_a_learning_cards_easy_is_longer_than_its_good_for_every_preset(
    preset: Preset,
    card_id: int,
    steps: list[tuple[Rating | object, timedelta]],
    gap: timedelta,
) -> None:
    scheduler = Scheduler(preset, fuzz=False)
    history = _history(steps)
    memory = scheduler.replay(card_id, history)
    now = (history[-1].reviewed_at if history else START) + gap
    if memory.state is CardState.REVIEW:
        return
    intervals = scheduler.preview(card_id, memory, now)
    good, easy = intervals[Rating.GOOD], intervals[Rating.EASY]
    if good >= _DAY and good.days < preset.maximum_interval:
        assert easy.days > good.days
    # The fast replay applies the same rule.
    after = [*history, PastReview(now, Rating.EASY)]
    assert _same(scheduler.replay(card_id, after), scheduler.replay_by_steps(card_id, after))
