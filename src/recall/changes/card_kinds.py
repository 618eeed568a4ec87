"""Kinds of note the editor writes, and the deck-file cards each makes.

Basic and multiple-choice notes make one card. A reversed note makes two basic cards that
ask each side, a cloze note one card per deletion number (as Anki's cloze notes do), and
the cards of one note share a ``note`` key so they are siblings.
"""

from __future__ import annotations

import hashlib
from typing import Any

from recall.changes.editing import CardError
from recall.importers.cloze import ClozeText

KINDS = ("choice", "basic", "reversed", "type", "cloze")
NO_DELETION = "Text: has no cloze deletion; wrap a part in {{c1::...}} (Ctrl+Shift+C)"


def note_key(kind: str, text: str) -> str:
    """The ``note`` key the cards of one note share: the kind and text's hash."""
    digest = hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()
    return f"{kind}-{digest[:16]}"


def next_cloze_number(text: str) -> int:
    """The number a new deletion takes: one more than the highest in ``text``."""
    return max(ClozeText(text).numbers, default=0) + 1


def note_cards(kind: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The cards (deck-file JSON without ids) a note written in the editor makes.

    Args:
        kind: One of ``KINDS``.
        data: The note's fields: a choice or basic card's, or a cloze note's ``text`` in
            place of ``front`` and ``back``.

    Returns:
        One card, two for a reversed note, or one per deletion number of a cloze note.

    Raises:
        CardError: A cloze note without a deletion.
    """
    if kind == "reversed":
        front, back = str(data["front"]), str(data["back"])
        note = note_key(kind, f"{front}\n{back}")
        return [{**data, "note": note}, {**data, "front": back, "back": front, "note": note}]
    if kind == "type":
        return [{**data, "type_answer": str(data["back"]).strip()}]
    if kind == "cloze":
        fields = {key: value for key, value in data.items() if key != "text"}
        text = str(data["text"])
        cloze = ClozeText(text)
        if not cloze.numbers:
            raise CardError([NO_DELETION])
        note = note_key(kind, text)
        cards = []
        for number in cloze.numbers:
            question, answer = cloze.faces(number)
            # The faces mark the revealed deletion as HTML bold; the note is Markdown.
            answer = answer.replace("<b>", "**").replace("</b>", "**")
            card = {**fields, "type": "basic", "front": question, "back": answer, "note": note}
            cards.append(card)
        return cards
    return [data]
