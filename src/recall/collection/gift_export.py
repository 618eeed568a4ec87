"""A deck as Moodle's GIFT text: choice cards as multiple choice, basic cards as short answer.

Every question is one line: ``::card id::[markdown]question{answers####explanation}``,
with GIFT's signs (``~ = # { } : \\``) escaped and line breaks written ``\\n``, so no text
can end a question early. A choice card with one right choice gives ``=right`` and
``~wrong`` answers; with several, each right choice weighs an equal share (``~%50%``) and
each wrong one ``~%-100%``. Each choice's ``why`` is its ``#feedback``. A basic card's back
is its one accepted answer (as plain text when the card is HTML). Tags, sources and the
choice order setting have no place in GIFT and are left out.
"""

from __future__ import annotations

from recall.content.deck_format import BasicCard, ChoiceCard, Deck
from recall.core import deck_tree
from recall.importers._html_text import html_to_text

_SIGNS = "\\~=#{}:"


def escape(text: str) -> str:
    """Text as GIFT reads it back unchanged: its signs escaped, line breaks as ``\\n``."""
    for sign in _SIGNS:
        text = text.replace(sign, "\\" + sign)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def gift_text(deck: Deck) -> str:
    """The deck as a GIFT file: its category, then one question per card."""
    category = "/".join(part.replace("/", "//") for part in deck.name.split(deck_tree.SEPARATOR))
    lines = [f"// {escape(deck.name)}: exported from Recall", f"$CATEGORY: $course$/top/{category}"]
    for card in deck.cards:
        lines.append(_choice(card) if isinstance(card, ChoiceCard) else _basic(card))
    return "\n\n".join(lines) + "\n"


def _general(explanation: str) -> str:
    return f"####{escape(explanation)}" if explanation.strip() else ""


def _choice(card: ChoiceCard) -> str:
    right = sum(choice.correct for choice in card.choices)
    share = f"{100 / right:.5f}".rstrip("0").rstrip(".")
    answers = []
    for choice in card.choices:
        if right == 1:
            marker = "=" if choice.correct else "~"
        else:
            marker = f"~%{share}%" if choice.correct else "~%-100%"
        why = f"#{escape(choice.why)}" if choice.why else ""
        answers.append(f"{marker}{escape(choice.text)}{why}")
    body = " ".join(answers) + _general(card.explanation)
    return f"::{card.id}::[markdown]{escape(card.question)}{{{body}}}"


def _basic(card: BasicCard) -> str:
    if card.markup == "html":
        front, back = f"[html]{escape(card.front)}", escape(html_to_text(card.back))
    else:
        front, back = f"[markdown]{escape(card.front)}", escape(card.back)
    return f"::{card.id}::{front}{{={back}{_general(card.explanation)}}}"
