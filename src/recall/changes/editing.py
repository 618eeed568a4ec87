"""Writing cards by hand: add a card to a deck, or change one's text, checked as deck files are.

A card is checked by the deck format's own models, and each problem is said with the
editor's labels ("Choice 2: must not be empty" for a deck file's "choices[1].text"). Editing
keeps the card's id,
history and schedule, and marks it as changed in Recall so a newer bundled deck keeps the
learner's text (docs/deck-format.md). An edit told the text it began from is refused when the
card was changed elsewhere meanwhile (a sync, an import, another window), so it never
replaces that version unasked.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Any

from recall.changes.change import Change, Restore
from recall.content.deck_format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    BasicCard,
    ChoiceCard,
    parse_deck,
)
from recall.core import i18n
from recall.core.errors import DeckError, RecallError
from recall.core.i18n import mark, tr, trn
from recall.storage import Database, DeckRow, NewCard


class CardError(RecallError):
    """A card as written breaks the deck format; ``problems`` lists each, as ``where: what``."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class CardChangedElsewhereError(RecallError):
    """The card's stored text is no longer the text an edit began from; nothing was written."""

    def __init__(self, card_id: int) -> None:
        self.card_id = card_id
        super().__init__(
            tr(
                "card {card} was changed elsewhere (a sync, an import or another window) "
                "since this edit began"
            ).format(card=card_id)
        )


def check_card(data: dict[str, Any]) -> ChoiceCard | BasicCard:
    """A card (as deck-file JSON) checked by the deck format.

    Args:
        data: The card's fields as a deck file writes them (``id`` may be left out).

    Raises:
        CardError: Each problem, as ``field: what`` with the editor's labels ("Choice 2:
            must not be empty").
    """
    card = {"id": "card", **data}
    deck = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "id": "editor",
        "name": "editor",
        "cards": [card],
    }
    try:
        parsed = parse_deck(json.dumps(deck), "card")
    except DeckError as error:
        raise CardError([_labelled(_local(problem)) for problem in error.problems]) from None
    return parsed.cards[0]


def _local(problem: str) -> str:
    """A deck-file problem about ``cards[0]`` said about the card alone."""
    return re.sub(r"^cards\[0\](?: \(id '[^']*'\))?(?::\s*)?", "", problem) or problem


# A field of a card as the editor labels it (the editor's rows and check boxes).
_LABELS = {
    "question": mark("Question"),
    "front": mark("Front"),
    "back": mark("Back"),
    "explanation": mark("Explanation"),
    "source": mark("Source"),
    "tags": mark("Tags"),
    "choices": mark("Choices"),
    "shuffle": mark("Shuffle"),
    "markup": mark("Markup"),
}
_CHOICE_PARTS = {
    "text": mark("Choice {number}"),
    "why": mark("Why choice {number}"),
    "correct": mark("Choice {number} is correct"),
}
_PATH = re.compile(r"^([a-z_]+)(?:\[(\d+)\])?(?:\.([a-z_]+))?: ")
_NO_CORRECT = mark('no choice is marked "correct": true')  # as the deck format words it


def _labelled(problem: str) -> str:
    """A problem about a card field named by the editor's label ("choices[1].text" is
    "Choice 2", "tags[0]" is "Tags, tag 1")."""
    if problem == i18n.tr(_NO_CORRECT):
        return tr('no choice is marked correct: tick "Correct" beside the right one')
    match = _PATH.match(problem)
    if match is None or match.group(1) not in _LABELS:
        return problem
    field, index, part = match.groups()
    what = problem[match.end() :]
    if field == "choices" and index is not None:
        number = int(index) + 1
        label = i18n.tr(_CHOICE_PARTS.get(part or "text", _CHOICE_PARTS["text"])).format(
            number=number
        )
    elif field == "tags" and index is not None:
        label = tr("Tags, tag {number}").format(number=int(index) + 1)
    else:
        label = i18n.tr(_LABELS[field])
    return f"{label}: {what}"


def question_of(card: ChoiceCard | BasicCard) -> str:
    """The card's question, or its front."""
    return card.question if isinstance(card, ChoiceCard) else card.front


def is_duplicate(database: Database, deck_id: int, question: str, but: int | None = None) -> bool:
    """Whether another card of the deck already asks exactly this question."""
    with database.reading() as transaction:
        return transaction.browsing.question_exists(deck_id, question.strip(), but)


def new_key(question: str, taken: set[str]) -> str:
    """A card id for a card written by hand: words of its question and a short hash."""
    words = re.findall(r"[a-z0-9]+", question.lower())[:6]
    stem = "-".join(words)[:60].strip("-") or "card"
    digest = hashlib.sha1(question.encode()).hexdigest()[:6]
    key = f"{stem}-{digest}"
    number = 2
    while key in taken:
        key = f"{stem}-{digest}-{number}"
        number += 1
    return key


