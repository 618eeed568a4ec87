"""Sync's format and Anki notes: a collection without Anki note types writes files every
Recall reads; once it holds one, its files say format 2, which a Recall reading only format 1
skips with a note saying to update (keeping the file), and this Recall reads."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard, parse_deck
from recall.sync import folder as sync_folder
from recall.sync.events import FORMAT, FORMAT_WITHOUT_NOTES
from tests.helpers.anki_notes import make_note_package
from tests.helpers.sync_devices import Device

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
TINY = json.dumps(
    {
        "format": "recall-deck",
        "version": 1,
        "id": "tiny",
        "name": "Tiny",
        "cards": [{"id": "a", "type": "basic", "front": "Front", "back": "Back"}],
    }
)


def _headers(shared: Path, device: str) -> list[dict[str, object]]:
    """The header of each of a device's event files, oldest first."""
    folder = shared / "Recall" / device
    return [
        sync_folder.header(path.read_bytes().split(b"\n", 1)[0])
        for path in sorted(folder.glob(f"*{sync_folder.SUFFIX}"))
    ]


def _noted(device: Device) -> int:
    with device.database.reading() as transaction:
        cards = [
            CARD_ADAPTER.validate_json(row.content)
            for deck in transaction.browsing.decks()
            for row in transaction.cards.of_deck(deck.id)
        ]
    return sum(1 for card in cards if isinstance(card, BasicCard) and card.anki is not None)


def test_files_with_anki_notes_say_so_and_an_older_recall_is_told_to_update(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    assert (FORMAT_WITHOUT_NOTES, FORMAT) == (1, 2)
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    (device,) = laptop.sync(START).device[:1]
    (plain,) = _headers(shared, device)
    assert plain["recall_sync"] == FORMAT_WITHOUT_NOTES
    assert sync_folder.header_problem(plain, known=FORMAT_WITHOUT_NOTES) is None

    later = START + timedelta(minutes=1)
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], later)
    laptop.sync(later)
    _, noted = _headers(shared, device)
    assert noted["recall_sync"] == FORMAT
    assert sync_folder.header_problem(noted, known=FORMAT_WITHOUT_NOTES) == (
        "was written by a newer Recall (format 2); update Recall to read it"
    )
    assert sync_folder.header_problem(noted) is None

    report = desktop.sync(later)
    assert not [note for note in report.notes if "newer Recall" in note]
    assert _noted(desktop) == 4
    # Every later file of the laptop is of format 2 too, whatever it holds.
    importing.import_deck(
        laptop.database, parse_deck(TINY.replace('"Back"', '"Back, again"'), "t.json"), later
    )
    laptop.sync(later + timedelta(minutes=1))
    assert [header["recall_sync"] for header in _headers(shared, device)] == [1, 2, 2]
