"""Which follow-ups a card's history makes: two wrong picks start one, one is asked at a
time, three answers without the option across three weeks retire it, a pick brings it back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from recall.core.memory import NEW_CARD, CardState, Rating, ReviewKind
from recall.scheduling import PastReview, Scheduler
from recall.scheduling.follow_ups import PickEntry, Standing, follow_ups

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WRONG = {"Lyon", "Marseille"}
SEED = 12345


def _at(days: float) -> int:
    return int((START + timedelta(days=days)).timestamp() * 1_000_000)


def _answer(days: float, picked: str, kind: ReviewKind = ReviewKind.ANSWER) -> PickEntry:
    right = picked == "Paris"
    rating = Rating.GOOD if right else Rating.AGAIN
    return (_at(days), int(kind), int(rating), (picked,), right)


def test_one_wrong_pick_makes_no_follow_up_and_a_second_makes_one_due_as_fsrs_says(
    scheduler: Scheduler,
) -> None:
    history = [_answer(0, "Lyon"), _answer(1, "Paris")]
    assert follow_ups(history, WRONG, scheduler, SEED) == []
    history.append(_answer(2, "Lyon"))
    (made,) = follow_ups(history, WRONG, scheduler, SEED)
    assert made.option == "Lyon"
    assert made.standing is Standing.ACTIVE
    assert made.picks == 2
    assert made.persisting
    # Its first answer is the pick that made it, rated Again: FSRS's first learning step.
    expected = scheduler.review(SEED, NEW_CARD, Rating.AGAIN, START + timedelta(days=2))
    assert made.memory == expected
    assert made.memory.state is CardState.LEARNING


def test_picks_of_an_option_the_card_marks_right_make_no_follow_up(scheduler: Scheduler) -> None:
    history = [_answer(0, "Lyon"), _answer(1, "Lyon")]
    assert follow_ups(history, {"Marseille"}, scheduler, SEED) == []


def test_a_card_asks_one_follow_up_at_a_time_the_most_picked_first(scheduler: Scheduler) -> None:
    history = [_answer(day, "Marseille") for day in (0, 1, 2)] + [
        _answer(3, "Lyon"),
        _answer(4, "Lyon"),
    ]
    found = follow_ups(history, WRONG, scheduler, SEED)
    assert [(item.option, item.standing) for item in found] == [
        ("Marseille", Standing.ACTIVE),
        ("Lyon", Standing.WAITING),
    ]


def _faded_history() -> list[PickEntry]:
    """Lyon picked twice, then follow-up answers without it on days 3, 5 and 30."""
    return [
        _answer(0, "Lyon"),
        _answer(1, "Lyon"),
        _answer(3, "Paris", ReviewKind.FOLLOW_UP),
        _answer(5, "Paris", ReviewKind.FOLLOW_UP),
        _answer(30, "Paris", ReviewKind.FOLLOW_UP),
    ]


def test_three_follow_up_answers_without_the_option_across_three_weeks_retire_it(
    scheduler: Scheduler,
) -> None:
    history = _faded_history()
    # Three answers without it, but the last two only 20 days apart: not yet.
    early = [*history[:4], _answer(25, "Paris", ReviewKind.FOLLOW_UP)]
    (still,) = follow_ups(early, WRONG, scheduler, SEED)
    assert still.standing is Standing.ACTIVE
    assert not still.persisting
    assert still.answers == 3
    (faded,) = follow_ups(history, WRONG, scheduler, SEED)
    assert faded.standing is Standing.FADED
    assert not faded.persisting


def test_a_follow_up_answer_picking_the_option_starts_the_count_again(
    scheduler: Scheduler,
) -> None:
    history = _faded_history()
    history.insert(3, _answer(4, "Lyon", ReviewKind.FOLLOW_UP))
    (kept,) = follow_ups(history, WRONG, scheduler, SEED)
    assert kept.standing is Standing.ACTIVE  # only two answers without it since
    assert kept.picks == 3


def test_a_faded_option_picked_again_comes_back_with_a_fresh_schedule(
    scheduler: Scheduler,
) -> None:
    history = [*_faded_history(), _answer(60, "Lyon")]
    (back,) = follow_ups(history, WRONG, scheduler, SEED)
    assert back.standing is Standing.ACTIVE
    assert back.answers == 0
    assert back.picks == 3
    assert back.memory == scheduler.review(SEED, NEW_CARD, Rating.AGAIN, START + timedelta(days=60))


def test_the_next_waiting_follow_up_is_asked_once_the_first_fades(scheduler: Scheduler) -> None:
    history = [
        _answer(0, "Marseille"),
        _answer(0.5, "Lyon"),
        _answer(1, "Marseille"),
        _answer(1.5, "Lyon"),
        _answer(3, "Paris", ReviewKind.FOLLOW_UP),
        _answer(5, "Paris", ReviewKind.FOLLOW_UP),
    ]
    first = follow_ups(history, WRONG, scheduler, SEED)
    # Marseille's second pick came first: it is asked, and the answers are its own.
    assert [(item.option, item.standing, item.answers) for item in first] == [
        ("Marseille", Standing.ACTIVE, 2),
        ("Lyon", Standing.WAITING, 0),
    ]
    history.append(_answer(30, "Paris", ReviewKind.FOLLOW_UP))
    after = follow_ups(history, WRONG, scheduler, SEED)
    assert [(item.option, item.standing) for item in after] == [
        ("Lyon", Standing.ACTIVE),
        ("Marseille", Standing.FADED),
    ]


def test_a_cards_replay_passes_over_its_follow_up_answers(scheduler: Scheduler) -> None:
    answers = [
        PastReview(START, Rating.AGAIN),
        PastReview(START + timedelta(minutes=1), Rating.GOOD),
        PastReview(START + timedelta(minutes=12), Rating.GOOD),
    ]
    follow_up = PastReview(START + timedelta(days=1), Rating.AGAIN, ReviewKind.FOLLOW_UP)
    plain = scheduler.replay(SEED, answers)
    assert scheduler.replay(SEED, [*answers, follow_up]) == plain
    assert scheduler.replay_by_steps(SEED, [*answers, follow_up]) == plain
    assert plain.state is CardState.REVIEW
