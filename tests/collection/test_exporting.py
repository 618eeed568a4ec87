"""Exporting decks: JSON that imports back card for card, and Anki packages Anki can open."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from recall.collection import exporting, importing
from recall.content import card_html
from recall.content.deck_format import dump_deck, parse_deck
from recall.core.errors import UnknownDeckError
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import DATA, Clock

DECK = "activation-recompute"


def test_json_export_imports_back_card_for_card(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "deck.json"
    target.parent.mkdir()
    assert exporting.export_deck(bundled, DECK, target) == 8
    fresh = Database(tmp_path / "fresh" / "recall.sqlite3")
    importing.import_files(fresh, Schedulers(), [target], clock())
    assert exporting.load_stored_deck(fresh, DECK) == exporting.load_stored_deck(bundled, DECK)
    fresh.close()


def anki_notes(package: Path) -> list[tuple[str, list[str], str]]:
    with zipfile.ZipFile(package) as archive, archive.open("collection.anki2") as source:
        collection = package.with_suffix(".anki2")
        collection.write_bytes(source.read())
    connection = sqlite3.connect(collection)
    try:
        rows = connection.execute("SELECT guid, flds, tags FROM notes ORDER BY id").fetchall()
    finally:
        connection.close()
    return [(guid, fields.split("\x1f"), tags.strip()) for guid, fields, tags in rows]


def test_apkg_export_has_a_choice_note_per_choice_card(bundled: Database, tmp_path: Path) -> None:
    target = tmp_path / "deck.apkg"
    assert exporting.export_deck(bundled, DECK, target) == 8
    notes = anki_notes(target)
    assert len(notes) == 8
    guid, fields, tags = notes[0]
    question, title, kind, *options = fields[:13]
    answers, sources = fields[13:15]
    assert "What does activation recomputation trade away to save memory?" in question
    assert (title, kind) == ("", "2")  # anki-mc's single choice
    assert "Extra compute (FLOPs)" in options
    assert answers.split().count("1") == 1
    assert sources
    assert "memory" in tags.split()
    again = tmp_path / "again.apkg"
    exporting.export_deck(bundled, DECK, again)
    assert [note[0] for note in anki_notes(again)] == [note[0] for note in notes]
    assert guid


def test_apkg_export_carries_the_images_of_html_cards(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    image = b"\x89PNG\r\n\x1a\n" + bytes(64)
    name = card_html.media_name(image, "cat.png")
    media = paths.media_dir(database.path.parent)
    media.mkdir()
    (media / name).write_bytes(image)
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle r="4"/></svg>'
    svg_name = card_html.media_name(svg, "dot.svg")
    (media / svg_name).write_bytes(svg)
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": "pictures",
        "name": "Pictures",
        "cards": [
            {
                "id": "cat",
                "type": "basic",
                "markup": "html",
                "front": f'What is this? <img src="{name}">',
                "back": "A cat",
            }
        ],
    }
    importing.import_deck(database, parse_deck(json.dumps(raw), "pictures"), clock())
    target = tmp_path / "pictures.apkg"
    exporting.export_deck(database, "pictures", target)
    with zipfile.ZipFile(target) as archive:
        media_map = json.loads(archive.read("media"))
        assert list(media_map.values()) == [name]
        assert archive.read(next(iter(media_map))) == image


def test_export_errors_are_clear(bundled: Database, tmp_path: Path) -> None:
    with pytest.raises(
        exporting.ExportError, match=r"exports decks as \.json, \.apkg, \.colpkg or \.gift"
    ):
        exporting.export_deck(bundled, DECK, tmp_path / "deck.pdf")
    with pytest.raises(UnknownDeckError):
        exporting.export_deck(bundled, "nope", tmp_path / "deck.json")
    with pytest.raises(exporting.ExportError, match="cannot write"):
        exporting.export_deck(bundled, DECK, tmp_path / "missing" / "deck.json")
    assert not list(tmp_path.rglob("*.json"))


def test_unsupported_files_and_cancel_import_nothing(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    from recall.core.errors import DeckErrors, ImportCancelledError

    before = exporting.load_stored_deck(bundled, DECK)
    pdf = tmp_path / "notes.pdf"
    pdf.write_bytes(b"%PDF")
    with pytest.raises(DeckErrors, match=r"Recall cannot import \.pdf files"):
        importing.import_files(bundled, Schedulers(), [pdf], clock())
    seen: list[tuple[int, int]] = []
    with pytest.raises(ImportCancelledError):
        importing.import_files(
            bundled,
            Schedulers(),
            [DATA / "decks" / "tiny.json"],
            clock(),
            progress=lambda done, total: seen.append((done, total)),
            cancelled=lambda: bool(seen),
        )
    assert seen == [(2, 2)]
    with bundled.transaction() as tx:
        assert tx.decks.by_key("tiny") is None
    assert exporting.load_stored_deck(bundled, DECK) == before
    assert not list((bundled.path.parent / "tmp").iterdir())


def test_anki_itself_opens_the_exported_package(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    """Anki's own library imports the package: notes, fields and the card's images."""
    from anki.collection import Collection, ImportAnkiPackageRequest
    from anki.import_export_pb2 import ImportAnkiPackageOptions

    image = b"\x89PNG\r\n\x1a\n" + bytes(32)
    name = card_html.media_name(image, "dot.png")
    media = paths.media_dir(bundled.path.parent)
    media.mkdir()
    (media / name).write_bytes(image)
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle r="4"/></svg>'
    svg_name = card_html.media_name(svg, "dot.svg")
    (media / svg_name).write_bytes(svg)
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": "dots",
        "name": "Dots",
        "cards": [
            {
                "id": "dot",
                "type": "basic",
                "markup": "html",
                "front": f'<img src="{name}">',
                "back": f'a dot <img src="{svg_name}">',
            }
        ],
    }
    importing.import_deck(bundled, parse_deck(json.dumps(raw), "dots"), clock())
    for deck in (DECK, "dots"):
        exporting.export_deck(bundled, deck, tmp_path / f"{deck}.apkg")

    (tmp_path / "anki").mkdir()
    collection = Collection(str(tmp_path / "anki" / "collection.anki2"))
    try:
        for deck in (DECK, "dots"):
            request = ImportAnkiPackageRequest(
                package_path=str(tmp_path / f"{deck}.apkg"), options=ImportAnkiPackageOptions()
            )
            collection.import_anki_package(request)
        names = {entry.name for entry in collection.decks.all_names_and_ids()}
        assert {"Activation Recomputation Tradeoffs", "Dots"} <= names
        assert collection.note_count() == 9
        notes = [collection.get_note(note).fields for note in collection.find_notes("")]
        assert any("Extra compute (FLOPs)" in field for note in notes for field in note)
        assert (Path(collection.media.dir()) / name).read_bytes() == image
        assert (Path(collection.media.dir()) / svg_name).read_bytes() == svg
        (dots,) = collection.find_notes('"deck:Dots"')
        assert collection.get_note(dots).fields == [
            f'<img src="{name}">',
            f'a dot <img src="{svg_name}">',
        ]
    finally:
        collection.close()


@pytest.mark.parametrize(
    "deck_file",
    [
        *sorted((DATA / "decks").glob("*.json")),
        *sorted(DATA.glob("lint_*.json")),
        Path(__file__).parents[2] / "decks" / "activation_recompute.json",
    ],
    ids=lambda path: path.stem,
)
def test_a_deck_dumped_card_by_card_equals_the_whole_deck_dumped_at_once(
    deck_file: Path,
) -> None:
    deck = parse_deck(deck_file.read_bytes(), str(deck_file))
    whole = deck.model_dump_json(indent=2, exclude_defaults=True, by_alias=True) + "\n"
    assert dump_deck(deck) == whole
    assert parse_deck(dump_deck(deck).encode(), "again") == deck


@pytest.mark.parametrize("deck_file", sorted((DATA / "decks").glob("*.json")), ids=lambda p: p.stem)
def test_a_json_export_streamed_from_the_database_is_the_whole_deck_dumped(
    tmp_path: Path, clock: Clock, deck_file: Path
) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    try:
        deck = parse_deck(deck_file.read_bytes(), str(deck_file))
        importing.import_deck(database, deck, clock())
        target = tmp_path / "out.json"
        assert exporting.export_deck(database, deck.id, target) == len(deck.cards)
        whole = dump_deck(exporting.load_stored_deck(database, deck.id))
        assert target.read_text(encoding="utf-8") == whole
    finally:
        database.close()
