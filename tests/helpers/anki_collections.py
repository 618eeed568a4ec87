"""Packages written by Anki's own library, in today's format and the older one.

One collection holds a deck with a description, a basic note showing a PNG and an SVG, a
reversed note, a cloze note, notes of two multiple-choice add-on note types, and a few
reviews; it is exported as an ``.apkg`` with and without "Support older Anki versions",
and as a ``.colpkg``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

# isort: split
from anki.decks import DeckId
from anki.models import NotetypeDict
from anki.notes import Note

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">'
    b'<rect width="40" height="20" fill="#36c"/></svg>'
)
DECK = "Anatomy::Bones"
DESCRIPTION = "<b>Bones</b> of the arm &amp; hand<br>from the atlas"
ANKI_MC_FIELDS = (
    "Question",
    "Title",
    "QType (0=kprim,1=mc,2=sc)",
    "Q_1",
    "Q_2",
    "Q_3",
    "Q_4",
    "Q_5",
    "Answers",
    "Sources",
    "Extra 1",
)
MCNT_FIELDS = ("number", "question", *"abcdefghij", "answers", "ref", "explanation")
DAY_MS = 86_400_000
FIRST_REVIEW_MS = 1_700_000_000_000


@dataclass(frozen=True)
class Made:
    """What was put in the collection, to check the import against."""

    deck_id: int
    note_ids: dict[str, int]
    reviewed_card: int


def _note_type(collection: Collection, name: str, fields: Sequence[str]) -> NotetypeDict:
    models = collection.models
    model = models.new(name)
    for field in fields:
        models.add_field(model, models.new_field(field))
    template = models.new_template("Card 1")
    template["qfmt"] = "{{" + fields[0] + "}}"
    template["afmt"] = "{{FrontSide}}<hr>{{" + fields[-1] + "}}"
    models.add_template(model, template)
    models.add(model)
    added = models.by_name(name)
    assert added is not None
    return added


def _add(collection: Collection, model: NotetypeDict, deck: DeckId, fields: list[str]) -> int:
    note = Note(collection, model)
    for index, value in enumerate(fields):
        note.fields[index] = value
    collection.add_note(note, deck)
    return int(note.id)


def _anki_mc(
    question: str,
    kind: str,
    options: list[str],
    answers: str,
    title: str = "",
    sources: str = "",
    extra: str = "",
) -> list[str]:
    """The fields of an anki-mc AllInOne note, in the note type's order."""
    padded = [*options, *[""] * (5 - len(options))]
    return [question, title, kind, *padded, answers, sources, extra]


def fill(collection: Collection, media: Path) -> Made:
    """Put the notes, images and history described above into an open collection."""
    (media / "bone.png").write_bytes(PNG)
    (media / "shape.svg").write_bytes(SVG)
    deck_id = collection.decks.id(DECK)
    assert deck_id is not None
    deck = collection.decks.get(deck_id)
    assert deck is not None
    deck["desc"] = DESCRIPTION
    collection.decks.save(deck)
    models = collection.models
    basic, reversed_, cloze = (
        models.by_name(name) for name in ("Basic", "Basic (and reversed card)", "Cloze")
    )
    assert basic is not None
    assert reversed_ is not None
    assert cloze is not None
    anki_mc = _note_type(collection, "AllInOne (kprim, mc, sc)", ANKI_MC_FIELDS)
    mcnt = _note_type(collection, "Multiple Choice Note Type", MCNT_FIELDS)
    notes = {
        "basic": _add(
            collection,
            basic,
            deck_id,
            ['humerus <img src="bone.png">', 'upper arm <img src="shape.svg">'],
        ),
        "reversed": _add(collection, reversed_, deck_id, ["radius", "forearm, thumb side"]),
        "cloze": _add(collection, cloze, deck_id, ["The {{c1::ulna}} is {{c2::medial}}", ""]),
        "sc": _add(
            collection,
            anki_mc,
            deck_id,
            _anki_mc(
                "Longest bone?",
                "2",
                ["femur", "tibia", "fibula"],
                "0 1 0",
                title="Legs",
                sources="Gray's Anatomy",
                extra="The <i>tibia</i> is shorter.",
            ),
        ),
        "mc": _add(
            collection,
            anki_mc,
            deck_id,
            _anki_mc("Bones of the forearm?", "1", ["radius", "ulna", "humerus"], "1 1 0"),
        ),
        "kprim": _add(
            collection,
            anki_mc,
            deck_id,
            _anki_mc(
                "True or false?",
                "0",
                ["206 bones", "skull is one bone", "ribs: 12 pairs", "femur is long"],
                "1 0 1 1",
            ),
        ),
        "no answer": _add(
            collection, anki_mc, deck_id, _anki_mc("Nothing right?", "2", ["one", "two"], "0 0")
        ),
        "mismatch": _add(
            collection,
            anki_mc,
            deck_id,
            _anki_mc("Count?", "1", ["one", "two", "three"], "1 0"),
        ),
        "mcnt": _add(
            collection,
            mcnt,
            deck_id,
            [
                "1",
                "Which are carpal bones?",
                *["scaphoid", "femur", "lunate"],
                *[""] * 7,
                "a, c",
                "Atlas p. 12",
                "Both are in the wrist.",
            ],
        ),
    }
    card_id = collection.find_cards(f"nid:{notes['basic']}")[0]
    assert collection.db is not None
    for day, ease in enumerate((3, 1, 3)):
        collection.db.execute(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
            " VALUES (?, ?, -1, ?, 1, 0, 2500, 4000, ?)",
            FIRST_REVIEW_MS + day * DAY_MS,
            card_id,
            ease,
            0 if day == 0 else 1,
        )
    collection.db.execute("UPDATE cards SET type = 2, queue = 2, ivl = 1 WHERE id = ?", card_id)
    return Made(int(deck_id), notes, int(card_id))


def make_packages(folder: Path) -> tuple[Made, dict[str, Path]]:
    """The collection exported three ways: ``latest`` and ``legacy`` .apkg, and ``colpkg``."""
    home = folder / "anki-profile"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        made = fill(collection, Path(collection.media.dir()))
        paths = {"latest": folder / "latest.apkg", "legacy": folder / "legacy.apkg"}
        for name, legacy in (("latest", False), ("legacy", True)):
            options = ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=True, legacy=legacy
            )
            collection.export_anki_package(
                out_path=str(paths[name]),
                options=options,
                limit=DeckIdLimit(DeckId(made.deck_id)),
            )
        paths["colpkg"] = folder / "everything.colpkg"
        collection.export_collection_package(str(paths["colpkg"]), True, False)
    finally:
        collection.close()
    return made, paths
