"""The deck checker's warning and every code it carries, apart from the checker (which reads
decks as the deck format's models): the item analysis words its flags without loading them."""

from __future__ import annotations

from dataclasses import dataclass

from recall.core.i18n import mark

CODES: dict[str, str] = {
    "correct-longest": "the right option is the longest one in most choice cards",
    "same-position": "the right option is always at the same position in the file",
    "missing-why": "a wrong option has no 'why' note",
    "missing-explanation": "a choice card has no explanation",
    "missing-source": "a card has no source",
    "duplicate-choice": "two options are the same apart from case, spacing or punctuation",
    "near-duplicate-choice": "two options are nearly the same text",
    "all-of-the-above": 'an option such as "all of the above"',
    "none-of-the-above": 'an option such as "none of the above"',
    "give-away": "the question repeats a word found only in the right option",
}
"""Every warning code with a one-line meaning, for ``--accept`` and the documentation."""

HISTORY_CODES: dict[str, str] = {
    "never-picked": mark("a wrong option that no answer picked"),
    "maybe-miskeyed": mark(
        "a wrong option picked more often when the card was known than when not"
    ),
    "too-easy": mark("a card answered right at first sight and while learning"),
}
"""The codes of warnings a deck's review history earns (``recall lint --history``, from the
item analysis in ``stats``); ``--accept`` takes them too."""


@dataclass(frozen=True)
class LintWarning:
    """One thing about a deck that may hurt its teaching.

    Attributes:
        code: The kind of warning, a key of ``CODES``; ``--accept`` names it.
        card_id: The card it is about, or None for a warning about the whole deck.
        field: Where in the card (``question``, ``choices[2].why``) or deck (``cards``).
        message: What is wrong and what to do, in a deck author's words.
    """

    code: str
    card_id: str | None
    field: str
    message: str

    @property
    def key(self) -> str:
        """``code`` or ``code:card-id``, the form ``--accept`` takes."""
        return self.code if self.card_id is None else f"{self.code}:{self.card_id}"
