"""What recording an answer stores and hands back: its history entry and the recorded answer
(``StudySession.record``, which writes them in one transaction)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from recall.changes.change import Restore
from recall.content.deck_format import ChoiceCard
from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.storage import NewReview
from recall.study.values import Answer, Recorded


def picked_texts(answer: Answer) -> tuple[str, ...] | None:
    """The texts of the options a choice card's answer picked, in the card's order; None
    for another card. A choice card asked as type-in picked nothing when what was typed
    is no option."""
    card = answer.card.card
    if isinstance(card, ChoiceCard) and (answer.picked or answer.typed is None):
        return tuple(card.choices[index].text for index in sorted(answer.picked))
    return None


def new_review(
    answer: Answer,
    rating: Rating,
    picked: tuple[str, ...] | None,
    state_before: CardState,
    kind: ReviewKind = ReviewKind.ANSWER,
    chosen_due: datetime | None = None,
) -> NewReview:
    """The history entry of a graded answer: an answer, a cram answer or a follow-up's."""
    review = NewReview.rated(
        card_id=answer.card.card_id,
        reviewed_at=answer.answered_at,
        rating=rating,
        duration_ms=answer.duration_ms,
        state_before=state_before,
        picked=picked,
        correct=answer.correct,
        proposed=answer.proposed,
        chosen_due=chosen_due,
    )
    return review if kind is ReviewKind.ANSWER else dataclasses.replace(review, kind=kind)


def recorded_answer(
    answer: Answer,
    review_id: int,
    review: NewReview,
    memory: MemoryState,
    now: datetime,
    leech: Restore | None = None,
    order: tuple[int, ...] | None = None,
) -> Recorded:
    """The stored answer as the session keeps it for undo and the summary.

    Args:
        answer: The graded answer.
        review_id: Its stored history entry's id.
        review: That entry.
        memory: The card's schedule after it (a follow-up answer's: the follow-up's).
        now: When the learner moved on: the time spent runs from when the card was shown.
        leech: What undoing it puts back, when it made the card a leech.
        order: The choices' order to show again on undo; None for the order shown.
    """
    shown = answer.card
    return Recorded(
        review_id=review_id,
        card_id=shown.card_id,
        correct=review.correct,
        time_spent=max(timedelta(0), now - shown.shown_at),
        memory=memory,
        leech=leech,
        order=shown.order if order is None else order,
        follow_up=shown.follow_up,
    )
