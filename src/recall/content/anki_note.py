"""What an Anki card is: a note (its fields by name) shown through a note type's template.

A card imported from Anki keeps, beside the sides rendered at import, the note it came from
(``AnkiOrigin``: the note's guid, its fields by name, the template's number and the media
names its fields use) and the key of its note type (``AnkiNoteType``: fields, templates,
CSS). The note type is stored once, under the SHA-256 of its canonical JSON
(``note_type_key``), so a row never changes and two computers that hold the same note type
hold the same row. Both are untrusted when read back (a sync folder, a deck file): the
models bound every text, and ``parse_note_type`` says what is wrong in words.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from recall.content.card_limits import MAX_SOURCE_FIELD_CHARS

MAX_NOTE_FIELDS = 100
MAX_TEMPLATES = 100
MAX_TEMPLATE_CHARS = 200_000
MAX_CSS_CHARS = 200_000
MAX_NOTE_TYPE_NAME_CHARS = 500
MAX_MEDIA_NAMES = 1_000
MAX_NOTE_TYPE_BYTES = 8 * 1024**2
"""The most a note type's canonical JSON holds, in UTF-8 (one past it is not kept)."""

NoteTypeKey = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
FieldName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NOTE_TYPE_NAME_CHARS)]
FieldText = Annotated[str, StringConstraints(max_length=MAX_SOURCE_FIELD_CHARS)]
MediaName = Annotated[str, StringConstraints(min_length=1, max_length=1_000)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AnkiTemplate(_Model):
    """One card template of a note type: its number, name and both formats."""

    ord: int = Field(ge=0, lt=10_000, description="The template's number (Anki's ``ord``).")
    name: str = Field(default="", max_length=MAX_NOTE_TYPE_NAME_CHARS)
    qfmt: str = Field(max_length=MAX_TEMPLATE_CHARS, description="The question format.")
    afmt: str = Field(max_length=MAX_TEMPLATE_CHARS, description="The answer format.")


class AnkiNoteType(_Model):
    """An Anki note type as Recall keeps it, stored once under ``note_type_key``."""

    name: str = Field(max_length=MAX_NOTE_TYPE_NAME_CHARS)
    kind: Literal["standard", "cloze"]
    fields: list[FieldName] = Field(min_length=1, max_length=MAX_NOTE_FIELDS)
    templates: list[AnkiTemplate] = Field(min_length=1, max_length=MAX_TEMPLATES)
    css: str = Field(default="", max_length=MAX_CSS_CHARS)

    def template(self, ord_: int) -> AnkiTemplate | None:
        """The template a card of this number shows (a cloze type's only one)."""
        wanted = 0 if self.kind == "cloze" else ord_
        return next((t for t in self.templates if t.ord == wanted), None)


class AnkiOrigin(_Model):
    """The Anki note a card is, and the template it shows that note through."""

    note_type: NoteTypeKey = Field(description="The key of the card's note type.")
    guid: str = Field(default="", max_length=100, description="Anki's note guid.")
    fields: dict[FieldName, FieldText] = Field(
        max_length=MAX_NOTE_FIELDS, description="The note's fields (HTML) by name."
    )
    ord: int = Field(ge=0, lt=10_000, description="The template number (cloze number - 1).")
    card: int = Field(default=0, ge=0, lt=2**63, description="Anki's card id ({{CardID}}).")
    deck: str = Field(default="", max_length=1_000, description="Its Anki deck ({{Deck}}).")
    media: dict[MediaName, MediaName] = Field(
        default_factory=dict,
        max_length=MAX_MEDIA_NAMES,
        description="Each media name the note and template use, and its stored name.",
    )


def media_key(source: str) -> str:
    """How ``AnkiOrigin.media`` names a media reference: as written, or for an image
    written into the field (a ``data:`` URL) by the SHA-256 of the URL."""
    if source[:5].lower() == "data:":
        return "data:sha256," + hashlib.sha256(source.encode()).hexdigest()
    return source


def note_type_json(note_type: AnkiNoteType) -> str:
    """The canonical JSON of a note type: what is stored and what its key hashes."""
    return json.dumps(
        note_type.model_dump(), ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )


def note_type_key(note_type: AnkiNoteType) -> str:
    """A note type's key: the SHA-256 of its canonical JSON, in hex."""
    return hashlib.sha256(note_type_json(note_type).encode()).hexdigest()


class NoteTypeError(ValueError):
    """A stored or received note type that is not one (its message says what is wrong)."""


def parse_note_type(text: str | bytes, key: str | None = None) -> AnkiNoteType:
    """A note type read back from its JSON, checked against its key when one is given.

    Raises:
        NoteTypeError: The text is not a note type within the bounds, or not the one
            ``key`` names.
    """
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_NOTE_TYPE_BYTES:
        raise NoteTypeError(
            f"the note type is {size:,} bytes long (Recall keeps note types up to "
            f"{MAX_NOTE_TYPE_BYTES:,})"
        )
    try:
        note_type = AnkiNoteType.model_validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the note type"
        raise NoteTypeError(f"the note type is damaged ({where}: {first['msg']})") from None
    if key is not None and note_type_key(note_type) != key:
        raise NoteTypeError("the note type's content does not match its key")
    return note_type
