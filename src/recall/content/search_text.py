"""A card's search text worked out from the card itself, as ``storage.card_index`` derives it.

SQL derives ``card.search_text`` from the stored JSON (``card_index``: one ``json_extract``
per field, each parsing the whole card again); for an import of 100,000 cards that was
1.8 s of CPU, most of the write. An import has every card as its model already, so it
works the same text out here and writes it with the card; the insert's set-wise work
(``storage.bulk_rows``) then derives only the cards written without one.
"""

from __future__ import annotations

from recall.content.deck_format import BasicCard, ChoiceCard


def search_text(card: ChoiceCard | BasicCard) -> str | None:
    """The text ``card_index`` derives from ``card.model_dump_json(exclude_defaults=True)``:
    question, front, back, explanation and source, then each choice's text and why, one per
    line, an absent field empty. None when SQL should derive it instead (a text holding NUL,
    which SQLite's functions may treat as the end of a string)."""
    if isinstance(card, ChoiceCard):
        choices = "\n".join(f"{choice.text}\n{choice.why or ''}" for choice in card.choices)
        fields = (card.question, "", "", card.explanation, card.source, choices)
    else:
        fields = ("", card.front, card.back, card.explanation, card.source, "")
    text = "\n".join(fields)
    return None if "\x00" in text else text
