"""Hostile and odd input files: bounded cards, every problem in words, nothing half-written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import genanki
import pytest

from recall.cli.main import main
from recall.content.deck_format import BasicCard
from recall.core.errors import DeckError
from recall.importers.anki_text import read_anki_text
from recall.importers.apkg import read_apkg
from tests.helpers.anki_packages import build_package
from tests.helpers.import_properties import Failed, ImportChecker


def _read(tmp_path: Path, text: str, name: str = "cards.txt") -> tuple[list[BasicCard], list[str]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = read_anki_text(path)
    cards = [card for deck in result.decks for card in deck.cards]
    assert all(isinstance(card, BasicCard) for card in cards)
    return [card for card in cards if isinstance(card, BasicCard)], result.notes


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_html_nested_200000_deep_is_refused_by_its_length_with_the_line(tmp_path: Path) -> None:
    deep = "<div>" * 200_000 + "deep answer" + "</div>" * 200_000  # 2.2 MB in one field
    path = tmp_path / "deep.txt"
    path.write_text(f"#html:true\n#separator:tab\nfine\tcard\ndeep\t{deep}\n", encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        read_anki_text(path)
    assert caught.value.problems == [
        "line 4: a field is longer than 1,048,576 characters (cards hold at most 65,536 per "
        "field); shorten it or leave it out"
    ]


def test_html_nested_200000_deep_within_the_length_imports_bounded_with_a_note(
    tmp_path: Path,
) -> None:
    deep_enough = "<i>" * 200_000 + "deep answer"  # 600,011 characters
    cards, notes = _read(tmp_path, f"#html:true\n#separator:tab\nshallow\t{deep_enough}\n")
    (card,) = cards
    assert card.front == "shallow"
    assert card.back.endswith("deep answer" + "</i>" * 100)
    assert card.back.count("<i>") == 100
    assert notes == [
        "1 field kept without the formatting nested past the bounds (the text is all there): "
        "line 3: the back nests its formatting 200,000 levels deep (cards show at most 100)",
    ]


def test_long_fields_leave_their_row_out_and_say_which(tmp_path: Path) -> None:
    long_plain = "y" * 200_000  # over the csv module's default limit of 131,072
    long_html = "<b>z</b>" * 20_000  # 160,000 characters, still as long once cleaned
    text = (
        f"#separator:tab\n#html:true\nfine\tcard\n{long_html}\tback\nfront\t{long_plain}\n"
        "last\tcard\n"
    )
    cards, notes = _read(tmp_path, text)
    assert [card.front for card in cards] == ["fine", "last"]
    assert notes == [
        "2 rows left out for holding more than a card may: line 4: the front is 160,000 "
        "characters long (cards hold at most 65,536 per field); line 5: the back is 200,000 "
        "characters long (cards hold at most 65,536 per field)"
    ]


def test_a_long_html_field_that_cleans_small_is_read_whole(tmp_path: Path) -> None:
    styled = '<span style="position: fixed; z-index: 9">w</span>' * 4_000  # 204,000
    cards, notes = _read(tmp_path, f"#html:true\n#separator:tab\nfront\t{styled}\n")
    assert cards[0].back.count("w") == 4_000
    assert notes == []


def test_3000_nested_clozes_import_and_3000_cloze_numbers_are_refused(tmp_path: Path) -> None:
    nested = "{{c1::" * 3_000 + "core" + "}}" * 3_000
    many = "".join(f"{{{{c{number}::w{number}}}}} " for number in range(1, 3_001))
    cards, notes = _read(tmp_path, f"#separator:tab\n{nested}\textra\n{many}\textra\n")
    (card,) = cards
    assert card.front == "[...]"
    assert "core" in card.back
    assert notes[0] == (
        "1 row skipped: line 3 (3,000 cloze numbers; a note gives at most 500 cards)"
    )
    assert notes[1].startswith("1 field kept without the formatting nested past the bounds")


def test_a_huge_number_in_a_column_header_is_a_message(tmp_path: Path) -> None:
    path = tmp_path / "cards.txt"
    path.write_text("#separator:tab\n#deck column:" + "7" * 5_000 + "\na\tb\n", encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        read_anki_text(path)
    assert caught.value.problems == [
        "line 2: '#deck column:' must be a column number from 1 (found "
        "'7777777777777777777777777777777777777777'... (5,000 characters))"
    ]


def test_cloze_markup_is_never_taken_for_a_separator_and_repeats_are_reported(
    tmp_path: Path,
) -> None:
    cards, notes = _read(
        tmp_path,
        "{{c1::Paris}} is the capital of {{c2::France}}\n"
        "{{c1::Rome}} is the capital of {{c2::Italy}}\n"
        "{{c1::Paris}} is  the capital of {{c2::France}}\n",
    )
    assert [card.front for card in cards] == [
        "[...] is  the capital of France",
        "Paris is  the capital of [...]",
        "[...] is the capital of Italy",
        "Rome is the capital of [...]",
    ]
    assert notes == [
        "no '#separator:' line: the separator tab was guessed from line 1",
        "1 row gave the same card as an earlier row (same guid, or the same front without one)"
        " in the same deck, so the later row was kept: line 3 repeats line 1",
    ]


def test_a_byte_order_mark_does_not_shift_the_place_of_a_bad_byte(tmp_path: Path) -> None:
    for name in ("bom.txt", "bom.json"):
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + b"ab\ncd\n\xe9\n")
        checker = ImportChecker(tmp_path / f"data-{name}")
        result = checker.check([path])
        checker.close()
        assert isinstance(result, Failed)
        assert result.lines == [
            f"{path}: line 3: not UTF-8 text (byte 0xe9, the 1st byte of the line); save it as "
            "UTF-8"
        ]


def test_lone_surrogates_are_found_before_anything_is_written(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("front\tback\n", encoding="utf-8")
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "half",
        "name": "Half",
        "description": "\ud800",
        "cards": [
            {
                "id": "c",
                "type": "basic",
                "front": "f",
                "back": "b",
                "explanation": "e\udc00",
                "source": "\udfff",
                "tags": ["\ud83d"],
            }
        ],
    }
    bad = tmp_path / "half.json"
    bad.write_text(json.dumps(deck), encoding="utf-8")
    checker = ImportChecker(tmp_path / "data")
    result = checker.check([good, bad])
    checker.close()
    assert isinstance(result, Failed)
    half = "half of a character (an unpaired UTF-16 surrogate escape)"
    assert result.lines == [
        f"{bad}: description: holds \\ud800, {half}, which is not text; remove it or give the "
        "whole character",
        f"{bad}: cards[0] (id 'c'): explanation: holds \\udc00, {half}, which is not text; "
        "remove it or give the whole character",
        f"{bad}: cards[0] (id 'c'): source: holds \\udfff, {half}, which is not text; remove it "
        "or give the whole character",
        f"{bad}: cards[0] (id 'c'): tags[0]: holds \\ud83d, {half}, which is not text; remove it "
        "or give the whole character",
    ]


def test_a_huge_number_in_a_deck_is_a_message(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    path.write_text('{"format": "recall-deck", "version": ' + "9" * 5_000 + "}")
    checker = ImportChecker(tmp_path / "data")
    result = checker.check([path])
    checker.close()
    assert result == Failed([f"{path}: version: must be the whole number 1"])


@pytest.mark.skipif(os.name != "posix", reason="a file name that is not UTF-8")
def test_a_file_name_that_is_not_utf8_imports_and_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = bytes(tmp_path) + b"/d\xe9ck.txt"
    path = Path(os.fsdecode(raw))
    path.write_bytes(b"front\tback\n")
    status, out, err = run(capsys, "--data-dir", str(tmp_path / "data"), "import", str(path))
    assert status == 0, err
    assert out.startswith(f"{tmp_path}/d\\xe9ck.txt: added deck 'd\ufffdck'")


def test_what_is_not_a_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    pipe = tmp_path / "pipe.txt"
    os.mkfifo(pipe)
    data = str(tmp_path / "data")
    status, out, err = run(
        capsys, "--data-dir", data, "import", str(folder), str(pipe), str(tmp_path / "gone.json")
    )
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"{folder}: is a folder; import the files inside it instead (Recall reads .apkg, "
        ".colpkg, .csv, .gift, .json, .tsv, .txt, .xml, .zip files)",
        f"{pipe}: is not a regular file (a device, pipe or socket)",
        f"{tmp_path / 'gone.json'}: no such file",
    ]


def test_export_without_a_file_name_or_into_a_folder_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    status, _, err = run(capsys, "--data-dir", data, "export", "activation-recompute", "")
    assert (status, err) == (
        1,
        "recall: export: no file name given; name a .json, .apkg or .gift file\n",
    )
    folder = str(tmp_path)
    status, _, err = run(capsys, "--data-dir", data, "export", "activation-recompute", folder)
    assert status == 1
    assert err == f"recall: export: {folder} is a folder; name a .json, .apkg or .gift file in it\n"


def test_a_first_field_longer_than_the_csv_default_still_guesses_the_separator(
    tmp_path: Path,
) -> None:
    long = "w" * 150_000
    cards, notes = _read(tmp_path, f"front,{long}\nnext,card\n", name="long.csv")
    assert [card.front for card in cards] == ["next"]
    assert notes == [
        "no '#separator:' line: the separator comma was guessed from line 1",
        "1 row left out for holding more than a card may: line 1: the back is 150,000 "
        "characters long (cards hold at most 65,536 per field)",
    ]


def test_a_tag_longer_than_a_card_holds_is_left_out_and_noted(tmp_path: Path) -> None:
    long = "t" * 600
    cards, notes = _read(tmp_path, f"#separator:tab\n#tags column:3\nfront\tback\tshort {long}\n")
    assert cards[0].tags == ["short"]
    assert notes == [
        "1 tag left out for being longer than 500 characters: line 3: tttttttttttttttttttt... "
        "(600 characters)"
    ]


def test_package_cards_over_the_bounds_are_left_out_or_cut_with_a_note(tmp_path: Path) -> None:
    notes = {
        "Bounds": [
            genanki.Note(model=genanki.BASIC_MODEL, fields=["fine", "card"], tags=["t" * 600]),
            genanki.Note(model=genanki.BASIC_MODEL, fields=["long", "x " * 40_000]),
            genanki.Note(model=genanki.BASIC_MODEL, fields=["huge", "x " * 600_000]),
            genanki.Note(model=genanki.BASIC_MODEL, fields=["deep", "<b>" * 5_000 + "core"]),
        ]
    }
    package = build_package(tmp_path, notes)
    staging = tmp_path / "staging"
    staging.mkdir()
    result = read_apkg(package, staging)
    (deck,) = result.decks
    fronts = [card.front for card in deck.cards if isinstance(card, BasicCard)]
    # Anki fields of up to 1 MiB are kept whole; a longer one leaves out its card.
    assert sorted(fronts) == ["deep", "fine", "long"]
    assert all(not card.tags for card in deck.cards)
    (refused,) = [note for note in result.notes if "left out for holding" in note]
    assert "field 2 is 1,200,000 characters long (fields are kept up to 1,048,576)" in refused
    (tags,) = [note for note in result.notes if "tag left out" in note]
    assert tags.startswith("1 tag left out for being longer than 500 characters: note ")


def test_a_package_note_with_3000_nested_clozes_imports(tmp_path: Path) -> None:
    nested = "{{c1::" * 3_000 + "core" + "}}" * 3_000
    notes = {"Clozes": [genanki.Note(model=genanki.CLOZE_MODEL, fields=[nested, ""])]}
    staging = tmp_path / "staging"
    staging.mkdir()
    result = read_apkg(build_package(tmp_path, notes), staging)
    (deck,) = result.decks
    (card,) = deck.cards
    assert isinstance(card, BasicCard)
    assert card.front == "[...]"
    assert "core" in card.back


def test_a_file_whose_cards_would_hold_too_much_text_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.importers import anki_text

    monkeypatch.setattr(anki_text, "MAX_CARD_TEXT", 1_000)
    clozes = "".join(f"{{{{c{number}::word{number}}}}} " for number in range(1, 31))
    path = tmp_path / "clozes.txt"
    path.write_text(f"#separator:tab\n{clozes}\tback\n", encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        read_anki_text(path)
    (problem,) = caught.value.problems
    assert problem.startswith("line 2: the cards up to here hold ")
    assert problem.endswith("more than one import may make (1,000); split the file")
