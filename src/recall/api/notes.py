"""AnkiConnect's notes as Recall's cards: Basic, reversed, type-in and Cloze note types.

A note's fields are HTML, as in Anki; they are sanitized (``card_html``) and kept as HTML
cards, the way an Anki import keeps them. Recall's own multiple-choice card
(``addChoiceCard``) is written in Markdown, as the deck format writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recall.api.protocol import ApiError, Params
from recall.changes.card_kinds import note_key
from recall.content import card_html
from recall.content.plain_text import plain_text
from recall.importers.cloze import ClozeText

MAX_CHOICES = 26
"""More options than any choice card shows; the deck format has its own, lower bound."""

# Each note type Recall takes, by its name folded to lower case, with its fields in order.
MODELS: dict[str, tuple[str, ...]] = {
    "basic": ("Front", "Back"),
    "basic (and reversed card)": ("Front", "Back"),
    "basic (optional reversed card)": ("Front", "Back", "Add Reverse"),
    "basic (type in the answer)": ("Front", "Back"),
    "cloze": ("Text", "Back Extra"),
}
MODEL_NAMES = (
    "Basic",
    "Basic (and reversed card)",
    "Basic (optional reversed card)",
    "Basic (type in the answer)",
    "Cloze",
)


@dataclass(frozen=True)
class NoteRequest:
    """One note to add: its deck's name, the cards it makes and how duplicates are treated.

    Attributes:
        deck_name: The deck, by name.
        cards: The cards as deck-file JSON (without ids), unchecked by the deck format yet.
        first_field: The first field's text as stored: a duplicate has the same.
        allow_duplicate: Add it even when the deck has a card with the same first field.
    """

    deck_name: str
    cards: list[dict[str, Any]]
    first_field: str
    allow_duplicate: bool


def deck_name(params: Params, name: str = "deckName") -> str:
    """A deck name parameter, stripped and not empty.

    Raises:
        ApiError: Missing, not a string, empty or too long.
    """
    text = params.text(name, limit=500).strip()
    if not text:
        raise ApiError(f"{params.where}.{name} is empty; name a deck")
    return text


def read_note(note: Params) -> NoteRequest:
    """The cards an AnkiConnect note makes.

    Raises:
        ApiError: A part of the wrong type, an unknown note type or field, or a Cloze note
            without a deletion.
    """
    deck = deck_name(note)
    model = note.text("modelName", limit=200)
    wanted = MODELS.get(model.strip().casefold())
    if wanted is None:
        raise ApiError(
            f"model was not found: {model}; Recall takes {', '.join(MODEL_NAMES)} "
            "(or addChoiceCard for a multiple-choice card)"
        )
    fields = _fields(note.mapping("fields"), wanted)
    tags = note.texts("tags", ())
    options = note.mapping("options", {})
    allow = options.flag("allowDuplicate", False)
    kind = model.strip().casefold()
    if kind == "cloze":
        cards = _cloze_cards(fields["Text"], fields["Back Extra"], tags)
        return NoteRequest(deck, cards, str(cards[0]["front"]), allow)
    front, back = fields["Front"], fields["Back"]
    card: dict[str, Any] = {"type": "basic", "markup": "html", "front": front, "back": back}
    if tags:
        card["tags"] = tags
    if kind == "basic (type in the answer)":
        card["type_answer"] = plain_text(back, "html").strip()
    reversed_too = kind == "basic (and reversed card)" or (
        kind == "basic (optional reversed card)" and bool(fields["Add Reverse"].strip())
    )
    if not reversed_too:
        return NoteRequest(deck, [card], front, allow)
    shared = note_key("reversed", f"{front}\n{back}")
    other = {**card, "front": back, "back": front, "note": shared}
    return NoteRequest(deck, [{**card, "note": shared}, other], front, allow)


def _fields(given: Params, wanted: tuple[str, ...]) -> dict[str, str]:
    """The note's fields by their note type's names (matched in any case), sanitized."""
    names = {name.casefold(): name for name in wanted}
    fields = dict.fromkeys(wanted, "")
    for name in given.values:
        if name.casefold() not in names:
            raise ApiError(
                f"{given.where} has no field {name[:80]!r}; this note type has {', '.join(wanted)}"
            )
        value = given.text(name)
        fields[names[name.casefold()]] = card_html.sanitize(value).strip()
    if not fields[wanted[0]]:
        raise ApiError("cannot create note because it is empty")
    return fields


def _cloze_cards(text: str, extra: str, tags: list[str]) -> list[dict[str, Any]]:
    """One basic card per deletion number of a Cloze note, as Anki makes them."""
    cloze = ClozeText(text)
    if not cloze.numbers:
        raise ApiError(
            "cannot create note because it has no cloze deletion; wrap a part in {{c1::...}}"
        )
    shared = note_key("cloze", text)
    cards = []
    for number in cloze.numbers:
        question, answer = cloze.faces(number)
        back = f"{answer}<br><br>{extra}" if extra else answer
        card: dict[str, Any] = {
            "type": "basic",
            "markup": "html",
            "front": question,
            "back": back,
            "note": shared,
        }
        if tags:
            card["tags"] = tags
        cards.append(card)
    return cards


def read_choice_card(params: Params) -> NoteRequest:
    """Recall's multiple-choice card from ``addChoiceCard``'s parameters.

    Raises:
        ApiError: A part of the wrong type.
    """
    deck = deck_name(params, "deck")
    question = params.text("question")
    choices = []
    for choice in params.objects("choices", MAX_CHOICES):
        entry: dict[str, Any] = {"text": choice.text("text")}
        if choice.flag("correct", False):
            entry["correct"] = True
        why = choice.text("why", "")
        if why.strip():
            entry["why"] = why
        choices.append(entry)
    card: dict[str, Any] = {"type": "choice", "question": question, "choices": choices}
    for name in ("explanation", "source"):
        value = params.text(name, "")
        if value.strip():
            card[name] = value
    tags = params.texts("tags", ())
    if tags:
        card["tags"] = tags
    if "shuffle" in params.values:
        card["shuffle"] = params.flag("shuffle")
    return NoteRequest(deck, [card], question.strip(), params.flag("allowDuplicate", False))
