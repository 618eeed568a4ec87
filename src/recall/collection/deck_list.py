"""Use cases on decks: list decks with today's counts, export the review history."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import IO

from recall import days, deck_tree, files
from recall.errors import UnknownDeckError
from recall.progress import Progress, no_progress
from recall.storage import Database, DeckRow

_LOG_LINE = "%s,%s,%s,%s,%s"
REVIEW_LOG_HEADER = ("card_id", "review_time", "review_rating", "review_state", "review_duration")


@dataclass(frozen=True)
class DeckOverview:
    """A deck as the deck list shows it.

    Attributes:
        new: New cards available to study today (within the daily limit).
        unseen: Cards never studied, not suspended or buried.
        due: Studied cards due today.
    """

    key: str
    name: str
    description: str
    total: int
    new: int
    unseen: int
    due: int


def deck_overviews(
    database: Database, now: datetime, zone: tzinfo | None = None
) -> list[DeckOverview]:
    """Every deck with today's counts within its preset's limits, by name."""
    with database.reading() as transaction:
        preferences = transaction.options.preferences()
        presets = transaction.options.deck_presets()
        start, end = days.study_day(now, preferences.day_rollover_hour, zone)
        counts = transaction.decks.counts(end, start, now=now)
    overviews = []
    for count in counts:
        preset = presets.of_deck(count.deck.id)
        new_left = max(0, preset.new_limit(now) - count.introduced_today)
        reviews_left = max(0, preset.review_limit(now) - count.reviewed_today)
        learning_due = count.due - count.review_due
        overviews.append(
            DeckOverview(
                key=count.deck.key,
                name=count.deck.name,
                description=count.deck.description,
                total=count.total,
                new=min(count.unseen, new_left),
                unseen=count.unseen,
                due=learning_due + min(count.review_due, reviews_left),
            )
        )
    return overviews


@dataclass(frozen=True)
class TreeRow:
    """A row of the deck tree as the terminal prints it: counts summed over its subdecks.

    Attributes:
        key: The deck's id, or "" for a name step no deck holds.
        label: The last step of the name.
        depth: How deep in the tree (0 at the top).
    """

    key: str
    label: str
    depth: int
    new: int
    due: int
    total: int


def deck_tree_rows(overviews: list[DeckOverview]) -> list[TreeRow]:
    """The decks as a tree, parents first, each with its subdecks' counts added."""
    rows = [
        DeckRow(index, view.key, view.name, view.description)
        for index, view in enumerate(overviews)
    ]
    counts = {index: (view.new, view.due, view.total) for index, view in enumerate(overviews)}

    def add(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
        return (a[0] + b[0], a[1] + b[1], a[2] + b[2])

    out = []
    for node, depth in deck_tree.walk(deck_tree.build(rows)):
        new, due, total = deck_tree.summed(node, lambda deck: counts[deck.id], add, (0, 0, 0))
        key = node.deck.key if node.deck is not None else ""
        out.append(TreeRow(key, node.label, depth, new, due, total))
    return out


def deck_parents(overviews: list[DeckOverview]) -> dict[str, str | None]:
    """Each deck's parent deck id (its key), or None at the top of the tree."""
    rows = [
        DeckRow(index, view.key, view.name, view.description)
        for index, view in enumerate(overviews)
    ]
    parents = {}
    for row in rows:
        above = deck_tree.parent(rows, row)
        parents[row.key] = above.key if above is not None else None
    return parents


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
