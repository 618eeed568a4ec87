"""The deck list: every deck with today's counts, as a tree."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

from recall.core import days, deck_tree
from recall.scheduling import Schedulers
from recall.storage import Database, DeckRow
from recall.study.follow_up_summary import Kept, bring_up_to_date


@dataclass(frozen=True)
class DeckOverview:
    """A deck as the deck list shows it.

    Attributes:
        new: New cards available to study today (within the daily limit).
        unseen: Cards never studied, not suspended or buried.
        due: Studied cards due today, and follow-ups on misconceptions due today (counted
            as review cards, within the review limit).
    """

    key: str
    name: str
    description: str
    total: int
    new: int
    unseen: int
    due: int


def deck_overviews(
    database: Database,
    now: datetime,
    zone: tzinfo | None = None,
    schedulers: Schedulers | None = None,
) -> list[DeckOverview]:
    """Every deck with today's counts within its preset's limits, by name.

    Args:
        database: The collection.
        now: The time the counts are for.
        zone: The learner's time zone for the day rollover; None is the system's.
        schedulers: Schedule the follow-ups counted as reviews; fuzz on when not given.
    """
    bring_up_to_date(database)
    with database.reading() as transaction:
        preferences = transaction.options.preferences()
        presets = transaction.options.deck_presets()
        start, end = days.study_day(now, preferences.day_rollover_hour, zone)
        counts = transaction.decks.counts(end, start, now=now)
        # Only the follow-ups due today are worked out, found along the kept summary.
        kept = Kept(transaction, presets, store=False)
        fuzz = (schedulers or Schedulers()).fuzz
        follow_ups_due = kept.askable_counts(end, fuzz, now)
        follow_ups_answered = {
            deck_id: transaction.queue.follow_ups_answered_since([deck_id], start)
            for deck_id in kept.decks_with()
        }
    overviews = []
    for count in counts:
        preset = presets.of_deck(count.deck.id)
        new_left = max(0, preset.new_limit(now) - count.introduced_today)
        reviewed = count.reviewed_today + follow_ups_answered.get(count.deck.id, 0)
        reviews_left = max(0, preset.review_limit(now) - reviewed)
        learning_due = count.due - count.review_due
        review_due = count.review_due + follow_ups_due[count.deck.id]
        overviews.append(
            DeckOverview(
                key=count.deck.key,
                name=count.deck.name,
                description=count.deck.description,
                total=count.total,
                new=min(count.unseen, new_left),
                unseen=count.unseen,
                due=learning_due + min(review_due, reviews_left),
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


def shown_names(overviews: list[DeckOverview]) -> dict[str, str]:
    """Each deck's name to show in a list by its key, its id added where decks share a name
    (made apart before imports merged such decks), so each can be told and picked."""
    counts: dict[str, int] = {}
    for view in overviews:
        name = deck_tree.normalize(view.name).casefold()
        counts[name] = counts.get(name, 0) + 1
    return {
        view.key: (
            f"{view.name} ({view.key})"
            if counts[deck_tree.normalize(view.name).casefold()] > 1
            else view.name
        )
        for view in overviews
    }
