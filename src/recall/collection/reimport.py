"""Importing a card again, as Anki does: the newer copy wins and the learner's tags stay.

A card an earlier Recall imported from Anki holds only its rendered sides, not the note it
came from (``BasicCard.anki``). Importing the package again (or a newer export of the same
collection) gives such a card its note whatever the times say: Recall's copy cannot be newer
about a note it never had. A card the learner never changed takes the file's copy; so does
one they changed when the file's copy is newer, as any newer copy replaces it (their tags
kept). Otherwise a card they changed keeps everything of theirs and gains the note only
when its sides are what the note renders (a card with a note shows its sides rendered from
it, so sides edited in Recall would be lost); else it keeps its sides without its note.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError

from recall.content.deck_format import CARD_ADAPTER, BasicCard, ChoiceCard
from recall.core import wording
from recall.core.i18n import trn
from recall.storage import CardKey
from recall.storage.records import MovedCard


@dataclass(frozen=True)
class Outcome:
    """What re-importing one stored card does.

    Attributes:
        content: The content to store, or None to leave the card's content as it is.
        newer_kept: The file's copy differs but is older than Recall's, so Recall's stays.
        gained_note: The stored card had no Anki note and ``content`` gives it the file's.
        kept_sides: The stored card had no Anki note and keeps its own sides without one:
            the learner changed the card and its sides are not what the note renders.
    """

    content: str | None
    newer_kept: bool = False
    gained_note: bool = False
    kept_sides: bool = False


def compare(
    stored: CardKey,
    card: BasicCard | ChoiceCard,
    mark: tuple[datetime, bool] | None,
    changed_at: datetime | None,
) -> Outcome:
    """Whether and how a card the file gives again replaces the stored one.

    Args:
        stored: The card as Recall has it.
        card: The card as the file gives it.
        mark: When Recall's copy last changed (in Recall or by the last import) and whether
            the learner changed it in Recall; None when unknown (the file wins).
        changed_at: When the file's copy last changed (Anki's note modification time);
            None for formats without one, where the file wins.

    The file's tags replace those it gave before; tags the learner added in Recall stay.
    A card is changed only when its content differs, never for a newer time alone.
    """
    updated_at, edited = mark if mark is not None else (None, False)
    file_newer = changed_at is None or updated_at is None or changed_at > updated_at
    gaining = _gaining_note(stored, card)
    if gaining is not None:
        return _with_note(*gaining, edited, file_newer)
    content = _with_learner_tags(card, stored.content if edited else None)
    same = stored.kind == card.type and content == stored.content
    if same:
        return Outcome(None)
    if not file_newer:
        return Outcome(None, newer_kept=True)
    return Outcome(content)


def where_moved(
    there: MovedCard, card: BasicCard | ChoiceCard
) -> tuple[CardKey, BasicCard | ChoiceCard, tuple[datetime, bool]]:
    """What a file's card is compared with when the learner moved it to another deck (or
    key): the card where it is, the file's card under its key there, and its mark."""
    return there.stored, card.model_copy(update={"id": there.key}), (there.updated_at, there.edited)


def _gaining_note(
    stored: CardKey, card: BasicCard | ChoiceCard
) -> tuple[BasicCard, BasicCard] | None:
    """The stored card and the file's, when the stored one lacks the Anki note the file's
    has; else None."""
    if not isinstance(card, BasicCard) or card.anki is None or stored.kind != "basic":
        return None
    if '"anki":' in stored.content:  # quotes inside a card's text are escaped in its JSON
        return None
    try:
        stored_card = CARD_ADAPTER.validate_json(stored.content)
    except ValidationError:
        return None  # stored past today's bounds: the ordinary comparison decides
    if not isinstance(stored_card, BasicCard) or stored_card.anki is not None:
        return None
    return stored_card, card


def _with_note(stored: BasicCard, card: BasicCard, edited: bool, file_newer: bool) -> Outcome:
    """How a stored card without its Anki note takes the file's note.

    Args:
        stored: The stored card, which has no note.
        card: The file's card, which has one.
        edited: Whether the learner changed the stored card in Recall.
        file_newer: Whether the file's copy changed after Recall's (or either time is
            unknown): it then replaces the card as any newer copy does, the learner's tags
            kept.
    """
    if not edited:
        return Outcome(card.model_dump_json(exclude_defaults=True), gained_note=True)
    if file_newer:
        return Outcome(_with_learner_tags(card, stored.model_dump_json()), gained_note=True)
    if _sides(stored) != _sides(card):
        return Outcome(None, kept_sides=True)
    update = {"anki": card.anki, "note": stored.note or card.note}
    noted = stored.model_copy(update={**update, "tags": _merged_tags(card.tags, stored.tags)})
    return Outcome(noted.model_dump_json(exclude_defaults=True), gained_note=True)


def _sides(card: BasicCard) -> tuple[str, str, list[str], str]:
    return card.front, card.back, list(card.hints), card.type_answer


def _with_learner_tags(card: BasicCard | ChoiceCard, edited_content: str | None) -> str:
    """The card's content with the tags of a card the learner changed added after its own.

    A card never changed in Recall has only the tags its file gave last time, which the
    file's tags now replace.
    """
    if edited_content is None:
        return card.model_dump_json(exclude_defaults=True)
    try:
        stored_tags = json.loads(edited_content).get("tags", [])
    except (ValueError, AttributeError):
        stored_tags = []
    tags = _merged_tags(card.tags, stored_tags)
    return card.model_copy(update={"tags": tags}).model_dump_json(exclude_defaults=True)


def _merged_tags(file_tags: Sequence[str], stored_tags: Sequence[object]) -> list[str]:
    """The file's tags, then each stored tag the file does not give (by case)."""
    tags = list(file_tags)
    seen = {tag.casefold() for tag in tags}
    for tag in stored_tags:
        if isinstance(tag, str) and tag.casefold() not in seen:
            seen.add(tag.casefold())
            tags.append(tag)
    return tags


def note_counts(noted: int, kept_sides: int) -> str:
    """The words an import report adds for cards that gained their Anki note, or kept their
    own sides without it ("" when none)."""
    words = ""
    if noted:
        words += trn(
            ", {count} given its Anki note", ", {count} given their Anki note", noted
        ).format(count=wording.number(noted))
    if kept_sides:
        words += trn(
            ", {count} card changed here kept its own sides without its Anki note",
            ", {count} cards changed here kept their own sides without their Anki note",
            kept_sides,
        ).format(count=wording.number(kept_sides))
    return words
