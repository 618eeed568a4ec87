"""Grading policy: from an answer's correctness and speed to an FSRS rating."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import median

from recall.core.memory import Rating


def typical_duration(durations_ms: Sequence[int], minimum_samples: int) -> float | None:
    """The deck's typical time for a right answer: the median of recent ones.

    Args:
        durations_ms: Times of recent right answers in the deck, in milliseconds.
        minimum_samples: How many are needed before the median means anything.

    Returns:
        The median in milliseconds, or None when there are too few answers to judge.
    """
    if len(durations_ms) < max(1, minimum_samples):
        return None
    return float(median(durations_ms))


def propose_rating(
    correct: bool,
    duration_ms: int,
    typical_ms: float | None,
    slow_factor: float = 2.0,
    fast_factor: float = 0.5,
) -> Rating:
    """The rating Recall proposes for an answer.

    A wrong answer is Again. A right answer is Good, unless the deck has a typical answer
    time and this one took at least ``slow_factor`` times as long (Hard: it was a struggle)
    or at most ``fast_factor`` times as long (Easy: it was instant).

    Args:
        correct: Whether the answer was right.
        duration_ms: How long the learner took, from seeing the card to answering.
        typical_ms: The deck's typical right-answer time, or None if not known yet.
        slow_factor: The multiple of the typical time from which a right answer is Hard.
        fast_factor: The fraction of the typical time up to which a right answer is Easy.

    Returns:
        The proposed rating; the learner may choose another.
    """
    if not correct:
        return Rating.AGAIN
    if typical_ms is None:
        return Rating.GOOD
    if duration_ms >= slow_factor * typical_ms:
        return Rating.HARD
    if duration_ms <= fast_factor * typical_ms:
        return Rating.EASY
    return Rating.GOOD


def is_correct(picked: Iterable[int], correct: Iterable[int]) -> bool:
    """Whether a set of picked options is exactly the set of right ones.

    For "select all that apply" cards a partly right answer counts as wrong: the card
    comes back soon, which is what a learner who missed an option needs.
    """
    return frozenset(picked) == frozenset(correct)


def propose_typed_rating(
    correct: bool,
    one_slip: bool,
    duration_ms: int,
    typical_ms: float | None,
    slow_factor: float = 2.0,
    fast_factor: float = 0.5,
) -> Rating:
    """The rating Recall proposes for a typed answer.

    Right is graded as a right choice is (Good, or Hard or Easy by time); one slip from
    right (a character added, dropped, changed, or two swapped) is Hard; anything else is
    Again. The learner may choose another.
    """
    if not correct and one_slip:
        return Rating.HARD
    return propose_rating(correct, duration_ms, typical_ms, slow_factor, fast_factor)


def with_choices_shown(proposed: Rating) -> Rating:
    """The proposal for a card asked as type-in that was answered from its choices after all.

    Asking for the choices is asking for help, as a hint is: the learner could not recall
    the answer, only recognise it. A right choice then proposes at most Hard, so the card
    grows more slowly and stays a type-in card; a wrong one stays Again.
    """
    return min(proposed, Rating.HARD)
