"""Sync scenarios of cards moved to another deck: every device ends with one card, under the
same keys, holding the whole history, whatever else happened to the card meanwhile."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall import deck_changes, importing
from recall.deckfile import parse_deck
from recall.storage.records import DeckRow
from tests.conftest import DATA
from tests.sync_devices import Device
from tests.test_sync import _card_id, _converged

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def trio(tmp_path: Path) -> Iterator[tuple[Device, Device, Device]]:
    shared = tmp_path / "shared"
    shared.mkdir()
    devices = tuple(Device(tmp_path, name, shared) for name in ("laptop", "desktop", "tablet"))
    yield devices  # type: ignore[misc]
    for device in devices:
        device.close()


def _deck(device: Device, name: str) -> DeckRow:
    """The deck of this name, made first if there is none."""
    with device.database.reading() as transaction:
        found = [deck for deck in transaction.browsing.decks() if deck.name == name]
    if not found:
        deck_changes.new_deck(device.database, name, START)
        return _deck(device, name)
    return found[0]


def _histories(device: Device) -> dict[str, int]:
    """How many reviews each card holds, by ``deck/card`` keys (cards without any left out)."""
    with device.database.reading() as transaction:
        rows = transaction.sql.rows(
            "SELECT deck.key, card.key, count(*) FROM review "
            "JOIN card ON card.id = review.card_id JOIN deck ON deck.id = card.deck_id "
            "GROUP BY card.id"
        )
    return {f"{deck}/{card}": int(count) for deck, card, count in rows}


def _cards(device: Device) -> set[str]:
    with device.database.reading() as transaction:
        rows = transaction.sql.rows(
            "SELECT deck.key, card.key FROM card JOIN deck ON deck.id = card.deck_id"
        )
    return {f"{deck}/{card}" for deck, card in rows}


def _start(trio: tuple[Device, Device, Device], studied: int = 2) -> None:
    """The tiny deck on every device, ``studied`` of its cards studied on the laptop."""
    laptop = trio[0]
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    if studied:
        assert laptop.study("tiny", studied, START, random.Random(3)) == studied
    for device in trio:
        device.sync(START)


def _settle(devices: tuple[Device, ...] | list[Device], now: datetime) -> None:
    for _ in range(2):
        for device in devices:
            device.sync(now)


def test_a_deck_imported_again_after_a_card_moved_out_of_it_keeps_the_history_moved(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    _start(trio)
    studied = _histories(laptop)
    assert studied == _histories(desktop)
    moved_key = sorted(studied)[0].split("/")[1]
    later = START + timedelta(hours=1)
    laptop.changes().move([_card_id(laptop, "tiny", moved_key)], _deck(laptop, "Moved"))
    desktop.sync(later)
    tablet.sync(later)
    # Imported again before the move was synced: a new card takes the old keys here.
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), later)
    _settle(trio, later)
    for device in trio:
        histories = _histories(device)
        assert histories[f"moved/{moved_key}"] == studied[f"tiny/{moved_key}"], device.name
        assert f"tiny/{moved_key}" not in histories, device.name
    assert _cards(laptop) == _cards(desktop) == _cards(tablet)
    _converged(list(trio), tmp_path, later)
