"""Plain values the store hands out and takes in, so no ORM object leaves the storage layer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from recall.core.memory import CardState, MemoryState, Rating, ReviewKind


@dataclass(frozen=True, slots=True)
class DeckRow:
    """A deck's identity."""

    id: int
    key: str
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class DeckCounts:
    """A deck with the counts the deck list shows.

    Attributes:
        total: Cards in the deck.
        unseen: Cards never reviewed, not suspended or buried.
        due: Reviewed cards due before the end of the study day.
        introduced_today: New cards first reviewed this study day.
        review_due: Of ``due``, the cards in review (not learning or relearning).
        reviewed_today: Review cards answered this study day.
    """

    deck: DeckRow
    total: int
    unseen: int
    due: int
    introduced_today: int
    review_due: int = 0
    reviewed_today: int = 0


@dataclass(frozen=True, slots=True)
class CardRow:
    """A card with its deck file content and its memory state.

    Attributes:
        seed: The card's number on every computer (its id is this database's): it seeds
            the interval fuzz and is the card's id in the review log export.
    """

    id: int
    seed: int
    deck_id: int
    key: str
    kind: str
    content: str
    memory: MemoryState
    position: int = 0  # in its deck file: new cards are shown in this order


@dataclass(frozen=True, slots=True)
class NewCard:
    """A card to add or update, as a deck file gives it.

    Attributes:
        seed: The card's seed when another computer gave it one (sync); None for a card new
            here, which gets a random one when added. An update keeps the stored seed.
        search_text: The search text ``card_index`` derives from ``content``, when the
            caller worked it out (``content.search_text``); None leaves it to SQL.
    """

    key: str
    position: int
    kind: str
    content: str
    seed: int | None = None
    search_text: str | None = None


@dataclass(frozen=True, slots=True)
class CardKey:
    """What an import needs to know of a stored card, found by its key."""

    id: int
    seed: int
    position: int
    kind: str
    content: str


@dataclass(frozen=True, slots=True)
class MovedCard:
    """A card that left the deck and key its deck file gives it: moved to another deck by
    the learner (or by sync), or to another key in the deck.

    Attributes:
        stored: The card as Recall has it now.
        deck_id: The deck it is in now.
        key: Its key now.
        updated_at: When its content last changed, in Recall or by an import.
        edited: Whether the learner changed it in Recall (moving it is a change).
    """

    stored: CardKey
    deck_id: int
    key: str
    updated_at: datetime
    edited: bool


@dataclass(frozen=True, slots=True)
class NewReview:
    """A review to append, built the same way by studying and by importing.

    Attributes:
        card_id: The card reviewed.
        reviewed_at: When (aware UTC).
        rating: The rating recorded.
        duration_ms: Time spent on the answer.
        state_before: The card's learning state before this review.
        picked: The texts of the chosen options of a choice card, else None.
        correct: Whether the answer was right.
        proposed: The rating Recall proposed, when it proposed one (not for imports).
        kind: An answer, or a cram answer that leaves the schedule as it was.
        chosen_due: For an answer that leaves the card in review, the due date scheduling
            chose inside the interval's fuzz range (by the load on each day, Easy Days or an
            exam date), stored so that replay gives the same date; None when the fuzz draw
            chose it.
    """

    card_id: int
    reviewed_at: datetime
    rating: Rating
    duration_ms: int
    state_before: CardState
    picked: tuple[str, ...] | None
    correct: bool
    proposed: Rating | None = None
    kind: ReviewKind = ReviewKind.ANSWER
    chosen_due: datetime | None = None

    @classmethod
    def rated(
        cls,
        card_id: int,
        reviewed_at: datetime,
        rating: Rating,
        duration_ms: int,
        state_before: CardState,
        picked: tuple[str, ...] | None = None,
        correct: bool | None = None,
        proposed: Rating | None = None,
        chosen_due: datetime | None = None,
    ) -> NewReview:
        """A review; without a graded answer (``correct`` None) it is right when it passed."""
        return cls(
            card_id=card_id,
            reviewed_at=reviewed_at,
            rating=rating,
            duration_ms=duration_ms,
            state_before=state_before,
            picked=picked,
            correct=rating.passed if correct is None else correct,
            proposed=proposed,
            chosen_due=chosen_due,
        )


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One stored history entry: an answer, or a schedule change made by hand.

    Attributes:
        rating: The answer's rating; None for a change made by hand.
        kind: An answer, a forget, a due date set by hand, or a memory state kept.
        set_due: For a due date set by hand or a memory entry, the date; for an answer,
            the due date scheduling chose for it (``NewReview.chosen_due``), if it chose one.
        stability: For a memory entry, the stability it sets.
        difficulty: For a memory entry, the difficulty it sets.
    """

    id: int
    card_id: int
    reviewed_at: datetime
    rating: Rating | None
    duration_ms: int
    state_before: CardState
    picked: tuple[str, ...] | None
    correct: bool
    kind: ReviewKind = ReviewKind.ANSWER
    set_due: datetime | None = None
    stability: float | None = None
    difficulty: float | None = None
