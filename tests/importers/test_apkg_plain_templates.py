"""Templates that only name fields are filled from compiled patterns: the same stored cards
and the same report as rendering every card through the template language."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import genanki
import pytest

from recall.collection.importing import import_files
from recall.content import anki_template
from recall.content.card_limits import MAX_SOURCE_FIELD_CHARS
from recall.importers._collection import NoteType
from recall.importers._plain_templates import PlainTemplates, compile_plain
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.helpers.anki_packages import HINTED_MODEL, build_package, edit_collection
from tests.helpers.anki_templates import make_template_packages

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
ANSWER = "{{FrontSide}}<hr id=answer>{{Back}}"


def _model(
    model_id: int, name: str, qfmt: str, afmt: str, css: str = "", fields: tuple[str, ...] = ()
) -> genanki.Model:
    return genanki.Model(
        model_id,
        name,
        fields=[{"name": field} for field in fields or ("Front", "Back")],
        templates=[{"name": "Card 1", "qfmt": qfmt, "afmt": afmt}],
        css=css,
    )


# Plain templates: only text, {{Field}} and {{FrontSide}} on the answer.
HIDING = _model(1_700_100_001, "Hiding", "{{Front}}", ANSWER, ".secret { display: none }")
STYLED = _model(1_700_100_002, "Styled", "{{Front}}", ANSWER, "b { color: red } .card { font: x }")
BRACES = _model(
    1_700_100_003,
    "Braces",
    "Say {x} and }} {{ Front }} <!-- {{Back}} -->",
    "{{Front}}<hr>{{Back}} {0} {front}",  # the question written out again, not {{FrontSide}}
)
LATER = _model(1_700_100_004, "Later", "{{Front}}", "<div>{{Back}}</div>{{FrontSide}}")
REPEATED = _model(1_700_100_005, "Repeated", "{{Front}}" * 5, ANSWER)
STATIC = _model(1_700_100_006, "Static", "Only text", ANSWER)
SPECIAL_NAMES = _model(
    1_700_100_007, "Named like specials", "{{Deck}} {{Tags}}", "{{Deck}}", fields=("Deck", "Tags")
)
# Templates the general renderer keeps.
GENERAL = _model(
    1_700_100_010,
    "General",
    "{{#Front}}{{Front}}{{/Front}}{{^Extra}} (no extra){{/Extra}}{{hint:Extra}}",
    "{{FrontSide}}<hr id=answer>{{text:Back}} {{Tags}} {{Deck}} {{Card}}",
    fields=("Front", "Back", "Extra"),
)
TYPED = _model(1_700_100_011, "Typed", "{{Front}} {{type:Back}}", ANSWER)
SPOKEN = _model(1_700_100_012, "Spoken", "{{tts en_US:Front}}", ANSWER)
MISSING = _model(1_700_100_013, "Missing", "{{Nope}}{{Front}}", ANSWER)
BROKEN = _model(1_700_100_014, "Broken", "{{#Front}}{{Front}}", ANSWER)
FRONT_SIDE_QUESTION = _model(1_700_100_015, "FrontSide asked", "{{FrontSide}}{{Front}}", ANSWER)

PLAIN_MODELS = [
    genanki.BASIC_MODEL,
    genanki.BASIC_AND_REVERSED_CARD_MODEL,
    HINTED_MODEL,
    HIDING,
    STYLED,
    BRACES,
    LATER,
    REPEATED,
    STATIC,
    SPECIAL_NAMES,
]
GENERAL_MODELS = [
    genanki.CLOZE_MODEL,
    genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL,
    genanki.BASIC_TYPE_IN_THE_ANSWER_MODEL,
    GENERAL,
    TYPED,
    SPOKEN,
    MISSING,
    BROKEN,
    FRONT_SIDE_QUESTION,
]

# Hostile and odd field texts, each a front and a back of every two-field note type.
TEXTS = [
    "plain text",
    "<b>bold</b> &amp; <i>italic</i>",
    "<script>alert(1)</script>evil <a href='javascript:x()' onclick='y()'>link</a>",
    '<img src="cat.png"> and <img src="missing.png"> <IMG SRC=cat.png>',
    "[sound:miaou.mp3] and [sound:absent.mp3]",
    '<span class="secret">the answer</span> shown <span CLASS=secret>too</span>',
    '<div style="display:none">hidden inline</div>visible <p hidden>gone</p>here',
    '<b hidclass="x"den>joined</b> after',
    " <br> ",
    "<div></div>",
    "",
    "<div>" * 150 + "deep" + "</div>" * 150,
    "set {0} and {front} and {{Back}} and \x00front\x00 marked",
    "<hr id=answer>after a rule",
]
# Too long for a field, and five times over too long for a side.
HUGE = ["x" * (MAX_SOURCE_FIELD_CHARS + 1), "y" * 900_000]
LONG_TAG = "t" * 600


def _notes() -> list[genanki.Note]:
    notes = []
    # genanki checks the templates it writes: a broken one is only compiled, below.
    packaged = [model for model in PLAIN_MODELS + GENERAL_MODELS if model is not BROKEN]
    two_field = [model for model in packaged if len(model.fields) == 2]
    for model in two_field:
        for index, text in enumerate(TEXTS):
            other = TEXTS[(index + 3) % len(TEXTS)]
            tags = ["plain", f"n{index}"] + ([LONG_TAG] if index % 4 == 0 else [])
            notes.append(genanki.Note(model=model, fields=[text, other], tags=tags))
            notes.append(genanki.Note(model=model, fields=[other, text], tags=tags[:1]))
    for model in (HINTED_MODEL, GENERAL, genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL):
        for index, text in enumerate(TEXTS[:12]):
            fields = [text, TEXTS[(index + 1) % 12], TEXTS[(index + 5) % 12]]
            notes.append(genanki.Note(model=model, fields=fields, tags=["three"]))
    for text in TEXTS[:12]:
        notes.append(
            genanki.Note(model=genanki.CLOZE_MODEL, fields=[f"{{{{c1::{text}}}}} in a cloze", text])
        )
    for model in (genanki.BASIC_MODEL, REPEATED, GENERAL):
        for text in HUGE:
            fields = [text, "a back", "an extra"][: len(model.fields)]
            notes.append(genanki.Note(model=model, fields=fields, tags=["huge"]))
    notes.append(genanki.Note(model=genanki.BASIC_MODEL, fields=["short note", "its back"]))
    notes.append(genanki.Note(model=genanki.BASIC_MODEL, fields=["long note", "its back"]))
    return notes


def _package(folder: Path) -> Path:
    notes = _notes()
    half = len(notes) // 2
    (folder / "miaou.mp3").write_bytes(b"ID3" + bytes(64))
    path = build_package(folder, {"Plain::One": notes[:half], "Plain::Two": notes[half:]})

    def odd_field_counts(connection: sqlite3.Connection) -> None:
        # A note with fewer fields than its type names, and one with more.
        connection.execute("UPDATE notes SET flds = 'short note' WHERE flds LIKE 'short note%'")
        connection.execute(
            "UPDATE notes SET flds = flds || char(31) || 'extra' WHERE flds LIKE 'long note%'"
        )

    edit_collection(path, odd_field_counts)
    return path


def _stored(path: Path) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT deck.key, card.key, card.position, card.kind, card.content, card.search_text"
            " FROM card JOIN deck ON deck.id = card.deck_id ORDER BY deck.key, card.key"
        ).fetchall()
    finally:
        connection.close()


def _import_both(
    package: Path, tmp_path: Path
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[str]]:
    """The cards and report of importing with the patterns, then without them."""
    results = []
    for plain in (True, False):
        folder = tmp_path / f"plain-{plain}"
        folder.mkdir()
        database = Database(folder / "recall.sqlite3")
        try:
            reports = import_files(database, Schedulers(), [package], NOW, plain_templates=plain)
        finally:
            database.close()
        results.append((_stored(folder / "recall.sqlite3"), reports))
    (fast, fast_reports), (general, general_reports) = results
    assert fast_reports == general_reports
    return fast, general, fast_reports[0].notes


def test_plain_templates_store_what_the_template_language_gives(tmp_path: Path) -> None:
    fast, general, notes = _import_both(_package(tmp_path), tmp_path)
    assert fast == general
    # The package reaches every kind of outcome, on both paths alike.
    assert len(fast) > 300
    cards = [json.loads(str(row[4])) for row in fast]
    sides = [text for card in cards for text in (card["front"], card["back"])]
    assert not any("alert(1)" in side or "javascript" in side for side in sides)
    # The hiding note type's class is taken out, the others show it; the styled one's
    # own styling is inline.
    assert any("shown" in side and "the answer" not in side for side in sides)
    assert any("shown" in side and "the answer" in side for side in sides)
    assert any("color:red" in side for side in sides)
    assert any("nothing on their front" in line for line in notes)
    (refused,) = [line for line in notes if "left out for holding more than a card may" in line]
    assert "field 1 is 1,048,577 characters long" in refused
    assert "the front is 4,500,000 characters long" in refused
    assert any("tags left out for being longer than 500" in line for line in notes)
    assert "1 image left out: 'missing.png' in note" in "\n".join(notes)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_template_packages(tmp_path_factory.mktemp("anki-templates"))[1]


@pytest.mark.parametrize("layout", ["latest", "legacy"])
def test_anki_made_packages_store_the_same_cards_both_ways(
    made: dict[str, Path], layout: str, tmp_path: Path
) -> None:
    fast, general, _ = _import_both(made[layout], tmp_path)
    assert fast == general
    assert len(fast) > 10


def _note_type(model: genanki.Model) -> NoteType:
    return NoteType(
        name=model.name,
        is_cloze=model.model_type == genanki.Model.CLOZE,
        field_names=tuple(field["name"] for field in model.fields),
        question_formats={i: t["qfmt"] for i, t in enumerate(model.templates)},
        answer_formats={i: t["afmt"] for i, t in enumerate(model.templates)},
        css=model.css,
    )


def _compiled(model: genanki.Model, ord_: int = 0) -> PlainTemplates | None:
    note_type = _note_type(model)
    question = anki_template.parse(note_type.question_formats[ord_])
    answer = anki_template.parse(note_type.answer_formats[ord_])
    return compile_plain(note_type, question, answer)


@pytest.mark.parametrize("model", PLAIN_MODELS, ids=lambda model: model.name)
def test_templates_of_text_and_fields_are_compiled(model: genanki.Model) -> None:
    for ord_ in range(len(model.templates)):
        assert _compiled(model, ord_) is not None


@pytest.mark.parametrize("model", GENERAL_MODELS, ids=lambda model: model.name)
def test_other_templates_keep_the_template_language(model: genanki.Model) -> None:
    compiled = [_compiled(model, ord_) is not None for ord_ in range(len(model.templates))]
    if model is genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL:
        assert compiled == [True, False]  # the reverse card tests a field
    else:
        assert not any(compiled)


def test_a_basic_card_is_filled_from_its_fields() -> None:
    compiled = _compiled(genanki.BASIC_AND_REVERSED_CARD_MODEL, 1)
    assert compiled is not None
    assert compiled.question == "{1}"
    assert compiled.shown == (1,)
    braces = _compiled(BRACES)
    assert braces is not None
    assert braces.question.format("Q", "A") == "Say {x} and }} Q <!-- {{Back}} -->"
    assert braces.answer.format("Q", "A", front="F") == "Q<hr>A {0} {front}"
