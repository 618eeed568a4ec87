"""The values every layer shares: a card's learning state, a rating, and its memory state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import IntEnum


class CardState(IntEnum):
    """Where a card is in learning; the numbers are the FSRS review-log CSV's ``review_state``."""

    NEW = 0
    LEARNING = 1
    REVIEW = 2
    RELEARNING = 3


class Rating(IntEnum):
    """How well an answer went; the numbers are FSRS's (and Anki's ease) 1-4."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4

    @property
    def label(self) -> str:
        """The rating's name as shown to the learner."""
        return self.name.capitalize()

    @property
    def passed(self) -> bool:
        """Whether the rating counts as remembered: anything but Again.

        A review with no answer to grade (a basic card, an imported history) is right
        exactly when it passed.
        """
        return self is not Rating.AGAIN


@dataclass(frozen=True, slots=True)
class MemoryState:
    """What the scheduler knows about one card; a cache of replaying its review history.

    Attributes:
        state: Where the card is in learning.
        step: The learning or relearning step, or None outside those states.
        stability: FSRS stability in days, None for a new card.
        difficulty: FSRS difficulty (1-10), None for a new card.
        due: When the card is next due (aware UTC), None for a new card.
        last_review: When the card was last reviewed (aware UTC), None for a new card.
    """

    state: CardState = CardState.NEW
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = None
    last_review: datetime | None = None


NEW_CARD = MemoryState()


class ReviewKind(IntEnum):
    """What a history entry records: an answer, or a schedule change made by hand.

    Anki's review log records manual reschedules the same way, so replaying a card's history
    still gives its schedule. A cram answer (Anki's "filtered" review with rescheduling
    off) is kept in the history but changes no schedule: replay passes over it, and the
    counts of answers (limits, statistics, the review log, the optimizer) leave it out.
    A memory entry keeps where another app left the card: a review card due on the date
    given, with the stability and difficulty given (Anki's FSRS memory state), its last
    review left as the answers before it make it. A follow-up answer answers the card again
    as a follow-up on a misconception (``scheduling.follow_ups``): like a cram answer it
    leaves the card's own schedule as it was, and it is what the follow-up's own schedule
    replays.
    """

    ANSWER = 0
    FORGET = 1
    SET_DUE = 2
    CRAM = 3
    MEMORY = 4
    FOLLOW_UP = 5


# The memory states FSRS works with: stability in days, difficulty from 1 to 10 (FSRS
# clamps its own results to these; Anki's ``fsrs`` crate keeps stability at most 36,500).
STABILITY_BOUNDS = (0.001, 36_500.0)
DIFFICULTY_BOUNDS = (1.0, 10.0)


def memory_in_bounds(stability: object, difficulty: object) -> bool:
    """Whether these are a stability and difficulty FSRS could have given (finite numbers)."""
    for value, (low, high) in ((stability, STABILITY_BOUNDS), (difficulty, DIFFICULTY_BOUNDS)):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        if not low <= value <= high:  # NaN fails this too
            return False
    return True


# A review dated this far after the clock is "in the future": an import leaves it out,
# and ``recall check`` reports it (``--repair`` sets it aside).
FUTURE_TOLERANCE = timedelta(minutes=5)
# The longest time an answer counts as taking; any longer is the learner walking away (Anki
# stops its answer clock at 60 s by default). Storage caps every answer it records at this,
# whether studied, imported or synced, so no total of answer times can run away.
LONGEST_ANSWER_MS = 60 * 60 * 1000


def answer_ms(duration_ms: int) -> int:
    """An answer's duration as recorded: never negative, at most ``LONGEST_ANSWER_MS``."""
    return min(max(int(duration_ms), 0), LONGEST_ANSWER_MS)
