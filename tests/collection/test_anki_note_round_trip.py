"""Anki -> Recall -> Anki: a note imported from Anki goes back as the same note, of its own
note type with its templates and CSS, its cards siblings, each reading as Anki read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.collection import exporting, importing
from recall.content.deck_format import BasicCard
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.anki_notes import anki_texts, make_note_package
from tests.helpers.anki_templates import make_template_packages


def _round_trip(database: Database, package: Path, tmp_path: Path, clock: Clock) -> Path:
    importing.import_files(database, Schedulers(fuzz=False), [package], clock())
    with database.reading() as transaction:
        decks = [
            deck for deck in transaction.browsing.decks() if transaction.cards.of_deck(deck.id)
        ]
    assert len(decks) == 1
    target = tmp_path / "back.apkg"
    exporting.export_deck(database, decks[0].key, target, clock())
    return target


def test_a_styled_note_and_a_cloze_note_go_back_as_themselves(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    package = make_note_package(tmp_path)
    before = anki_texts(package, tmp_path / "anki-before")
    after = anki_texts(_round_trip(database, package, tmp_path, clock), tmp_path / "anki-after")
    assert len(before) == 4  # two cards of the styled note, two of the cloze note
    assert after == before


@pytest.mark.parametrize("layout", ["latest", "legacy"])
def test_every_stock_and_custom_note_type_goes_back_as_anki_showed_it(
    database: Database, tmp_path: Path, clock: Clock, layout: str
) -> None:
    (tmp_path / "made").mkdir()
    texts, paths = make_template_packages(tmp_path / "made")
    before = anki_texts(paths[layout], tmp_path / "anki-before")
    after = anki_texts(
        _round_trip(database, paths[layout], tmp_path, clock), tmp_path / "anki-after"
    )
    # The card Anki itself shows blank is no card in Recall; every other reads the same.
    blank = {
        key for key, (question, _) in before.items() if "front of this card is blank" in question
    }
    assert len(blank) == 1
    assert len(after) == len(texts) - 1
    assert {key: before[key] for key in after} == after
    assert set(after) == set(before) - blank


def test_importing_the_export_back_finds_the_same_cards(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    back = _round_trip(database, make_note_package(tmp_path), tmp_path, clock)

    def keys() -> list[tuple[str, str]]:
        with database.reading() as transaction:
            return sorted(
                (deck.key, row.key)
                for deck in transaction.browsing.decks()
                for row in transaction.cards.of_deck(deck.id)
            )

    before = keys()
    assert len(before) == 4
    importing.import_files(database, Schedulers(fuzz=False), [back], clock())
    assert keys() == before


def test_selected_cards_written_as_a_package_go_as_their_own_notes(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    package = make_note_package(tmp_path)
    importing.import_files(database, Schedulers(fuzz=False), [package], clock())
    with database.reading() as transaction:
        (deck_key,) = [
            deck.key for deck in transaction.browsing.decks() if transaction.cards.of_deck(deck.id)
        ]
    deck = exporting.load_stored_deck(database, deck_key)
    target = tmp_path / "selected.apkg"
    note_types = exporting.stored_note_types(database, deck.cards)
    assert len(note_types) == 2
    exporting.write_deck(deck, target, database.path.parent, note_types)
    assert anki_texts(target, tmp_path / "anki-after") == anki_texts(
        package, tmp_path / "anki-before"
    )


def test_cards_whose_note_names_no_guid_go_as_notes_of_their_own(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    importing.import_files(database, Schedulers(fuzz=False), [make_note_package(tmp_path)], clock())
    with database.reading() as transaction:
        (deck_key,) = [
            deck.key for deck in transaction.browsing.decks() if transaction.cards.of_deck(deck.id)
        ]
    deck = exporting.load_stored_deck(database, deck_key)
    cards = []
    for card in deck.cards:
        assert isinstance(card, BasicCard)
        assert card.anki is not None
        cards.append(card.model_copy(update={"anki": card.anki.model_copy(update={"guid": ""})}))
    unnamed = deck.model_copy(update={"cards": cards})
    target = tmp_path / "unnamed.apkg"
    exporting.write_deck(
        unnamed, target, database.path.parent, exporting.stored_note_types(database, cards)
    )
    texts = anki_texts(target, tmp_path / "anki-after")
    assert len({guid for guid, _ in texts}) == 4  # one note per card: none merged with another
    assert sorted(question for question, _ in texts.values()) == [
        "Paris is the capital of [...]",
        "[...] is the capital of France",
        "chien",
        "dog",
    ]
