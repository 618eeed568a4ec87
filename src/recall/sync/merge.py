"""Merging other devices' events into this database: a union by id, the latest field wins.

Field events are merged per field by stamp (the device id breaks a tie), so applying the
same events again, in any order, from any subset of devices, leaves the same result. A
deletion is final for its key. Reviews are merged by ``merge_reviews.ReviewMerge``. Every
card whose history or preset changed is then replayed from its history. Changes stamped
too far ahead never reach here: the round holds them first (``incoming``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from recall.content.deck_format import is_card
from recall.core.errors import CancelledError
from recall.core.i18n import tr
from recall.core.memory import FUTURE_TOLERANCE
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.scheduling import Schedulers, memory_of
from recall.storage import Transaction
from recall.storage.sync_state import Fields, Identity
from recall.storage.times import to_micros
from recall.sync import moves, preset_names, seeds, values
from recall.sync.clock import Clock, earlier, newer
from recall.sync.events import DEFAULT_PRESET, FieldEvent, ReviewEvent, Unreview
from recall.sync.merge_reviews import ReviewMerge

_REPLAY_TICK = 200  # cards replayed between two reports of progress (and cancel checks)


@dataclass
class Merged:
    """What a merge changed here."""

    received: Counter[str] = field(default_factory=Counter)
    replayed: int = 0
    notes: list[str] = field(default_factory=list)


class Merger:
    """Applies events inside one transaction, with the outbox triggers quiet."""

    def __init__(
        self, transaction: Transaction, schedulers: Schedulers, clock: Clock, now: datetime
    ) -> None:
        self._tx = transaction
        self._schedulers = schedulers
        self._clock = clock
        self._now = now
        self._replay: set[int] = set()
        self._replay_decks: set[int] = set()
        micros = to_micros(now + FUTURE_TOLERANCE)
        assert micros is not None
        self.merged = Merged()
        self._reviews = ReviewMerge(
            transaction, self._replay, self.merged.received, self.merged.notes, micros
        )
        self._progress: Progress = no_progress
        self._cancelled: Cancelled = never_cancelled

    def apply(
        self,
        events: Iterable[FieldEvent | ReviewEvent | Unreview],
        progress: Progress = no_progress,
        cancelled: Cancelled = never_cancelled,
    ) -> Merged:
        """Apply events and replay every card they touched.

        Args:
            progress: Told the cards replayed against those to replay (from 0).
            cancelled: Asked while cards are replayed; when true, ``CancelledError`` is
                raised (the caller's transaction then changes nothing).
        """
        self._progress, self._cancelled = progress, cancelled
        by_type: dict[str, list[Any]] = {
            "preset": [],
            "deck": [],
            "card": [],
            "review": [],
            "unreview": [],
        }
        for event in events:
            if isinstance(event, FieldEvent):
                by_type[event.type].append(event)
                self._clock.observe(event.stamp)
            elif isinstance(event, ReviewEvent):
                by_type["review"].append(event)
            else:
                by_type["unreview"].append(event)
        self._tx.sync_state.quiet(True)
        for kind in ("preset", "deck", "card"):
            changed = self._stamp(kind, by_type[kind])
            getattr(self, f"_materialize_{kind}s")(changed)
        self._reviews.retract(by_type["unreview"])
        self._reviews.release(self._tx.sync_state.held_ready(self._reviews.latest))
        self._reviews.add(by_type["review"])
        self._replay_all()
        self._tx.sync_state.quiet(False)
        return self.merged

    def _stamp(self, kind: str, events: list[FieldEvent]) -> dict[Identity, Fields]:
        """Merge field events into the stored stamps; returns the entities that changed."""
        if not events:
            return {}
        identities: list[Identity] = list(dict.fromkeys((kind, *event.key) for event in events))
        known = self._tx.sync_state.entities(identities)
        changed: dict[Identity, Fields] = {}
        for event in events:
            identity: Identity = (kind, *event.key)
            fields = known.setdefault(identity, {})
            for name, value in event.fields.items():
                wins = earlier if name == values.SEED else newer
                if wins(event.stamp, event.device, value, fields.get(name)):
                    fields[name] = [event.stamp, event.device, value]
                    changed[identity] = fields
            self.merged.received[kind] += 1
        self._tx.sync_state.put_entities(changed.items())
        return changed

    # Presets

    def _materialize_presets(self, changed: dict[Identity, Fields]) -> None:
        uids = {uid: preset_id for preset_id, uid in self._tx.sync_state.preset_uids().items()}
        stored = self._tx.sync_local.presets()
        arrived: dict[str, int] = {}
        for (_, uid, _), fields in changed.items():
            preset_id = 1 if uid == DEFAULT_PRESET else uids.get(uid)
            if values.DELETED in fields:
                if preset_id is not None and preset_id != 1 and preset_id in stored:
                    self._replay_decks.update(self._tx.sync_local.delete_preset(preset_id))
                continue
            name = fields.get("name", [0, "", uid[:8]])[2]
            config = values.unwrap(values.CONFIG, fields)
            if preset_id in stored and stored[preset_id] == (name, config):
                continue
            made = self._tx.sync_local.put_preset(preset_id, name, config)
            if preset_id is None:
                self._tx.sync_state.set_preset_uid(made, uid)
                arrived[uid] = made
            self._replay_decks.update(
                deck_id
                for deck_id, *_rest, preset in self._tx.sync_local.decks().values()
                if preset == made
            )

        if arrived:
            self._point_decks_at(arrived)
        if changed:
            preset_names.name_alike(self._tx)

    def _point_decks_at(self, arrived: dict[str, int]) -> None:
        """Give the decks that chose a preset before it arrived here that preset now."""
        stored = self._tx.sync_local.decks()
        for (_, key, _), fields in self._tx.sync_state.all_entities("deck"):
            chosen = fields.get("preset")
            found = stored.get(key)
            if chosen is None or chosen[2] not in arrived or found is None:
                continue
            if values.DELETED not in fields and found[3] != arrived[chosen[2]]:
                self._tx.sync_local.set_deck_preset(found[0], arrived[chosen[2]])
                self._replay_decks.add(found[0])

    # Decks

    def _materialize_decks(self, changed: dict[Identity, Fields]) -> None:
        stored = self._tx.sync_local.decks(key for _, key, _ in changed)
        uids = {uid: preset_id for preset_id, uid in self._tx.sync_state.preset_uids().items()}
        for (_, key, _), fields in changed.items():
            found = stored.get(key)
            if values.DELETED in fields:
                if found is not None:
                    self._tx.sync_local.delete_deck(found[0])
                self._tx.sync_state.drop_held(key)
                continue
            name = fields.get("name", [0, "", key])[2]
            description = fields.get("description", [0, "", ""])[2]
            if found is None:
                deck_id = self._tx.sync_local.add_deck(key, name, description, self._now)
                preset_before = 1
            else:
                deck_id, old_name, old_description, preset_before = found
                if (old_name, old_description) != (name, description):
                    self._tx.sync_local.set_deck(deck_id, name, description, self._now)
            if "exam" in fields:
                self._tx.sync_local.set_exam_date(deck_id, fields["exam"][2] or None)
            if "preset" in fields:
                uid = fields["preset"][2]
                preset_id = 1 if uid == DEFAULT_PRESET else uids.get(uid, 1)
                if preset_id != preset_before:
                    self._tx.sync_local.set_deck_preset(deck_id, preset_id)
                    self._replay_decks.add(deck_id)

    # Cards

    def _materialize_cards(self, changed: dict[Identity, Fields]) -> None:
        if not changed:
            return
        moves.settle_copies(self._tx, changed)
        moves.forward(self._tx, changed)
        stored = self._tx.sync_local.cards((deck, card) for _, deck, card in changed)
        decks = self._tx.sync_local.decks()
        self._replay.update(moves.follow(self._tx, changed, stored, decks, self._now))
        deck_stamps = self._tx.sync_state.entities({("deck", deck, "") for _, deck, _ in changed})
        gone = {
            identity
            for identity, fields in changed.items()
            if values.gone(fields)
            or values.DELETED in deck_stamps.get(("deck", identity[1], ""), {})
        }
        # Deletions first: a card moved to another deck arrives under new keys with its
        # seed while its old keys are deleted, and the seed must be free when it arrives.
        for identity, fields in sorted(changed.items(), key=lambda item: item[0] not in gone):
            _, deck_key, card_key = identity
            found = stored.get((deck_key, card_key))
            if identity in gone:
                if found is not None:
                    self._tx.sync_local.delete_cards([found[0]])
                if moves.moved_to(self._tx, (deck_key, card_key)) is None:
                    # Reviews waiting under keys the card moved away from follow it.
                    self._tx.sync_state.drop_held(deck_key, card_key)
                continue
            columns = values.card_columns(fields, found[1]["content"] if found else None)
            if columns is None:
                continue  # its first event has not arrived yet
            if (found is None or columns["content"] != found[1]["content"]) and not is_card(
                columns["content"]
            ):
                self.merged.notes.append(
                    tr(
                        "card {card}: what another computer sent is not a card Recall can show; "
                        "left as it was"
                    ).format(card=f"{deck_key}/{card_key}")
                )
                continue
            if found is None:
                if deck_key not in decks:
                    # The deck's own event is still on its way: it gets its name then.
                    deck_id = self._tx.sync_local.add_deck(deck_key, deck_key, "", self._now)
                    decks[deck_key] = (deck_id, deck_key, "", 1)
                if values.SEED in columns:
                    columns[values.SEED] = seeds.claim(
                        self._tx,
                        columns[values.SEED],
                        (deck_key, card_key),
                        _stamp(fields),
                        None,
                        self._replay,
                    )
                card_id = self._tx.sync_local.add_card(
                    decks[deck_key][0], card_key, columns, self._now
                )
                self._reviews.release(
                    self._tx.sync_state.held(deck_key, card_key), {(deck_key, card_key): card_id}
                )
            else:
                card_id, old = found
                different = {name: value for name, value in columns.items() if old[name] != value}
                if values.SEED in different:
                    # The card came here on its own too (the same deck installed or imported
                    # on both): it takes the seed every device settles on, and is replayed.
                    different[values.SEED] = seeds.claim(
                        self._tx,
                        different[values.SEED],
                        (deck_key, card_key),
                        _stamp(fields),
                        card_id,
                        self._replay,
                    )
                    self._replay.add(card_id)
                if different:
                    self._tx.sync_local.set_card(card_id, different, self._now)

    # Reviews

    # Replay

    def _replay_all(self) -> None:
        cards = set(self._replay)
        if self._replay_decks:
            cards.update(self._tx.sync_local.card_ids_of_decks(self._replay_decks))
        if not cards:
            return
        tx = self._tx
        presets = tx.options.deck_presets()
        memories = []
        total, done = len(cards), 0
        self._progress(0, total)
        # Many cards (a first sync) are read in one pass over each table, a few one by one.
        only = None if len(cards) > 2_000 else cards
        for card_id, seed, deck_id, schedule, history in tx.history.schedules_and_histories(only):
            if card_id not in cards:
                continue
            memory = self._schedulers.for_deck(presets, deck_id).replay_raw(seed, history)
            if memory != schedule:
                memories.append((card_id, memory_of(memory)))
            done += 1
            if done % _REPLAY_TICK == 0:
                self._progress(done, total)
                if self._cancelled():
                    raise CancelledError(tr("sync stopped; nothing was received"))
        self._progress(total, total)
        tx.cards.set_memories(memories)
        self.merged.replayed = len(cards)


def _stamp(fields: Fields) -> tuple[int, str]:
    """When a card's seed was sent, and by which device."""
    stamp, device, _ = fields[values.SEED]
    return int(stamp), str(device)
