"""The exam cap: an answer due on or after the exam is moved to the last days before it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from recall.core.days import StudyDays
from recall.core.memory import CardState, MemoryState
from recall.scheduling import exam
from recall.storage import DeckRow

DAYS = StudyDays(hour=4, zone="Europe/Berlin")
NOW = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)  # 10:00 in Berlin, study day of 15 January
EXAM = date(2026, 2, 1)


def review_due(due: datetime) -> MemoryState:
    return MemoryState(CardState.REVIEW, None, 30.0, 5.0, due, NOW)


def test_a_due_date_past_the_exam_moves_to_one_of_the_last_three_days_before_it() -> None:
    landed = set()
    for seed in range(30):
        due = exam.capped_due(review_due(NOW + timedelta(days=40)), seed, EXAM, DAYS, NOW)
        assert due is not None
        local = due.astimezone(ZoneInfo("Europe/Berlin"))
        assert (local.hour, local.minute) == (4, 0)  # the start of that study day
        landed.add(local.date())
    assert landed == {date(2026, 1, 29), date(2026, 1, 30), date(2026, 1, 31)}


def test_a_due_date_on_the_exam_day_is_capped_and_one_before_it_is_kept() -> None:
    on_the_day = exam.day_start(exam.day_number(EXAM), DAYS) + timedelta(hours=3)
    assert exam.capped_due(review_due(on_the_day), 0, EXAM, DAYS, NOW) is not None
    eve = exam.day_start(exam.day_number(EXAM) - 1, DAYS) + timedelta(hours=3)
    assert exam.capped_due(review_due(eve), 0, EXAM, DAYS, NOW) is None


def test_the_cap_is_never_earlier_than_the_next_study_day() -> None:
    soon = date(2026, 1, 17)  # two days ahead: the last days before it include today
    for seed in range(6):
        due = exam.capped_due(review_due(NOW + timedelta(days=20)), seed, soon, DAYS, NOW)
        assert due is not None
        assert DAYS.day_of(due) == DAYS.day_of(NOW) + 1
    tomorrow = date(2026, 1, 16)  # the next study day is the exam's: seen that morning
    due = exam.capped_due(review_due(NOW + timedelta(days=20)), 0, tomorrow, DAYS, NOW)
    assert due is not None
    assert DAYS.day_of(due) == exam.day_number(tomorrow)


def test_nothing_is_capped_once_the_exam_day_has_come_nor_without_an_exam_or_in_learning() -> None:
    far = review_due(NOW + timedelta(days=40))
    assert exam.capped_due(far, 0, date(2026, 1, 15), DAYS, NOW) is None
    assert exam.capped_due(far, 0, date(2026, 1, 10), DAYS, NOW) is None
    assert exam.capped_due(far, 0, None, DAYS, NOW) is None
    learning = MemoryState(CardState.LEARNING, 1, 3.0, 5.0, NOW + timedelta(days=40), NOW)
    assert exam.capped_due(learning, 0, EXAM, DAYS, NOW) is None
    assert exam.with_cap(far, 0, None, DAYS, NOW) == far


def test_a_subdeck_takes_the_exam_day_of_the_deck_it_is_inside_unless_it_has_its_own() -> None:
    decks = [
        DeckRow(1, "bio", "Biology", ""),
        DeckRow(2, "cells", "Biology::Cells", ""),
        DeckRow(3, "genes", "Biology::Genes", ""),
        DeckRow(4, "art", "Art", ""),
    ]
    own = {1: EXAM, 3: date(2026, 3, 1)}
    assert exam.exam_dates_in_tree(decks, own) == {1: EXAM, 2: EXAM, 3: date(2026, 3, 1)}
