"""A tag changed on one card of an Anki note reaches the other computer on every card of the
note, and undoing it there too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import plain
from tests.helpers.sync_devices import Device

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


def _tags(device: Device) -> dict[str, list[str]]:
    """Each card's tags by its stored front's text."""
    tags = {}
    with device.database.reading() as transaction:
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                assert isinstance(card, BasicCard)
                tags[plain(card.front)] = list(card.tags)
    return tags


def _card_id(device: Device, front: str) -> int:
    with device.database.reading() as transaction:
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                if isinstance(card, BasicCard) and plain(card.front) == front:
                    return row.id
    raise AssertionError(front)


def test_a_notes_tag_change_reaches_every_card_of_the_note_there(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], START)
    laptop.sync(START)
    desktop.sync(START)
    before = _tags(desktop)
    assert before["chien"] == before["dog"] == ["animals"]

    changes = laptop.changes()
    changes.tag([_card_id(laptop, "chien")], START + timedelta(minutes=1), add=["french"])
    laptop.sync(START + timedelta(minutes=2))
    desktop.sync(START + timedelta(minutes=3))
    there = _tags(desktop)
    assert there["chien"] == there["dog"] == ["animals", "french"]
    assert {front: tags for front, tags in there.items() if front not in ("chien", "dog")} == {
        front: tags for front, tags in before.items() if front not in ("chien", "dog")
    }

    changes.undo()
    laptop.sync(START + timedelta(minutes=4))
    desktop.sync(START + timedelta(minutes=5))
    assert _tags(desktop) == before
