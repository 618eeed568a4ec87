"""Use cases on decks: install the bundled decks, import deck files, list decks, export history."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import IO

from recall import days, paths
from recall.deckfile import Deck, load_deck, parse_deck
from recall.errors import DeckError, DeckErrors, UnknownDeckError
from recall.settings import Settings
from recall.storage import Database, NewCard, Store

REVIEW_LOG_HEADER = ("card_id", "review_time", "review_rating", "review_state", "review_duration")


@dataclass(frozen=True)
class ImportReport:
    """What importing one deck file changed.

    Attributes:
        kept: Cards the database has that the file no longer lists; import never deletes.
    """

    source: str
    deck_key: str
    deck_name: str
    new_deck: bool
    added: int
    updated: int
    unchanged: int
    kept: int

    def describe(self) -> str:
        """One line for the terminal or a status bar."""
        verb = "added deck" if self.new_deck else "updated deck"
        counts = f"{self.added} new, {self.updated} updated, {self.unchanged} unchanged cards"
        if self.kept:
            counts += f"; {self.kept} kept that the file no longer lists"
        return f"{verb} {self.deck_name!r} ({self.deck_key}): {counts}"


@dataclass(frozen=True)
class DeckOverview:
    """A deck as the deck list shows it.

    Attributes:
        new: New cards available to study today (within the daily limit).
        unseen: Cards never studied.
        due: Studied cards due today.
    """

    key: str
    name: str
    description: str
    total: int
    new: int
    unseen: int
    due: int


def import_files(database: Database, files: Sequence[Path], now: datetime) -> list[ImportReport]:
    """Import deck files together: every file is checked first, then all are written at once.

    Raises:
        DeckErrors: At least one file is invalid; the problems of every bad file are
            listed and nothing is written.
    """
    decks: list[tuple[str, Deck]] = []
    errors: list[DeckError] = []
    for file in files:
        try:
            decks.append((str(file), load_deck(file)))
        except DeckError as error:
            errors.append(error)
    if errors:
        raise DeckErrors(errors)
    with database.transaction() as store:
        return [_import(store, deck, source, now) for source, deck in decks]


def import_deck(database: Database, deck: Deck, source: str, now: datetime) -> ImportReport:
    """Add or update one validated deck in a single transaction."""
    with database.transaction() as store:
        return _import(store, deck, source, now)


def install_bundled_decks(database: Database, now: datetime) -> list[ImportReport]:
    """Install the decks shipped with Recall, or bring their text up to date.

    Run at every start: a deck already installed only has changed cards rewritten, and
    review history is never touched.
    """
    reports = []
    for entry in paths.bundled_decks():
        deck = parse_deck(entry.read_bytes(), f"bundled deck {entry.name}")
        reports.append(import_deck(database, deck, entry.name, now))
    return reports


def deck_overviews(
    database: Database, settings: Settings, now: datetime, zone: tzinfo | None = None
) -> list[DeckOverview]:
    """Every deck with today's counts, by name."""
    end = days.next_rollover(now, settings.day_rollover_hour, zone)
    start = days.previous_rollover(now, settings.day_rollover_hour, zone)
    with database.transaction() as store:
        counts = store.deck_counts(end, start)
    return [
        DeckOverview(
            key=count.deck.key,
            name=count.deck.name,
            description=count.deck.description,
            total=count.total,
            new=min(count.unseen, max(0, settings.new_cards_per_day - count.introduced_today)),
            unseen=count.unseen,
            due=count.due,
        )
        for count in counts
    ]


def export_reviews(database: Database, out: IO[str], deck_key: str | None = None) -> int:
    """Write the review history as the FSRS review-log CSV, oldest first.

    Columns: ``card_id`` (Recall's card id), ``review_time`` (UTC milliseconds since the
    epoch), ``review_rating`` (1-4), ``review_state`` (0-3, before the review) and
    ``review_duration`` (milliseconds).

    Returns:
        The number of reviews written.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(REVIEW_LOG_HEADER)
    written = 0
    with database.transaction() as store:
        deck_id = None
        if deck_key is not None:
            deck = store.deck_by_key(deck_key)
            if deck is None:
                raise UnknownDeckError(deck_key)
            deck_id = deck.id
        for review in store.all_reviews(deck_id):
            millis = round(review.reviewed_at.timestamp() * 1000)
            writer.writerow(
                (review.card_id, millis, review.rating, review.state_before, review.duration_ms)
            )
            written += 1
    return written


def _import(store: Store, deck: Deck, source: str, now: datetime) -> ImportReport:
    existing = store.deck_by_key(deck.id)
    if existing is None:
        deck_row = store.add_deck(deck.id, deck.name, deck.description, now)
    else:
        deck_row = existing
        if (existing.name, existing.description) != (deck.name, deck.description):
            store.rename_deck(existing.id, deck.name, deck.description, now)
    known = store.card_keys(deck_row.id)
    to_add: list[NewCard] = []
    updated = unchanged = 0
    for position, card in enumerate(deck.cards):
        incoming = NewCard(
            key=card.id,
            position=position,
            kind=card.type,
            content=card.model_dump_json(exclude_defaults=True),
        )
        stored = known.get(card.id)
        if stored is None:
            to_add.append(incoming)
            continue
        card_id, old_position, old_kind, old_content = stored
        if (old_position, old_kind, old_content) == (position, card.type, incoming.content):
            unchanged += 1
        else:
            store.update_card(card_id, incoming, now)
            updated += 1
    added = store.add_cards(deck_row.id, to_add, now)
    file_keys = {card.id for card in deck.cards}
    return ImportReport(
        source=source,
        deck_key=deck.id,
        deck_name=deck.name,
        new_deck=existing is None,
        added=added,
        updated=updated,
        unchanged=unchanged,
        kept=sum(1 for key in known if key not in file_keys),
    )
