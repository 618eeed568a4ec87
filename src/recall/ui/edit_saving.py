"""Saving a card's edit without silently replacing a version saved elsewhere meanwhile.

An editor remembers the content it was loaded from; when the card was changed since (a sync,
an import, another window or the command line), the learner is asked whether this edit
replaces that version. Yes saves it as an ordinary edit, so Undo brings the other back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from recall.changes.change import Change
from recall.changes.editing import CardChangedElsewhereError, edit_card
from recall.core import i18n
from recall.core.i18n import mark
from recall.storage import Database
from recall.ui.prompts import Prompts

CHANGED_TITLE = mark("Card Changed Elsewhere")
CHANGED_QUESTION = mark(
    "This card was changed elsewhere (a sync, an import or another window) since you began "
    "editing it. Replace the version saved elsewhere with this edit? Undo brings the other "
    "version back."
)
KEPT = mark("The version saved elsewhere was kept and is now shown; this edit was not saved.")


def save_edit(
    database: Database,
    card_id: int,
    data: dict[str, Any],
    began_from: str,
    now: datetime,
    prompts: Prompts,
) -> Change:
    """Save an edit begun from ``began_from``, asking first if the card changed since.

    Args:
        database: The collection.
        card_id: The card edited.
        data: The card's fields as the editor has them.
        began_from: The card's stored content when the editor was loaded.
        now: The time of the edit, aware UTC.
        prompts: Asks the learner whether the edit replaces the version saved elsewhere.

    Returns:
        The change (undo puts the text before it back).

    Raises:
        CardChangedElsewhereError: The card changed since and the learner kept that version;
            nothing was written.
        CardError: The card breaks the deck format.
    """
    try:
        return edit_card(database, card_id, data, now, began_from=began_from)
    except CardChangedElsewhereError:
        if not prompts.confirm(i18n.tr(CHANGED_TITLE), i18n.tr(CHANGED_QUESTION)):
            raise
    return edit_card(database, card_id, data, now)
