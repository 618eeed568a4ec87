"""Cloze deletions: which numbers a text deletes, and each card's question and answer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recall.importers import cloze
from recall.importers.cloze import cloze_faces, cloze_numbers, has_cloze


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("no deletion", set()),
        ("{{c1::a}} and {{c3::b::hint}}", {1, 3}),
        ("{{c1::outer {{c2::inner}}}}", {1, 2}),
        ("{{c1::never closed", set()),
        ("{{c0::zero is not a number}}", set()),
        ("{{C1::upper case}}", set()),
    ],
)
def test_numbers(text: str, numbers: set[int]) -> None:
    assert cloze_numbers(text) == numbers
    assert has_cloze(text) == bool(numbers)


@pytest.mark.parametrize(
    ("text", "number", "front", "back"),
    [
        (
            "{{c1::Paris}} is in {{c2::France}}",
            1,
            "[...] is in France",
            "<b>Paris</b> is in France",
        ),
        ("{{c1::Paris}} is in {{c2::France}}", 2, "Paris is in [...]", "Paris is in <b>France</b>"),
        ("{{c1::4::a number}} legs", 1, "[a number] legs", "<b>4</b> legs"),
        ("{{c1::a::b::c}}", 1, "[b::c]", "<b>a</b>"),
        ("{{c1::x}} {{c1::y}}", 1, "[...] [...]", "<b>x</b> <b>y</b>"),
        ("{{c1::outer {{c2::inner}} end}}", 1, "[...]", "<b>outer inner end</b>"),
        ("{{c1::outer {{c2::inner}} end}}", 2, "outer [...] end", "outer <b>inner</b> end"),
        ("<i>{{c1::a}}</i> }} {{c2::", 1, "<i>[...]</i> }} {{c2::", "<i><b>a</b></i> }} {{c2::"),
    ],
)
def test_faces(text: str, number: int, front: str, back: str) -> None:
    assert cloze_faces(text, number) == (front, back)


@given(st.text(alphabet="{}:c12ab ", max_size=40))
def test_any_text_renders_and_keeps_plain_text(text: str) -> None:
    numbers = cloze_numbers(text)
    for number in numbers:
        front, back = cloze_faces(text, number)
        assert "[" in front
        assert "<b>" in back
    if not numbers:
        assert cloze_faces(text, 1) == (text, text)


def _faces_by_walking_everything(text: str, number: int) -> tuple[str, str]:
    """The plain definition: render the whole parse for this number."""
    nodes = cloze._parse(text)
    return (
        cloze._render(nodes, number, answer=False),
        cloze._render(nodes, number, answer=True),
    )


@given(st.text(alphabet="{}:c123ab ", max_size=80))
def test_faces_equal_rendering_the_whole_text_for_each_number(text: str) -> None:
    for number in [*cloze_numbers(text), 7]:
        assert cloze_faces(text, number) == _faces_by_walking_everything(text, number)


def test_3000_nested_and_3000_numbered_deletions_give_their_cards() -> None:
    nested = "{{c1::" * 3_000 + "core" + "}}" * 3_000
    assert cloze_numbers(nested) == {1}
    front, back = cloze_faces(nested, 1)
    assert front == "[...]"
    assert back == "<b>" * 3_000 + "core" + "</b>" * 3_000
    many = "".join(f"{{{{c{number}::w{number}}}}} " for number in range(1, 3_001))
    assert cloze_numbers(many) == set(range(1, 3_001))
    front, back = cloze_faces(many, 2_999)
    assert front.count("[...]") == 1
    assert "<b>w2999</b>" in back
    huge_number = "{{c" + "9" * 5_000 + "::x}}"  # past Python's 4,300-digit limit
    assert cloze_numbers(huge_number) == set()
    assert cloze_faces(huge_number, 1) == (huge_number, huge_number)
