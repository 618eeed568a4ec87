"""Reviews arriving in awkward orders: two versions of one review (the same card answered
with the same rating at the same instant on two computers, each from its own state
before) settle on one, the same everywhere, however they arrive; a review waiting for its
time and taken back meanwhile never comes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import Rating
from recall.study.session import StudySession
from tests.helpers.sync_devices import Device, converged

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
ONE = json.dumps(
    {
        "format": "recall-deck",
        "version": 1,
        "id": "one",
        "name": "One",
        "cards": [{"id": "a", "type": "basic", "front": "Front", "back": "Back"}],
    }
)


def _answer(device: Device, moment: datetime) -> None:
    session = StudySession(device.database, device.schedulers, "one")
    shown = session.next_card(moment)
    assert shown is not None
    session.record(session.reveal(shown, moment), Rating.AGAIN, moment)


@pytest.mark.parametrize("tablet_behind", [False, True], ids=["at-once", "held-first"])
def test_two_versions_of_one_review_settle_on_one_everywhere(
    trio: tuple[Device, Device, Device], tmp_path: Path, tablet_behind: bool
) -> None:
    laptop, desktop, tablet = trio
    # Folders are read in the order of their ids: the desktop's version, the greater,
    # comes first.
    for device, device_id in ((desktop, "1" * 32), (laptop, "2" * 32), (tablet, "3" * 32)):
        with device.database.transaction() as transaction:
            transaction.sync_state.create_device(device_id, device.name, 0)
    importing.import_deck(laptop.database, parse_deck(ONE, "one.json"), START)
    for device in trio:
        device.sync(START)
    moment = START + timedelta(hours=1)
    _answer(desktop, moment - timedelta(minutes=10))
    _answer(desktop, moment)  # learning before: state 1
    _answer(laptop, moment)  # new before: state 0; the same card, time and rating
    laptop.sync(moment)
    desktop.sync(moment)
    # The tablet reads both at once; or, its clock behind, holds both until their time.
    tablet.sync(START if tablet_behind else moment)
    later = moment + timedelta(days=1)
    for _ in range(2):
        for device in trio:
            device.sync(later)
    assert len(laptop.review_rows()) == 2
    converged(list(trio), tmp_path, later)


def test_a_review_waiting_for_its_time_and_taken_back_meanwhile_never_comes(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(ONE, "one.json"), START)
    for device in trio:
        device.sync(START)
    ahead = START + timedelta(hours=1)  # the laptop's clock runs an hour ahead
    _answer(laptop, ahead)
    laptop.sync(ahead)
    assert desktop.sync(START).received["review"] == 1  # held until its time comes
    card = laptop.card_ids()[0]
    laptop.changes().delete([card], ahead)  # its history goes with it: taken back
    importing.import_deck(laptop.database, parse_deck(ONE, "one.json"), ahead)
    later = START + timedelta(days=1)
    for _ in range(2):
        for device in trio:
            device.sync(later)
    for device in trio:
        assert device.review_rows() == [], device.name
    converged(list(trio), tmp_path, later)
