"""Cards from Anki notes as the review shows them: rendered from the note when shown.

A card imported from Anki names its note and note type (``BasicCard.anki``); its question,
answer, hints and type-in answer are rendered from them each time the card's content is
new to this session (``importers.anki_notes``), and kept per card and content, so a card
shown again costs a dictionary look-up. A template that names the deck (``{{Deck}}``,
``{{Subdeck}}``) shows the Recall deck the card is in now, its name read when the card is
shown, so a card whose deck was renamed or that moved to another is rendered again. A card
without a note, or whose note type this database lacks or cannot read, shows its stored
sides, as every card did before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall.content.anki_note import AnkiNoteType, AnkiOrigin, NoteTypeError, parse_note_type
from recall.content.deck_format import BasicCard, ChoiceCard
from recall.storage import Database

if TYPE_CHECKING:
    from recall.importers.anki_notes import NoteCardRenderer

MAX_KEPT = 2_000
"""Rendered cards kept per session; the oldest is dropped past it."""


class ShownNotes:
    """Renders the Anki cards a session shows, once per card and content.

    Args:
        database: Where the note types are read from, once each.
    """

    def __init__(self, database: Database) -> None:
        self._database = database
        self._renderer: NoteCardRenderer | None = None  # loaded with the first Anki card
        self._note_types: dict[str, AnkiNoteType | None] = {}
        self._shown: dict[int, tuple[tuple[str, str | None], BasicCard]] = {}

    def shown(
        self,
        card_id: int,
        content: str,
        card: ChoiceCard | BasicCard,
        deck_id: int | None = None,
    ) -> ChoiceCard | BasicCard:
        """The card as it shows now: an Anki card rendered from its note, any other as it is.

        Args:
            card_id: The card's row id.
            content: Its stored JSON (what ``card`` was read from): a changed note is new
                content, rendered again.
            card: The card read from ``content``.
            deck_id: The deck the card is in, whose name ``{{Deck}}`` shows; None shows the
                Anki deck it was imported from.
        """
        if not isinstance(card, BasicCard) or card.anki is None:
            return card
        deck = self._deck_name(card.anki, deck_id)
        kept = self._shown.get(card_id)
        if kept is not None and kept[0] == (content, deck):
            return kept[1]
        result = self._rendered(card, deck)
        if len(self._shown) >= MAX_KEPT:
            del self._shown[next(iter(self._shown))]
        self._shown[card_id] = ((content, deck), result)
        return result

    def _deck_name(self, origin: AnkiOrigin, deck_id: int | None) -> str | None:
        """The name of the card's deck when its template names it, else None."""
        note_type = None if deck_id is None else self._note_type(origin.note_type)
        if deck_id is None or note_type is None:
            return None
        from recall.importers.anki_notes import template_mentions

        if not template_mentions(note_type, origin.ord, "deck"):
            return None
        with self._database.reading() as transaction:
            try:
                return transaction.decks.get(deck_id).name
            except LookupError:
                return None  # deleted meanwhile: the session says so on the next answer

    def _rendered(self, card: BasicCard, deck: str | None) -> BasicCard:
        assert card.anki is not None
        note_type = self._note_type(card.anki.note_type)
        if note_type is None:
            return card
        if self._renderer is None:
            from recall.importers.anki_notes import NoteCardRenderer

            self._renderer = NoteCardRenderer()
        sides = self._renderer.sides(card.anki, note_type, list(card.tags), deck)
        if sides is None:
            return card
        return card.model_copy(
            update={
                "front": sides.front,
                "back": sides.back,
                "hints": list(sides.hints),
                "type_answer": sides.type_answer,
            }
        )

    def _note_type(self, key: str) -> AnkiNoteType | None:
        if key not in self._note_types:
            with self._database.reading() as transaction:
                content = transaction.note_types.content(key)
            try:
                parsed = None if content is None else parse_note_type(content, key)
            except NoteTypeError:
                parsed = None  # a damaged row: the card's stored sides still show
            self._note_types[key] = parsed
        return self._note_types[key]
