"""This device's changes as events: what the outbox names, compared with what was last sent.

The outbox (filled by triggers) only says which decks, cards, presets and reviews changed;
the events say how they stand now against the fields last stamped, so a change made and
undone between two rounds sends nothing. A snapshot (the first round, or after this
device's folder was lost) sends everything the database holds, with the stamps it has.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from recall.scheduling import Schedulers
from recall.storage import Transaction
from recall.storage.sync_local import review_event_values
from recall.storage.sync_state import Fields, Identity
from recall.sync import moves, seeds, values
from recall.sync.clock import Clock
from recall.sync.events import DEFAULT_PRESET, field_event

_PREFIX = {"card": values.CONTENT, "preset": values.CONFIG, "deck": None}


@dataclass
class Outgoing:
    """The events of one round, by kind, and what else the round learned.

    Attributes:
        fields: Field events (presets, then decks, then cards).
        reviews: Review ids to send; ``unreviews`` those taken back.
        redeleted: Cards or decks made here again after another device deleted them
            for good: removed again, by key.
        all_reviews: Send every review there is (a snapshot), not only ``reviews``.
    """

    fields: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[str] = field(default_factory=list)
    unreviews: list[str] = field(default_factory=list)
    redeleted: list[Identity] = field(default_factory=list)
    all_reviews: bool = False


class Collector:
    """Turns this device's changes into events, stamping and remembering each field sent."""

    def __init__(
        self, transaction: Transaction, device: str, clock: Clock, schedulers: Schedulers
    ) -> None:
        self._tx = transaction
        self._device = device
        self._clock = clock
        self._schedulers = schedulers
        self._preset_uids = transaction.sync_state.preset_uids()
        self._exams: dict[str, str] | None = None  # each deck's exam day, read when first needed

    def changes(self, upto: int, snapshot: bool, now_micros: int) -> Outgoing:
        """The events for the outbox up to ``upto``, or for everything when ``snapshot``."""
        out = Outgoing()
        if snapshot:
            self._snapshot(out, upto)
            return out
        decks: dict[str, int] = {}
        cards: dict[tuple[str, str], int] = {}
        presets: dict[int, int] = {}
        added: dict[str, int] = {}
        removed: set[str] = set()
        deck_ids: dict[int, int] = {}
        card_ids: dict[int, int] = {}
        for row in self._tx.sync_state.outbox(upto):
            if row.kind == "deck":
                deck_ids[row.row_id] = row.at
                if row.detail is not None:
                    decks[row.detail] = row.at
            elif row.kind == "card":
                card_ids[row.row_id] = row.at
                if row.detail is not None:
                    deck_key, card_key = json.loads(row.detail)
                    if deck_key is not None:
                        cards[(deck_key, card_key)] = row.at
            elif row.kind == "preset":
                presets[row.row_id] = row.at
            elif row.kind == "review" and row.detail is not None:
                added[row.detail] = row.at
            elif row.kind == "unreview" and row.detail is not None:
                removed.add(row.detail)
        for key, (deck_id, *_rest) in self._tx.sync_local.decks().items():
            if deck_id in deck_ids:
                decks[key] = max(decks.get(key, 0), deck_ids[deck_id])
        now_keys = self._tx.sync_local.card_keys(card_ids)
        for card_id, identity in now_keys.items():
            cards[identity] = max(cards.get(identity, 0), card_ids[card_id])
        # A card under other keys than it had (moved to another deck): its old keys'
        # deletion says where it went, so what others did to it meanwhile follows it.
        moved = moves.moved_since_sent(self._tx, self._tx.sync_state.outbox(upto))
        self._presets(out, presets)
        self._decks(out, decks)
        self._cards(out, cards, moved)
        existing = self._tx.sync_local.existing_uids(sorted({*added, *removed}))
        out.reviews = sorted(
            {*out.reviews, *(uid for uid in {*added, *removed} if uid in existing)}
        )
        out.unreviews = sorted(uid for uid in removed - existing - set(added))
        self._tx.sync_state.retract(out.unreviews)
        return out

    # Each kind

    def _presets(self, out: Outgoing, changed: dict[int, int]) -> None:
        stored = self._tx.sync_local.presets()
        current: dict[Identity, dict[str, Any] | None] = {}
        at: dict[Identity, int] = {}
        for preset_id, when in changed.items():
            identity: Identity = ("preset", self._preset_uid(preset_id), "")
            current[identity] = (
                self._preset_values(stored[preset_id]) if preset_id in stored else None
            )
            at[identity] = when
        self._send(out, "preset", current, at)

    def _decks(self, out: Outgoing, changed: dict[str, int]) -> None:
        stored = self._tx.sync_local.decks(changed)
        current: dict[Identity, dict[str, Any] | None] = {}
        for key in changed:
            found = stored.get(key)
            current[("deck", key, "")] = None if found is None else self._deck_values(key, found)
        self._send(out, "deck", current, {("deck", key, ""): at for key, at in changed.items()})

    def _cards(
        self,
        out: Outgoing,
        changed: dict[tuple[str, str], int],
        moved: dict[Identity, list[str]],
    ) -> None:
        stored = self._tx.sync_local.cards(changed)
        known = self._tx.sync_state.entities({("card", *identity) for identity in changed})
        # A card made here again under keys that already have a seed (imported again after
        # it moved to another deck) takes that seed; if the moved card holds it, one worked
        # out of it and the key, as every device works it out (``SyncLocalQueries.free_seed``).
        settle: dict[int, tuple[int, seeds.Stamp]] = {}
        for identity, (card_id, columns) in stored.items():
            held = known.get(("card", *identity), {}).get(values.SEED)
            if held is not None and held[2] != columns[values.SEED]:
                settle[card_id] = (held[2], (int(held[0]), str(held[1])))
        if settle:
            seeds.settle(self._tx, self._schedulers, settle)
            stored = self._tx.sync_local.cards(changed)
        current: dict[Identity, dict[str, Any] | None] = {}
        for identity in changed:
            found = stored.get(identity)
            current[("card", *identity)] = None if found is None else values.card_fields(found[1])
        # A card new to the others that already has a history (moved here from another
        # deck, under new keys) sends its history with it, named by its new keys.
        arrived = [
            stored[identity][0]
            for identity in changed
            if identity in stored and not known.get(("card", *identity))
        ]
        out.reviews += self._tx.sync_local.review_uids_of(arrived)
        whole = moves.inherit(self._tx, known, moved)
        self._moved_from(current, whole)
        self._send(
            out,
            "card",
            current,
            {("card", *key): at for key, at in changed.items()},
            known,
            moved,
            whole=frozenset(whole),
        )

    @staticmethod
    def _moved_from(
        current: dict[Identity, dict[str, Any] | None], inherited: dict[Identity, list[str]]
    ) -> None:
        """Name in each card moved here the keys it came from (its ``from`` field)."""
        for identity, before in inherited.items():
            found = current.get(identity)
            if found is not None:
                found[values.FROM] = before

    def _send(
        self,
        out: Outgoing,
        kind: str,
        current: dict[Identity, dict[str, Any] | None],
        at: dict[Identity, int],
        stamped: dict[Identity, Fields] | None = None,
        moved: dict[Identity, list[str]] | None = None,
        everything: bool = False,
        whole: frozenset[Identity] = frozenset(),
    ) -> None:
        """Stamp and send what changed of each entity (of ``whole`` ones, and of all when
        ``everything``, every field, each with its stamp)."""
        known = self._tx.sync_state.entities(current) if stamped is None else stamped
        updates: list[tuple[Identity, Fields]] = []
        for identity, now in current.items():
            fields = known.get(identity, {})
            if values.DELETED in fields:
                if now is not None:  # made here again after a deletion that is final
                    out.redeleted.append(identity)
                if everything:
                    out.fields += self._events(kind, identity, fields)
                continue
            if now is None:
                if not fields:
                    continue  # made and deleted between two rounds: nothing to send
                if values.MERGED in fields:
                    # A copy merged into the card another device's move put elsewhere.
                    if everything:
                        out.fields += self._events(kind, identity, fields)
                    continue
                change: dict[str, Any] = {values.DELETED: True}
                if moved and identity in moved:
                    change[values.MOVED] = moved[identity]
                elif kind == "card":
                    change[values.GONE] = True
            else:
                if kind == "deck" and "exam" in fields and "exam" not in now:
                    now = {**now, "exam": ""}  # the exam day taken away since it was sent
                change = values.changed(now, fields, _PREFIX[kind])
            if change:
                stamp = self._clock.tick(at[identity])
                for name, value in change.items():
                    fields[name] = [stamp, self._device, value]
                updates.append((identity, fields))
            if everything or identity in whole:
                out.fields += self._events(kind, identity, fields)
            elif change:
                out.fields.append(self._event(kind, identity, stamp, self._device, change))
        self._tx.sync_state.put_entities(updates)

    def _events(self, kind: str, identity: Identity, fields: Fields) -> list[dict[str, Any]]:
        """Every stamped field of an entity, one event per stamp that set some."""
        groups: dict[tuple[int, str], dict[str, Any]] = {}
        for name, (stamp, device, value) in fields.items():
            if name != values.MERGED:  # worked out by each device, not sent
                groups.setdefault((stamp, device), {})[name] = value
        return [
            self._event(kind, identity, stamp, device, group)
            for (stamp, device), group in sorted(groups.items())
        ]

    @staticmethod
    def _event(
        kind: str, identity: Identity, stamp: int, device: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        return field_event(secrets.token_hex(16), kind, stamp, device, identity[1:], fields)

    # A snapshot: everything

    def _snapshot(self, out: Outgoing, upto: int) -> None:
        tx = self._tx
        when = self._change_times(upto)
        stored_presets = tx.sync_local.presets()
        presets: dict[Identity, dict[str, Any] | None] = {
            ("preset", self._preset_uid(preset_id), ""): self._preset_values(found)
            for preset_id, found in stored_presets.items()
        }
        decks: dict[Identity, dict[str, Any] | None] = {
            ("deck", key, ""): self._deck_values(key, found)
            for key, found in tx.sync_local.decks().items()
        }
        # A card whose keys were sent a seed takes it first (as ``_cards`` does).
        card_stamps = dict(tx.sync_state.all_entities("card"))
        settle: dict[int, tuple[int, seeds.Stamp]] = {}
        for card_id, card_keys, columns in tx.sync_local.all_cards():
            held = card_stamps.get(("card", *card_keys), {}).get(values.SEED)
            if held is not None and held[2] != columns[values.SEED]:
                settle[card_id] = (held[2], (int(held[0]), str(held[1])))
        if settle:
            seeds.settle(tx, self._schedulers, settle)
        cards: dict[Identity, dict[str, Any] | None] = {
            ("card", *identity): values.card_fields(columns)
            for _id, identity, columns in tx.sync_local.all_cards()
        }
        moved = moves.moved_since_sent(tx, tx.sync_state.outbox(upto))
        for kind, current in (("preset", presets), ("deck", decks), ("card", cards)):
            stamped = dict(tx.sync_state.all_entities(kind))
            for identity in stamped:
                current.setdefault(identity, None)
            if kind == "card":
                self._moved_from(current, moves.inherit(tx, stamped, moved))
            # Each field stamped when it was changed here (as far as the outbox says; what
            # is older, when this device was made), not now: of the same deck imported on
            # two computers before they first synced, a rename made on one still wins.
            at = {identity: when.get(identity, 0) for identity in current}
            self._send(out, kind, current, at, stamped, moved, everything=True)
        out.all_reviews = True
        out.unreviews = sorted(tx.sync_state.retracted_all())

    def _change_times(self, upto: int) -> dict[Identity, int]:
        """When each deck, card and preset the outbox names last changed here."""
        when: dict[Identity, int] = {}
        deck_ids: dict[int, int] = {}
        card_ids: dict[int, int] = {}

        def note(identity: Identity, at: int) -> None:
            when[identity] = max(when.get(identity, 0), at)

        for row in self._tx.sync_state.outbox(upto):
            if row.kind == "deck":
                deck_ids[row.row_id] = max(deck_ids.get(row.row_id, 0), row.at)
            elif row.kind == "card":
                card_ids[row.row_id] = max(card_ids.get(row.row_id, 0), row.at)
            elif row.kind == "preset":
                note(("preset", self._preset_uid(row.row_id), ""), row.at)
        for key, (deck_id, *_rest) in self._tx.sync_local.decks().items():
            if deck_id in deck_ids:
                note(("deck", key, ""), deck_ids[deck_id])
        for card_id, identity in self._tx.sync_local.card_keys(card_ids).items():
            note(("card", *identity), card_ids[card_id])
        return when

    # Values

    def _preset_uid(self, preset_id: int) -> str:
        if preset_id == 1:
            return DEFAULT_PRESET
        uid = self._preset_uids.get(preset_id)
        if uid is None:
            uid = self._preset_uids[preset_id] = secrets.token_hex(16)
            self._tx.sync_state.set_preset_uid(preset_id, uid)
        return uid

    @staticmethod
    def _preset_values(found: tuple[str, dict[str, Any]]) -> dict[str, Any]:
        name, config = found
        return {"name": name, **values.wrapped_fields(values.CONFIG, config)}

    def _deck_values(self, key: str, found: tuple[int, str, str, int]) -> dict[str, Any]:
        _id, name, description, preset_id = found
        out = {"name": name, "description": description, "preset": self._preset_uid(preset_id)}
        exam = self._exam_dates().get(key)
        if exam is not None:  # a deck that never had one sends no field for it
            out["exam"] = exam
        return out

    def _exam_dates(self) -> dict[str, str]:
        if self._exams is None:
            self._exams = self._tx.sync_local.exam_dates()
        return self._exams


def review_events(transaction: Transaction, out: Outgoing) -> Iterator[dict[str, Any]]:
    """The review and unreview events of a round, read as they are written."""
    rows = (
        transaction.sync_local.all_reviews()
        if out.all_reviews
        else iter(transaction.sync_local.reviews(out.reviews))
    )
    for row in rows:
        yield {"type": "review", **review_event_values(row)}
    for uid in out.unreviews:
        yield {"type": "unreview", "id": secrets.token_hex(16), "review": uid}
