"""Importing a card again, as Anki does: the newer copy wins and the learner's tags stay."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from recall.content.deck_format import BasicCard, ChoiceCard
from recall.storage import CardKey


@dataclass(frozen=True)
class Outcome:
    """What re-importing one stored card does.

    Attributes:
        content: The content to store, or None to leave the card's content as it is.
        newer_kept: The file's copy differs but is older than Recall's, so Recall's stays.
    """

    content: str | None
    newer_kept: bool = False


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
    content = _with_learner_tags(card, stored.content if edited else None)
    same = stored.kind == card.type and content == stored.content
    if same:
        return Outcome(None)
    if changed_at is not None and updated_at is not None and changed_at <= updated_at:
        return Outcome(None, newer_kept=True)
    return Outcome(content)


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
    tags = list(card.tags)
    seen = {tag.casefold() for tag in tags}
    for tag in stored_tags:
        if isinstance(tag, str) and tag.casefold() not in seen:
            seen.add(tag.casefold())
            tags.append(tag)
    return card.model_copy(update={"tags": tags}).model_dump_json(exclude_defaults=True)
