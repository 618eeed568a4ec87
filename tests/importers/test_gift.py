"""Moodle's GIFT format: each question type, categories as decks, errors with line and column,
all or nothing, re-import, and any text a clean import or a ``FILE: where: what`` refusal."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.collection.import_report import DeckReport, ImportReport
from recall.content.deck_format import BasicCard, ChoiceCard, Deck
from recall.core.errors import DeckError
from recall.importers.gift import read_gift
from tests.conftest import DATA
from tests.helpers.import_properties import Failed, ImportChecker

MOODLE = DATA / "moodle"

# Each broken file and the problem it must give (after "FILE: ").
EXPECTED_ERRORS = {
    "bad_unclosed.gift": "line 1, column 49: this { is never closed by }",
    "bad_weight.gift": "line 5, column 6: the weight %half% is not a number",
    "bad_no_answers.gift": (
        "line 1, column 10: a question without answers: put them between { and } "
        "(write \\{ for a brace)"
    ),
}


def unescaped(markdown: str) -> str:
    """Markdown as it reads on the card (the importer escapes Markdown's signs)."""
    return markdown.replace("\\", "")


def decks_by_name(path: Path) -> dict[str, Deck]:
    return {deck.name: deck for deck in read_gift(path).decks}


def card(deck: Deck, question_start: str) -> ChoiceCard | BasicCard:
    for item in deck.cards:
        text = item.question if isinstance(item, ChoiceCard) else item.front
        if unescaped(text).startswith(question_start):
            return item
    raise AssertionError(f"no card starts with {question_start!r}")


def basic(deck: Deck, question_start: str) -> BasicCard:
    item = card(deck, question_start)
    assert isinstance(item, BasicCard)
    return item


def choices(item: ChoiceCard | BasicCard) -> list[tuple[str, bool, str | None]]:
    assert isinstance(item, ChoiceCard)
    return [(c.text, c.correct, unescaped(c.why) if c.why else None) for c in item.choices]


def test_categories_become_decks_with_the_counts_the_file_holds() -> None:
    decks = decks_by_name(MOODLE / "questions.gift")
    counts = {name: len(deck.cards) for name, deck in decks.items()}
    assert counts == {"Colours": 2, "Colours::Mixing": 2, "Numbers": 6}
    kinds = [type(item).__name__ for item in decks["Numbers"].cards]
    assert kinds == ["BasicCard"] * 4 + ["ChoiceCard", "BasicCard"]


def test_multiple_choice_feedback_is_each_choices_why() -> None:
    spectrum = card(decks_by_name(MOODLE / "questions.gift")["Colours"], "What lies between")
    assert choices(spectrum) == [
        ("yellow", True, "right; well done"),
        ("red", False, "no, red comes before orange"),
        ("blue", False, "no, blue comes after green"),
    ]
    assert isinstance(spectrum, ChoiceCard)
    assert spectrum.explanation == ""


def test_weights_make_a_select_all_card_and_general_feedback_the_explanation() -> None:
    primaries = card(decks_by_name(MOODLE / "questions.gift")["Colours"], "Which are primary")
    assert choices(primaries) == [
        ("red", True, "yes"),
        ("yellow", False, "no, yellow is a mix"),
        ("green", True, "yes"),
        ("purple", False, "no"),
    ]
    assert isinstance(primaries, ChoiceCard)
    assert unescaped(primaries.explanation) == "Red, green and blue are the additive primaries."


def test_true_false_feedback_goes_to_the_answer_it_answers() -> None:
    mixing = decks_by_name(MOODLE / "questions.gift")["Colours::Mixing"]
    paint = card(mixing, "Mixing blue and yellow")
    # GIFT gives the feedback for the wrong answer first, then for the right one.
    assert choices(paint) == [("True", True, "Right."), ("False", False, "Try mixing them.")]
    assert isinstance(paint, ChoiceCard)
    assert not paint.shuffle
    assert unescaped(paint.explanation) == "Subtractive mixing."
    pink = card(mixing, "Mixing red and white")
    assert choices(pink) == [("True", True, None), ("False", False, None)]
    # Two questions of one name in a category keep apart, each with a stable id.
    assert pink.id == f"{paint.id}-2"


def test_numerical_short_answer_and_matching_are_basic_cards() -> None:
    numbers = decks_by_name(MOODLE / "questions.gift")["Numbers"]
    assert basic(numbers, "What is pi").back == "3.14 ± 0.005"
    assert basic(numbers, "Name a number").back == "1 to 5"
    animal = basic(numbers, "Which animal")
    assert animal.back == (
        "owl — Yes, Moodle's owl.<br>bird (accepted for 50%) — Close: which bird?"
    )
    capitals = card(numbers, "Match each")
    assert isinstance(capitals, BasicCard)
    assert capitals.markup == "html"
    assert "<li>France → Paris</li>" in capitals.back
    assert "Matching nothing: Lisbon" in capitals.back
    markdown = card(numbers, "What does")
    assert isinstance(markdown, BasicCard)
    assert markdown.markup == "markdown"
    assert (markdown.front, markdown.back) == (
        "What does **GIFT** stand for?",
        "General Import Format Template",
    )


def test_escaped_signs_and_a_missing_word() -> None:
    escapes = card(decks_by_name(MOODLE / "questions.gift")["Numbers"], "The sign")
    assert isinstance(escapes, ChoiceCard)
    assert unescaped(escapes.question) == (
        "The sign { opens a set and = marks _____ in GIFT: 50% ~ half."
    )
    assert choices(escapes) == [("the right answer", True, None), ("a wrong answer", False, None)]


def test_the_essay_is_noted_as_skipped() -> None:
    notes = read_gift(MOODLE / "questions.gift").notes
    assert notes == ["1 essay question skipped: Recall has no card for written answers"]


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_broken_files_name_line_and_column(name: str) -> None:
    path = MOODLE / name
    with pytest.raises(DeckError) as raised:
        read_gift(path)
    assert str(raised.value) == f"{path}: {EXPECTED_ERRORS[name]}"


@pytest.fixture
def checker(tmp_path: Path) -> Iterator[ImportChecker]:
    checker = ImportChecker(tmp_path / "data")
    yield checker
    checker.close()


def reports_of(result: list[ImportReport] | Failed) -> dict[str, DeckReport]:
    assert not isinstance(result, Failed), result
    return {deck.deck_name: deck for report in result for deck in report.decks}


def test_a_broken_file_beside_a_good_one_imports_nothing(
    checker: ImportChecker, tmp_path: Path
) -> None:
    result = checker.check([MOODLE / "questions.gift", MOODLE / "bad_weight.gift"])
    assert isinstance(result, Failed)
    assert result.lines == [f"{MOODLE / 'bad_weight.gift'}: {EXPECTED_ERRORS['bad_weight.gift']}"]
    with checker.database.reading() as transaction:
        assert transaction.browsing.decks() == []


def test_importing_again_updates_instead_of_adding(checker: ImportChecker, tmp_path: Path) -> None:
    copy = tmp_path / "questions.gift"
    shutil.copy(MOODLE / "questions.gift", copy)
    first = reports_of(checker.check([copy]))
    assert {name: report.added for name, report in first.items()} == {
        "Colours": 2, "Colours::Mixing": 2, "Numbers": 6,
    }  # fmt: skip
    copy.write_text(copy.read_text().replace("right; well done", "yes, yellow"))
    again = reports_of(checker.check([copy]))
    assert [(r.added, r.updated, r.unchanged) for r in again.values()] == [
        (0, 1, 1), (0, 0, 2), (0, 0, 6),
    ]  # fmt: skip


GIFT_SIGNS = st.sampled_from([*list("{}=~#:%\\-> \n\t$[]/"), "::", "####", "->", "\n\n", "T"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.one_of(GIFT_SIGNS, st.text(max_size=6)), max_size=30),
    at=st.integers(min_value=0, max_value=2_000),
)
def test_any_text_imports_cleanly_or_is_refused_with_a_place(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], at: int
) -> None:
    folder = tmp_path_factory.mktemp("gift")
    base = (MOODLE / "questions.gift").read_text()
    at = min(at, len(base))
    path = folder / "fuzz.gift"
    path.write_text(base[:at] + "".join(pieces) + base[at:], encoding="utf-8", errors="replace")
    checker = ImportChecker(folder / "data")
    try:
        result = checker.check([path])
    finally:
        checker.close()
    if isinstance(result, Failed):
        assert all(line.startswith(f"{path}: ") for line in result.lines)
