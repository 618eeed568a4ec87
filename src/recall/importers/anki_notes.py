"""An imported Anki card rendered from its stored note and note type, as the import did.

Import renders each card once (``_anki_cards``) and keeps its note (``AnkiOrigin``) and
note type (``AnkiNoteType``) beside the sides. ``NoteCardRenderer`` renders a card again
from what is stored: the same template language, the note type's CSS applied by the same
cascade (``_anki_styles``), what the CSS hides taken out, and the result sanitized as the
import sanitizes it, with the media names the import staged (``AnkiOrigin.media``) and
names already in Recall's media form (an image added in Recall's editor).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from recall.content import card_html, math, sound, speech
from recall.content.anki_note import (
    MAX_NOTE_TYPE_BYTES,
    AnkiNoteType,
    AnkiOrigin,
    media_key,
    note_type_json,
    note_type_key,
)
from recall.content.card_limits import MAX_HTML_SIDE_CHARS, length_problem
from recall.importers._anki_cards import CardRenderer
from recall.importers._cards import is_blank
from recall.importers._collection import AnkiCard, AnkiNote, NoteType
from recall.importers._media import MediaStager


@dataclass(frozen=True)
class NoteSides:
    """A stored Anki card's sides as rendered now, sanitized.

    Attributes:
        front: The question ("<br>" when blank, as the import keeps it).
        back: The answer below the question ("<br>" when blank).
        hints: The hints behind the hint button, blank ones left out.
        type_answer: What a type-in box expects ("" when none).
    """

    front: str
    back: str
    hints: tuple[str, ...]
    type_answer: str


def as_note_type(note_type: NoteType) -> AnkiNoteType | None:
    """A package's note type as Recall stores it, or None when it is past the bounds a
    stored note type keeps (its cards then keep only their rendered sides)."""
    ords = sorted(set(note_type.question_formats) | set(note_type.answer_formats))
    try:
        stored = AnkiNoteType.model_validate(
            {
                "name": note_type.name,
                "kind": "cloze" if note_type.is_cloze else "standard",
                "fields": list(note_type.field_names),
                "templates": [
                    {
                        "ord": ord_,
                        "name": note_type.template_names.get(ord_, ""),
                        "qfmt": note_type.question_formats.get(ord_, ""),
                        "afmt": note_type.answer_formats.get(ord_, ""),
                    }
                    for ord_ in ords
                ],
                "css": note_type.css,
            }
        )
    except ValidationError:
        return None
    if len(note_type_json(stored).encode()) > MAX_NOTE_TYPE_BYTES:
        return None
    return stored


def as_package_note_type(stored: AnkiNoteType) -> NoteType:
    """A stored note type in the form the template renderer reads."""
    return NoteType(
        name=stored.name,
        is_cloze=stored.kind == "cloze",
        field_names=tuple(stored.fields),
        question_formats={template.ord: template.qfmt for template in stored.templates},
        answer_formats={template.ord: template.afmt for template in stored.templates},
        template_names={template.ord: template.name for template in stored.templates},
        css=stored.css,
    )


def stored_media_resolver(media: dict[str, str]) -> card_html.MediaResolver:
    """What a media reference in a stored note names: the file the import staged for it,
    or itself when it is already a stored name; None drops it."""

    def resolve(source: str) -> str | None:
        stored = media.get(media_key(source))
        if stored is not None and card_html.is_media_name(stored):
            return stored
        return source if card_html.is_media_name(source) else None

    return resolve


def clean_side(fragment: str, media: dict[str, str]) -> str:
    """A rendered side sanitized as the import sanitizes it (``MediaStager.sanitize``),
    its media named by ``media`` instead of being staged from a package."""
    resolve = stored_media_resolver(media)
    drawn = math.with_anki_images(fragment, lambda name: resolve(name) is not None)
    drawn = speech.elements_as_markers(drawn)
    lowered = drawn.lower()
    if "[sound:" in drawn or "<audio" in lowered or "<video" in lowered:
        drawn = sound.replace_references(sound.media_elements_as_tags(drawn), resolve)
    return card_html.sanitize(drawn, resolve)


def template_mentions(note_type: AnkiNoteType, ord_: int, word: str) -> bool:
    """Whether the template a card of this number shows holds ``word`` (lower case) in any
    case: whether it may show the card's deck (``"deck"``: ``{{Deck}}``, ``{{Subdeck}}``) or
    tags (``"tags"``), so that a caller renders again only a card whose text can change."""
    template = note_type.template(ord_)
    if template is None:
        return False
    return word in template.qfmt.lower() or word in template.afmt.lower()


class NoteCardRenderer:
    """Renders stored Anki cards, parsing each note type's templates and CSS once."""

    def __init__(self) -> None:
        self._decks: dict[int, str] = {}
        self._renderer = CardRenderer(self._decks)  # reads the deck names given each card
        self._type_ids: dict[str, int] = {}
        self._types: dict[str, NoteType] = {}

    def sides(
        self,
        origin: AnkiOrigin,
        note_type: AnkiNoteType,
        tags: list[str],
        deck: str | None = None,
    ) -> NoteSides | None:
        """The card's sides from its note now, or None when they cannot be shown so (Anki
        makes no such card from the note, or a side is past what a card keeps): the caller
        then shows the stored sides.

        Args:
            origin: The card's note.
            note_type: Its note type.
            tags: The card's tags (``{{Tags}}``).
            deck: The name of the deck the card is in now (``{{Deck}}``, ``{{Subdeck}}``);
                None shows the Anki deck it was imported from.
        """
        key = origin.note_type
        if key not in self._type_ids:
            self._type_ids[key] = len(self._type_ids) + 1
            self._types[key] = as_package_note_type(note_type)
        type_id = self._type_ids[key]
        package_type = self._types[key]
        note = AnkiNote(
            id=0,
            type_id=type_id,
            fields=tuple(origin.fields.get(name, "") for name in note_type.fields),
            tags=tuple(tags),
            guid=origin.guid,
        )
        self._decks[0] = origin.deck if deck is None else deck
        card = AnkiCard(origin.card, 0, 0, origin.ord, False, 0, False)
        try:
            rendered = self._renderer.sides(card, note, package_type)
        except RecursionError:
            return None
        if rendered is None:
            return None
        # Stripped as the deck format strips a card's texts.
        front = clean_side(rendered.front, origin.media).strip()
        back = clean_side(rendered.back, origin.media).strip()
        hints = tuple(clean_side(hint, origin.media).strip() for hint in rendered.hints)
        if any(length_problem(text, MAX_HTML_SIDE_CHARS) for text in (front, back, *hints)):
            return None
        return NoteSides(
            front or "<br>",
            back or "<br>",
            tuple(hint for hint in hints if not is_blank(hint)),
            rendered.type_answer,
        )


