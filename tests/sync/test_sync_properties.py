"""Three devices, one sync folder, random work and random syncs: all end up the same.

A stateful property test: each step studies, edits, tags, deletes, suspends, forgets,
moves a card to another deck (and back) or imports on one device (each with its own clock
skew), or syncs one device. At the end every device syncs until nothing is new; then every
device has the same decks, cards, histories and schedules (each deck's JSON export and the
review log, byte for byte, equal on all; fuzz on) and ``recall check`` finds nothing on any.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.collection import importing
from recall.content.deck_format import parse_deck
from tests.conftest import DATA
from tests.helpers.sync_devices import Device

pytestmark = pytest.mark.slow  # a stateful property test over three databases

TINY = json.loads((DATA / "decks" / "tiny.json").read_text())
BASE = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)


def _variant(number: int) -> str:
    """The tiny deck with six more cards; variants 1 and 2 change a question and add one."""
    deck = json.loads(json.dumps(TINY))
    deck["cards"] += [
        {"id": f"c{number}", "type": "basic", "front": f"Card {number}", "back": "Back"}
        for number in range(6)
    ]
    if number:
        deck["cards"][0]["question"] = f"Two plus two (version {number})?"
        deck["cards"].append(
            {"id": f"n{number}", "type": "basic", "front": f"New {number}", "back": "Yes"}
        )
    return json.dumps(deck)


class ThreeDevices(RuleBasedStateMachine):
    """Three data folders sharing one sync folder."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="recall-sync-"))
        self.shared = self.root / "shared"
        self.shared.mkdir()
        self.devices: list[Device] = []
        self.skews: list[timedelta] = []
        self.minutes = 0
        self.rng = random.Random(0)

    @initialize(skews=st.lists(st.integers(-180, 180), min_size=3, max_size=3, unique=True))
    def start(self, skews: list[int]) -> None:
        for index, skew in enumerate(skews):
            self.devices.append(Device(self.root, f"device{index}", self.shared))
            self.skews.append(timedelta(minutes=skew))
        # The learner starts with a deck on the first device, synced to the others.
        importing.import_deck(self.devices[0].database, parse_deck(_variant(0), "t"), self.now(0))
        for index in range(3):
            self.sync(index)

    def now(self, index: int) -> datetime:
        """The device's own clock: the shared time plus its skew."""
        return BASE + timedelta(minutes=self.minutes) + self.skews[index]

    def card_of(self, index: int, pick: int) -> int | None:
        ids = self.devices[index].card_ids()
        return ids[pick % len(ids)] if ids else None

    @rule(minutes=st.integers(1, 600))
    def time_passes(self, minutes: int) -> None:
        self.minutes += minutes

    @rule(index=st.integers(0, 2), variant=st.integers(0, 2))
    def import_deck(self, index: int, variant: int) -> None:
        deck = parse_deck(_variant(variant), "tiny.json")
        importing.import_deck(self.devices[index].database, deck, self.now(index))

    @rule(index=st.integers(0, 2), count=st.integers(1, 3), seed=st.integers(0, 99))
    def study(self, index: int, count: int, seed: int) -> None:
        device = self.devices[index]
        if "tiny" in device.deck_keys():
            device.study("tiny", count, self.now(index), random.Random(seed))
        self.minutes += 1

    @rule(index=st.integers(0, 2), pick=st.integers(0, 50), text=st.sampled_from("abc"))
    def edit(self, index: int, pick: int, text: str) -> None:
        card_id = self.card_of(index, pick)
        if card_id is None:
            return
        device = self.devices[index]
        with device.database.reading() as transaction:
            content = transaction.cards.get(card_id).content
        data = editing.card_data(content)
        field = "question" if "question" in data else "front"
        data[field] = f"{data[field]} {text}"
        editing.edit_card(device.database, card_id, data, self.now(index))

    @rule(index=st.integers(0, 2), pick=st.integers(0, 50), tag=st.sampled_from(["x", "y"]))
    def tag(self, index: int, pick: int, tag: str) -> None:
        card_id = self.card_of(index, pick)
        if card_id is not None:
            self.devices[index].changes().tag([card_id], self.now(index), add=[tag])

    @rule(index=st.integers(0, 2), pick=st.integers(0, 50), suspended=st.booleans())
    def suspend(self, index: int, pick: int, suspended: bool) -> None:
        card_id = self.card_of(index, pick)
        if card_id is not None:
            self.devices[index].changes().suspend([card_id], suspended)

    @rule(index=st.integers(0, 2), pick=st.integers(0, 50))
    def forget(self, index: int, pick: int) -> None:
        card_id = self.card_of(index, pick)
        if card_id is not None:
            self.devices[index].changes().forget([card_id], self.now(index))
            self.minutes += 1

    @rule(index=st.integers(0, 2), pick=st.integers(0, 50))
    def delete(self, index: int, pick: int) -> None:
        if pick % 3:
            return  # deletions are final: keep them rarer than the rest, so cards are left
        card_id = self.card_of(index, pick)
        if card_id is not None:
            self.devices[index].changes().delete([card_id], self.now(index))

    @rule(
        index=st.integers(0, 2),
        pick=st.integers(0, 50),
        name=st.sampled_from(["Moved", "Other"]),
    )
    def move(self, index: int, pick: int, name: str) -> None:
        """Move a card to another deck (two devices apart may move one card to two), or
        from there back to the tiny deck."""
        card_id = self.card_of(index, pick)
        if card_id is None:
            return
        device = self.devices[index]
        with device.database.reading() as transaction:
            decks = {deck.name: deck for deck in transaction.browsing.decks()}
            here = transaction.cards.get(card_id).deck_id
        if name not in decks:
            deck_changes.new_deck(device.database, name, self.now(index))
            with device.database.reading() as transaction:
                decks = {deck.name: deck for deck in transaction.browsing.decks()}
        target = decks[name] if decks[name].id != here else decks.get("Tiny deck")
        if target is not None:
            device.changes().move([card_id], target)

    @rule(index=st.integers(0, 2))
    def sync(self, index: int) -> None:
        self.devices[index].sync(self.now(index))

    def teardown(self) -> None:
        try:
            if self.devices:
                self.converge()
        finally:
            for device in self.devices:
                device.close()
            shutil.rmtree(self.root, ignore_errors=True)

    def converge(self) -> None:
        # A day later every clock has passed every review: none waits for its time.
        self.minutes += 24 * 60
        for _ in range(3):
            for index in range(len(self.devices)):
                self.devices[index].sync(self.now(index))
        reference = self.devices[0]
        exports = self.root / "exports"
        for device in self.devices[1:]:
            assert device.deck_keys() == reference.deck_keys()
            assert device.review_log() == reference.review_log()
            assert device.schedules_by_key() == reference.schedules_by_key()
            assert device.deck_exports(exports) == reference.deck_exports(exports)
        reviews = len(reference.review_rows())
        event(f"reviews at the end: {'none' if not reviews else 'a few' if reviews < 8 else '8+'}")
        later = BASE + timedelta(minutes=self.minutes, hours=6)
        for device in self.devices:
            assert device.healthy(later) == []
            quiet = device.sync(later)
            assert not quiet.sent, quiet.sent


ThreeDevices.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_three_devices_converge = ThreeDevices.TestCase