def add_card(
    database: Database, deck: DeckRow, data: dict[str, Any], now: datetime
) -> tuple[Change, int]:
    """Add a card at the end of a deck.

    Returns:
        The change (undo deletes the card) and the new card's id.

    Raises:
        CardError: The card breaks the deck format.
    """
    change, card_ids = add_cards(database, deck, [data], now)
    return change, card_ids[0]


def add_cards(
    database: Database, deck: DeckRow, cards: list[dict[str, Any]], now: datetime
) -> tuple[Change, list[int]]:
    """Add the cards of one note at the end of a deck, all or none.

    Returns:
        One change (undo deletes every card) and the new cards' ids, in order.

    Raises:
        CardError: A card breaks the deck format (none is added).
    """
    checked = [check_card({k: v for k, v in data.items() if k != "id"}) for data in cards]
    card_ids = []
    with database.transaction() as transaction:
        browsing = transaction.browsing
        taken = browsing.keys(deck.id)
        for card in checked:
            key = new_key(question_of(card), taken)
            taken.add(key)
            stored = card.model_copy(update={"id": key})
            content = stored.model_dump_json(exclude_defaults=True)
            position = browsing.next_position(deck.id)
            transaction.cards.add(deck.id, [NewCard(key, position, stored.type, content)], now)
            card_id = browsing.card_id(deck.id, key)
            assert card_id is not None
            card_ids.append(card_id)
    if len(card_ids) == 1:
        label = tr("Add a card to {deck}").format(deck=deck.name)
    else:
        label = trn("Add {count} card to {deck}", "Add {count} cards to {deck}", len(card_ids))
        label = label.format(count=len(card_ids), deck=deck.name)
    change = Change(label, len(card_ids), Restore(added_cards=tuple(card_ids)), tuple(card_ids))
    return change, card_ids


def edit_card(
    database: Database,
    card_id: int,
    data: dict[str, Any],
    now: datetime,
    began_from: str | None = None,
) -> Change:
    """Replace a card's text; its id, history and schedule stay.

    Args:
        database: The collection.
        card_id: The card edited.
        data: The card's fields as a deck file writes them.
        now: The time of the edit, aware UTC.
        began_from: The card's stored content when the edit began; None replaces whatever
            is stored now.

    Returns:
        The change (undo puts the old text back); ``changed`` is 0 when nothing differed.

    Raises:
        CardError: The card breaks the deck format.
        CardChangedElsewhereError: The stored content is no longer ``began_from`` (and the
            edit differs from it); nothing is written.
    """
    with database.transaction() as transaction:
        browsing = transaction.browsing
        before = browsing.values("card", ("content", "updated_at", "edited", "key"), [card_id])
        if not before:
            raise RecallError(tr("card {card} no longer exists").format(card=card_id))
        key = before[0][4]
        stored = json.loads(before[0][1])
        card = check_card({**data, "id": key, "type": stored["type"]})
        content = card.model_dump_json(exclude_defaults=True)
        if content == before[0][1]:
            return Change(tr("Edit a card"), 0, Restore(), (card_id,))
        if began_from is not None and before[0][1] != began_from:
            raise CardChangedElsewhereError(card_id)
        noted = isinstance(card, BasicCard) and card.anki is not None
        edited = json.loads(content)
        if noted and any(edited.get(part) != stored.get(part) for part in ("anki", "tags")):
            # An Anki note's fields and tags: every card of the note takes them, rendered again.
            from recall.changes import note_editing  # renders with the importer's

            assert isinstance(card, BasicCard)
            if edited.get("anki") != stored.get("anki"):
                contents = note_editing.note_edits(transaction, card_id, card)
            else:
                contents = note_editing.note_tags(transaction, card_id, content)
            before = browsing.values(
                "card", ("content", "updated_at", "edited", "key"), [i for i, _ in contents]
            )
        else:
            contents = [(card_id, content)]
        browsing.set_content(contents, now)
    rows = tuple(row[:4] for row in before)
    label = (
        tr("Edit a card")
        if len(rows) == 1
        else trn("Edit a note's {count} card", "Edit a note's {count} cards", len(rows)).format(
            count=len(rows)
        )
    )
    return Change(
        label,
        len(rows),
        Restore(values=(("card", ("content", "updated_at", "edited"), rows),)),
        tuple(row[0] for row in rows),
    )


def card_data(content: str) -> dict[str, Any]:
    """A stored card's fields, as the editor fills them in."""
    data: dict[str, Any] = json.loads(content)
    return data
