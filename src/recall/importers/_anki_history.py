"""An Anki package's review log as Recall's history: what replays, and what is left out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from recall.core import wording
from recall.core.i18n import trn
from recall.core.memory import LONGEST_ANSWER_MS, Rating
from recall.importers import ImportedReview
from recall.importers._anki_schedule import MANUAL, RESCHEDULED
from recall.importers._collection import Collection

MAX_DURATION_MS = LONGEST_ANSWER_MS  # Anki's time_ms beyond it is the learner walking away
MANUAL_KINDS = frozenset({4, 5})  # Anki's revlog types: manual, rescheduled
CRAM_KIND = 3  # a review in a filtered deck
REVIEW_KINDS = frozenset({0, 1, 2})  # learning, review, relearning
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_RATINGS = {int(rating): rating for rating in Rating}  # Anki's ease 1-4 (looked up per row)


def moment(milliseconds: int) -> datetime | None:
    """A revlog id as aware UTC, or None when it is no plausible moment."""
    if milliseconds < 0:
        return None
    try:
        return _EPOCH + timedelta(milliseconds=milliseconds)
    except OverflowError:
        return None


def read_reviews(
    collection: Collection, keys: dict[int, tuple[str, str]], tick: Callable[[], None]
) -> tuple[dict[tuple[str, str], list[ImportedReview]], list[str]]:
    """The history of the imported cards, oldest first, and a note on what was left out."""
    reviews: dict[tuple[str, str], list[ImportedReview]] = {}
    manual = cram = unreadable = not_imported = 0
    for review in collection.reviews():
        tick()
        key = keys.get(review.card_id)
        answered = moment(review.id)
        if key is None:
            not_imported += 1
        elif review.kind in (MANUAL, RESCHEDULED) and review.ease == 0:
            continue  # kept as a forget or a due date set (_anki_schedule)
        elif review.kind in MANUAL_KINDS or review.ease == 0:
            manual += 1
        elif review.kind == CRAM_KIND:
            cram += 1
        elif review.kind not in REVIEW_KINDS or not 1 <= review.ease <= 4 or answered is None:
            unreadable += 1
        else:
            duration = min(max(review.time_ms, 0), MAX_DURATION_MS)
            reviews.setdefault(key, []).append(
                ImportedReview(answered, _RATINGS[review.ease], duration)
            )
    parts = [
        trn(
            "{count} manual or rescheduling entry",
            "{count} manual or rescheduling entries",
            manual,
        ).format(count=wording.number(manual)),
        trn(
            "{count} cram (filtered deck) review", "{count} cram (filtered deck) reviews", cram
        ).format(count=wording.number(cram)),
        trn("{count} unreadable entry", "{count} unreadable entries", unreadable).format(
            count=wording.number(unreadable)
        ),
        trn(
            "{count} entry of a skipped card", "{count} entries of skipped cards", not_imported
        ).format(count=wording.number(not_imported)),
    ]
    counts = (manual, cram, unreadable, not_imported)
    shown = [part for part, count in zip(parts, counts, strict=True) if count]
    if not shown:
        return reviews, []
    total = sum(counts)
    left_out = trn(
        "{count} review history entry left out of the replay: {parts}",
        "{count} review history entries left out of the replay: {parts}",
        total,
    ).format(count=wording.number(total), parts=", ".join(shown))
    return reviews, [left_out]
