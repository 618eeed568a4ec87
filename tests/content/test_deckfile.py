"""The deck format: the bundled deck, one fixture per error, and any input fails cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from recall.content.deck_format import (
    BasicCard,
    ChoiceCard,
    Deck,
    deck_schema,
    dump_deck,
    load_deck,
    parse_deck,
)
from recall.core.errors import DeckError
from recall.host import paths
from tests.conftest import DATA

BAD = DATA / "decks" / "bad"

# Each bad fixture file and the message it must produce (after "FILE: ").
EXPECTED_ERRORS = {
    "bad-deck-id": "id: must be lowercase letters, digits, '.', '_' or '-'",
    "choices-not-a-list": "cards[0] (id 'q1'): choices: must be a list",
    "correct-not-bool": "cards[0] (id 'q1'): choices[1].correct: must be true or false",
    "duplicate-card-id": "cards[1] reuses the id 'q1' of cards[0]",
    "duplicate-key": "the key 'name' appears twice in the same object",
    "eleven-choices": "cards[0] (id 'q1'): choices: allows at most 10 (found 11)",
    "empty-name": "name: must not be empty",
    "missing-back": "cards[1] (id 'b1'): back: missing (this field is required)",
    "missing-question": "cards[0] (id 'q1'): question: missing (this field is required)",
    "newer-version": "version: made for a newer Recall (deck format version 2;",
    "no-cards": "cards: needs at least 1 (found 0)",
    "no-correct-choice": "cards[0] (id 'q1'): no choice is marked \"correct\": true",
    "not-json": "line 5, column 3: not valid JSON (Expecting ',' delimiter)",
    "not-utf8": "line 3: not UTF-8 text (byte 0xe9, the 15th byte of the line)",
    "one-choice": "cards[0] (id 'q1'): choices: needs at least 2 (found 1)",
    "repeated-choice": "cards[0] (id 'q1'): choices[2] repeats the text '3'",
    "tag-with-space": "cards[0] (id 'q1'): tags[0]: a tag is one word, without spaces",
    "top-level-list": "must be an object",
    "unknown-card-type": "cards[1] (id 'b1'): 'type' must be \"choice\" or \"basic\"",
    "unknown-key": (
        "cards[0] (id 'q1'): explenation: unknown field, not part of the deck format; "
        "did you mean 'explanation'?"
    ),
    "version-zero": "version: must be 1",
    "version-true": "version: must be the whole number 1",
    "blank-question": "cards[0] (id 'q1'): question: must not be empty",
    "wrong-format": "format: not a Recall deck (it has format 'anki-deck'",
}

CORRECT_ANSWERS = [
    "Extra compute (FLOPs)",
    "Because backpropagation needs them to compute gradients",
    "Checkpoint placement, operators, and hardware determine the cost of replay",
    "O(sqrt(N)) for activation storage",
    "Recompute only memory-heavy but compute-cheap ops, cache expensive ones",
    "Offloading activations to CPU or NVMe",
    "Backward recomputation should reproduce the intended forward randomness",
    "Activation recomputation does not remove optimizer-state storage",
]


def test_every_bad_fixture_has_an_expected_error() -> None:
    assert {path.stem for path in BAD.glob("*.json")} == set(EXPECTED_ERRORS)


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_bad_deck_names_file_place_and_problem(name: str) -> None:
    path = BAD / f"{name}.json"
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert EXPECTED_ERRORS[name] in message


def test_every_problem_in_a_file_is_reported() -> None:
    raw = json.loads((DATA / "decks" / "tiny.json").read_text())
    raw["cards"][0].pop("question")
    raw["cards"][1]["front"] = 3
    with pytest.raises(DeckError) as caught:
        parse_deck(json.dumps(raw), "two-problems.json")
    assert caught.value.problems == [
        "cards[0] (id 'q1'): question: missing (this field is required)",
        "cards[1] (id 'b1'): front: must be text",
    ]


def test_missing_file_is_a_deck_error(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="no such file"):
        load_deck(tmp_path / "nowhere.json")


def test_bundled_deck_is_the_seed_quiz() -> None:
    (entry,) = [e for e in paths.bundled_decks() if e.name == "activation_recompute.json"]
    deck = parse_deck(entry.read_bytes(), entry.name)
    assert deck.id == "activation-recompute"
    assert deck.name == "Activation Recomputation Tradeoffs"
    assert len(deck.cards) == 8
    for card, answer in zip(deck.cards, CORRECT_ANSWERS, strict=True):
        assert isinstance(card, ChoiceCard)
        assert len(card.choices) == 4
        assert [choice.text for choice in card.choices if choice.correct] == [answer]
        wrong = [choice for choice in card.choices if not choice.correct]
        assert all(choice.why for choice in wrong), card.id
        sentences = card.explanation.count(". ") + 1
        assert 2 <= sentences <= 4, card.id
        assert card.source


def test_basic_and_choice_cards_parse_from_the_small_fixture() -> None:
    deck = load_deck(DATA / "decks" / "tiny.json")
    choice, basic = deck.cards
    assert isinstance(choice, ChoiceCard)
    assert choice.correct_indexes == frozenset({1})
    assert isinstance(basic, BasicCard)
    assert basic.back == "Paris"


def test_dump_reads_back_unchanged() -> None:
    deck = load_deck(DATA / "decks" / "tiny.json")
    assert parse_deck(dump_deck(deck), "dumped") == deck


def test_schema_describes_the_format() -> None:
    schema = deck_schema()
    assert schema["title"] == "Recall deck"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) >= {"format", "version", "id", "name", "cards"}
    assert {"ChoiceCard", "BasicCard", "Choice"} <= set(schema["$defs"])


@pytest.mark.parametrize("blank", [" ", "\t\n", "\u00a0", "\u2003\u3000", "\u0085\u2028"])
def test_a_text_of_only_whitespace_is_refused_and_the_schema_says_why(blank: str) -> None:
    """Stripped first, such a text is empty; an external validator, which strips nothing,
    reads the same rule from the schema's pattern."""
    card = {
        "id": "q",
        "type": "choice",
        "question": blank,
        "choices": [{"text": "a", "correct": True}, {"text": blank}],
    }
    with pytest.raises(ValidationError) as raised:
        ChoiceCard.model_validate(card)
    problems = [(error["loc"], error["type"]) for error in raised.value.errors()]
    assert problems == [
        (("question",), "string_too_short"),
        (("choices", 1, "text"), "string_too_short"),
    ]
    question = deck_schema()["$defs"]["ChoiceCard"]["properties"]["question"]
    assert (question["minLength"], question["pattern"]) == (1, r"\S")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["format", "version", "id", "name", "cards", "type", "choices", "x"])
            | st.text(max_size=5),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_is_a_deck_or_a_deck_error(value: object) -> None:
    problems = _problems_of(json.dumps(value))
    assert all(problem.strip() for problem in problems)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_are_a_deck_or_a_deck_error(data: bytes) -> None:
    _problems_of(data)


