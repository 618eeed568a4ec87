"""Anki packages for the importer tests, made with genanki and edited with sqlite3 and zipfile."""

from __future__ import annotations

import sqlite3
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import genanki

TIMESTAMP = 1_700_000_000  # genanki numbers notes and cards from this moment, in ms
FRENCH_ID = 2_059_400_110
MATHS_ID = 2_059_400_111
MISC_ID = 2_059_400_112
IMAGE = b"\x89PNG\r\n\x1a\n a small picture"

# A note type that is neither basic nor cloze: its question shows two fields.
HINTED_MODEL = genanki.Model(
    1_607_392_319,
    "Hinted",
    fields=[{"name": "Question"}, {"name": "Hint"}, {"name": "Answer"}],
    templates=[
        {"name": "Card 1", "qfmt": "{{Question}}<br>{{Hint}}", "afmt": "{{Answer}}"},
    ],
)


def build_package(folder: Path, notes: dict[str, list[genanki.Note]] | None = None) -> Path:
    """A package with three decks, written to ``folder/deck.apkg``.

    Without ``notes``: "Languages::French" holds a basic note with an image and a sound,
    and a reversed note; "Maths" a cloze note with a hint and an extra; "Misc" a note
    whose back is blank, an optional-reverse note and a note of a custom type.
    """
    picture = folder / "cat.png"
    picture.write_bytes(IMAGE)
    if notes is None:
        notes = {
            "Languages::French": [
                genanki.Note(
                    model=genanki.BASIC_MODEL,
                    fields=['le chat <img src="cat.png">', "the cat [sound:miaou.mp3]"],
                    tags=["animals", "french"],
                ),
                genanki.Note(model=genanki.BASIC_AND_REVERSED_CARD_MODEL, fields=["chien", "dog"]),
            ],
            "Maths": [
                genanki.Note(
                    model=genanki.CLOZE_MODEL,
                    fields=["{{c1::2}} + {{c2::2::a number}} = 4", "sums"],
                ),
            ],
            "Misc": [
                genanki.Note(model=genanki.BASIC_MODEL, fields=["no answer", " <br> "]),
                genanki.Note(
                    model=genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL,
                    fields=["left", "right", "y"],
                ),
                genanki.Note(model=HINTED_MODEL, fields=["6 x 7?", "a famous number", "42"]),
            ],
        }
    ids = {"Languages::French": FRENCH_ID, "Maths": MATHS_ID, "Misc": MISC_ID}
    decks: list[genanki.Deck] = []
    for name, deck_notes in notes.items():
        deck = genanki.Deck(ids.get(name, MISC_ID + len(decks) + 1), name)
        for note in deck_notes:
            deck.add_note(note)
        decks.append(deck)
    path = folder / "deck.apkg"
    # genanki writes its collection to a temporary file first (and leaves it behind).
    previous, tempfile.tempdir = tempfile.tempdir, str(folder)
    try:
        genanki.Package(decks, media_files=[str(picture)]).write_to_file(path, TIMESTAMP)
    finally:
        tempfile.tempdir = previous
    return path


def picture_and_sound_package(folder: Path, picture: bytes, sound: bytes) -> Path:
    """A package, ``folder/animals.apkg``, whose one note shows an image and plays a sound."""
    (folder / "cat.png").write_bytes(picture)
    (folder / "miaou.mp3").write_bytes(sound)
    deck = genanki.Deck(2_059_400_210, "Animals")
    deck.add_note(
        genanki.Note(
            model=genanki.BASIC_MODEL,
            fields=['le chat <img src="cat.png">', "the cat [sound:miaou.mp3]"],
        )
    )
    path = folder / "animals.apkg"
    previous, tempfile.tempdir = tempfile.tempdir, str(folder)  # genanki leaves a file there
    try:
        genanki.Package(
            deck, media_files=[str(folder / "cat.png"), str(folder / "miaou.mp3")]
        ).write_to_file(path, TIMESTAMP)
    finally:
        tempfile.tempdir = previous
    return path


def rewrite(
    package: Path,
    replace: dict[str, bytes | None] | None = None,
    add: dict[str, bytes] | None = None,
) -> None:
    """Rewrite a package's zip: replace entries (None removes one) and add others."""
    replace = replace or {}
    with zipfile.ZipFile(package) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    for name, data in replace.items():
        if data is None:
            entries.pop(name)
        else:
            entries[name] = data
    entries.update(add or {})
    with zipfile.ZipFile(package, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def edit_collection(
    package: Path, edit: Callable[[sqlite3.Connection], object], entry: str = "collection.anki2"
) -> None:
    """Unzip the collection, run ``edit`` on it, and zip it back."""
    with zipfile.ZipFile(package) as archive:
        data = archive.read(entry)
    work = package.with_suffix(".edit")
    work.write_bytes(data)
    connection = sqlite3.connect(work)
    try:
        edit(connection)
        connection.commit()
    finally:
        connection.close()
    rewrite(package, {entry: work.read_bytes()})
    work.unlink()


def card_ids(package: Path) -> dict[tuple[str, int], int]:
    """Card ids by (first field of the note, template number)."""
    with zipfile.ZipFile(package) as archive:
        data = archive.read("collection.anki2")
    work = package.with_suffix(".read")
    work.write_bytes(data)
    connection = sqlite3.connect(work)
    try:
        query = "SELECT notes.flds, cards.ord, cards.id FROM cards JOIN notes ON notes.id = nid"
        rows = connection.execute(query).fetchall()
    finally:
        connection.close()
        work.unlink()
    return {(fields.split("\x1f")[0], ord_): card_id for fields, ord_, card_id in rows}


def add_reviews(package: Path, rows: list[tuple[int, int, int, int, int]]) -> None:
    """Add revlog rows (id in ms, card id, ease, time in ms, type)."""

    def insert(connection: sqlite3.Connection) -> None:
        connection.executemany(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
            " VALUES (?, ?, -1, ?, 1, 0, 2500, ?, ?)",
            rows,
        )

    edit_collection(package, insert)
