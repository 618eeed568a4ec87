"""The one wording of counts, time spent, shares and days."""

from __future__ import annotations

from datetime import date

import pytest

from recall.core.wording import count, duration, long_day, percent, short_day, word

SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, "0 cards"),
        (1, "1 card"),
        (2, "2 cards"),
        (1204, "1,204 cards"),
        (1_000_000, "1,000,000 cards"),
        (0.6, "1 card"),  # a float count is rounded before the noun agrees with it
        (1.5, "2 cards"),
    ],
)
def test_a_count_agrees_with_its_noun(n: float, expected: str) -> None:
    assert count(n, "card") == expected


def test_an_irregular_plural_is_given() -> None:
    assert count(1, "child", "children") == "1 child"
    assert count(3, "child", "children") == "3 children"
    assert count(0, "image or sound", "images and sounds") == "0 images and sounds"


def test_a_verb_agrees_with_the_count() -> None:
    assert [word(n, "is", "are") for n in (0, 1, 2)] == ["are", "is", "are"]
    assert word(1, "review") == "review"
    assert word(5, "review") == "reviews"


@pytest.mark.parametrize(
    ("milliseconds", "expected"),
    [
        (0, "0 s"),
        (499, "0 s"),
        (500, "1 s"),
        (45 * SECOND, "45 s"),
        (59 * SECOND, "59 s"),
        (59 * SECOND + 500, "1 min"),  # rounds up into the next range
        (60 * SECOND, "1 min"),
        (61 * SECOND, "1 min 1 s"),
        (3 * MINUTE + 20 * SECOND, "3 min 20 s"),
        (59 * MINUTE + 59 * SECOND, "59 min 59 s"),
        (HOUR, "1 h"),
        (HOUR + 5 * MINUTE, "1 h 5 min"),
        (3 * HOUR + 5 * MINUTE + 29 * SECOND, "3 h 5 min"),
        (3 * HOUR + 5 * MINUTE + 30 * SECOND, "3 h 6 min"),
        (23 * HOUR + 59 * MINUTE, "23 h 59 min"),
        (23 * HOUR + 59 * MINUTE + 30 * SECOND, "1 d"),
        (DAY, "1 d"),
        (2 * DAY + 3 * HOUR, "2 d 3 h"),
        (2 * DAY + 3 * HOUR + 29 * MINUTE, "2 d 3 h"),
        (1000 * DAY, "1,000 d"),
    ],
)
def test_time_spent_has_one_style_per_range(milliseconds: float, expected: str) -> None:
    assert duration(milliseconds) == expected


def test_absurd_time_spent_is_bounded() -> None:
    assert duration(1000 * DAY + 1) == "over 1,000 d"
    assert duration(5124095576030 * HOUR) == "over 1,000 d"
    assert duration(float("inf")) == "over 1,000 d"
    assert duration(-5 * SECOND) == "0 s"  # a clock set back
    assert duration(float("-inf")) == "0 s"
    assert duration(float("nan")) == "-"


@pytest.mark.parametrize(
    ("share", "expected"),
    [
        (None, "-"),
        (0.0, "0%"),
        (1.0, "100%"),
        (0.375, "38%"),
        (0.125, "13%"),  # halves go up, not to the even neighbour
        (0.124, "12%"),
        (2 / 3, "67%"),
        (0.004, "0%"),
    ],
)
def test_a_share_is_a_whole_percentage(share: float | None, expected: str) -> None:
    assert percent(share) == expected


def test_days_are_named_without_leading_zeros() -> None:
    assert short_day(date(2026, 3, 5)) == "5 Mar"
    assert short_day(date(2026, 11, 12)) == "12 Nov"
    assert long_day(date(2026, 3, 5)) == "5 March 2026"
