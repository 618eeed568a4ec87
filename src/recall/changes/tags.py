"""Cards' tags as changes handle them: checking, adding and removing, and the leech tag."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime

from recall.changes.change import ChangeError, Restore
from recall.core.i18n import tr
from recall.core.presets import LeechPolicy
from recall.storage import Transaction

LEECH_TAG = "leech"


def with_tags(content: str, add: Iterable[str] = (), remove: Iterable[str] = ()) -> str:
    """A card's stored content with tags added and removed (removal ignores case)."""
    data = json.loads(content)
    tags: list[str] = list(data.get("tags", []))
    gone = {tag.casefold() for tag in remove}
    tags = [tag for tag in tags if tag.casefold() not in gone]
    present = {tag.casefold() for tag in tags}
    for tag in add:
        if tag.casefold() not in present:
            tags.append(tag)
            present.add(tag.casefold())
    data["tags"] = tags
    from recall.content.deck_format import CARD_ADAPTER  # the deck models load when first needed

    return CARD_ADAPTER.validate_python(data).model_dump_json(exclude_defaults=True)


def _lacks(content: str, tag: str) -> bool:
    """Whether a stored card lacks a tag (by case)."""
    tags = json.loads(content).get("tags", [])
    return tag.casefold() not in {str(other).casefold() for other in tags}


def check_tags(tags: Iterable[str]) -> list[str]:
    """Tags as given, each checked to be one word.

    Raises:
        ChangeError: A tag is empty or holds a space.
    """
    checked = []
    for tag in tags:
        if not tag or re.search(r"\s", tag):
            raise ChangeError(
                tr("the tag {tag} is not one word; tags cannot hold spaces").format(tag=repr(tag))
            )
        checked.append(tag)
    return checked


def mark_leech(
    transaction: Transaction, card_id: int, policy: LeechPolicy, now: datetime
) -> Restore:
    """Tag a card ``leech`` and, unless its deck's preset says tag only, suspend it.

    A card from an Anki note tags its note, as Anki does: every card of the note takes the
    tag; only the leech is suspended.

    Returns:
        What undoing the answer that made it a leech must put back.
    """
    from recall.changes import note_editing  # loads the renderer when first needed

    browsing = transaction.browsing
    targets = note_editing.note_cards(transaction, [card_id])
    before = browsing.values("card", ("content", "updated_at", "edited"), targets)
    content = [row for row in before if row[0] == card_id or _lacks(row[1], LEECH_TAG)]
    suspended = browsing.values("card_memory", ("suspended",), [card_id])
    tagged = [(row[0], with_tags(row[1], add=[LEECH_TAG])) for row in content]
    browsing.set_content(note_editing.rendered_again(transaction, tagged), now)
    if policy.leech_action == "suspend":
        browsing.set_suspended([card_id], True)
    return Restore(
        values=(
            ("card", ("content", "updated_at", "edited"), tuple(content)),
            ("card_memory", ("suspended",), tuple(suspended)),
        )
    )
