"""The review history out as the FSRS review-log CSV that every FSRS optimizer reads."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import IO

from recall.core.errors import UnknownDeckError
from recall.core.progress import Progress, no_progress
from recall.host import files
from recall.storage import Database

_LOG_LINE = "%s,%s,%s,%s,%s"
REVIEW_LOG_HEADER = ("card_id", "review_time", "review_rating", "review_state", "review_duration")


def write_review_log(
    database: Database,
    target: Path,
    deck_key: str | None = None,
    progress: Progress = no_progress,
) -> int:
    """Write the review history to a file as ``export_reviews`` does, all or nothing.

    Returns:
        The number of reviews written.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
        RecallError: The file cannot be written (nothing is left of it then).
    """
    return files.write_text(
        target, lambda out: export_reviews(database, out, deck_key, progress=progress)
    )


def export_reviews(
    database: Database,
    out: IO[str],
    deck_key: str | None = None,
    progress: Progress = no_progress,
) -> int:
    """Write the review history as the FSRS review-log CSV, oldest first.

    Columns: ``card_id`` (the card's seed: a number it keeps on every computer, so the
    export is the same wherever its history is; a card added before cards had seeds has
    its old id), ``review_time`` (UTC milliseconds since the epoch, rounded half up),
    ``review_rating`` (1-4), ``review_state`` (0-3, before the review) and
    ``review_duration`` (milliseconds). Only answers are written: a forget or a due date
    set by hand is not a review the optimizer could learn from.

    Returns:
        The number of reviews written.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    csv.writer(out, lineterminator="\n").writerow(REVIEW_LOG_HEADER)
    written = 0
    with database.reading() as transaction:
        deck_id = None
        if deck_key is not None:
            deck = transaction.decks.by_key(deck_key)
            if deck is None:
                raise UnknownDeckError(deck_key)
            deck_id = deck.id
        total = transaction.history.count(deck_id)
        for batch in transaction.history.log_batches(deck_id):
            # What csv.writer writes for rows of numbers (nothing to quote), a batch at a
            # time in one call: about half of csv.writer's time.
            out.write("\n".join(map(_LOG_LINE.__mod__, batch)))
            out.write("\n")
            written += len(batch)
            progress(written, total)
    return written
