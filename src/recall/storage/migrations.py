"""Schema versions: the current one, and the step that brings each older one forward.

Every schema change adds a step here, keyed by the version it upgrades from, and keeps
``tests/storage/test_migrations.py`` (which opens a database made by an older Recall) passing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # an upgrade imports SQLAlchemy; opening an up-to-date file does not
    from sqlalchemy import Connection

from recall.storage import (
    card_index,
    follow_up_summary,
    pick_counts,
    study_day_schema,
    sync_triggers,
    verification,
)
from recall.storage.review_ids import review_uid
from recall.storage.rows import (
    FOLLOW_UP_ENTRIES,
    REVIEW_BY_CARD,
    REVIEW_BY_TIME,
    REVIEW_FOLLOW_UP_ENTRIES,
    STATE_DUE,
)

SCHEMA_VERSION = 23


def _deck_beside_schedule(connection: Connection) -> None:
    """Schema 2: each card's schedule row names its deck, indexed with state and due.

    Today's queue and counts then walk one index instead of looking every due card up in
    ``card`` (docs/benchmarks.md measured that lookup as half of an answer at 100,000
    cards). New cards are found in deck order through an index on (deck, position).
    """
    connection.exec_driver_sql(
        "ALTER TABLE card_memory ADD COLUMN deck_id INTEGER REFERENCES deck (id)"
    )
    connection.exec_driver_sql(
        "UPDATE card_memory SET deck_id = "
        "(SELECT deck_id FROM card WHERE card.id = card_memory.card_id)"
    )
    connection.exec_driver_sql(
        "CREATE INDEX ix_card_memory_deck_state_due ON card_memory (deck_id, state, due)"
    )
    connection.exec_driver_sql("CREATE INDEX ix_card_deck_position ON card (deck_id, position)")


def _set_aside_reviews(connection: Connection) -> None:
    """Schema 3: a table for reviews taken out of replay (dated in the future), kept."""
    connection.exec_driver_sql(
        "CREATE TABLE set_aside_review (id INTEGER NOT NULL, card_id INTEGER NOT NULL, "
        "reviewed_at BIGINT NOT NULL, rating INTEGER NOT NULL, duration_ms INTEGER NOT NULL, "
        "state_before INTEGER NOT NULL, picked VARCHAR, correct BOOLEAN NOT NULL, "
        "set_aside_at BIGINT NOT NULL, reason VARCHAR NOT NULL, PRIMARY KEY (id), "
        "FOREIGN KEY(card_id) REFERENCES card (id))"
    )
    connection.exec_driver_sql(
        "CREATE INDEX ix_set_aside_review_card_id ON set_aside_review (card_id)"
    )


def _browsing(connection: Connection) -> None:
    """Schema 4: what the card browser and search need.

    Cards get a flag, a searchable copy of their texts, a table of their tags and a mark
    for text changed in Recall; schedules get suspended and buried-until; the history gets
    a kind, so a schedule changed by hand (forget, set due date) is an entry replay applies
    (set-aside reviews keep the same columns as the history they came from).
    """
    for statement in (
        "ALTER TABLE card ADD COLUMN search_text VARCHAR NOT NULL DEFAULT ''",
        "ALTER TABLE card ADD COLUMN flag INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE card ADD COLUMN edited BOOLEAN NOT NULL DEFAULT 0",
        "ALTER TABLE card_memory ADD COLUMN suspended BOOLEAN NOT NULL DEFAULT 0",
        "ALTER TABLE card_memory ADD COLUMN buried_until BIGINT",
        "ALTER TABLE review ADD COLUMN kind INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE review ADD COLUMN set_due BIGINT",
        "ALTER TABLE set_aside_review ADD COLUMN kind INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE set_aside_review ADD COLUMN set_due BIGINT",
        "CREATE TABLE card_tag (card_id INTEGER NOT NULL REFERENCES card (id), "
        "tag VARCHAR COLLATE NOCASE NOT NULL, PRIMARY KEY (card_id, tag))",
        "CREATE INDEX ix_card_tag_tag ON card_tag (tag, card_id)",
    ):
        connection.exec_driver_sql(statement)
    card_index.create_triggers(connection)
    card_index.fill(connection)


def _proposed_rating(connection: Connection) -> None:
    """Schema 5: each review keeps the rating Recall proposed, so the statistics can show how
    often the learner changed it (reviews recorded before have none: NULL); and reviews are
    indexed by card and time, the order every history is read and replayed in, so the
    statistics find each review's previous one (and ``recall check`` each card's history)
    without sorting the whole table."""
    connection.exec_driver_sql("ALTER TABLE review ADD COLUMN proposed_rating INTEGER")
    # Reviews set aside are kept whole, so they keep it too.
    connection.exec_driver_sql("ALTER TABLE set_aside_review ADD COLUMN proposed_rating INTEGER")
    connection.exec_driver_sql("CREATE INDEX ix_review_card_time ON review (card_id, reviewed_at)")


def _preferences_and_presets(connection: Connection) -> None:
    """Schema 6: preferences, deck presets and each deck's preset live in the database.

    Backups then carry them. Every deck starts on the default preset, whose options are
    the ones every deck had before. The tables are those ``tables.py`` declares.
    """
    connection.exec_driver_sql(
        'CREATE TABLE preference ("key" VARCHAR NOT NULL, value VARCHAR NOT NULL, '
        'PRIMARY KEY ("key"))'
    )
    connection.exec_driver_sql(
        "CREATE TABLE preset (id INTEGER NOT NULL, name VARCHAR NOT NULL, "
        "config VARCHAR NOT NULL, PRIMARY KEY (id), UNIQUE (name))"
    )
    connection.exec_driver_sql(
        "CREATE TABLE deck_preset (deck_id INTEGER NOT NULL, preset_id INTEGER NOT NULL, "
        "PRIMARY KEY (deck_id), FOREIGN KEY(deck_id) REFERENCES deck (id), "
        "FOREIGN KEY(preset_id) REFERENCES preset (id))"
    )
    connection.exec_driver_sql("CREATE INDEX ix_deck_preset_preset_id ON deck_preset (preset_id)")


def _queue_indexes(connection: Connection) -> None:
    """Schema 7: today's queue reads what leaves a card out of study from its index.

    The index on (deck, state, due) gains suspended and buried-until, so the queue's and
    the deck list's counts and the next card are read from the index alone (the table was
    looked up for every due card to leave suspended and buried ones out); the buried cards
    get a small index of their own, so the time the next one comes back is one index step.
    The history's index on the card alone goes: the one on (card, time) serves the same
    lookups, and an answer then writes one index page less.
    """
    connection.exec_driver_sql("DROP INDEX ix_review_card_id")
    connection.exec_driver_sql("DROP INDEX ix_card_memory_deck_state_due")
    connection.exec_driver_sql(
        "CREATE INDEX ix_card_memory_deck_queue ON card_memory "
        "(deck_id, state, due, suspended, buried_until)"
    )
    connection.exec_driver_sql(
        "CREATE INDEX ix_card_memory_buried ON card_memory (buried_until) "
        "WHERE buried_until IS NOT NULL"
    )


def _study_days(connection: Connection) -> None:
    """Schema 8: the answers counted by study day and the wrong options' picks counted per
    card, kept by triggers, so the statistics sum thousands of counts instead of reading
    every review (``study_days``, ``pick_counts``); and an index on the studied cards'
    due dates for the forecast, the statistics window's first chart. The days are counted
    when the statistics are first asked for (they depend on the learner's time zone); the
    picks here."""
    for table in study_day_schema.TABLES:
        connection.exec_driver_sql(table)
    study_day_schema.create_triggers(connection)
    pick_counts.create(connection, fill=True)
    # The forecast walks the studied cards that are not suspended by deck and due date.
    connection.exec_driver_sql(
        "CREATE INDEX ix_card_memory_studied_due ON card_memory (deck_id, due) "
        "WHERE state <> 0 AND NOT suspended"
    )


def _replay_notes(connection: Connection) -> None:
    """Schema 9: triggers note every card whose history, schedule or deck changes, and
    the history's index by time covers what the review log reads.

    ``recall check`` then replays only the noted cards once it has verified everything
    (``verification``); its first check after the upgrade replays every card. The review
    log reads a million reviews in time order without looking a row up.
    """
    verification.create(connection, tables=True)
    connection.exec_driver_sql("DROP INDEX ix_review_reviewed_at")
    connection.exec_driver_sql(
        "CREATE INDEX ix_review_reviewed_at ON review "
        "(reviewed_at, id, kind, card_id, rating, state_before, duration_ms)"
    )


def _sync(connection: Connection) -> None:
    """Schema 10: what sync through a shared folder needs (docs/sync.md).

    Every review, and every review set aside, gets its id on every device (a hash of its
    card's keys, time, kind and rating; ``review_ids``); the append-only trigger is lifted
    only while they are written. The tables sync keeps its state in are those
    ``tables.py`` declares, and the triggers that note each change in ``sync_outbox``.
    """
    from recall.storage.schema import APPEND_ONLY_TRIGGER

    connection.exec_driver_sql("ALTER TABLE review ADD COLUMN uid VARCHAR")
    connection.exec_driver_sql("ALTER TABLE set_aside_review ADD COLUMN uid VARCHAR")
    connection.exec_driver_sql("DROP TRIGGER review_append_only")
    for table in ("review", "set_aside_review"):
        rows = connection.exec_driver_sql(
            f"SELECT {table}.id, deck.key, card.key, {table}.reviewed_at, {table}.kind, "
            f"{table}.rating FROM {table} JOIN card ON card.id = {table}.card_id "
            f"JOIN deck ON deck.id = card.deck_id ORDER BY {table}.id"
        ).fetchall()
        taken: set[str] = set()
        updates: list[tuple[str, int]] = []
        for review_id, deck_key, card_key, micros, kind, rating in rows:
            repeat = 0
            while (uid := review_uid(deck_key, card_key, micros, kind, rating, repeat)) in taken:
                repeat += 1
            taken.add(uid)
            updates.append((uid, review_id))
        if updates:
            connection.exec_driver_sql(f"UPDATE {table} SET uid = ? WHERE id = ?", updates)
    connection.exec_driver_sql(APPEND_ONLY_TRIGGER)
    connection.exec_driver_sql("CREATE UNIQUE INDEX ix_review_uid ON review (uid)")
    # Reviews at one instant are ordered by their shared id: the index by time holds it.
    connection.exec_driver_sql("DROP INDEX ix_review_reviewed_at")
    connection.exec_driver_sql(
        f"CREATE INDEX ix_review_reviewed_at ON review ({', '.join(REVIEW_BY_TIME)})"
    )
    for statement in (
        "CREATE TABLE sync_device (id VARCHAR NOT NULL, name VARCHAR NOT NULL, "
        "clock INTEGER NOT NULL, folder VARCHAR, next_file INTEGER NOT NULL, "
        "last_sync INTEGER, PRIMARY KEY (id))",
        "CREATE TABLE sync_outbox (seq INTEGER NOT NULL, kind VARCHAR NOT NULL, "
        "row_id INTEGER NOT NULL, detail VARCHAR, at INTEGER NOT NULL, PRIMARY KEY (seq))",
        "CREATE TABLE sync_quiet (id INTEGER NOT NULL, PRIMARY KEY (id))",
        "CREATE TABLE sync_entity (kind VARCHAR NOT NULL, deck_key VARCHAR NOT NULL, "
        "card_key VARCHAR NOT NULL, fields VARCHAR NOT NULL, "
        "PRIMARY KEY (kind, deck_key, card_key))",
        "CREATE TABLE sync_file (device VARCHAR NOT NULL, name VARCHAR NOT NULL, "
        '"offset" INTEGER NOT NULL, own BOOLEAN NOT NULL, PRIMARY KEY (device, name))',
        "CREATE TABLE sync_held_review (uid VARCHAR NOT NULL, deck_key VARCHAR NOT NULL, "
        "card_key VARCHAR NOT NULL, event VARCHAR NOT NULL, PRIMARY KEY (uid))",
        "CREATE INDEX ix_sync_held_review_deck_key ON sync_held_review (deck_key)",
        "CREATE TABLE sync_retracted (uid VARCHAR NOT NULL, PRIMARY KEY (uid))",
        "CREATE TABLE sync_seen_device (id VARCHAR NOT NULL, name VARCHAR NOT NULL, "
        "last_file VARCHAR NOT NULL, PRIMARY KEY (id))",
        "CREATE TABLE sync_preset (preset_id INTEGER NOT NULL, uid VARCHAR NOT NULL, "
        "PRIMARY KEY (preset_id))",
        "CREATE UNIQUE INDEX ix_sync_preset_uid ON sync_preset (uid)",
    ):
        connection.exec_driver_sql(statement)
    sync_triggers.create_triggers(connection)


def _card_seeds(connection: Connection) -> None:
    """Schema 11: every card keeps a number of its own that does not depend on this database.

    Its id is given by the order cards arrived here, so two computers number the same card
    differently; the seed travels with it (sync, exports). It seeds the interval fuzz and is
    the card's id in ``recall export-reviews``. Existing cards get their id as their seed,
    so every stored schedule still equals the replay of its history and every earlier export
    reads the same; cards added later get a random one (``CardQueries.add``).
    """
    # The cards' replays do not change, so check's notes of changed cards (``verification``)
    # are left as they are: its trigger on cards goes while the seeds are filled in, and
    # comes back noting a seed changed by anyone. (An upgrade from before schema 9 has just
    # made it under its new name.)
    connection.exec_driver_sql("DROP TRIGGER IF EXISTS replay_card_moved")
    connection.exec_driver_sql("DROP TRIGGER IF EXISTS replay_card_changed")
    # ADD COLUMN needs a default for NOT NULL; every row gets its own value at once.
    connection.exec_driver_sql("ALTER TABLE card ADD COLUMN seed INTEGER NOT NULL DEFAULT 0")
    connection.exec_driver_sql("UPDATE card SET seed = id")
    connection.exec_driver_sql("CREATE UNIQUE INDEX ix_card_seed ON card (seed)")
    connection.exec_driver_sql(verification.CARD_TRIGGER)


def _sync_waiting(connection: Connection) -> None:
    """Schema 12: what sync keeps until it can use it, so nothing it meets is lost.

    Changes stamped too far ahead of this computer's clock wait in ``sync_held_change``;
    files holding events of a type this Recall did not know are noted in
    ``sync_revisit`` (read again once it knows more); changes stamped while the sync
    folder could not be written wait in ``sync_pending``, and ``sync_device.owes_snapshot``
    says a round that was to send everything could not. Only additions: nothing to fill in.
    """
    for statement in (
        "ALTER TABLE sync_device ADD COLUMN owes_snapshot BOOLEAN NOT NULL DEFAULT 0",
        "CREATE TABLE sync_held_change (id VARCHAR NOT NULL, stamp INTEGER NOT NULL, "
        "event VARCHAR NOT NULL, PRIMARY KEY (id))",
        "CREATE INDEX ix_sync_held_change_stamp ON sync_held_change (stamp)",
        "CREATE TABLE sync_revisit (device VARCHAR NOT NULL, name VARCHAR NOT NULL, "
        '"offset" INTEGER NOT NULL, known VARCHAR NOT NULL, PRIMARY KEY (device, name))',
        "CREATE TABLE sync_pending (seq INTEGER NOT NULL, event VARCHAR NOT NULL, "
        "PRIMARY KEY (seq))",
    ):
        connection.exec_driver_sql(statement)


def _media_wanted(connection: Connection) -> None:
    """Schema 13: the media files cards merged by sync refer to that have not arrived yet.

    Only a table is added; nothing stored changes (docs/sync.md, "Images and sounds").
    """
    connection.exec_driver_sql(
        "CREATE TABLE sync_media_wanted (name VARCHAR NOT NULL, deck_key VARCHAR NOT NULL, "
        "card_key VARCHAR NOT NULL, PRIMARY KEY (name, deck_key, card_key))"
    )


def _history_index(connection: Connection) -> None:
    """Schema 14: reviews are indexed by card with what the replay reads, in its order.

    ``recall check`` and every replay read each card's history ordered by time and then by
    the review's uid; the index by card and time alone left SQLite sorting each card's
    reviews in a temporary b-tree and looking every review's row up in the table, a page
    read per review on a file whose reviews were stored in the order they were answered.
    The new index replaces that one (it serves lookups by card alone as well), so an answer
    still writes one index entry by card. Nothing stored changes.
    """
    connection.exec_driver_sql("DROP INDEX IF EXISTS ix_review_card_time")
    connection.exec_driver_sql(
        "CREATE INDEX ix_review_card_history ON review "
        "(card_id, reviewed_at, uid, rating, kind, set_due)"
    )


def _kept_memory(connection: Connection) -> None:
    """Schema 15: a history entry can keep the memory state another app left a card in.

    A memory entry (kind 4, Anki's FSRS stability and difficulty at import) holds them in
    two new columns, which join the history's index by card so every replay still reads
    the index alone. Entries stored before are none of them: nothing to fill in.
    """
    for table in ("review", "set_aside_review"):
        for column in ("set_stability", "set_difficulty"):
            connection.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} FLOAT")
    connection.exec_driver_sql("DROP INDEX ix_review_card_history")
    columns = ", ".join(REVIEW_BY_CARD)
    connection.exec_driver_sql(f"CREATE INDEX ix_review_card_history ON review ({columns})")


def _exam_dates(connection: Connection) -> None:
    """Schema 16: a deck can carry the day of an exam on it, which sync carries too.

    The column is empty for every deck stored before; the trigger that notes a deck's
    changes for sync is made again to name it.
    """
    connection.exec_driver_sql("ALTER TABLE deck ADD COLUMN exam_on VARCHAR")
    sync_triggers.recreate_deck_update_trigger(connection)


def _anki_note_types(connection: Connection) -> None:
    """Schema 17: Anki note types kept once each, which imported cards show their note through.

    Cards stored before hold no note (their ``content`` has no ``anki``) and show their
    stored sides as they did.
    """
    connection.exec_driver_sql(
        "CREATE TABLE anki_note_type (key VARCHAR NOT NULL, content VARCHAR NOT NULL, "
        "PRIMARY KEY (key))"
    )


def _card_positions(connection: Connection) -> None:
    """Schema 18: each card's position is kept beside its schedule, for searches by due.

    Every search sorted by due orders new cards by their position in the deck; read from
    the card's row, that read the wide row (content and search text) of every match. The
    schedule row gets a copy, filled here, and a trigger on ``card`` keeps it equal.
    """
    from recall.storage.schema import POSITION_TRIGGER

    connection.exec_driver_sql("ALTER TABLE card_memory ADD COLUMN position INTEGER")
    connection.exec_driver_sql(
        "UPDATE card_memory SET position = "
        "(SELECT position FROM card WHERE card.id = card_memory.card_id)"
    )
    connection.exec_driver_sql(POSITION_TRIGGER)


def _follow_up_entries(connection: Connection) -> None:
    """Schema 19: the entries follow-ups are made from have an index of their own.

    The queue and the deck list work out every picked card's follow-ups from its follow-up
    answers and its wrong answers with picks; read along the index by card, each of a
    card's entries was a look-up of the table's row to see whether it was one of those
    (1.5 s for a 100,000-card collection's 11,608 picked cards). The partial index holds
    those entries alone, with what the follow-ups read. Nothing stored changes.
    """
    columns = ", ".join(REVIEW_FOLLOW_UP_ENTRIES)
    connection.exec_driver_sql(
        f"CREATE INDEX ix_review_follow_up_entries ON review ({columns}) WHERE {FOLLOW_UP_ENTRIES}"
    )


def _anki_note_indexes(connection: Connection) -> None:
    """Schema 20: the cards of an Anki note, and the note types cards name, have indexes.

    Editing a note's fields or tags found its cards, and each sync round the note types
    cards name, by reading every card's content (about 0.14 s a time at 100,000 cards).
    """
    from recall.storage import note_types

    for name, expression in note_types.INDEXES.items():
        connection.exec_driver_sql(
            f"CREATE INDEX {name} ON card ({expression}) WHERE {note_types.ANKI_CARD}"
        )


def _state_due_covering(connection: Connection) -> None:
    """Schema 21: the schedules' index by state and due holds the position and last review.

    ``prop:ivl>=10`` over 100,000 cards read every schedule row for the interval and the
    position that breaks ties of the sort by due; it now walks this index alone.
    """
    connection.exec_driver_sql("DROP INDEX ix_card_memory_state_due")
    connection.exec_driver_sql(
        f"CREATE INDEX ix_card_memory_state_due ON card_memory ({', '.join(STATE_DUE)})"
    )


def _follow_up_summaries(connection: Connection) -> None:
    """Schema 22: each card's follow-ups are kept as a summary, marked stale by triggers.

    The queue, the deck list and the statistics worked out every picked card's follow-ups
    from its history at each start (1.6-2.7 s at 100,000 cards). The summary table holds
    each follow-up's standing and the active one's due time; every card that may have
    follow-ups is marked stale here, and the first reading works them out once.
    """
    follow_up_summary.create(connection, tables=True)
    follow_up_summary.fill(connection)


def _card_origins(connection: Connection) -> None:
    """Schema 23: a card moved to another deck (or key) keeps where its deck file has it.

    Importing that file again added a moved card a second time, new and without its
    history. The origins of moves made before are known only where sync noted them (a
    card's ``from``, the keys it had before its last move, followed back to the first).
    Every other card changed in Recall may have been moved too: its origin is unknown
    (no deck), and a bundled deck updated at start leaves alone a card of its key, as
    before (``BrowsingQueries.edited_keys``).
    """
    connection.exec_driver_sql(
        "CREATE TABLE card_origin (card_id INTEGER NOT NULL REFERENCES card (id) "
        "ON DELETE CASCADE, deck_key VARCHAR, card_key VARCHAR NOT NULL, "
        "PRIMARY KEY (card_id))"
    )
    connection.exec_driver_sql(
        "CREATE INDEX ix_card_origin_key ON card_origin (deck_key, card_key)"
    )
    rows = connection.exec_driver_sql(
        "SELECT deck_key, card_key, json_extract(fields, '$.from[2][0]'), "
        "json_extract(fields, '$.from[2][1]') FROM sync_entity WHERE kind = 'card' "
        "AND json_extract(fields, '$.from') IS NOT NULL"
    ).fetchall()
    parents = {(deck, card): (old_deck, old_card) for deck, card, old_deck, old_card in rows}
    for keys in parents:
        first, seen = keys, {keys}
        while first in parents and parents[first] not in seen:
            first = parents[first]
            seen.add(first)
        connection.exec_driver_sql(
            "INSERT OR IGNORE INTO card_origin (card_id, deck_key, card_key) "
            "SELECT card.id, ?, ? FROM card JOIN deck ON deck.id = card.deck_id "
            "WHERE deck.key = ? AND card.key = ?",
            (*first, *keys),
        )
    connection.exec_driver_sql(
        "INSERT OR IGNORE INTO card_origin (card_id, deck_key, card_key) "
        "SELECT id, NULL, key FROM card WHERE edited"
    )


# MIGRATIONS[n] upgrades a schema-n database to schema n + 1, inside the upgrade's one
# transaction.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {
    1: _deck_beside_schedule,
    2: _set_aside_reviews,
    3: _browsing,
    4: _proposed_rating,
    5: _preferences_and_presets,
    6: _queue_indexes,
    7: _study_days,
    8: _replay_notes,
    9: _sync,
    10: _card_seeds,
    11: _sync_waiting,
    12: _media_wanted,
    13: _history_index,
    14: _kept_memory,
    15: _exam_dates,
    16: _anki_note_types,
    17: _card_positions,
    18: _follow_up_entries,
    19: _anki_note_indexes,
    20: _state_due_covering,
    21: _follow_up_summaries,
    22: _card_origins,
}