def _problems_of(data: str | bytes) -> list[str]:
    """Parse; anything but a deck or a DeckError with at least one problem fails the test."""
    try:
        parse_deck(data, "generated.json")
    except DeckError as error:
        problems = error.problems
    else:
        return []
    assert problems, "a DeckError must say what is wrong"
    return problems


slugs = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True)
words = st.text(
    alphabet=st.characters(categories=["L", "N", "P", "Zs"]), min_size=1, max_size=30
).filter(lambda text: text.strip() == text and text)


@st.composite
def decks(draw: st.DrawFn) -> Deck:
    card_ids = draw(st.lists(slugs, min_size=1, max_size=5, unique=True))
    cards: list[dict[str, object]] = []
    for card_id in card_ids:
        if draw(st.booleans()):
            texts = draw(st.lists(words, min_size=2, max_size=10, unique=True))
            right = draw(st.sets(st.integers(0, len(texts) - 1), min_size=1))
            cards.append(
                {
                    "id": card_id,
                    "type": "choice",
                    "question": draw(words),
                    "choices": [
                        {"text": text, "correct": index in right}
                        for index, text in enumerate(texts)
                    ],
                    "explanation": draw(st.text(max_size=40)),
                }
            )
        else:
            cards.append(
                {"id": card_id, "type": "basic", "front": draw(words), "back": draw(words)}
            )
    return Deck.model_validate(
        {
            "format": "recall-deck",
            "version": 1,
            "id": draw(slugs),
            "name": draw(words),
            "cards": cards,
        }
    )


@settings(max_examples=100, deadline=None)
@given(decks())
def test_export_then_import_round_trips(deck: Deck) -> None:
    assert parse_deck(dump_deck(deck), "round-trip.json") == deck
