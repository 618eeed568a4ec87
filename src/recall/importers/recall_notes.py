"""Anki notes that Recall exported: their guid names the Recall card they were made from."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

GUID_PREFIX = "recall/"
_KEY = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")


def guid(deck_key: str, card_key: str) -> str:
    """The guid of the Anki note a Recall card becomes."""
    return f"{GUID_PREFIX}{deck_key}/{card_key}"


def recall_keys(note_guid: str) -> tuple[str, str] | None:
    """The (deck id, card id) a note exported by Recall was made from, else None."""
    if not note_guid.startswith(GUID_PREFIX):
        return None
    deck_key, _, card_key = note_guid[len(GUID_PREFIX) :].partition("/")
    if _KEY.fullmatch(deck_key) and _KEY.fullmatch(card_key):
        return deck_key, card_key
    return None


def fields_fingerprint(fields: Sequence[str]) -> str:
    """A digest of a note's fields: tells a note Anki left as exported from one edited there."""
    return hashlib.sha256("\x1f".join(fields).encode("utf-8")).hexdigest()[:32]
