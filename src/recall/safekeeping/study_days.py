"""Replaying every schedule once when what a replay counts in changes: a newer replay, or
another rollover hour or time zone in the preferences.

Every schedule is the replay of its history, and the replay counts the time between two
reviews in study days; so a library whose schedules were replayed by an older replay, or
on other study days, is replayed again once, after a backup, and says how many
schedules moved.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from recall.core import days
from recall.safekeeping import backups
from recall.scheduling import Scheduler, Schedulers, memory_of, replay_key
from recall.storage import Database


def name_time_zone(database: Database) -> None:
    """Store this computer's time zone in the preferences if none is stored yet, so that
    every computer counts this library's study days in the same zone."""
    with database.reading() as transaction:
        chosen = transaction.options.preferences()
    if chosen.time_zone:
        return
    with database.transaction() as transaction:
        stored = transaction.options.preferences()
        if not stored.time_zone:
            zone = days.machine_zone()
            transaction.options.set_preferences(dataclasses.replace(stored, time_zone=zone))


def replay_if_outdated(database: Database, now: datetime, schedulers: Schedulers) -> int | None:
    """Replay every card's history if its schedules were replayed with another replay or
    on other study days; a backup is made first when any card has a history.

    Args:
        database: The library.
        now: The time, aware UTC, naming the backup.
        schedulers: Replay each card under its deck's preset.

    Returns:
        How many schedules moved, or None when nothing needed replaying.

    Raises:
        BackupError: The backup could not be written; nothing was replayed.
    """
    with database.reading() as transaction:
        presets = transaction.options.deck_presets()
        key = replay_key(presets.days)
        if transaction.options.replayed_with() == key:
            return None
        studied = transaction.history.count() > 0
    if not studied:
        with database.transaction() as transaction:
            transaction.options.set_replayed_with(key)
        return None
    backups.make_backup(database, now, "before-replay")
    moved = 0
    with database.transaction() as transaction:
        presets = transaction.options.deck_presets()
        made: dict[int, Scheduler] = {}
        changed = []
        for (
            card_id,
            seed,
            deck_id,
            stored,
            history,
        ) in transaction.history.schedules_and_histories():
            scheduler = made.get(deck_id)
            if scheduler is None:
                scheduler = made[deck_id] = schedulers.for_deck(presets, deck_id)
            memory = scheduler.replay_raw(seed, history)
            if memory != stored:
                changed.append((card_id, memory_of(memory)))
        transaction.cards.set_memories(changed)
        moved = len(changed)
        transaction.options.set_replayed_with(replay_key(presets.days))
    return moved
