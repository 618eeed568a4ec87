"""Cards imported from Anki written back as their own notes: note type, fields and siblings.

A card that knows its Anki note (``BasicCard.anki``) and whose note type this database
holds goes back to Anki as that note: its note type with its fields, templates and CSS
(one Anki note type per stored one, its id made from the stored key), the note's fields
with their media named as Recall stores the files, the note's guid, and one Anki card per
Recall card of the note, of the template it shows. Anki then renders the card as it did
before it came to Recall.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from recall.content.anki_note import AnkiNoteType, AnkiOrigin, media_key
from recall.content.deck_format import BasicCard, Card

_SOURCE = re.compile(r"""(<img\b[^>]*?\ssrc\s*=\s*)(["']?)([^"'\s>]+)\2""", re.IGNORECASE)
_SOUND = re.compile(r"\[sound:([^\]]+)\]")
_ANKI_DECK = re.compile(r"anki-deck-(\d{1,18})")


def origin_of(card: Card, note_types: dict[str, AnkiNoteType]) -> AnkiOrigin | None:
    """The Anki note a card goes back to Anki as, or None to write it as a Basic note."""
    if not isinstance(card, BasicCard) or card.anki is None:
        return None
    note_type = note_types.get(card.anki.note_type)
    if note_type is None or note_type.template(card.anki.ord) is None:
        return None
    return card.anki


def note_fields(origin: AnkiOrigin, note_type: AnkiNoteType) -> list[str]:
    """The note's fields in its note type's order, media named by their stored names."""

    def stored(name: str) -> str:
        return origin.media.get(media_key(name), name)

    def image(found: re.Match[str]) -> str:
        quote = found.group(2) or '"'
        return f"{found.group(1)}{quote}{stored(found.group(3))}{quote}"

    fields = []
    for name in note_type.fields:
        text = _SOURCE.sub(image, origin.fields.get(name, ""))
        fields.append(_SOUND.sub(lambda found: f"[sound:{stored(found.group(1))}]", text))
    return fields


class AnkiNotes:
    """The notes of an export's Anki cards: one genanki note per Anki note, cards added to it.

    Args:
        genanki: The genanki module (imported by the caller only when exporting).
        note_types: The stored note types the cards name, by key.
    """

    def __init__(self, genanki: Any, note_types: dict[str, AnkiNoteType]) -> None:
        self._genanki = genanki
        self._note_types = note_types
        self._models: dict[str, Any] = {}
        self._notes: dict[tuple[str, str], Any] = {}

    def add(self, origin: AnkiOrigin, tags: Sequence[str], own_guid: str) -> tuple[Any, str, bool]:
        """The note a card belongs to, its guid, and whether the note is new (for the caller
        to add to a deck); the card is added to the note's cards. ``own_guid`` is the
        card's own, for a note that names none."""
        note_type = self._note_types[origin.note_type]
        first = origin.guid or own_guid
        number = 0
        while True:
            # Two Recall cards of one template (a note imported into two decks) go as two
            # notes: each copy after the first takes a guid of its own.
            note_guid = first if number == 0 else f"{first}#{number}"
            note = self._notes.get((origin.note_type, note_guid))
            if note is None or all(card.ord != origin.ord for card in note.cards):
                break
            number += 1
        genanki = self._genanki
        if note is not None:
            note.cards.append(genanki.Card(origin.ord))
            return note, note_guid, False
        note = genanki.Note(
            model=self._model(origin.note_type, note_type),
            fields=note_fields(origin, note_type),
            tags=list(tags),
            guid=note_guid,
        )
        note.cards = [genanki.Card(origin.ord)]  # the note's cards are Recall's, no others
        self._notes[(origin.note_type, note_guid)] = note
        return note, note.guid, True

    def _model(self, key: str, note_type: AnkiNoteType) -> Any:
        if key not in self._models:
            genanki = self._genanki
            templates = sorted(note_type.templates, key=lambda template: template.ord)
            model = _StoredModel(genanki.Model)(
                _model_id(key),
                note_type.name,
                fields=[{"name": name} for name in note_type.fields],
                templates=[
                    {"name": t.name or f"Card {t.ord + 1}", "qfmt": t.qfmt, "afmt": t.afmt}
                    for t in templates
                ],
                css=note_type.css,
                model_type=genanki.Model.CLOZE if note_type.kind == "cloze" else 0,
            )
            self._models[key] = model
        return self._models[key]


def anki_deck_ids(cards: Sequence[Any]) -> dict[str, int]:
    """The Anki deck id each exported deck had, by name, for decks imported from Anki
    (``anki-deck-<id>``): importing the package back then finds the same deck and cards."""
    ids: dict[str, int] = {}
    for studied in cards:
        found = _ANKI_DECK.fullmatch(studied.deck_key)
        if found is not None and int(found.group(1)) not in ids.values():
            ids.setdefault(studied.deck_name, int(found.group(1)))
    return ids


def kept_anki_card_ids(
    cards: Sequence[Any],
    keys: Sequence[tuple[str, int]],
    card_ids: dict[tuple[str, int], int],
) -> tuple[list[tuple[int, int]], dict[tuple[str, int], int]]:
    """Each card imported from Anki, still under its own key (``anki-<card id>``), given
    its Anki card id back in the collection, so importing the package back into Recall
    updates that card.

    Returns:
        The ids to change, as (new, old), and the card ids by note and template after.
    """
    taken = set(card_ids.values())
    kept = dict(card_ids)
    changes = []
    for studied, key in zip(cards, keys, strict=True):
        card = studied.card
        if not isinstance(card, BasicCard) or card.anki is None or not card.anki.card:
            continue
        wanted = card.anki.card
        if card.id != f"anki-{wanted}" or wanted in taken:
            continue
        changes.append((wanted, kept[key]))
        taken.add(wanted)
        kept[key] = wanted
    return changes, kept


def _StoredModel(base: type[Any]) -> type[Any]:
    """genanki's model whose card requirements are not worked out from its templates: the
    cards are given, and Anki works them out again from the templates it reads."""

    class StoredModel(base):  # type: ignore[misc]
        @property
        def _req(self) -> list[list[Any]]:
            return [[index, "any", [0]] for index in range(len(self.templates))]

    return StoredModel


def _model_id(key: str) -> int:
    """A stable Anki note type id for a stored note type (a positive 63-bit number)."""
    return int(hashlib.sha256(f"note type {key}".encode()).hexdigest()[:15], 16)
