"""A small package made with Anki's library: a styled two-card note type with a picture, and
a cloze note; and a reader of any package's cards as Anki renders them, as plain text."""

from __future__ import annotations

from pathlib import Path

from anki.collection import (
    Collection,
    DeckIdLimit,
    ExportAnkiPackageOptions,
    ImportAnkiPackageOptions,
    ImportAnkiPackageRequest,
)

# isort: split
from anki.decks import DeckId

from tests.helpers.anki_templates import plain

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
NOTE_TYPE = "Styled pair"
FIELDS = ("Word", "Meaning", "Picture")
CSS = ".q { color: #36c; } .card { font-family: serif; }"
TEMPLATES = (
    (
        "Forward",
        "<div class=q>{{Word}}</div>",
        "{{FrontSide}}<hr id=answer>{{Meaning}} {{Picture}}",
    ),
    ("Reverse", "<div class=q>{{Meaning}}</div>", "{{FrontSide}}<hr id=answer>{{Word}}"),
)


def make_note_package(folder: Path) -> Path:
    """A package of one "Styled pair" note (two cards, a picture on the first's back) and
    one cloze note (two deletions)."""
    home = folder / "anki-notes"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        (Path(collection.media.dir()) / "dot.png").write_bytes(PNG)
        deck_id = collection.decks.id("Words")
        assert deck_id is not None
        models = collection.models
        model = models.new(NOTE_TYPE)
        for name in FIELDS:
            models.add_field(model, models.new_field(name))
        for name, question, answer in TEMPLATES:
            template = models.new_template(name)
            template["qfmt"], template["afmt"] = question, answer
            models.add_template(model, template)
        model["css"] = CSS
        models.add(model)
        styled = models.by_name(NOTE_TYPE)
        assert styled is not None
        note = collection.new_note(styled)
        note["Word"], note["Meaning"], note["Picture"] = "chien", "dog", '<img src="dot.png">'
        note.tags = ["animals"]
        collection.add_note(note, DeckId(deck_id))
        cloze = models.by_name("Cloze")
        assert cloze is not None
        deletion = collection.new_note(cloze)
        deletion["Text"] = "{{c1::Paris}} is the capital of {{c2::France}}"
        collection.add_note(deletion, DeckId(deck_id))
        path = folder / "notes.apkg"
        options = ExportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=False, with_media=True, legacy=False
        )
        collection.export_anki_package(
            out_path=str(path), options=options, limit=DeckIdLimit(DeckId(deck_id))
        )
    finally:
        collection.close()
    return path


def anki_texts(package: Path, folder: Path) -> dict[tuple[str, int], tuple[str, str]]:
    """Each card of a package as Anki renders it, as plain text (question, answer), by its
    note's guid and its template number (``folder`` is made to hold Anki's collection)."""
    home = folder
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        request = ImportAnkiPackageRequest(
            package_path=str(package), options=ImportAnkiPackageOptions(with_scheduling=False)
        )
        collection.import_anki_package(request)
        texts = {}
        for card_id in collection.find_cards(""):
            card = collection.get_card(card_id)
            key = (card.note().guid, card.ord)
            texts[key] = (plain(card.question()), plain(card.answer()))
        return texts
    finally:
        collection.close()
