"""What the summary at the end of a sitting says: the day's work in the deck, or a custom
session's own."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from recall.storage import Database
from recall.study.values import Recorded, Summary


def deck_summary(
    database: Database, deck_ids: Sequence[int], day_start: datetime, sitting_answered: int
) -> Summary:
    """The decks' cards, answers, right answers and answer time since the study day began,
    and their next due."""
    with database.reading() as transaction:
        work = transaction.queue.work_since(deck_ids, day_start)
        next_due = transaction.queue.next_due(deck_ids)
    return Summary(
        cards=work.cards,
        answered=work.answers,
        correct=work.correct,
        time_spent=timedelta(milliseconds=work.duration_ms),
        next_due=next_due,
        sitting_answered=sitting_answered,
    )


def custom_summary(
    database: Database, deck_ids: Sequence[int], recorded: Sequence[Recorded]
) -> Summary:
    """A custom session's own work: its cards come from any deck, so it counts itself."""
    with database.reading() as transaction:
        next_due = transaction.queue.next_due(deck_ids)
    return Summary(
        cards=len({entry.card_id for entry in recorded}),
        answered=len(recorded),
        correct=sum(1 for entry in recorded if entry.correct),
        time_spent=sum((entry.time_spent for entry in recorded), timedelta(0)),
        next_due=next_due,
        sitting_answered=len(recorded),
    )
