"""Decks, cards and presets as fields: from their stored columns, and back from stamped fields.

A card's content (its JSON from the deck file) is split into one field per key, so an edit
of the question on one device and of the tags on another both survive a merge. A key
that is present holds ``[value]``; a key taken out holds ``[]``.
"""

from __future__ import annotations

import json
from typing import Any

from recall.storage.sync_local import CardColumns
from recall.storage.sync_state import Fields

CONTENT = "content."
CONFIG = "config."
DELETED = "deleted"
# A card's seed (what its interval fuzz is drawn from) is set once: the value first sent
# for the card wins on every device (``clock.earlier``), and a device that took another's
# seed never sends its own again.
SEED = "seed"
MOVED = "moved"  # with ``deleted``: the card's keys now (it went to another deck)
# With ``deleted``: deleted for good (not moved). A deletion is final: of a card deleted on
# one device and moved on another while apart, the deletion wins.
GONE = "gone"
# Kept here only, never sent: keys holding a copy of a card another device moved elsewhere
# while apart, the move that won leading elsewhere: the keys the card lives under (or null
# when it was deleted). Worked out again whenever a move arrives, so it can be taken back.
MERGED = "merged"
# Sent once with a card's new keys when it moved there: its keys before. Of two devices
# that moved one card to two places, every device finds both copies by it.
FROM = "from"
_CARD_COLUMNS = ("kind", "position", "flag", "edited", "suspended", "buried_until")


def card_fields(columns: CardColumns) -> dict[str, Any]:
    """A stored card's fields."""
    fields = {name: columns[name] for name in (*_CARD_COLUMNS, SEED)}
    content = json.loads(columns["content"])
    if isinstance(content, dict):
        for key, value in content.items():
            fields[CONTENT + key] = [value]
    return fields


def card_columns(stamped: Fields, local_content: str | None) -> CardColumns | None:
    """The columns stamped fields give a card; None until its kind and position arrived.

    The content keeps the order of the keys the stored content has, then the new ones.
    ``seed`` is there once a device sent one (a Recall before seeds sends none).
    """
    if "kind" not in stamped or "position" not in stamped:
        return None
    columns: CardColumns = {
        "flag": 0,
        "edited": False,
        "suspended": False,
        "buried_until": None,
    }
    for name in (*_CARD_COLUMNS, SEED):
        if name in stamped:
            columns[name] = stamped[name][2]
    order = list(json.loads(local_content)) if local_content else []
    keys = [name[len(CONTENT) :] for name in stamped if name.startswith(CONTENT)]
    content: dict[str, Any] = {}
    for key in [*order, *sorted(key for key in keys if key not in order)]:
        held = stamped.get(CONTENT + key)
        if held is not None and held[2]:
            content[key] = held[2][0]
    columns["content"] = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    return columns


def wrapped_fields(prefix: str, values: dict[str, Any]) -> dict[str, Any]:
    """The keys of a JSON object as fields (``prefix`` + key -> [value])."""
    return {prefix + key: [value] for key, value in values.items()}


def unwrap(prefix: str, stamped: Fields) -> dict[str, Any]:
    """The JSON object stamped ``prefix`` fields give, keys sorted."""
    out: dict[str, Any] = {}
    for name in sorted(stamped):
        if name.startswith(prefix) and stamped[name][2]:
            out[name[len(prefix) :]] = stamped[name][2][0]
    return out


def changed(current: dict[str, Any], stamped: Fields, prefix: str | None) -> dict[str, Any]:
    """The fields whose value differs from the last one stamped, and wrapped keys taken out."""
    out = {
        name: value
        for name, value in current.items()
        if name not in stamped or (stamped[name][2] != value and name != SEED)
    }
    if prefix is not None:
        for name, held in stamped.items():
            if name.startswith(prefix) and name not in current and held[2] != []:
                out[name] = []
    return out


def moved_away(fields: Fields) -> bool:
    """Whether a card's keys are left for others: moved, or a copy merged into the card."""
    return (DELETED in fields and MOVED in fields) or (MERGED in fields and DELETED not in fields)


def gone(fields: Fields) -> bool:
    """Whether no card lives under these keys here (deleted, moved, or a merged copy)."""
    return DELETED in fields or MERGED in fields
