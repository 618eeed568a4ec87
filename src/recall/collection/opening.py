"""Opening the library: the database opened or upgraded, its schedules replayed once when
Recall's replay or the study days changed, the bundled decks brought up to date, every
subdeck's parent a deck.

If any of it fails, the database is closed again. The command line and the window both
start here. A bundled deck file is recognised by the SHA-256 of its bytes, kept in the
database once the deck is installed: a start with the same files reads and hashes them but
parses nothing (nor loads the deck format's models), so an update costs a parse only when
a newer Recall ships a changed deck.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING

from recall.host import paths
from recall.options import deck_options
from recall.storage import BUSY_TIMEOUT_MS, Database

if TYPE_CHECKING:
    from recall.collection.import_report import DeckReport


def open_library(
    data_dir: Path,
    now: datetime,
    install: bool = True,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    notes: list[str] | None = None,
) -> Database:
    """Open the database in a data folder, ready for use.

    Args:
        data_dir: The data folder.
        now: The time, aware UTC, recorded on cards a bundled deck adds or changes.
        install: Also install or update the bundled decks (the backup, restore and
            check commands leave the decks as they find them).
        busy_timeout_ms: How long to wait for another program holding the database.
        notes: Given, what opening did that the learner should hear of is added to it
            (how many schedules a replay on study days moved).

    Returns:
        The open database; the caller closes it.

    Raises:
        RecallError: The database cannot be opened, or a bundled deck cannot be written;
            nothing is left open.
    """
    database = Database(paths.database_path(data_dir), busy_timeout_ms=busy_timeout_ms)
    try:
        moved = upgrade_schedules(database, now)
        if moved is not None and notes is not None:
            notes.append(deck_options.moved_note(moved))
        if install:
            install_bundled_decks(database, now)
            add_parent_decks(database, now)
    except BaseException:
        database.close()
        raise
    return database


def upgrade_schedules(database: Database, now: datetime) -> int | None:
    """Name the time zone study days are counted in, then replay every schedule once if
    they were replayed by an older Recall or on other study days (after a backup), and
    store the follow-ups' summary of the cards marked stale.

    Returns:
        How many schedules moved, or None when nothing was replayed.
    """
    from recall.safekeeping import study_days
    from recall.scheduling import Schedulers

    study_days.name_time_zone(database)
    from recall.study.follow_up_summary import bring_up_to_date

    moved = study_days.replay_if_outdated(database, now, Schedulers())
    # The follow-ups' kept summary of every card marked stale (all of them after the
    # upgrade to schema 22, those a sync or another program changed since), stored once.
    bring_up_to_date(database)
    return moved


def add_parent_decks(database: Database, now: datetime) -> None:
    """Give the parents of subdecks a deck where an older import left only the name's
    steps (``Español`` of ``Español::Verbos``), so each can be studied, exported, tuned
    and charted with its subdecks. Reads only, unless a parent is missing."""
    from recall.changes.decks import add_parents
    from recall.core import deck_tree

    with database.reading() as transaction:
        stored = transaction.decks.names()
    names = {deck_tree.normalize(name).casefold() for name in stored}
    missing = any(
        deck_tree.SEPARATOR.join(steps[:depth]).casefold() not in names
        for name in stored
        for steps in [deck_tree.tree_steps(name)]
        for depth in range(1, len(steps))
    )
    if missing:
        with database.transaction() as transaction:
            add_parents(transaction, now)


def install_bundled_decks(
    database: Database, now: datetime, decks: Iterable[Traversable] | None = None
) -> list[DeckReport]:
    """Install the decks shipped with Recall, or bring their text up to date.

    A deck file whose SHA-256 equals the one stored when it was last installed is not
    parsed at all. A new or changed one is imported with the bundled decks' rule: review
    history is never touched, and what the learner changed in Recall stays as they left
    it (cards edited, tagged or moved to another deck, the deck's name and description).

    Args:
        database: The library.
        now: The time, aware UTC.
        decks: The deck files; Recall's own (``paths.bundled_decks()``) by default.

    Returns:
        A report for each deck file that was new or changed, none for the others.
    """
    with database.reading() as transaction:
        installed = transaction.options.bundled_deck_hashes()
    reports = []
    for entry in paths.bundled_decks() if decks is None else decks:
        data = entry.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if installed.get(entry.name) == digest:
            continue
        # The deck format's models load only when a deck is parsed.
        from recall.collection.importing import import_deck
        from recall.content.deck_format import parse_deck

        deck = parse_deck(data, f"bundled deck {entry.name}")
        reports.append(import_deck(database, deck, now, keep_edited=True))
        with database.transaction() as transaction:
            transaction.options.set_bundled_deck_hash(entry.name, digest)
    return reports
