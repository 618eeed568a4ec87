"""Anki note types through the sync folder: a card imported from Anki shows on the other
computer from its note and note type; a hostile or damaged note type file is refused with a
note, never a crash, and its cards show their stored sides."""

from __future__ import annotations

import json
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path

from recall.changes import editing
from recall.collection import importing
from recall.content.anki_note import MAX_NOTE_TYPE_BYTES, note_type_key, parse_note_type
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.study.session import StudySession
from recall.sync import note_types
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import plain
from tests.helpers.sync_devices import Device

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


def _keys(device: Device) -> list[str]:
    with device.database.reading() as transaction:
        return transaction.note_types.stored_keys()


def _shown_fronts(device: Device) -> dict[str, str]:
    """Each Anki card's front as stored and as the review shows it, by card key."""
    shown = {}
    with device.database.reading() as transaction:
        rows = [
            (deck.key, row)
            for deck in transaction.browsing.decks()
            for row in transaction.cards.of_deck(deck.id)
        ]
    for deck_key, row in rows:
        card = CARD_ADAPTER.validate_json(row.content)
        assert isinstance(card, BasicCard)
        session = StudySession(device.database, device.schedulers, deck_key, random.Random(1))
        front = session.show(row.id, START).card
        assert isinstance(front, BasicCard)
        shown[row.key] = front.front
    return shown


def _edit_word(device: Device, word: str) -> None:
    """Change the styled note's first field in each of its cards' stored note only (as a
    card synced from a Recall that renders notes would carry it)."""
    with device.database.transaction() as transaction:
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                assert isinstance(card, BasicCard)
                if card.anki is not None and "Word" in card.anki.fields:
                    fields = {**card.anki.fields, "Word": word}
                    changed = card.model_copy(
                        update={"anki": card.anki.model_copy(update={"fields": fields})}
                    )
                    content = changed.model_dump_json(exclude_defaults=True)
                    transaction.browsing.set_content([(row.id, content)], START)


def test_a_note_type_reaches_the_other_computer_and_its_cards_render_there(
    pair: tuple[Device, Device], tmp_path: Path, shared: Path
) -> None:
    laptop, desktop = pair
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], START)
    keys = _keys(laptop)
    assert len(keys) == 2
    sent = laptop.sync(START)
    folder = shared / "Recall" / sent.device[0] / note_types.FOLDER
    assert sorted(path.name for path in folder.iterdir()) == sorted(f"{key}.json" for key in keys)
    received = desktop.sync(START)
    assert not [note for note in received.notes if "note type" in note]
    assert _keys(desktop) == keys
    # The other computer renders from the note: a field changed there shows on its cards.
    _edit_word(desktop, "loup")
    shown = _shown_fronts(desktop)
    assert sorted(plain(front) for front in shown.values() if "capital" not in front) == [
        "dog",
        "loup",
    ]


def test_a_hostile_or_damaged_note_type_file_is_refused_with_a_note(
    pair: tuple[Device, Device], tmp_path: Path, shared: Path
) -> None:
    laptop, desktop = pair
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], START)
    sent = laptop.sync(START)
    folder = shared / "Recall" / sent.device[0] / note_types.FOLDER
    files = sorted(folder.iterdir())
    styled = next(path for path in files if "Styled pair" in path.read_text())
    cloze = next(path for path in files if path != styled)
    # One file is another note type under this key (its content is not what the key
    # hashes); the other is replaced by a link to a file outside the folder.
    forged = parse_note_type(styled.read_text()).model_copy(update={"css": "x { color: red }"})
    assert note_type_key(forged) != styled.stem
    styled.write_text(json.dumps(forged.model_dump()))
    outside = tmp_path / "outside.json"
    outside.write_text(cloze.read_text())
    cloze.unlink()
    cloze.symlink_to(outside)
    received = desktop.sync(START)
    refused = [note for note in received.notes if "note type" in note]
    assert any("does not match its key" in note for note in refused), refused
    assert any("a link or not a file" in note for note in refused), refused
    assert any("2 Anki note types that cards here name not in the sync" in n for n in refused)
    assert _keys(desktop) == []
    # The cards came; they show the sides stored with them.
    _edit_word(desktop, "loup")
    assert sorted(plain(front) for front in _shown_fronts(desktop).values()) == [
        "Paris is the capital of [...]",
        "[...] is the capital of France",
        "chien",
        "dog",
    ]


def test_damaged_json_and_an_oversized_file_are_refused(
    pair: tuple[Device, Device], tmp_path: Path, shared: Path
) -> None:
    laptop, desktop = pair
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], START)
    sent = laptop.sync(START)
    folder = shared / "Recall" / sent.device[0] / note_types.FOLDER
    first, second = sorted(folder.iterdir())
    first.write_text('{"name": "x", "kind": "standard", "fields": [], "templates": 7')
    with second.open("wb") as out:
        out.truncate(MAX_NOTE_TYPE_BYTES + 1)
    refused = [note for note in desktop.sync(START).notes if "note type" in note]
    assert any("the note type is damaged" in note for note in refused), refused
    assert any("larger than any Recall keeps" in note for note in refused), refused
    assert _keys(desktop) == []


def test_a_lost_note_type_folder_is_written_again_at_the_next_round_that_sends(
    pair: tuple[Device, Device], tmp_path: Path, shared: Path
) -> None:
    laptop, desktop = pair
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], START)
    sent = laptop.sync(START)
    folder = shared / "Recall" / sent.device[0] / note_types.FOLDER
    written = sorted(path.name for path in folder.iterdir())
    shutil.rmtree(folder)
    laptop.changes().flag(laptop.card_ids()[:1], 2)
    laptop.sync(START)
    assert sorted(path.name for path in folder.iterdir()) == written
    desktop.sync(START)
    assert _keys(desktop) == _keys(laptop)


def test_a_note_edited_on_one_computer_shows_on_the_other_in_every_card(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_files(laptop.database, laptop.schedulers, [make_note_package(tmp_path)], START)
    laptop.sync(START)
    desktop.sync(START)
    with laptop.database.reading() as transaction:
        (deck,) = [d for d in transaction.browsing.decks() if d.key.startswith("anki-deck-")]
        row = next(r for r in transaction.cards.of_deck(deck.id) if "chien" in r.content)
    data = editing.card_data(row.content)
    data["anki"]["fields"]["Word"] = "loup"
    laptop.clock.advance(60)
    assert editing.edit_card(laptop.database, row.id, data, START).changed == 2
    laptop.sync(START)
    desktop.sync(START)
    with desktop.database.reading() as transaction:
        (deck,) = [d for d in transaction.browsing.decks() if d.key.startswith("anki-deck-")]
        stored = [CARD_ADAPTER.validate_json(r.content) for r in transaction.cards.of_deck(deck.id)]
    styled = sorted(
        (plain(card.front), plain(card.back))
        for card in stored
        if isinstance(card, BasicCard) and card.anki is not None and "Word" in card.anki.fields
    )
    assert styled == [("dog", "loup"), ("loup", "dog")]
    assert sorted(
        plain(front) for front in _shown_fronts(desktop).values() if "capital" not in front
    ) == ["dog", "loup"]
