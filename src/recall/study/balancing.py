"""An answer's schedule with load balancing and Easy Days, its loads read from the database."""

from __future__ import annotations

from datetime import datetime

from recall.core.memory import MemoryState, Rating
from recall.scheduling import Scheduler
from recall.scheduling.balance import balanced_review
from recall.storage import CardRow, Transaction


def balanced_answer(
    transaction: Transaction, scheduler: Scheduler, card: CardRow, rating: Rating, now: datetime
) -> tuple[MemoryState, datetime | None]:
    """The card's schedule after the answer, and the due date chosen for it to store with
    the answer (``NewReview.chosen_due``), or None where the fuzz draw's date stands.

    The load of each candidate day is the collection's cards due on it (learning and
    relearning ones included, as Anki counts them), read in one query (Anki counts only the
    cards of the card's preset; here every deck's cards are the learner's day).
    """
    return balanced_review(
        scheduler,
        card.seed,
        card.memory,
        rating,
        now,
        lambda windows: transaction.queue.cards_due_in(windows, card.id),
    )
