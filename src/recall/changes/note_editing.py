"""Editing an Anki note's fields: every card of the note takes them, rendered again.

A card imported from Anki is its note shown through a template (``BasicCard.anki``); the
editor changes the note's fields, and saving writes them to each card of the note (its
siblings, found by the note's guid and note type), renders each card's sides from them
(``importers.anki_notes``) so search, the browser and the statistics read the new text,
and records the whole as one change that undo takes back and sync carries as it carries
any card's edit.
"""

from __future__ import annotations

import json
from typing import Any

from recall.content.anki_note import AnkiNoteType, NoteTypeError, parse_note_type
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.core.errors import RecallError
from recall.importers.anki_notes import NoteCardRenderer
from recall.storage import Transaction

_EMPTY_FRONT = (
    "Fields: the card of template {ord} would show nothing on its front (Anki makes no "
    "such card); give it a field to show"
)


class NoteEditError(RecallError):
    """The note's new fields cannot be saved; ``problems`` says why, as the editor does."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def note_edits(transaction: Transaction, card_id: int, card: BasicCard) -> list[tuple[int, str]]:
    """The (id, content) each card of ``card``'s note takes when ``card`` is saved.

    The edited card keeps what the editor gave it (explanation, source, tags) with its sides
    rendered from its note; each sibling takes the note's fields and tags, rendered too.

    Raises:
        NoteEditError: The note type is not in this database, or a card of the note
            would show nothing on its front.
    """
    origin = card.anki
    assert origin is not None
    note_type = _note_type(transaction, origin.note_type)
    renderer = NoteCardRenderer()
    siblings = [
        (sibling_id, CARD_ADAPTER.validate_json(content))
        for sibling_id, content in transaction.note_types.cards_of_note(origin.guid)
        if sibling_id != card_id and origin.guid
    ]
    edits = [(card_id, card)]
    for sibling_id, sibling in siblings:
        if (
            isinstance(sibling, BasicCard)
            and sibling.anki is not None
            and sibling.anki.guid == origin.guid
            and sibling.anki.note_type == origin.note_type
        ):
            fields = sibling.anki.model_copy(update={"fields": origin.fields})
            edits.append(
                (sibling_id, sibling.model_copy(update={"anki": fields, "tags": card.tags}))
            )
    out = []
    for edited_id, edited in edits:
        assert edited.anki is not None
        sides = renderer.sides(edited.anki, note_type, list(edited.tags))
        if sides is None:
            raise NoteEditError([_EMPTY_FRONT.format(ord=edited.anki.ord + 1)])
        rendered = edited.model_copy(
            update={
                "front": sides.front,
                "back": sides.back,
                "hints": list(sides.hints),
                "type_answer": sides.type_answer,
            }
        )
        checked = CARD_ADAPTER.validate_python(_data(rendered))  # as a deck file would hold it
        out.append((edited_id, checked.model_dump_json(exclude_defaults=True)))
    return out


def _data(card: BasicCard) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(card.model_dump_json(exclude_defaults=True))
    return data


def _note_type(transaction: Transaction, key: str) -> AnkiNoteType:
    content = transaction.note_types.content(key)
    try:
        if content is not None:
            return parse_note_type(content, key)
    except NoteTypeError as error:
        raise NoteEditError([f"Fields: this card's note type cannot be read ({error})"]) from None
    raise NoteEditError(
        [
            "Fields: this card's note type is not in this collection, so its fields cannot be "
            "shown through it; edit its sides instead"
        ]
    )