class NoteData:
    """What an import keeps of each Anki card's note: its ``AnkiOrigin`` and note type.

    Attributes:
        note_types: The note types the imported cards name, canonical JSON by key.
        deck_names: The package's deck names by Anki deck id (for ``{{Deck}}``).
    """

    def __init__(self, stager: MediaStager) -> None:
        self.note_types: dict[str, str] = {}
        self.deck_names: dict[int, str] = {}
        self._stager = stager
        self._keys: dict[int, str | None] = {}

    def origin(self, card: AnkiCard, note: AnkiNote, note_type: NoteType) -> AnkiOrigin | None:
        """The note an imported card is, or None when its note type is past the bounds a
        stored one keeps (the card then shows its rendered sides only)."""
        if note.type_id not in self._keys:
            stored = as_note_type(note_type)
            key = None if stored is None else note_type_key(stored)
            if stored is not None and key is not None:
                self.note_types[key] = note_type_json(stored)
            self._keys[note.type_id] = key
        key = self._keys[note.type_id]
        if key is None or len(note.fields) > len(note_type.field_names):
            return None
        try:
            return AnkiOrigin(
                note_type=key,
                guid=note.guid[:100],
                fields={
                    name: note.fields[index] if index < len(note.fields) else ""
                    for index, name in enumerate(note_type.field_names)
                },
                ord=card.ord,
                card=card.id if card.id >= 0 else 0,
                deck=self.deck_names.get(card.deck_id, "")[:1_000],
                media=dict(self._stager.named.get(note.id, {})),
            )
        except ValidationError:
            return None
