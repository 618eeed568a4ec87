"""What a study session hands the window: the card shown, an answer, today's counts, the
day's summary and what was recorded. Plain values, no database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from recall.changes.change import Restore
from recall.content.deck_format import BasicCard, ChoiceCard
from recall.core.memory import MemoryState, Rating
from recall.core.type_answer import Comparison


@dataclass(frozen=True)
class FollowUpShown:
    """What a card shown as a follow-up on a misconception follows up.

    Attributes:
        option: The wrong option picked before (it is among the choices shown).
        picks: Wrong answers of the card that picked it.
        why: The option's note, why it is wrong ('' when the deck gives none).
    """

    option: str
    picks: int
    why: str


@dataclass(frozen=True)
class StudyCard:
    """A card as it is shown once.

    Attributes:
        seed: The card's seed, which seeds its interval fuzz (``CardRow.seed``).
        memory: Its schedule; for a follow-up, the follow-up's own.
        order: For choice cards, the indexes of ``card.choices`` in the order shown
            (shuffled each time a card is shown); empty for basic cards.
        as_recall: A choice card asked as type-in, without its choices: its memory is
            stable enough (``study.recall_prompt``). Its choices are still in ``order``.
        choices_asked: A card asked as type-in whose choices the learner asked to see: a
            right choice then proposes at most Hard.
        follow_up: Set when the card is shown as a follow-up on a misconception (always
            with its choices: the option picked before is among them).
    """

    card_id: int
    seed: int
    card: ChoiceCard | BasicCard
    memory: MemoryState
    order: tuple[int, ...]
    shown_at: datetime
    as_recall: bool = False
    choices_asked: bool = False
    follow_up: FollowUpShown | None = None


@dataclass(frozen=True)
class EarlierPick:
    """A wrong option the learner picked again: on how many earlier reviews, and when last."""

    choice: str
    times: int
    last: datetime


@dataclass(frozen=True)
class Answer:
    """An answered card, graded but not yet recorded.

    Attributes:
        picked: Indexes into ``card.choices``; empty for basic cards. For a choice card
            asked as type-in, the option whose text was typed, if any.
        correct: Whether the answer was right; None for a basic card, which the learner rates.
        proposed: The rating Recall suggests.
        intervals: When the card would come back under each rating.
        earlier_picks: The wrong options picked now that earlier reviews of the card
            picked too.
        typed: For a type-in card answered by typing (or a choice card asked as type-in),
            what was typed against the answer.
    """

    card: StudyCard
    picked: frozenset[int]
    correct: bool | None
    proposed: Rating
    intervals: dict[Rating, timedelta]
    answered_at: datetime
    earlier_picks: tuple[EarlierPick, ...] = ()
    typed: Comparison | None = None

    @property
    def duration_ms(self) -> int:
        """From the card appearing to the answer."""
        return elapsed_ms(self.card.shown_at, self.answered_at)


@dataclass(frozen=True)
class QueueCounts:
    """What is left to study today in a deck, as the review screen's counter shows it.

    Attributes:
        new: New cards within today's limit.
        learning: Learning and relearning cards due today.
        review: Review cards due today within the review limit.
    """

    new: int
    learning: int
    review: int

    @property
    def due(self) -> int:
        """Studied cards due today: learning and review cards."""
        return self.learning + self.review

    @property
    def total(self) -> int:
        """Cards left today."""
        return self.new + self.due


@dataclass(frozen=True)
class Summary:
    """How today's study of a deck went: every sitting of the study day, not only this one.

    Attributes:
        cards: Different cards answered today in the deck (with its subdecks).
        answered: Answers given today.
        correct: Right answers among them.
        time_spent: Today's answer times added up.
        next_due: When the deck's next studied card comes due.
        sitting_answered: Answers given in this sitting.
    """

    cards: int
    answered: int
    correct: int
    time_spent: timedelta
    next_due: datetime | None
    sitting_answered: int = 0

    @property
    def share_correct(self) -> float:
        """Right answers as a share of all answers (0 when nothing was answered)."""
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class Recorded:
    """A stored answer: its review's id, and the card's schedule after it (for a follow-up
    answer, the follow-up's schedule).

    Attributes:
        follow_up: Set when it answered a follow-up.
        leech: Set when this answer made the card a leech (tagged, and suspended unless
            the settings say tag only): what undoing the answer puts back.
    """

    review_id: int
    card_id: int
    correct: bool
    time_spent: timedelta
    memory: MemoryState
    leech: Restore | None = None
    order: tuple[int, ...] = ()
    follow_up: FollowUpShown | None = None

    @property
    def became_leech(self) -> bool:
        """Whether this answer made the card a leech."""
        return self.leech is not None


def elapsed_ms(start: datetime, end: datetime) -> int:
    """Whole milliseconds from ``start`` to ``end``; never negative (the clock may go back)."""
    return max(0, (end - start) // timedelta(milliseconds=1))
