"""Sync's own state: this device, the outbox of changes, field stamps, files read, held reviews.

The tables are declared in ``tables.py`` (schema 10); ``sync_local.py`` reads and writes the
decks, cards and reviews themselves as sync sees them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from recall.storage.sql import Sql

Fields = dict[str, list[Any]]  # field -> [stamp, device, value]
Identity = tuple[str, str, str]  # kind, deck key (or preset id), card key ('' for a deck)


@dataclass(frozen=True, slots=True)
class DeviceRow:
    """This device: its id, name, clock, sync folder and the number of its next file."""

    id: str
    name: str
    clock: int
    folder: str | None
    next_file: int
    last_sync: int | None
    owes_snapshot: bool = False


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """One change noted by a trigger."""

    seq: int
    kind: str
    row_id: int
    detail: str | None
    at: int


class SyncStateQueries:
    """Reads and writes of sync's own tables, within the caller's transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql
        # Where the cards moved away from keys live now, as ``sync.moves`` worked it out of
        # the stamped fields this transaction sees (keys, and whether copies merged count);
        # emptied whenever those fields change, so it never answers from old ones.
        self.move_targets: dict[tuple[tuple[str, str], bool], tuple[str, str] | None] = {}

    # This device

    def device(self) -> DeviceRow | None:
        """This device, if sync has ever run here."""
        rows = self._sql.rows(
            "SELECT id, name, clock, folder, next_file, last_sync, owes_snapshot "
            "FROM sync_device LIMIT 1"
        )
        if not rows:
            return None
        id_, name, clock, folder, next_file, last_sync, owes_snapshot = rows[0]
        return DeviceRow(id_, name, clock, folder, next_file, last_sync, bool(owes_snapshot))

    def create_device(self, device_id: str, name: str, clock: int) -> DeviceRow:
        """Make this device's row (once)."""
        self._sql.run(
            "INSERT INTO sync_device (id, name, clock, folder, next_file, owes_snapshot) "
            "VALUES (?, ?, ?, NULL, 1, 0)",
            (device_id, name, clock),
        )
        device = self.device()
        assert device is not None
        return device

    def update_device(self, **values: object) -> None:
        """Change some of this device's columns (name, clock, folder, next_file, last_sync,
        owes_snapshot)."""
        allowed = {"name", "clock", "folder", "next_file", "last_sync", "owes_snapshot"}
        if not values or not set(values) <= allowed:
            raise ValueError(f"cannot set {sorted(values)}")
        assignments = ", ".join(f"{column} = ?" for column in values)
        self._sql.run(f"UPDATE sync_device SET {assignments}", tuple(values.values()))

    # Changes noted by the triggers

    def outbox_end(self) -> int:
        """The sequence number of the newest change noted (0 if none)."""
        return int(self._sql.value("SELECT coalesce(max(seq), 0) FROM sync_outbox"))

    def outbox(self, upto: int) -> list[OutboxRow]:
        """The changes noted up to ``upto``, oldest first."""
        rows = self._sql.rows(
            "SELECT seq, kind, row_id, detail, at FROM sync_outbox WHERE seq <= ? ORDER BY seq",
            (upto,),
        )
        return [OutboxRow(*row) for row in rows]

    def clear_outbox(self, upto: int) -> None:
        """Forget the changes noted up to ``upto``: they have been sent."""
        self._sql.run("DELETE FROM sync_outbox WHERE seq <= ?", (upto,))

    def quiet(self, on: bool) -> None:
        """Turn the outbox triggers off (while others' events are applied) or on again."""
        if on:
            self._sql.run("INSERT OR IGNORE INTO sync_quiet (id) VALUES (1)")
        else:
            self._sql.run("DELETE FROM sync_quiet")

    # Field stamps

    def entities(self, identities: Iterable[Identity]) -> dict[Identity, Fields]:
        """The stamped fields of each entity known (missing ones left out)."""
        found: dict[Identity, Fields] = {}
        for identity in identities:
            value = self._sql.value(
                "SELECT fields FROM sync_entity WHERE kind = ? AND deck_key = ? AND card_key = ?",
                identity,
            )
            if value is not None:
                found[identity] = json.loads(value)
        return found

    def all_entities(self, kind: str) -> Iterator[tuple[Identity, Fields]]:
        """Every entity of a kind with its stamped fields."""
        for deck_key, card_key, fields in self._sql.each(
            "SELECT deck_key, card_key, fields FROM sync_entity WHERE kind = ?", (kind,)
        ):
            yield (kind, deck_key, card_key), json.loads(fields)

    def deleted_card_keys(self, deck_key: str) -> set[str]:
        """The keys of a deck's cards deleted for good, moved away, or merged into a copy
        elsewhere (keys that must not be used again)."""
        return {
            str(row[0])
            for row in self._sql.rows(
                "SELECT card_key FROM sync_entity WHERE kind = 'card' AND deck_key = ? "
                "AND (json_extract(fields, '$.deleted') IS NOT NULL "
                "OR json_extract(fields, '$.merged') IS NOT NULL)",
                (deck_key,),
            )
        }

    def sent_card_keys(self, deck_key: str) -> set[str]:
        """The keys of a deck's cards that were ever sent or received (alive or deleted):
        keys the other devices know, which no other card may take."""
        return {
            str(row[0])
            for row in self._sql.rows(
                "SELECT card_key FROM sync_entity WHERE kind = 'card' AND deck_key = ?",
                (deck_key,),
            )
        }

    def moved_from(self) -> dict[tuple[str, str], tuple[str, str]]:
        """Cards' keys -> the keys they were moved from (the ``from`` field), for every card
        that came to its keys by a move."""
        return {
            (str(deck), str(card)): (str(old_deck), str(old_card))
            for deck, card, old_deck, old_card in self._sql.rows(
                "SELECT deck_key, card_key, json_extract(fields, '$.from[2][0]'), "
                "json_extract(fields, '$.from[2][1]') FROM sync_entity WHERE kind = 'card' "
                "AND json_extract(fields, '$.from') IS NOT NULL"
            )
        }

    def put_entities(self, entities: Iterable[tuple[Identity, Fields]]) -> None:
        """Store entities' stamped fields."""
        self.move_targets.clear()
        self._sql.run_many(
            "INSERT INTO sync_entity (kind, deck_key, card_key, fields) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kind, deck_key, card_key) DO UPDATE SET fields = excluded.fields",
            (
                (*identity, json.dumps(fields, ensure_ascii=False, separators=(",", ":")))
                for identity, fields in entities
            ),
        )

    # Files in the sync folder

    def files(self) -> dict[tuple[str, str], tuple[int, bool]]:
        """(device, file name) -> (bytes read or written, written here)."""
        return {
            (device, name): (int(offset), bool(own))
            for device, name, offset, own in self._sql.rows(
                'SELECT device, name, "offset", own FROM sync_file'
            )
        }

    def set_file(self, device: str, name: str, offset: int, own: bool = False) -> None:
        """Remember how far a file was read (or that this device wrote it, whole)."""
        self._sql.run(
            'INSERT INTO sync_file (device, name, "offset", own) VALUES (?, ?, ?, ?) '
            'ON CONFLICT (device, name) DO UPDATE SET "offset" = excluded."offset", '
            "own = excluded.own",
            (device, name, offset, own),
        )

    def forget_files(self, device: str, names: Sequence[str]) -> None:
        """Forget files that are gone from the folder."""
        self._sql.run_many(
            "DELETE FROM sync_file WHERE device = ? AND name = ?", [(device, n) for n in names]
        )

    # Devices seen

    def saw_device(self, device_id: str, name: str, last_file: str) -> None:
        """Remember a device whose files were read, by its latest name."""
        self._sql.run(
            "INSERT INTO sync_seen_device (id, name, last_file) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_file = "
            "max(sync_seen_device.last_file, excluded.last_file)",
            (device_id, name, last_file),
        )

    def seen_devices(self) -> list[tuple[str, str]]:
        """(id, name) of every other device whose files were read, by name."""
        return [
            (str(id_), str(name))
            for id_, name in self._sql.rows("SELECT id, name FROM sync_seen_device ORDER BY name")
        ]

    # Reviews waiting for their card, and reviews taken back

    def hold(self, reviews: Iterable[tuple[str, str, str, str]]) -> None:
        """Keep reviews (uid, deck key, card key, event JSON) until their card arrives (one
        already held with the same uid is replaced)."""
        self._sql.run_many(
            "INSERT INTO sync_held_review (uid, deck_key, card_key, event) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (uid) DO UPDATE SET deck_key = excluded.deck_key, "
            "card_key = excluded.card_key, event = excluded.event",
            reviews,
        )

    def held_by_uid(self, uids: Sequence[str]) -> dict[str, str]:
        """The held review events with these uids, as JSON, by uid."""
        found: dict[str, str] = {}
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            found.update(
                (str(uid), str(event))
                for uid, event in self._sql.rows(
                    f"SELECT uid, event FROM sync_held_review WHERE uid IN ({marks})", chunk
                )
            )
        return found

    def held(self, deck_key: str | None = None, card_key: str | None = None) -> list[str]:
        """The held review events of a card (or all of them), as JSON; they stay held
        until ``unhold``."""
        if deck_key is None:
            rows = self._sql.rows("SELECT event FROM sync_held_review ORDER BY uid")
        else:
            rows = self._sql.rows(
                "SELECT event FROM sync_held_review WHERE deck_key = ? AND card_key = ? "
                "ORDER BY uid",
                (deck_key, card_key),
            )
        return [row[0] for row in rows]

    def held_ready(self, latest: int) -> list[str]:
        """The held review events that may be stored now, as JSON, by uid: those whose time
        (``at``, UTC microseconds) is at most ``latest`` and whose card is here or was heard
        of (moved, deleted). Reviews of cards never heard of stay held unread: the card's
        arrival releases them (``held`` of that card), so an idle round reads none of them.
        """
        rows = self._sql.rows(
            "SELECT held.event FROM sync_held_review AS held "
            "WHERE json_extract(held.event, '$.at') <= ? AND ("
            "EXISTS (SELECT 1 FROM card JOIN deck ON deck.id = card.deck_id "
            "WHERE deck.key = held.deck_key AND card.key = held.card_key) "
            "OR EXISTS (SELECT 1 FROM sync_entity AS entity WHERE entity.kind = 'card' "
            "AND entity.deck_key = held.deck_key AND entity.card_key = held.card_key)) "
            "ORDER BY held.uid",
            (latest,),
        )
        return [row[0] for row in rows]

    def unhold(self, uids: Iterable[str]) -> None:
        """Take reviews out of the held ones (they were stored)."""
        self._sql.run_many("DELETE FROM sync_held_review WHERE uid = ?", ((uid,) for uid in uids))

    def drop_held(self, deck_key: str, card_key: str | None = None) -> None:
        """Drop the held reviews of a card (or of every card of a deck) deleted for good."""
        if card_key is None:
            self._sql.run("DELETE FROM sync_held_review WHERE deck_key = ?", (deck_key,))
        else:
            self._sql.run(
                "DELETE FROM sync_held_review WHERE deck_key = ? AND card_key = ?",
                (deck_key, card_key),
            )

    def held_count(self) -> int:
        """How many reviews wait for their card."""
        return int(self._sql.value("SELECT count(*) FROM sync_held_review"))

    def retract(self, uids: Iterable[str]) -> None:
        """Remember reviews taken back on some device."""
        self._sql.run_many(
            "INSERT OR IGNORE INTO sync_retracted (uid) VALUES (?)", ((uid,) for uid in uids)
        )

    def retracted(self, uids: Sequence[str]) -> set[str]:
        """Which of these reviews were taken back."""
        found: set[str] = set()
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            found.update(
                row[0]
                for row in self._sql.rows(
                    f"SELECT uid FROM sync_retracted WHERE uid IN ({marks})", chunk
                )
            )
        return found

    def retracted_all(self) -> Iterator[str]:
        """Every review taken back."""
        return (row[0] for row in self._sql.each("SELECT uid FROM sync_retracted"))

    # Changes stamped far ahead, files to read again, events waiting to be written

    def hold_changes(self, changes: Iterable[tuple[str, int, str]]) -> None:
        """Keep changes (event id, stamp, event JSON) until this computer's clock nears them."""
        self._sql.run_many(
            "INSERT OR IGNORE INTO sync_held_change (id, stamp, event) VALUES (?, ?, ?)", changes
        )

    def release_changes(self, upto: int) -> list[str]:
        """Take out the held changes stamped at most ``upto``; returns them, as JSON."""
        rows = self._sql.rows(
            "SELECT id, event FROM sync_held_change WHERE stamp <= ? ORDER BY stamp, id", (upto,)
        )
        self._sql.run_many("DELETE FROM sync_held_change WHERE id = ?", ((r[0],) for r in rows))
        return [row[1] for row in rows]

    def held_changes(self) -> tuple[int, int | None]:
        """How many changes are held, and the earliest stamp among them."""
        count, earliest = self._sql.rows("SELECT count(*), min(stamp) FROM sync_held_change")[0]
        return int(count), None if earliest is None else int(earliest)

    def revisits(self) -> dict[tuple[str, str], tuple[int, str]]:
        """(device, file) -> (offset to read again from, the event types known then)."""
        return {
            (device, name): (int(offset), str(known))
            for device, name, offset, known in self._sql.rows(
                'SELECT device, name, "offset", known FROM sync_revisit'
            )
        }

    def set_revisit(self, device: str, name: str, offset: int, known: str) -> None:
        """Note a file to read again from ``offset`` once other event types are known."""
        self._sql.run(
            'INSERT INTO sync_revisit (device, name, "offset", known) VALUES (?, ?, ?, ?) '
            'ON CONFLICT (device, name) DO UPDATE SET "offset" = '
            'min(sync_revisit."offset", excluded."offset"), known = excluded.known',
            (device, name, offset, known),
        )

    def forget_revisit(self, device: str, name: str) -> None:
        """The file is being read again (or is gone): no longer noted."""
        self._sql.run("DELETE FROM sync_revisit WHERE device = ? AND name = ?", (device, name))

    def keep_pending(self, events: Iterable[str]) -> int:
        """Keep events (JSON) to write at the next round that can; returns how many."""
        rows = [(event,) for event in events]
        self._sql.run_many("INSERT INTO sync_pending (event) VALUES (?)", rows)
        return len(rows)

    def pending(self) -> Iterator[str]:
        """The events waiting to be written, oldest first, as JSON."""
        return (row[0] for row in self._sql.each("SELECT event FROM sync_pending ORDER BY seq"))

    def pending_count(self) -> int:
        """How many events wait to be written."""
        return int(self._sql.value("SELECT count(*) FROM sync_pending"))

    def clear_pending(self) -> None:
        """Forget the waiting events: written (or a round sending everything holds them)."""
        self._sql.run("DELETE FROM sync_pending")

    # Presets' ids on every device

    def preset_uids(self) -> dict[int, str]:
        """Local preset id -> its id on every device."""
        return {int(p): str(u) for p, u in self._sql.rows("SELECT preset_id, uid FROM sync_preset")}

    def set_preset_uid(self, preset_id: int, uid: str) -> None:
        """Give a local preset its id on every device."""
        self._sql.run(
            "INSERT INTO sync_preset (preset_id, uid) VALUES (?, ?) ON CONFLICT (preset_id) "
            "DO UPDATE SET uid = excluded.uid",
            (preset_id, uid),
        )
