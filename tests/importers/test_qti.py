"""QTI 2.1 items: choice, select all that apply, feedback, type-in, a content package with an
image, interactions left out and named, hostile packages refused with the collection as it was."""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.cli.main import main
from recall.collection import importing
from recall.content import card_html
from recall.content.deck_format import BasicCard, ChoiceCard, Deck
from recall.core.errors import DeckError
from recall.host import paths
from recall.importers import qti
from recall.importers.qti import read_qti
from tests.conftest import DATA
from tests.helpers.import_properties import Failed, ImportChecker

QTI = DATA / "qti"
PACKAGE = QTI / "package"
ITEM = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="{id}" '
    'title="{id}">\n'
    '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
    "<correctResponse><value>a</value></correctResponse></responseDeclaration>\n"
    '<itemBody>{body}<choiceInteraction responseIdentifier="RESPONSE" maxChoices="1">'
    "<prompt>Pick one</prompt>"
    '<simpleChoice identifier="a">A</simpleChoice><simpleChoice identifier="b">B</simpleChoice>'
    "</choiceInteraction></itemBody>\n</assessmentItem>\n"
)
MANIFEST = (
    '<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m">\n'
    "<resources>\n"
    '<resource identifier="r" type="imsqti_item_xmlv2p1" href="{href}"/>\n'
    "</resources>\n</manifest>\n"
)


def plain(markdown: str | None) -> str | None:
    return None if markdown is None else markdown.replace("\\", "")


def only_deck(path: Path, staging: Path) -> Deck:
    (deck,) = read_qti(path, staging).decks
    return deck


