"""Anki's Image Occlusion notes: the occlusion field's shapes, and packages Anki's library made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from recall.content.deck_format import BasicCard, dump_deck, parse_deck
from recall.content.occlusion import MAX_POINTS, MAX_SHAPES, Occlusion, OcclusionShape
from recall.core.errors import DeckError
from recall.importers.anki_occlusion import MAX_FIELD_SHAPES, parse_occlusions
from recall.importers.apkg import read_apkg
from tests.helpers.anki_occlusion import make_enhanced_package, make_occlusion_package

IMAGE = "a" * 64 + ".png"


def test_every_shape_kind_is_read_in_relative_coordinates() -> None:
    parsed = parse_occlusions(
        "{{c1::image-occlusion:rect:left=.2:top=.3:width=.1:height=.15:angle=2500:oi=1}}<br>"
        "{{c1,2::image-occlusion:ellipse:left=.5:top=.4:rx=.1:ry=.05:oi=1}}"
        "{{c3::image-occlusion:polygon:left=.2:top=.2:points=.1,.1 .3,.1 .2,.3:oi=1}}"
        r"{{c0::image-occlusion:text:left=.6:top=.7:text=\:l\\ol\::scale=1.5:fs=.04}}"
    )
    assert parsed.problems == []
    assert parsed.hide_all
    assert parsed.ordinals == [1, 2, 3]
    rect, ellipse, polygon, text = parsed.shapes
    assert (rect.kind, rect.left, rect.top, rect.width, rect.height) == (
        "rect",
        0.2,
        0.3,
        0.1,
        0.15,
    )
    assert rect.angle == pytest.approx(90.0)  # 2500 of 10000 steps: a quarter turn
    assert ellipse.kind == "ellipse"
    assert ellipse.ordinals == [1, 2]
    assert (ellipse.width, ellipse.height) == pytest.approx((0.2, 0.1))
    # Anki moves the corners so their top left is at left, top.
    assert [c for point in polygon.points for c in point] == pytest.approx(
        [0.2, 0.2, 0.4, 0.2, 0.3, 0.4]
    )
    assert (text.kind, text.text, text.scale, text.font_size) == ("text", r":l\ol:", 1.5, 0.04)
    assert text.ordinals == []  # a label on every card


def test_without_oi_a_note_hides_one_and_guesses_one() -> None:
    parsed = parse_occlusions(
        "{{c1::image-occlusion:rect:left=.2:top=.3:width=.1:height=.1}}"
        "{{c2::image-occlusion:rect:left=.5:top=.3:width=.1:height=.1}}"
    )
    assert not parsed.hide_all
    occlusion = Occlusion(image=IMAGE, shapes=parsed.shapes, asked=2, mode="hide-one")
    assert [shape.left for shape in occlusion.masked(answer=False)] == [0.5]
    assert occlusion.masked(answer=True) == []
    hide_all = occlusion.model_copy(update={"mode": "hide-all"})
    assert [shape.left for shape in hide_all.masked(answer=False)] == [0.2, 0.5]
    assert [shape.left for shape in hide_all.masked(answer=True)] == [0.2]


@pytest.mark.parametrize(
    ("shape", "problem"),
    [
        ("rect:left=nan:top=.1:width=.1:height=.1", "left='nan' is not a finite number"),
        ("rect:left=inf:top=.1:width=.1:height=.1", "left='inf' is not a finite number"),
        ("rect:left=x1:top=.1:width=.1:height=.1", "left='x1' is not a number"),
        ("rect:left=120:top=.1:width=.1:height=.1", "coordinates lie between -0.1 and 1.1"),
        ("rect:left=.1:top=.1:width=0:height=.1", "needs a width and a height above 0"),
        ("star:left=.1:top=.1", "not a shape Anki draws"),
        ("polygon:points=.1,.1 .2,.2", "at least 3 points"),
        ("polygon:points=.1;.1 .2,.2 .3,.3", "is not x,y"),
        ("text:left=.1:top=.1:text=", "needs its text"),
        ("text:left=.1:top=.1:text=a:fs=1e9", "the size is"),
    ],
)
def test_an_odd_shape_is_left_out_with_a_note(shape: str, problem: str) -> None:
    parsed = parse_occlusions(
        "{{c1::image-occlusion:rect:left=.1:top=.1:width=.1:height=.1}}"
        f"{{{{c2::image-occlusion:{shape}}}}}"
    )
    assert len(parsed.shapes) == 1
    (note,) = parsed.problems
    assert note.startswith("shape 2")
    assert problem in note


def test_hostile_shape_counts_are_bounded() -> None:
    many = "{{c1::image-occlusion:rect:left=.1:top=.1:width=.1:height=.1}}" * (
        MAX_FIELD_SHAPES + 10
    )
    parsed = parse_occlusions(many)
    assert len(parsed.shapes) == MAX_SHAPES
    assert parsed.problems[-1] == f"shapes after the {MAX_FIELD_SHAPES:,}th left out"
    points = " ".join(f".{i % 9 + 1},.5" for i in range(MAX_POINTS + 1))
    parsed = parse_occlusions(f"{{{{c1::image-occlusion:polygon:points={points}}}}}")
    assert parsed.shapes == []
    assert "at most 200" in parsed.problems[0]


def test_the_deck_format_refuses_out_of_bounds_occlusions_with_the_place() -> None:
    card = {
        "id": "c",
        "type": "basic",
        "markup": "html",
        "front": "<br>",
        "back": "<br>",
        "occlusion": {
            "image": IMAGE,
            "asked": 2,
            "shapes": [
                {"kind": "rect", "left": 0.1, "top": 2, "width": 0.1, "height": 0.1},
                {"kind": "rect", "width": 0.1, "height": 0.1, "ordinals": [1], "fill": "red"},
            ],
        },
    }
    deck = {"format": "recall-deck", "version": 1, "id": "d", "name": "D", "cards": [card]}
    with pytest.raises(DeckError) as caught:
        parse_deck(json.dumps(deck), "deck.json")
    message = str(caught.value)
    assert "occlusion.shapes[0].top: the coordinate is 2.0" in message
    assert "occlusion.shapes[1].fill: unknown field" in message
    with pytest.raises(ValidationError, match="no shape belongs to the asked cloze number 2"):
        Occlusion(
            image=IMAGE,
            asked=2,
            shapes=[OcclusionShape(kind="rect", width=0.1, height=0.1, ordinals=[1])],
        )
    with pytest.raises(ValidationError, match="not a stored media name"):
        Occlusion(
            image="../secret.png",
            asked=1,
            shapes=[OcclusionShape(kind="rect", width=0.1, height=0.1, ordinals=[1])],
        )


@pytest.mark.parametrize("hide_all", [True, False])
def test_an_anki_image_occlusion_note_becomes_one_occlusion_card_per_number(
    tmp_path: Path, hide_all: bool
) -> None:
    made, path = make_occlusion_package(tmp_path, hide_all=hide_all)
    staging = tmp_path / "staging"
    staging.mkdir()
    package = read_apkg(path, staging)
    (deck,) = package.decks
    cards = {card.id: card for card in deck.cards}
    assert set(cards) == {f"anki-{made.card_ids[number]}" for number in (1, 2, 3)}
    (image,) = package.media
    for number in (1, 2, 3):
        card = cards[f"anki-{made.card_ids[number]}"]
        assert isinstance(card, BasicCard)
        assert card.occlusion is not None
        assert card.occlusion.asked == number
        assert card.occlusion.image == image.name
        assert card.occlusion.mode == ("hide-all" if hide_all else "hide-one")
        assert card.front == "<b>Leg</b> bones"
        assert card.back == "From the atlas"
        assert card.note == f"anki-{made.note_id}"  # siblings wait for each other
    first_card = cards[f"anki-{made.card_ids[1]}"]
    assert isinstance(first_card, BasicCard)
    first = first_card.occlusion
    assert first is not None
    kinds = [(shape.kind, shape.ordinals) for shape in first.shapes]
    assert kinds == [
        ("rect", [1]),
        ("rect", [1]),
        ("ellipse", [2]),
        ("polygon", [3]),
        ("text", []),
    ]
    assert first.labels[0].text == "Femur: head"
    assert parse_deck(dump_deck(deck), "again.json") == deck  # a deck file keeps it whole
    # The reviewed card's history and schedule follow its Anki card id.
    key = (deck.id, f"anki-{made.reviewed_card}")
    assert [review.rating.value for review in package.reviews[key]] == [3]
    assert any("occlusion shape left out (not drawn): note" in line for line in package.notes)
    assert any(line.startswith("3 image occlusion cards") for line in package.notes)


def test_an_image_occlusion_enhanced_note_keeps_its_mask_images(tmp_path: Path) -> None:
    card_id, path = make_enhanced_package(tmp_path)
    staging = tmp_path / "staging"
    staging.mkdir()
    package = read_apkg(path, staging)
    (deck,) = package.decks
    (card,) = deck.cards
    assert card.id == f"anki-{card_id}"
    assert isinstance(card, BasicCard)
    assert card.occlusion is not None
    names = {item.name for item in package.media}
    assert card.occlusion.image in names
    assert card.occlusion.question_mask in names
    assert card.occlusion.answer_mask in names
    assert card.occlusion.image.endswith(".png")
    assert card.occlusion.question_mask.endswith(".svg")
    assert card.occlusion.question_mask != card.occlusion.answer_mask
    assert card.occlusion.shapes == []
    assert (card.front, card.back) == ("Leg", "The femur")


_PIECES = st.sampled_from(
    ["{{c1::image-occlusion:", "{{c0,2::", "rect", "polygon", "text", "ellipse", ":left=",
     ":top=", ":width=", ":points=", ":text=", ":fs=", ":angle=", ":oi=1", "1e308", "-0",
     "nan", ".5", ",", " ", "\\", "\\:", "}}", "}", "::", "9" * 30]
)  # fmt: skip


@given(st.lists(_PIECES | st.text(max_size=5), max_size=40).map("".join))
def test_any_occlusion_field_gives_bounded_shapes_or_notes(text: str) -> None:
    parsed = parse_occlusions(text)
    assert len(parsed.shapes) <= MAX_SHAPES
    for shape in parsed.shapes:
        again = OcclusionShape.model_validate_json(shape.model_dump_json())
        assert again == shape
