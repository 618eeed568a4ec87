"""Grading policy: correctness and speed to a rating."""

from __future__ import annotations

import pytest

from recall.core.grading import is_correct, propose_rating, typical_duration
from recall.core.memory import Rating


def test_wrong_is_again_however_fast() -> None:
    assert propose_rating(False, 100, typical_ms=10_000) is Rating.AGAIN
    assert propose_rating(False, 100_000, typical_ms=None) is Rating.AGAIN


def test_right_without_timing_history_is_good() -> None:
    assert propose_rating(True, 60_000, typical_ms=None) is Rating.GOOD


@pytest.mark.parametrize(
    ("duration_ms", "expected"),
    [
        (20_000, Rating.HARD),  # twice the typical time: a struggle
        (19_999, Rating.GOOD),
        (10_000, Rating.GOOD),
        (5_001, Rating.GOOD),
        (5_000, Rating.EASY),  # half the typical time: instant
        (800, Rating.EASY),
    ],
)
def test_right_answer_rating_follows_speed(duration_ms: int, expected: Rating) -> None:
    assert propose_rating(True, duration_ms, typical_ms=10_000) is expected


def test_typical_duration_needs_enough_answers() -> None:
    assert typical_duration([4000, 5000, 6000, 7000], minimum_samples=5) is None
    assert typical_duration([4000, 5000, 6000, 7000, 90_000], minimum_samples=5) == 6000


def test_select_all_needs_exactly_the_right_set() -> None:
    assert is_correct({0, 2}, {2, 0})
    assert not is_correct({0}, {0, 2})
    assert not is_correct({0, 1, 2}, {0, 2})