def zipped(target: Path, entries: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return target


def package_entries() -> dict[str, bytes | str]:
    return {
        path.relative_to(PACKAGE).as_posix(): path.read_bytes()
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def europe(tmp_path: Path) -> Path:
    return zipped(tmp_path / "europe.zip", package_entries())


@pytest.fixture
def staging(tmp_path: Path) -> Path:
    folder = tmp_path / "staging"
    folder.mkdir()
    return folder


def test_one_correct_choice_with_feedback_per_choice_and_general_feedback(
    staging: Path,
) -> None:
    deck = only_deck(QTI / "choice.xml", staging)
    assert deck.name == "choice"
    (card,) = deck.cards
    assert isinstance(card, ChoiceCard)
    assert card.id.startswith("q-longest-river-")
    assert plain(card.question) == (
        "Rivers are measured from source to mouth.\n\nWhich river is the **longest**?"
    )
    assert [(c.text, c.correct, plain(c.why)) for c in card.choices] == [
        ("Nile", True, "Yes, about 6,650 km."),
        ("Amazon", False, "A close second."),
        ("Danube", False, None),
    ]
    assert plain(card.explanation) == "Some measure the Amazon as longer."


def test_several_correct_values_are_select_all_that_apply(staging: Path) -> None:
    (card,) = only_deck(QTI / "choice_multiple.xml", staging).cards
    assert isinstance(card, ChoiceCard)
    assert card.question == "Which of these are noble gases?"
    assert card.correct_indexes == {0, 2}
    assert [(c.text, plain(c.why)) for c in card.choices] == [
        ("Neon", None),
        ("Nitrogen", "Nitrogen reacts readily: it is not noble."),
        ("Argon", None),
        ("Oxygen", None),
    ]
    assert plain(card.explanation) == (
        "The noble gases fill the last column of the periodic table."
    )


def test_text_entry_is_a_type_in_card(staging: Path) -> None:
    (card,) = only_deck(QTI / "text_entry.xml", staging).cards
    assert isinstance(card, BasicCard)
    assert card.front == "<p>The capital of France is ______.</p>"
    assert card.type_answer == "Paris"
    assert card.back == "Paris<br>paris (accepted for 50%)"


def test_a_package_reads_its_items_in_manifest_order_with_the_image(
    europe: Path, staging: Path
) -> None:
    package = read_qti(europe, staging)
    (deck,) = package.decks
    assert deck.name == "europe"
    ocean, flag, capital = deck.cards
    assert isinstance(ocean, ChoiceCard)
    assert [(c.text, c.correct, plain(c.why)) for c in ocean.choices] == [
        ("Atlantic", True, None),
        ("Pacific", False, "The Pacific is on the other side of the world."),
    ]
    assert isinstance(flag, BasicCard)  # choice cards show no images
    (image,) = package.media
    assert card_html.is_image_name(image.name)
    assert image.path.read_bytes() == (PACKAGE / "images" / "flag.png").read_bytes()
    assert f'<img src="{image.name}" alt="A flag">' in flag.front
    assert "<li>Portugal</li>" in flag.back
    assert isinstance(capital, BasicCard)
    assert (capital.type_answer, plain(capital.explanation)) == (
        "Lisbon",
        "Lisboa, in Portuguese.",
    )


def test_interactions_recall_cannot_ask_and_templates_are_named(
    europe: Path, staging: Path
) -> None:
    notes = read_qti(europe, staging).notes
    assert notes == [
        "1 assessment test not read (the order and sections of a test have no place in a "
        "deck); the items the manifest lists are imported",
        "2 questions skipped: items/order.xml line 2 (item 'rivers-by-length': an order "
        "interaction, which Recall cannot ask); items/dice.xml line 5 (item 'dice-sum': uses "
        "templates (<templateDeclaration>), whose values Recall cannot fill in)",
        "1 choice question imported as basic cards: items/flag.xml line 2 (it shows images, "
        "and choice cards show text only)",
    ]


def test_a_lone_item_recall_cannot_ask_is_refused_naming_it(staging: Path) -> None:
    path = QTI / "hotspot.xml"
    with pytest.raises(DeckError) as raised:
        read_qti(path, staging)
    assert str(raised.value) == (
        f"{path}: no cards to import: the file holds no question Recall asks, the first being "
        "line 2 (item 'find-lisbon': a hotspot interaction, which Recall cannot ask)"
    )


def test_a_lone_item_leaves_out_its_images_with_a_note(tmp_path: Path, staging: Path) -> None:
    path = tmp_path / "flag.xml"
    path.write_bytes((PACKAGE / "items" / "flag.xml").read_bytes())
    package = read_qti(path, staging)
    assert package.media == []
    assert package.notes[0] == (
        "1 image left out: '../images/flag.png' at line 8 (a lone item file holds no images; "
        "import its content package)"
    )


@pytest.fixture
def checker(tmp_path: Path) -> Iterator[ImportChecker]:
    checker = ImportChecker(tmp_path / "data")
    yield checker
    checker.close()


def test_import_tells_qti_from_moodle_xml_and_a_second_import_updates(
    checker: ImportChecker, europe: Path
) -> None:
    files = [QTI / "choice.xml", DATA / "moodle" / "questions.xml", europe]
    first = checker.check(files)
    assert not isinstance(first, Failed)
    assert [[deck.added for deck in report.decks] for report in first] == [[1], [2, 2, 3], [3]]
    assert first[2].media == 1
    assert len(list(paths.media_dir(checker.data_dir).iterdir())) == 3
    again = checker.check([europe])
    assert not isinstance(again, Failed)
    assert [(d.added, d.updated, d.unchanged) for d in again[0].decks] == [(0, 0, 3)]


def test_recall_import_reads_a_package(
    europe: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["--data-dir", str(tmp_path / "data"), "import", str(europe)])
    out = capsys.readouterr().out
    assert status == 0
    assert f"{europe}: added deck 'europe' (" in out
    assert "3 added, 0 updated, 0 unchanged cards" in out
    assert "2 questions skipped: items/order.xml line 2" in out


LONE_ERRORS = {
    "bad_unclosed.xml": "line 5, column 5: not XML (mismatched tag)",
    "bad_external_entity.xml": (
        "line 2, column 26: a document type declaration (<!DOCTYPE>) is not read; "
        "a QTI 2.1 editor never writes one"
    ),
}


@pytest.mark.parametrize("name", sorted(LONE_ERRORS))
def test_a_broken_lone_item_names_its_line_and_nothing_is_imported(
    checker: ImportChecker, name: str
) -> None:
    path = QTI / name
    result = checker.check([QTI / "choice.xml", path])
    assert result == Failed([f"{path}: {LONE_ERRORS[name]}"])


def hostile(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Each hostile file, and the one line its refusal must give after the file's name."""
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "lol"}">' for i in range(10))
    cases: dict[str, tuple[dict[str, bytes | str], str]] = {
        "bomb": (
            {"imsmanifest.xml": MANIFEST.format(href="big.xml"), "big.xml": b" " * (17 << 20)},
            "zip entry 'big.xml': unpacks to 17 MiB; 16 MiB (the limit for this entry); "
            "refusing a possible zip bomb",
        ),
        "traversal": (
            {**package_entries(), "../../evil.xml": ITEM.format(id="evil", body="")},
            "zip entry '../../evil.xml': its name leads outside the package; refusing the package",
        ),
        "backslashes": (
            {**package_entries(), "items\\..\\..\\evil.xml": "x"},
            "zip entry 'items\\\\..\\\\..\\\\evil.xml': its name leads outside the "
            "package; refusing the package",
        ),
        "absolute": (
            {**package_entries(), "/etc/cron.d/evil": "x"},
            "zip entry '/etc/cron.d/evil': its name leads outside the package; refusing the "
            "package",
        ),
        "manifest_outside": (
            {"imsmanifest.xml": MANIFEST.format(href="../secret.xml")},
            "imsmanifest.xml line 3: the item '../secret.xml' leads outside the package; "
            "refusing the package",
        ),
        "image_outside": (
            {
                "imsmanifest.xml": MANIFEST.format(href="items/a.xml"),
                "items/a.xml": ITEM.format(id="a", body='<p><img src="../../up.png"/></p>'),
            },
            "items/a.xml line 4: the image '../../up.png' leads outside the package; "
            "refusing the package",
        ),
        "external_entity": (
            {
                "imsmanifest.xml": MANIFEST.format(href="a.xml"),
                "a.xml": (QTI / "bad_external_entity.xml").read_bytes(),
            },
            "a.xml line 2, column 26: a document type declaration (<!DOCTYPE>) is not read; "
            "a QTI 2.1 editor never writes one",
        ),
        "laughs": (
            {
                "imsmanifest.xml": MANIFEST.format(href="a.xml"),
                "a.xml": f"<?xml version='1.0'?>\n<!DOCTYPE assessmentItem [{laughs}]>"
                "<assessmentItem>&l9;</assessmentItem>",
            },
            "a.xml line 2, column 26: a document type declaration (<!DOCTYPE>) is not read; "
            "a QTI 2.1 editor never writes one",
        ),
        "manifest_entity": (
            {"imsmanifest.xml": f'<!DOCTYPE manifest [{laughs}]><manifest a="&l9;"/>'},
            "imsmanifest.xml line 1, column 20: a document type declaration (<!DOCTYPE>) is "
            "not read; a QTI 2.1 editor never writes one",
        ),
        "missing_item": (
            {"imsmanifest.xml": MANIFEST.format(href="gone.xml")},
            "imsmanifest.xml line 3: lists the item 'gone.xml', which the zip lacks",
        ),
        "no_manifest": (
            {"items/a.xml": ITEM.format(id="a", body="")},
            "no imsmanifest.xml at the top of the zip: not a QTI content package (export the "
            "items again as an IMS content package)",
        ),
        "not_an_item": (
            {"imsmanifest.xml": MANIFEST.format(href="a.xml"), "a.xml": "<quiz/>"},
            "a.xml line 1: not a QTI item (its root is <quiz>, not <assessmentItem>)",
        ),
    }
    found = {
        name: (zipped(tmp_path / f"{name}.zip", entries), line)
        for name, (entries, line) in cases.items()
    }
    not_zip = tmp_path / "not_zip.zip"
    not_zip.write_text("plain words")
    found["not_zip"] = (not_zip, "not a QTI content package (not a zip file)")
    oversize = tmp_path / "oversize.xml"
    oversize.write_bytes(ITEM.format(id="big", body="").encode() + b" " * (16 << 20))
    found["oversize"] = (oversize, "the file is larger than a QTI item may be (16 MiB)")
    return found


HOSTILE = [
    "bomb",
    "traversal",
    "backslashes",
    "absolute",
    "manifest_outside",
    "image_outside",
    "external_entity",
    "laughs",
    "manifest_entity",
    "missing_item",
    "no_manifest",
    "not_an_item",
    "not_zip",
    "oversize",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_file_is_refused_and_the_collection_stays_as_it_was(
    checker: ImportChecker, europe: Path, tmp_path: Path, name: str
) -> None:
    assert not isinstance(checker.check([QTI / "choice.xml"]), Failed)
    path, line = hostile(tmp_path)[name]
    result = checker.check([europe, path])
    assert result == Failed([f"{path}: {line}"])


def test_every_hostile_case_is_checked(tmp_path: Path) -> None:
    assert sorted(hostile(tmp_path)) == sorted(HOSTILE)


def test_too_many_entries_and_an_oversized_image_are_refused(
    europe: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(qti, "MAX_ENTRIES", 4)
    with pytest.raises(DeckError) as raised:
        read_qti(europe, staging)
    assert raised.value.problems == [
        "the zip holds 8 entries (at most 4); refusing a possible zip bomb"
    ]
    monkeypatch.setattr(qti, "MAX_ENTRIES", 100)
    monkeypatch.setattr(qti, "MAX_IMAGE_BYTES", 16)
    with pytest.raises(DeckError) as raised:
        read_qti(europe, staging)
    size = (PACKAGE / "images" / "flag.png").stat().st_size
    assert raised.value.problems == [
        f"zip entry 'images/flag.png': unpacks to {size} bytes; 16 bytes (the limit for this "
        "entry); refusing a possible zip bomb"
    ]
    assert list(staging.iterdir()) == []


def test_the_window_and_drag_and_drop_take_packages() -> None:
    from recall.ui.data.transfers import IMPORT_FILTER

    assert ".zip" in importing.SUPPORTED_SUFFIXES
    assert "QTI 2.1 items and content packages (*.xml *.zip)" in IMPORT_FILTER


@settings(max_examples=80, deadline=None)
@given(
    text=st.text(max_size=80),
    place=st.sampled_from(["body", "prompt", "choice", "feedback", "value"]),
)
def test_any_text_anywhere_in_an_item_gives_cards_or_a_message(text: str, place: str) -> None:
    parts = dict.fromkeys(("body", "prompt", "choice", "feedback", "value"), "")
    parts[place] = text
    item = (
        '<assessmentItem identifier="any" title="Any">'
        '<responseDeclaration identifier="R" cardinality="single">'
        f"<correctResponse><value>a{parts['value']}</value></correctResponse>"
        f"</responseDeclaration><itemBody>{parts['body']}"
        f'<choiceInteraction responseIdentifier="R"><prompt>Pick{parts["prompt"]}</prompt>'
        f'<simpleChoice identifier="a">A{parts["choice"]}</simpleChoice>'
        '<simpleChoice identifier="b">B</simpleChoice></choiceInteraction></itemBody>'
        f'<modalFeedback identifier="a" showHide="show">{parts["feedback"]}</modalFeedback>'
        "</assessmentItem>"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "any.xml"
        path.write_text(item, encoding="utf-8", errors="surrogatepass")
        problems: list[str] = []
        try:
            package = read_qti(path, Path(folder))
        except DeckError as error:
            problems = error.problems
        else:
            (deck,) = package.decks
            assert len(deck.cards) == 1
    assert all(problem.strip() for problem in problems)
