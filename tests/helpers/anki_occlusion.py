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
