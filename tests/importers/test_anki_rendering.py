"""Imported Anki cards read as Anki's own rendering of them, in both package formats."""

from __future__ import annotations

from pathlib import Path

import genanki
import pytest

from recall.content.anki_note import parse_note_type
from recall.content.deck_format import BasicCard
from recall.importers.anki_notes import NoteCardRenderer
from recall.importers.apkg import read_apkg
from tests.helpers.anki_collections import ANKI_MC_FIELDS
from tests.helpers.anki_packages import build_package
from tests.helpers.anki_templates import AnkiCardText, make_template_packages, plain

Made = tuple[dict[int, AnkiCardText], dict[str, Path]]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return make_template_packages(tmp_path_factory.mktemp("anki-templates"))


def _imported(package: Path, staging: Path) -> tuple[dict[int, BasicCard], list[str]]:
    staging.mkdir()
    result = read_apkg(package, staging)
    cards = {}
    for deck in result.decks:
        for card in deck.cards:
            assert isinstance(card, BasicCard)
            cards[int(card.id.removeprefix("anki-"))] = card
    return cards, result.notes


@pytest.mark.parametrize("layout", ["latest", "legacy"])
def test_every_card_reads_as_anki_renders_it(made: Made, layout: str, tmp_path: Path) -> None:
    texts, paths = made
    cards, notes = _imported(paths[layout], tmp_path / "staging")
    shown = {card_id for card_id, text in texts.items() if not text.empty}
    assert set(cards) == shown
    for card_id in shown:
        card, anki = cards[card_id], texts[card_id]
        where = f"card {card_id}: {anki.question!r}"
        assert plain(card.front) == anki.question, where
        # Recall keeps the question (its hints open) on screen above the back.
        above = " ".join([card.front, *card.hints])
        answer = plain(card.back) if anki.answer_alone else plain(f"{above} {card.back}")
        assert answer == anki.answer, where
        assert tuple(plain(hint) for hint in card.hints) == anki.hints, where
        assert card.type_answer == anki.type_answer, where
    # The note types' own styling is applied whole (colours, fonts; hidden parts out), and
    # Anki's default look is no loss: nothing to report.
    assert [line for line in notes if "styling (CSS)" in line] == []
    assert "1 card with a script in Anki shown without it (Recall runs no scripts)" in notes
    (empty,) = [card_id for card_id, text in texts.items() if text.empty]
    assert any(f"card {empty}" in line and "nothing on their front" in line for line in notes)


def test_the_cards_the_issue_names(made: Made, tmp_path: Path) -> None:
    paths = made[1]
    cards, _ = _imported(paths["latest"], tmp_path / "staging")
    fronts = {plain(card.front): card for card in cards.values()}
    assert plain(fronts["What is the capital of France?"].back) == "Paris on the Seine"
    assert fronts["Lima is the capital of which country? (no notes)"]
    # The vocabulary type's Production card asks for the word by its meaning.
    assert plain(fronts["dog"].back) == "犬"
    # A styled reverse card is not a copy of card 1, and shows its note type's styling.
    assert plain(fronts["back text"].back) == "front text"
    assert fronts["back text"].front == (
        '<div style="font-family:serif"><div style="color:#36c">back text</div></div>'
    )
    # The optional-reverse flag field never shows; the type-in card keeps its answer.
    assert plain(fronts["chat"].back) == "cat"
    assert fronts["Capital of Italy?"].type_answer == "Rome"
    # A hint waits behind its button; a blank back and a picture alone are sides.
    hinted = fronts["6 x 7?"]
    assert hinted.hints == ["a famous number"]
    assert "a famous number" not in hinted.front
    assert plain(fronts["A sound, nothing behind it"].back) == ""
    assert "<img" in fronts["Only a picture on the back"].back
    # What the template hides (the sanitizer drops styles) never reaches the front.
    hidden = fronts["shown question"]
    assert "kept for later" not in hidden.front
    assert "<img" not in hidden.front
    assert plain(hidden.back) == "kept for later"


ANKI_MC_MODEL = genanki.Model(
    1_607_392_400,
    "AllInOne (kprim, mc, sc)",
    fields=[{"name": name} for name in ANKI_MC_FIELDS],
    templates=[{"name": "Card 1", "qfmt": "{{Question}}", "afmt": "{{FrontSide}}<hr>{{Q_1}}"}],
)


def test_large_fields_are_kept_and_only_the_card_over_the_bounds_is_left_out(
    tmp_path: Path,
) -> None:
    long_choice = "x " * 40_000
    choice = ["Which?", "", "2", long_choice, "short", "", "", "", "1 0", "", ""]
    big = "a" * 1_000_000
    package = build_package(
        tmp_path,
        {
            "Big": [
                genanki.Note(model=ANKI_MC_MODEL, fields=choice),
                genanki.Note(model=genanki.BASIC_MODEL, fields=["A long answer", big]),
                genanki.Note(model=genanki.BASIC_MODEL, fields=["Too long", big + "a" * 50_000]),
            ]
        },
    )
    cards, notes = _imported(package, tmp_path / "staging")
    by_front = {card.front: card for card in cards.values()}
    assert set(by_front) == {"A long answer"}
    assert by_front["A long answer"].back == big  # kept whole; the window lays out a part
    (refused,) = [line for line in notes if "left out for holding more" in line]
    assert refused.startswith("2 cards left out")
    assert "choices[0].text: is 79,999 characters long" in refused  # its text, trimmed
    assert "field 2 is 1,050,000 characters long (fields are kept up to 1,048,576)" in refused


@pytest.mark.parametrize("layout", ["latest", "legacy"])
def test_every_card_renders_again_from_its_stored_note_as_imported(
    made: Made, layout: str, tmp_path: Path
) -> None:
    staging = tmp_path / "staging"
    staging.mkdir()
    result = read_apkg(made[1][layout], staging)
    note_types = {key: parse_note_type(text, key) for key, text in result.note_types.items()}
    renderer = NoteCardRenderer()
    rendered = 0
    for deck in result.decks:
        for card in deck.cards:
            assert isinstance(card, BasicCard)
            assert card.anki is not None
            sides = renderer.sides(card.anki, note_types[card.anki.note_type], list(card.tags))
            assert sides is not None, card.id
            assert (sides.front, sides.back, list(sides.hints), sides.type_answer) == (
                card.front,
                card.back,
                card.hints,
                card.type_answer,
            ), card.id
            rendered += 1
    assert rendered == len(made[0]) - 1  # every card but the one Anki shows blank
