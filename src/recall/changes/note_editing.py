"""Editing an Anki note's fields: every card of the note takes them, rendered again.

A card imported from Anki is its note shown through a template (``BasicCard.anki``); the
editor changes the note's fields, and saving writes them to each card of the note (its
siblings, found by the note's guid and note type), renders each card's sides from them
(``importers.anki_notes``) so search, the browser and the statistics read the new text,
and records the whole as one change that undo takes back and sync carries as it carries
any card's edit.

Anki's tags are the note's, so a tag change on one card of a note is made on each card of
the note (``note_cards``), and each is rendered again (``rendered_again``: a template may
show ``{{Tags}}``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from recall.content.anki_note import AnkiNoteType, NoteTypeError, parse_note_type
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr
from recall.importers.anki_notes import NoteCardRenderer, template_mentions
from recall.storage import Transaction

_EMPTY_FRONT = mark(
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
    decks = _deck_names(transaction, [edited_id for edited_id, _ in edits])
    out = []
    for edited_id, edited in edits:
        assert edited.anki is not None
        rendered = _rendered(renderer, edited, note_type, decks.get(edited_id))
        if rendered is None:
            raise NoteEditError([i18n.tr(_EMPTY_FRONT).format(ord=edited.anki.ord + 1)])
        out.append((edited_id, rendered))
    return out


def note_tags(transaction: Transaction, card_id: int, content: str) -> list[tuple[int, str]]:
    """The (id, content) each card of a note takes when the editor saves new tags alone on
    one of them: that card as saved, and every other card of its note with those tags, each
    rendered again if its template may show them (a note type this database lacks is no
    hindrance: the sides stay as stored)."""
    tags = json.loads(content).get("tags", [])
    siblings = [sibling for sibling in note_cards(transaction, [card_id]) if sibling != card_id]
    out = [(card_id, content)]
    for sibling_id, sibling in transaction.browsing.values("card", ("content",), siblings):
        data = json.loads(sibling)
        if data.get("tags", []) != tags:
            retagged = CARD_ADAPTER.validate_python({**data, "tags": tags})
            out.append((sibling_id, retagged.model_dump_json(exclude_defaults=True)))
    return rendered_again(transaction, out)


def note_cards(transaction: Transaction, card_ids: Sequence[int]) -> list[int]:
    """The cards given, then every other card of the Anki notes among them (the same guid
    and note type), each once.

    The siblings are found in one pass over the cards, however many notes are given.
    """
    ids = list(dict.fromkeys(card_ids))
    rows = transaction.browsing.values("card", ("content",), ids)
    notes = {note for note in (_note_of(content) for _, content in rows) if note is not None}
    if not notes:
        return ids
    seen = set(ids)
    for sibling_id, content in transaction.note_types.cards_of_notes(guid for guid, _ in notes):
        if sibling_id not in seen and _note_of(content) in notes:
            seen.add(sibling_id)
            ids.append(sibling_id)
    return ids


def rendered_again(
    transaction: Transaction, contents: Iterable[tuple[int, str]], word: str = "tags"
) -> list[tuple[int, str]]:
    """Each card's (id, content) with its sides rendered again from its Anki note, when its
    template holds ``word`` (``importers.anki_notes.template_mentions``: a tag change
    renders only the cards whose template may show ``{{Tags}}``).

    A card without a note, or whose note type this database lacks or cannot read, or that
    would show nothing on its front, keeps its stored sides: the review shows it as before.
    """
    note_types: dict[str, AnkiNoteType | None] = {}
    contents = list(contents)
    wanted = []
    for number, (_, content) in enumerate(contents):
        origin = _origin_of(content)
        key, ord_ = (None, 0) if origin is None else (origin.get("note_type"), origin.get("ord"))
        if not isinstance(key, str) or not isinstance(ord_, int):
            continue
        if key not in note_types:
            try:
                note_types[key] = _note_type(transaction, key)
            except NoteEditError:
                note_types[key] = None
        note_type = note_types[key]
        if note_type is not None and template_mentions(note_type, ord_, word):
            wanted.append((number, note_type))
    if not wanted:
        return contents
    renderer = NoteCardRenderer()
    decks = _deck_names(transaction, [contents[number][0] for number, _ in wanted])
    out = list(contents)
    for number, note_type in wanted:
        card_id, content = contents[number]
        card = CARD_ADAPTER.validate_json(content)
        if isinstance(card, BasicCard) and card.anki is not None:
            rendered = _rendered(renderer, card, note_type, decks.get(card_id))
            out[number] = (card_id, content if rendered is None else rendered)
    return out


def _origin_of(content: str) -> dict[str, Any] | None:
    """The ``anki`` object of a stored card, if it has one (read without the card's model)."""
    if '"anki":' not in content:  # quotes inside a card's text are escaped in its JSON
        return None
    origin = json.loads(content).get("anki")
    return origin if isinstance(origin, dict) else None


def _note_of(content: str) -> tuple[str, str] | None:
    """The (guid, note type key) of the Anki note a stored card is, if it names one."""
    origin = _origin_of(content)
    if origin is None:
        return None
    guid, key = origin.get("guid"), origin.get("note_type")
    if isinstance(guid, str) and guid and isinstance(key, str):
        return guid, key
    return None


def _deck_names(transaction: Transaction, card_ids: Sequence[int]) -> dict[int, str]:
    """The name of each card's deck, by card id (``{{Deck}}`` shows it)."""
    rows = transaction.browsing.values("card", ("deck_id",), card_ids)
    names = {deck_id: transaction.decks.get(deck_id).name for deck_id in {row[1] for row in rows}}
    return {card_id: names[deck_id] for card_id, deck_id in rows}


def _rendered(
    renderer: NoteCardRenderer, card: BasicCard, note_type: AnkiNoteType, deck: str | None
) -> str | None:
    """The card's content with its sides rendered from its note in its deck, checked as a
    deck file's card is; None when its front would show nothing."""
    assert card.anki is not None
    sides = renderer.sides(card.anki, note_type, list(card.tags), deck)
    if sides is None:
        return None
    rendered = card.model_copy(
        update={
            "front": sides.front,
            "back": sides.back,
            "hints": list(sides.hints),
            "type_answer": sides.type_answer,
        }
    )
    checked = CARD_ADAPTER.validate_python(_data(rendered))  # as a deck file would hold it
    return checked.model_dump_json(exclude_defaults=True)


def _data(card: BasicCard) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(card.model_dump_json(exclude_defaults=True))
    return data


def _note_type(transaction: Transaction, key: str) -> AnkiNoteType:
    content = transaction.note_types.content(key)
    try:
        if content is not None:
            return parse_note_type(content, key)
    except NoteTypeError as error:
        raise NoteEditError(
            [tr("Fields: this card's note type cannot be read ({error})").format(error=error)]
        ) from None
    raise NoteEditError(
        [
            tr(
                "Fields: this card's note type is not in this collection, so its fields cannot "
                "be shown through it; edit its sides instead"
            )
        ]
    )
