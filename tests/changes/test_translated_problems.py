"""A card's problems in the learner's language, named by the editor's labels."""

from __future__ import annotations

from typing import Any

import pytest

from recall.changes.editing import CardError, check_card
from tests.helpers.catalogs import Translations, installed

GERMAN: Translations = {
    'no choice is marked "correct": true': 'keine Antwort ist mit "correct": true markiert',
    'no choice is marked correct: tick "Correct" beside the right one': (
        "keine Antwort ist als richtig markiert: „Richtig“ neben der richtigen ankreuzen"
    ),
    "must not be empty": "darf nicht leer sein",
    "Choice {number}": "Antwort {number}",
}
NONE_RIGHT: dict[str, Any] = {
    "id": "q",
    "type": "choice",
    "question": "Two plus two?",
    "choices": [{"text": "4"}, {"text": "5"}],
}
EMPTY_CHOICE: dict[str, Any] = {
    **NONE_RIGHT,
    "choices": [{"text": "4", "correct": True}, {"text": ""}],
}


def problems(card: dict[str, Any]) -> list[str]:
    with pytest.raises(CardError) as raised:
        check_card(card)
    return raised.value.problems


def test_the_editor_words_a_deck_files_problems_in_the_installed_language() -> None:
    assert problems(NONE_RIGHT) == [
        'no choice is marked correct: tick "Correct" beside the right one'
    ]
    assert problems(EMPTY_CHOICE) == ["Choice 2: must not be empty"]
    with installed(GERMAN):
        assert problems(NONE_RIGHT) == [
            "keine Antwort ist als richtig markiert: „Richtig“ neben der richtigen ankreuzen"
        ]
        assert problems(EMPTY_CHOICE) == ["Antwort 2: darf nicht leer sein"]
