"""The search text worked out from a card is the one SQL derives from its stored JSON."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from recall.content.deck_format import CARD_ADAPTER, BasicCard, ChoiceCard, load_deck
from recall.content.search_text import search_text
from recall.storage import card_index
from tests.conftest import DATA

_DERIVED = f"SELECT {card_index._texts('?1')}"


def _derived(card: ChoiceCard | BasicCard) -> str:
    connection = sqlite3.connect(":memory:")
    try:
        ((text,),) = connection.execute(
            _DERIVED, (card.model_dump_json(exclude_defaults=True),)
        ).fetchall()
    finally:
        connection.close()
    return str(text)


def test_every_card_of_the_test_decks_has_the_text_sql_derives() -> None:
    files = sorted((DATA / "decks").glob("*.json")) + sorted(
        (Path(__file__).parents[2] / "decks").glob("*.json")
    )
    cards = [card for file in files for card in load_deck(file).cards]
    assert {card.type for card in cards} == {"choice", "basic"}
    for card in cards:
        assert search_text(card) == _derived(card)


# Any text but lone surrogates (which a deck refuses): quotes, backslashes, tabs, line
# breaks, escapes JSON writes as \u, characters outside the BMP.
_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1).filter(
    lambda text: text.strip() != ""
)
_NOTE = st.one_of(st.just(""), _TEXT)


@settings(max_examples=200, deadline=None)
@given(
    question=_TEXT,
    choices=st.lists(st.tuples(_TEXT, st.booleans(), st.none() | _TEXT), min_size=2, max_size=5),
    explanation=_NOTE,
    source=_NOTE,
)
def test_a_choice_card_has_the_text_sql_derives(
    question: str, choices: list[tuple[str, bool, str | None]], explanation: str, source: str
) -> None:
    texts = {text.strip() for text, _, _ in choices}
    if len(texts) < len(choices):
        return  # a deck refuses repeated choices
    card = CARD_ADAPTER.validate_python(
        {
            "id": "c",
            "type": "choice",
            "question": question,
            "choices": [
                {"text": text, "correct": index == 0 or correct, "why": why}
                for index, (text, correct, why) in enumerate(choices)
            ],
            "explanation": explanation,
            "source": source,
        }
    )
    assert search_text(card) == _derived(card)


@settings(max_examples=200, deadline=None)
@given(front=_TEXT, back=_TEXT, explanation=_NOTE, source=_NOTE, html=st.booleans())
def test_a_basic_card_has_the_text_sql_derives(
    front: str, back: str, explanation: str, source: str, html: bool
) -> None:
    card = CARD_ADAPTER.validate_python(
        {
            "id": "b",
            "type": "basic",
            "markup": "html" if html else "markdown",
            "front": front,
            "back": back,
            "explanation": explanation,
            "source": source,
        }
    )
    assert search_text(card) == _derived(card)


def test_a_text_holding_nul_is_left_to_sql() -> None:
    card = CARD_ADAPTER.validate_python(
        {"id": "b", "type": "basic", "front": "a\x00b", "back": "c"}
    )
    assert search_text(card) is None
