"""Moodle XML question banks: each type, nested categories, embedded images as media, refused
declarations, errors with their line, all or nothing, and re-import."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall.content import card_html
from recall.content.deck_format import BasicCard, ChoiceCard, Deck
from recall.core.errors import DeckError
from recall.host import paths
from recall.importers.moodle_xml import read_moodle_xml
from tests.conftest import DATA
from tests.helpers.import_properties import Failed, ImportChecker

MOODLE = DATA / "moodle"
EXPECTED_ERRORS = {
    "bad_doctype.xml": (
        "line 2, column 16: a document type declaration (<!DOCTYPE>) is not read; "
        "Moodle never writes one"
    ),
    "bad_unclosed.xml": "line 5, column 49: not XML (mismatched tag)",
    "bad_base64.xml": "line 7: the image 'broken.png' is not valid base64",
}


def read(tmp_path: Path, name: str = "questions.xml") -> dict[str, Deck]:
    package = read_moodle_xml(MOODLE / name, tmp_path)
    return {deck.name: deck for deck in package.decks}


def plain(markdown: str | None) -> str | None:
    return None if markdown is None else markdown.replace("\\", "")


def test_nested_categories_become_decks_with_their_counts(tmp_path: Path) -> None:
    decks = read(tmp_path)
    assert {name: len(deck.cards) for name, deck in decks.items()} == {
        "Geography": 2,
        "Geography::Maps": 2,
        "Sciences": 3,
    }
    assert decks["Geography"].description == "Places and maps"


def test_multiple_choice_feedback_and_general_feedback(tmp_path: Path) -> None:
    ocean, islands = read(tmp_path)["Geography"].cards
    assert isinstance(ocean, ChoiceCard)
    assert ocean.question == "Which is the **largest** ocean?"
    assert [(c.text, c.correct, plain(c.why)) for c in ocean.choices] == [
        ("Pacific", True, "Yes, the largest."),
        ("Atlantic", False, "Second largest."),
        ("Indian", False, None),
    ]
    assert plain(ocean.explanation) == "The Pacific covers about a third of the Earth."
    assert isinstance(islands, ChoiceCard)
    assert [(c.text, c.correct) for c in islands.choices] == [
        ("Iceland", True),
        ("Madagascar", True),
        ("Chile", False),
    ]
    assert plain(islands.choices[2].why) == "On the mainland."


def test_an_embedded_image_becomes_a_media_file_the_card_shows(tmp_path: Path) -> None:
    package = read_moodle_xml(MOODLE / "questions.xml", tmp_path)
    flag, equator = next(deck for deck in package.decks if deck.name == "Geography::Maps").cards
    assert isinstance(flag, BasicCard)  # choice cards show no images
    names = [item.name for item in package.media]
    assert len(names) == 2
    assert all(card_html.is_image_name(name) for name in names)
    assert f'src="{names[0]}"' in flag.front
    assert f'src="{names[1]}"' in flag.back  # the right answer's feedback image
    assert "@@PLUGINFILE@@" not in flag.front + flag.back
    staged = {item.name: item.path.read_bytes() for item in package.media}
    assert all(data.startswith(b"\x89PNG") for data in staged.values())
    assert isinstance(equator, ChoiceCard)
    assert [(c.text, c.correct, plain(c.why)) for c in equator.choices] == [
        ("True", True, "It does, near Macapá."),
        ("False", False, "It does pass through Brazil."),
    ]
    assert any("line 80 (it shows images" in note for note in package.notes)


def test_short_answer_numerical_and_matching(tmp_path: Path) -> None:
    water, boiling, planets = read(tmp_path)["Sciences"].cards
    assert isinstance(water, BasicCard)
    assert isinstance(boiling, BasicCard)
    assert isinstance(planets, BasicCard)
    assert water.back == "H2O"
    assert plain(water.explanation) == "Two hydrogen atoms and one oxygen atom."
    assert boiling.back == "100 ± 1 — Right."
    assert "<li><p>Earth</p> → third</li>" in planets.back
    assert "Matching nothing: tenth" in planets.back


def test_essays_descriptions_and_clozes_are_noted(tmp_path: Path) -> None:
    notes = read_moodle_xml(MOODLE / "questions.xml", tmp_path).notes
    assert notes[0] == (
        "3 questions skipped: line 201 (an essay: Recall has no card for written answers); "
        "line 211 (a description, not a question); line 221 (an embedded-answers (cloze) "
        "question)"
    )


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_broken_files_name_their_line(name: str, tmp_path: Path) -> None:
    path = MOODLE / name
    with pytest.raises(DeckError) as raised:
        read_moodle_xml(path, tmp_path)
    assert str(raised.value) == f"{path}: {EXPECTED_ERRORS[name]}"


def test_an_entity_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "lol"}">' for i in range(10))
    path = tmp_path / "bomb.xml"
    path.write_text(f"<?xml version='1.0'?><!DOCTYPE quiz [{laughs}]><quiz>&l9;</quiz>")
    with pytest.raises(DeckError, match="document type declaration"):
        read_moodle_xml(path, tmp_path)


def test_an_oversized_image_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from recall.importers import moodle_xml

    monkeypatch.setattr(moodle_xml, "MAX_IMAGE_BYTES", 16)
    encoded = base64.b64encode(b"\x89PNG" + bytes(64)).decode()
    path = tmp_path / "big.xml"
    path.write_text(
        '<quiz>\n<question type="truefalse"><questiontext format="html">'
        '<text><![CDATA[<img src="@@PLUGINFILE@@/a.png"> Red?]]></text>\n'
        f'<file name="a.png" encoding="base64">{encoded}</file></questiontext>'
        '<answer fraction="100"><text>true</text></answer>'
        '<answer fraction="0"><text>false</text></answer></question></quiz>'
    )
    with pytest.raises(DeckError) as raised:
        read_moodle_xml(path, tmp_path)
    assert str(raised.value) == f"{path}: line 3: the image 'a.png' is larger than 16 bytes"


@pytest.fixture
def checker(tmp_path: Path) -> Iterator[ImportChecker]:
    checker = ImportChecker(tmp_path / "data")
    yield checker
    checker.close()


def test_import_places_the_images_and_a_second_import_updates(checker: ImportChecker) -> None:
    first = checker.check([MOODLE / "questions.xml"])
    assert not isinstance(first, Failed)
    assert first[0].media == 2
    assert sum(deck.added for deck in first[0].decks) == 7
    media = sorted(path.name for path in paths.media_dir(checker.data_dir).iterdir())
    assert len(media) == 2
    again = checker.check([MOODLE / "questions.xml"])
    assert not isinstance(again, Failed)
    assert [(d.added, d.updated, d.unchanged) for d in again[0].decks] == [
        (0, 0, 2),
        (0, 0, 2),
        (0, 0, 3),
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_a_broken_file_leaves_the_collection_as_it_was(checker: ImportChecker, name: str) -> None:
    result = checker.check([MOODLE / "questions.xml", MOODLE / name])
    assert isinstance(result, Failed)
    assert result.lines == [f"{MOODLE / name}: {EXPECTED_ERRORS[name]}"]
    assert not paths.media_dir(checker.data_dir).exists() or not list(
        paths.media_dir(checker.data_dir).iterdir()
    )
