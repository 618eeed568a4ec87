"""A package holding a note of Anki's own Image Occlusion note type, made by Anki's library."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

# isort: split
from anki.decks import DeckId

FIRST_REVIEW_MS = 1_700_000_000_000
# Two rectangles share number 1, an ellipse is 2 and a polygon 3; a text label and a shape
# Anki does not draw come too, and a rectangle with a value past the image's edges.
OCCLUSIONS = (
    "{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2:oi=1}}<br>"
    "{{c1::image-occlusion:rect:left=.1:top=.6:width=.1:height=.1:oi=1}}<br>"
    "{{c2::image-occlusion:ellipse:left=.6:top=.1:rx=.1:ry=.1:oi=1}}<br>"
    "{{c3::image-occlusion:polygon:left=.5:top=.5:points=.5,.5 .9,.5 .7,.9:oi=1}}<br>"
    "{{c4::image-occlusion:rect:left=9:top=.1:width=.1:height=.1:oi=1}}<br>"
    "{{c0::image-occlusion:text:left=.05:top=.85:text=Femur\\: head:scale=1:fs=.08}}<br>"
)


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A real PNG of one colour."""
    row = b"\x00" + bytes(rgb) * width
    body = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )


@dataclass(frozen=True)
class MadeOcclusion:
    """What was put in the collection, to check the import against."""

    note_id: int
    card_ids: dict[int, int]  # by cloze number
    reviewed_card: int


def make_occlusion_package(folder: Path, hide_all: bool = True) -> tuple[MadeOcclusion, Path]:
    """An ``.apkg`` with one Image Occlusion note (header, back extra, a reviewed card)."""
    home = folder / "anki-profile"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        image = folder / "skeleton.png"
        image.write_bytes(png(200, 100, (240, 240, 240)))
        collection.add_image_occlusion_notetype()
        note_type = collection.models.by_name("Image Occlusion")
        assert note_type is not None
        occlusions = OCCLUSIONS if hide_all else OCCLUSIONS.replace(":oi=1", "")
        collection.add_image_occlusion_note(
            note_type["id"], str(image), occlusions, "<b>Leg</b> bones", "From the atlas", []
        )
        note_id = collection.find_notes("")[0]
        cards = {
            collection.get_card(cid).ord + 1: cid for cid in collection.card_ids_of_note(note_id)
        }
        reviewed = cards[2]
        assert collection.db is not None
        collection.db.execute(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
            " VALUES (?, ?, -1, 3, 1, 0, 2500, 4000, 0)",
            FIRST_REVIEW_MS,
            reviewed,
        )
        collection.db.execute(
            "UPDATE cards SET type = 2, queue = 2, ivl = 1 WHERE id = ?", reviewed
        )
        deck_id = collection.get_card(reviewed).did
        path = folder / "occlusion.apkg"
        options = ExportAnkiPackageOptions(
            with_scheduling=True, with_deck_configs=False, with_media=True, legacy=False
        )
        collection.export_anki_package(
            out_path=str(path), options=options, limit=DeckIdLimit(DeckId(deck_id))
        )
    finally:
        collection.close()
    return MadeOcclusion(int(note_id), {k: int(v) for k, v in cards.items()}, int(reviewed)), path


ENHANCED_FIELDS = (
    "ID (hidden)",
    "Header",
    "Image",
    "Question Mask",
    "Footer",
    "Remarks",
    "Sources",
    "Extra 1",
    "Extra 2",
    "Answer Mask",
    "Original Mask",
)
ASKED_FILL = "#ff7e7e"  # the add-on's colours: the asked mask and the others
OTHER_FILL = "#ffeba2"


def _mask(rects: list[tuple[int, str]]) -> bytes:
    """An SVG mask the size of a 200 x 100 image: 40 x 20 rectangles at x, y = 20."""
    shapes = "".join(
        f'<rect x="{x}" y="20" width="40" height="20" fill="{fill}" stroke="#2d2d2d"/>'
        for x, fill in rects
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><g>{shapes}</g></svg>'
    ).encode()


def make_enhanced_package(folder: Path) -> tuple[int, Path]:
    """An ``.apkg`` with one note of the Image Occlusion Enhanced add-on ("hide all"): the
    asked rectangle at x 20-60 and another at x 120-160, y 20-40, on a 200 x 100 image.
    Returns the Anki card's id and the package."""
    home = folder / "anki-profile"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        media = Path(collection.media.dir())
        (media / "leg.png").write_bytes(png(200, 100, (240, 240, 240)))
        (media / "leg-1-Q.svg").write_bytes(_mask([(20, ASKED_FILL), (120, OTHER_FILL)]))
        (media / "leg-1-A.svg").write_bytes(_mask([(120, OTHER_FILL)]))
        (media / "leg-O.svg").write_bytes(_mask([(20, OTHER_FILL), (120, OTHER_FILL)]))
        models = collection.models
        model = models.new("Image Occlusion Enhanced")
        for name in ENHANCED_FIELDS:
            models.add_field(model, models.new_field(name))
        template = models.new_template("IO Card")
        template["qfmt"] = (
            '{{#Image}}<div id="io-wrapper"><div id="io-overlay">{{Question Mask}}</div>'
            '<div id="io-original">{{Image}}</div></div>{{/Image}}'
        )
        template["afmt"] = (
            '{{#Image}}<div id="io-wrapper"><div id="io-overlay">{{Answer Mask}}</div>'
            '<div id="io-original">{{Image}}</div></div>{{/Image}}<hr>{{Remarks}}'
        )
        models.add_template(model, template)
        models.add(model)
        added = models.by_name("Image Occlusion Enhanced")
        assert added is not None
        note = collection.new_note(added)
        values = {
            "ID (hidden)": "leg-oa-1",
            "Header": "Leg",
            "Image": '<img src="leg.png">',
            "Question Mask": '<img src="leg-1-Q.svg">',
            "Remarks": "The femur",
            "Answer Mask": '<img src="leg-1-A.svg">',
            "Original Mask": '<img src="leg-O.svg">',
        }
        for name, value in values.items():
            note[name] = value
        collection.add_note(note, collection.decks.id("Legs") or DeckId(1))
        card_id = collection.find_cards("")[0]
        deck_id = collection.get_card(card_id).did
        path = folder / "enhanced.apkg"
        options = ExportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=False, with_media=True, legacy=False
        )
        collection.export_anki_package(
            out_path=str(path), options=options, limit=DeckIdLimit(DeckId(deck_id))
        )
    finally:
        collection.close()
    return int(card_id), path
