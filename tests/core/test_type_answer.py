"""A typed answer against the right one: marked runs as Anki shows them, and slips."""

from __future__ import annotations

import pytest

from recall.core.grading import propose_typed_rating
from recall.core.memory import Rating
from recall.core.type_answer import Mark, Piece, compare


def test_a_right_answer_is_all_good_whatever_the_spaces_around_it() -> None:
    comparison = compare("Rome", " Rome ")
    assert comparison.correct
    assert not comparison.one_slip
    assert comparison.expected == (Piece("Rome", Mark.GOOD),)


def test_wrong_and_missing_characters_are_marked_on_both_lines() -> None:
    comparison = compare("colour", "color")
    assert comparison.typed == (
        Piece("colo", Mark.GOOD),
        Piece("-", Mark.MISSED),
        Piece("r", Mark.GOOD),
    )
    assert comparison.expected == (
        Piece("colo", Mark.GOOD),
        Piece("u", Mark.MISSED),
        Piece("r", Mark.GOOD),
    )
    replaced = compare("Rome", "Roma")
    assert replaced.typed[-1] == Piece("a", Mark.BAD)
    assert replaced.expected[-1] == Piece("e", Mark.MISSED)
    extra = compare("cat", "cart")
    assert Piece("r", Mark.BAD) in extra.typed


def test_composed_and_decomposed_accents_are_the_same_answer() -> None:
    assert compare("café", "cafe\u0301").correct


@pytest.mark.parametrize(
    ("typed", "slip"),
    [
        ("Roma", True),  # changed
        ("Rom", True),  # dropped
        ("Romee", True),  # added
        ("Roem", True),  # swapped
        ("Rma", False),
        ("Paris", False),
        ("rome", True),  # case counts, as in Anki: one slip
    ],
)
def test_one_slip_from_right(typed: str, slip: bool) -> None:
    assert compare("Rome", typed).one_slip is slip


@pytest.mark.parametrize(
    ("correct", "slip", "duration", "rating"),
    [
        (True, False, 5_000, Rating.GOOD),
        (True, False, 30_000, Rating.HARD),  # slow, as for choices
        (True, False, 1_000, Rating.EASY),
        (False, True, 5_000, Rating.HARD),
        (False, False, 5_000, Rating.AGAIN),
    ],
)
def test_typed_answers_are_graded_as_choices_are_with_a_slip_hard(
    correct: bool, slip: bool, duration: int, rating: Rating
) -> None:
    assert propose_typed_rating(correct, slip, duration, 5_000.0) is rating


def test_an_option_typed_from_memory_may_ignore_case_and_keeps_each_texts_own() -> None:
    folded = compare("Paris", " pARIS ", ignore_case=True)
    assert folded.correct
    assert folded.expected == (Piece("Paris", Mark.GOOD),)
    near = compare("Straße", "strasse", ignore_case=True)  # "ß" folds to "ss": not one letter
    assert not near.correct
    assert "".join(piece.text for piece in near.expected) == "Straße"
    assert compare("Rome", "roma", ignore_case=True).one_slip
    assert not compare("Rome", "rome").correct  # a type-in card's answer counts case
