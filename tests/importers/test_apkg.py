"""Anki packages: decks, note types, images, review history, and every kind of bad package."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import sqlite3
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import genanki
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.content import math
from recall.content.deck_format import BasicCard, Deck
from recall.core.errors import DeckError, ImportCancelledError, RecallError
from recall.core.memory import Rating, ReviewKind
from recall.importers import ImportedCardState, ImportedReview, _anki_history, _media, apkg
from recall.importers.apkg import read_apkg
from tests.helpers.anki_packages import (
    FRENCH_ID,
    IMAGE,
    MATHS_ID,
    MISC_ID,
    add_reviews,
    build_package,
    card_ids,
    edit_collection,
    rewrite,
)

IMAGE_NAME = hashlib.sha256(IMAGE).hexdigest() + ".png"
PLACEHOLDER = "Please update to the latest Anki version, then import the .colpkg/.apkg file again."
ADVICE = 'export the deck again with "Support older Anki versions" checked'


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return build_package(tmp_path)


@pytest.fixture
def staging(tmp_path: Path) -> Path:
    folder = tmp_path / "staging"
    folder.mkdir()
    return folder


def cards_by_id(path: Path, staging: Path) -> dict[str, BasicCard]:
    result = read_apkg(path, staging)
    cards = {}
    for deck in result.decks:
        for card in deck.cards:
            assert isinstance(card, BasicCard)
            assert card.markup == "html"
            cards[card.id] = card
    return cards


def fronts(deck: Deck) -> list[str]:
    return [card.front for card in deck.cards if isinstance(card, BasicCard)]


def pick(
    cards: dict[str, BasicCard], ids: dict[tuple[str, int], int], first: str, ord_: int
) -> BasicCard:
    """The card Anki made from template ``ord_`` of the note whose first field is ``first``."""
    return cards[f"anki-{ids[(first, ord_)]}"]


def problem_of(path: Path, staging: Path) -> str:
    """The one problem reading the package reports, after checking it names the file."""
    with pytest.raises(DeckError) as caught:
        read_apkg(path, staging)
    assert caught.value.source == str(path)
    (problem,) = caught.value.problems
    return problem


def test_each_anki_deck_with_cards_becomes_a_deck_named_as_in_anki(
    package: Path, staging: Path
) -> None:
    result = read_apkg(package, staging)
    assert [(deck.id, deck.name) for deck in result.decks] == [
        (f"anki-deck-{FRENCH_ID}", "Languages::French"),
        (f"anki-deck-{MATHS_ID}", "Maths"),
        (f"anki-deck-{MISC_ID}", "Misc"),
    ]


def test_basic_and_reversed_notes_give_one_card_per_anki_card(package: Path, staging: Path) -> None:
    ids = card_ids(package)
    cards = cards_by_id(package, staging)
    chat = pick(cards, ids, 'le chat <img src="cat.png">', 0)
    assert chat.front == f'le chat <img src="{IMAGE_NAME}">'
    assert chat.back == "the cat"
    assert chat.tags == ["animals", "french"]
    forward = pick(cards, ids, "chien", 0)
    backward = pick(cards, ids, "chien", 1)
    assert (forward.front, forward.back) == ("chien", "dog")
    assert (backward.front, backward.back) == ("dog", "chien")


def test_cloze_notes_give_a_card_per_deletion(package: Path, staging: Path) -> None:
    ids = card_ids(package)
    cards = cards_by_id(package, staging)
    first = pick(cards, ids, "{{c1::2}} + {{c2::2::a number}} = 4", 0)
    second = pick(cards, ids, "{{c1::2}} + {{c2::2::a number}} = 4", 1)
    # genanki's cloze type: the answer is {{cloze:Text}}<br> and {{Extra}} on a new line.
    assert (first.front, first.back) == ("[...] + 2 = 4", "<b>2</b> + 2 = 4<br>\nsums")
    assert (second.front, second.back) == ("2 + [a number] = 4", "2 + <b>2</b> = 4<br>\nsums")


def test_optional_reverse_and_custom_note_types(package: Path, staging: Path) -> None:
    ids = card_ids(package)
    cards = cards_by_id(package, staging)
    reverse = pick(cards, ids, "left", 1)
    # The optional-reverse flag field ("y") is no side of the card: no template shows it.
    assert (reverse.front, reverse.back) == ("right", "left")
    hinted = pick(cards, ids, "6 x 7?", 0)
    # The question template shows the hint under the question; the answer shows only 42.
    assert (hinted.front, hinted.back) == ("6 x 7?<br>a famous number", "42")


def test_images_are_staged_under_their_hash_and_the_rest_is_reported(
    package: Path, staging: Path
) -> None:
    ids = card_ids(package)
    result = read_apkg(package, staging)
    (image,) = result.media
    assert image.name == IMAGE_NAME
    assert image.path == staging / IMAGE_NAME
    assert image.path.read_bytes() == IMAGE
    assert sorted(path.name for path in staging.iterdir()) == [IMAGE_NAME]
    blank = ids[("no answer", 0)]
    cat = ids[('le chat <img src="cat.png">', 0)]
    # A blank back is a side: the card comes in (see test_anki_rendering.py).
    assert blank in ids.values()
    assert result.notes == [
        f"1 sound or video left out: 'miaou.mp3' in note {cat - 1} (missing from the package)",
    ]


def test_a_missing_or_unsupported_image_is_dropped_with_a_note(
    tmp_path: Path, staging: Path
) -> None:
    note = genanki.Note(
        model=genanki.BASIC_MODEL,
        fields=['<img src="gone.jpg"><img src="cat.png"> <img src="x.tiff">', "back"],
    )
    path = build_package(tmp_path, {"Deck": [note]})
    rewrite(path, {"media": b'{"0": "cat.png", "1": "x.tiff"}'}, add={"1": b"tiff"})
    result = read_apkg(path, staging)
    assert fronts(result.decks[0]) == [f'<img src="{IMAGE_NAME}">']
    note_id = card_ids(path)[(note.fields[0], 0)] - 1
    assert result.notes == [
        f"2 images left out: 'gone.jpg' in note {note_id} (missing from the package); "
        f"'x.tiff' in note {note_id} (not a kind of image Recall shows)"
    ]


def test_review_history_keeps_real_reviews_oldest_first(package: Path, staging: Path) -> None:
    card = card_ids(package)[("chien", 0)]
    other = card_ids(package)[("chien", 1)]
    day = 86_400_000
    start = 1_700_000_000_000
    add_reviews(
        package,
        [
            (start + 3 * day, card, 3, 9_000_000, 1),  # review, time capped at one hour
            (start, card, 1, 4_000, 0),  # learning
            (start + day, card, 3, 6_000, 0),
            (start + 2 * day, card, 4, -5, 2),  # relearning, negative time
            (start + 4 * day, card, 3, 2_000, 3),  # cram: left out
            (start + 5 * day, card, 0, 0, 4),  # manual: a due date set, one day on
            (start + 6 * day, card, 2, 0, 5),  # rescheduled: left out
            (start + 7 * day, card, 0, 0, 1),  # ease 0 in a review entry: left out
            (start + 8 * day, other, 2, 3_000, 1),
            (start + 9 * day, 123, 3, 3_000, 1),  # a card not in the package
        ],
    )
    result = read_apkg(package, staging)
    deck = f"anki-deck-{FRENCH_ID}"

    def at(milliseconds: int) -> datetime:
        return datetime.fromtimestamp(milliseconds / 1000, UTC)

    assert result.reviews == {
        (deck, f"anki-{card}"): [
            ImportedReview(at(start), Rating.AGAIN, 4_000),
            ImportedReview(at(start + day), Rating.GOOD, 6_000),
            ImportedReview(at(start + 2 * day), Rating.EASY, 0),
            ImportedReview(at(start + 3 * day), Rating.GOOD, _anki_history.MAX_DURATION_MS),
        ],
        (deck, f"anki-{other}"): [ImportedReview(at(start + 8 * day), Rating.HARD, 3_000)],
    }
    assert result.notes[-1] == (
        "4 review history entries left out of the replay: 2 manual or rescheduling entries, "
        "1 cram (filtered deck) review, 1 entry of a skipped card"
    )
    moved, forgotten = result.changes[(deck, f"anki-{card}")]
    assert (moved.reviewed_at, moved.kind) == (at(start + 5 * day), ReviewKind.SET_DUE)
    assert moved.set_due is not None
    assert moved.set_due - at(start + 5 * day) < timedelta(days=2)
    # The package holds the card as new: its history ends with a forget, after the rest.
    assert forgotten.kind is ReviewKind.FORGET
    assert forgotten.reviewed_at > at(start + 5 * day)


def test_new_cards_keep_anki_order_after_studied_ones(tmp_path: Path, staging: Path) -> None:
    notes = [genanki.Note(model=genanki.BASIC_MODEL, fields=[f"q{i}", "a"]) for i in range(4)]
    path = build_package(tmp_path, {"Deck": notes})
    ids = card_ids(path)

    def reorder(connection: sqlite3.Connection) -> None:
        for position, name in enumerate(["q3", "q1", "q0"]):
            connection.execute("UPDATE cards SET due = ? WHERE id = ?", (position, ids[(name, 0)]))
        connection.execute("UPDATE cards SET type = 2, due = 900 WHERE id = ?", (ids[("q2", 0)],))

    edit_collection(path, reorder)
    (deck,) = read_apkg(path, staging).decks
    assert fronts(deck) == ["q2", "q3", "q1", "q0"]


def test_cards_lent_to_a_filtered_deck_go_home_and_suspended_ones_are_noted(
    package: Path, staging: Path
) -> None:
    card = card_ids(package)[("chien", 0)]

    def lend_and_suspend(connection: sqlite3.Connection) -> None:
        connection.execute(
            "UPDATE cards SET did = 99, odid = ?, queue = -1 WHERE id = ?", (FRENCH_ID, card)
        )

    edit_collection(package, lend_and_suspend)
    result = read_apkg(package, staging)
    assert f"anki-{card}" in {item.id for item in result.decks[0].cards}
    assert [deck.name for deck in result.decks] == ["Languages::French", "Maths", "Misc"]
    assert result.notes[-1] == "kept as in Anki: 1 suspended"
    deck = f"anki-deck-{FRENCH_ID}"
    assert result.card_states[(deck, f"anki-{card}")] == ImportedCardState(suspended=True)


def test_reading_twice_gives_the_same_package(package: Path, staging: Path) -> None:
    add_reviews(package, [(1_700_000_000_000, card_ids(package)[("chien", 0)], 3, 5_000, 1)])
    assert read_apkg(package, staging) == read_apkg(package, staging)


def test_progress_is_reported_and_cancel_stops_the_import(tmp_path: Path, staging: Path) -> None:
    notes = [genanki.Note(model=genanki.BASIC_MODEL, fields=[f"q{i}", "a"]) for i in range(1200)]
    path = build_package(tmp_path, {"Deck": notes})
    calls: list[tuple[int, int]] = []
    read_apkg(path, staging, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(500, 1200), (1000, 1200), (1200, 1200)]
    checks: list[int] = []

    def cancel_on_second_check() -> bool:
        checks.append(1)
        return len(checks) >= 2

    with pytest.raises(ImportCancelledError):
        read_apkg(path, staging, cancelled=cancel_on_second_check)
    assert list(staging.iterdir()) == []


def test_the_collection_copy_is_removed_after_success_and_failure(
    package: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_apkg(package, staging)
    assert [path.name for path in staging.iterdir()] == [IMAGE_NAME]
    monkeypatch.setattr(_media.MediaStager, "sanitize", _fail)
    with pytest.raises(ZeroDivisionError):
        read_apkg(package, staging)
    assert [path.name for path in staging.iterdir()] == [IMAGE_NAME]


def _fail(*_arguments: object) -> str:
    raise ZeroDivisionError


def test_staged_images_are_removed_when_reading_fails(package: Path, staging: Path) -> None:
    def break_history(connection: sqlite3.Connection) -> None:
        connection.execute(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
            " VALUES (1, 'not a card', -1, 3, 1, 0, 2500, 1000, 1)"
        )

    edit_collection(package, break_history)
    with pytest.raises(DeckError, match="revlog: a column: 'not a card' is not a whole number"):
        read_apkg(package, staging)
    assert list(staging.iterdir()) == []


# --- bad packages: each gives one problem, naming the place ---------------------------------


def test_random_bytes_are_not_a_package(tmp_path: Path, staging: Path) -> None:
    path = tmp_path / "random.apkg"
    path.write_bytes(os.urandom(3000).replace(b"PK", b"pk"))
    assert problem_of(path, staging) == "not an Anki package (not a zip file)"


def test_a_truncated_package_is_cut_short(package: Path, staging: Path) -> None:
    data = package.read_bytes()
    package.write_bytes(data[: len(data) // 2])
    assert problem_of(package, staging).startswith(
        "the package is cut short or damaged; download or export it again"
    )


def test_a_package_without_collection_says_what_it_holds(package: Path, staging: Path) -> None:
    rewrite(package, {"collection.anki2": None})
    assert problem_of(package, staging) == (
        "no Anki collection inside (the zip holds 'media', '0')"
    )


def test_a_newer_collection_entry_is_read_as_zstd(package: Path, staging: Path) -> None:
    rewrite(
        package,
        {"collection.anki2": None, "media": None},
        add={"collection.anki21b": b"(\xb5/\xfd zstd"},
    )
    assert problem_of(package, staging).startswith(
        "zip entry 'collection.anki21b': cannot be unpacked, the package is damaged "
        "(the zstd data is cut short)"
    )


def test_the_newer_anki_placeholder_collection_is_recognised(tmp_path: Path, staging: Path) -> None:
    note = genanki.Note(model=genanki.BASIC_MODEL, fields=[PLACEHOLDER, ""])
    path = build_package(tmp_path, {"Default": [note]})
    assert problem_of(path, staging) == (
        "zip entry 'collection.anki2': made by a newer Anki (the collection inside only asks "
        f"to update Anki); in Anki, {ADVICE}, then import that file"
    )


def test_a_media_list_that_is_not_json_is_refused(package: Path, staging: Path) -> None:
    rewrite(package, {"media": b"(\xb5/\xfd\x00\x01\x02"})
    assert problem_of(package, staging) == (
        "zip entry 'media': the media list is in a format Recall cannot read; "
        f"in Anki, {ADVICE}, then import that file"
    )


def test_a_half_made_newer_layout_is_refused(package: Path, staging: Path) -> None:
    def newer_layout(connection: sqlite3.Connection) -> None:
        connection.execute("UPDATE col SET models = '{}'")
        connection.execute("CREATE TABLE notetypes (id integer primary key, name text)")

    edit_collection(package, newer_layout)
    assert problem_of(package, staging) == (
        "zip entry 'collection.anki2': not an Anki collection Recall can read "
        "(no such table: fields)"
    )


def test_a_collection_failing_quick_check_is_refused(package: Path, staging: Path) -> None:
    with zipfile.ZipFile(package) as archive:
        data = bytearray(archive.read("collection.anki2"))
    data[36:40] = (7).to_bytes(4, "big")  # the header's count of free pages
    rewrite(package, {"collection.anki2": bytes(data)})
    assert problem_of(package, staging) == (
        "zip entry 'collection.anki2': the collection is damaged "
        "(SQLite's quick_check: Main freelist: size is 1 but should be 7)"
    )
    assert list(staging.iterdir()) == []


def test_a_collection_that_is_not_sqlite_is_refused(package: Path, staging: Path) -> None:
    rewrite(package, {"collection.anki2": b"not a database" * 100})
    assert problem_of(package, staging) == (
        "zip entry 'collection.anki2': not an Anki collection Recall can read "
        "(file is not a database)"
    )
    assert list(staging.iterdir()) == []


def test_duplicate_card_ids_are_refused(package: Path, staging: Path) -> None:
    card = card_ids(package)[("chien", 0)]

    def duplicate(connection: sqlite3.Connection) -> None:
        connection.executescript(
            "CREATE TABLE loose AS SELECT * FROM cards;"
            "DROP TABLE cards; ALTER TABLE loose RENAME TO cards;"
        )
        connection.execute("INSERT INTO cards SELECT * FROM cards WHERE id = ?", (card,))

    edit_collection(package, duplicate)
    assert problem_of(package, staging) == (
        f"zip entry 'collection.anki2': card {card}: appears twice in the cards table"
    )


def test_zip_slip_names_write_nothing_outside_staging(tmp_path: Path, staging: Path) -> None:
    note = genanki.Note(model=genanki.BASIC_MODEL, fields=['<img src="../../evil.png">', "b"])
    path = build_package(tmp_path, {"Deck": [note]})
    rewrite(
        path,
        {"media": b'{"../../evil": "../../evil.png"}', "0": None},
        add={"../../evil": IMAGE},
    )
    before = {p for p in tmp_path.parent.rglob("*") if staging not in p.parents}
    result = read_apkg(path, staging)
    after = {p for p in tmp_path.parent.rglob("*") if staging not in p.parents}
    assert after == before
    assert [item.name for item in result.media] == [IMAGE_NAME]
    assert [p.name for p in staging.iterdir()] == [IMAGE_NAME]
    assert fronts(result.decks[0]) == [f'<img src="{IMAGE_NAME}">']


def test_an_entry_larger_than_its_limit_is_refused(
    package: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(apkg, "MAX_IMAGE_BYTES", 10)
    assert problem_of(package, staging) == (
        "zip entry '0': unpacks to 24 bytes; 10 bytes (the limit for this entry); "
        "refusing a possible zip bomb"
    )
    assert list(staging.iterdir()) == []


def test_a_package_larger_than_the_total_limit_is_refused(
    package: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collection = zipfile.ZipFile(package).getinfo("collection.anki2").file_size
    monkeypatch.setattr(apkg, "MAX_TOTAL_BYTES", collection + 5)
    assert problem_of(package, staging) == (
        "zip entry 'collection.anki2': the package unpacks to more than "
        f"{collection + 5:,} bytes in all; refusing a possible zip bomb"
    )
    assert list(staging.iterdir()) == []


def test_too_many_entries_are_refused_before_reading(
    package: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(apkg, "MAX_ENTRIES", 2)
    assert problem_of(package, staging) == (
        "the zip holds 3 entries (at most 2); refusing a possible zip bomb"
    )


def test_an_entry_whose_header_understates_its_size_is_damaged(
    tmp_path: Path, staging: Path
) -> None:
    """A stored entry declared as 5 bytes but holding 5000 is never read past 5 bytes."""
    note = genanki.Note(model=genanki.BASIC_MODEL, fields=['<img src="cat.png">', "b"])
    path = build_package(tmp_path, {"Deck": [note]})
    payload = b"\x89PNG" + b"A" * 4996
    rewrite(path, {"0": None})
    with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as archive:
        archive.writestr("0", payload)
    data = bytearray(path.read_bytes())
    local = data.rfind(b"PK\x03\x04")
    central = data.rfind(b"PK\x01\x02")
    for offset in (local + 18, local + 22, central + 20, central + 24):
        data[offset : offset + 4] = (5).to_bytes(4, "little")  # compressed and full size
    path.write_bytes(bytes(data))
    assert problem_of(path, staging).startswith(
        "zip entry '0': cannot be unpacked, the package is damaged (Bad CRC-32"
    )


def test_an_unknown_compression_method_is_refused(package: Path, staging: Path) -> None:
    data = bytearray(package.read_bytes())
    central = data.find(b"PK\x01\x02")  # the collection, written first
    local = data.find(b"PK\x03\x04")
    data[central + 10 : central + 12] = (99).to_bytes(2, "little")
    data[local + 8 : local + 10] = (99).to_bytes(2, "little")
    package.write_bytes(bytes(data))
    assert problem_of(package, staging) == (
        "zip entry 'collection.anki2': packed with a compression method Recall cannot unpack"
    )


def test_a_missing_file_is_a_deck_error(tmp_path: Path, staging: Path) -> None:
    assert problem_of(tmp_path / "nowhere.apkg", staging) == (
        "cannot be read (No such file or directory)"
    )


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=400))
def test_any_bytes_raise_only_recall_errors(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.apkg"
    path.write_bytes(data)
    staging = tmp_path / "fuzz-staging"
    staging.mkdir(exist_ok=True)
    with contextlib.suppress(RecallError):
        read_apkg(path, staging)
    assert list(staging.iterdir()) == []


@pytest.fixture(scope="module")
def valid_package(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return build_package(tmp_path_factory.mktemp("valid")).read_bytes()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(flips=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), max_size=6))
def test_damaged_packages_raise_only_recall_errors(
    tmp_path: Path, valid_package: bytes, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(valid_package)
    for position, value in flips:
        data[position % len(data)] = value
    path = tmp_path / "damaged.apkg"
    path.write_bytes(bytes(data))
    staging = tmp_path / "damaged-staging"
    staging.mkdir(exist_ok=True)
    try:
        read_apkg(path, staging)
    except RecallError:
        assert not any(p.name.startswith(".collection") for p in staging.iterdir())
    for leftover in staging.iterdir():
        leftover.unlink()


def test_an_entry_claiming_a_newer_zip_version_is_refused_as_damaged(
    tmp_path: Path, valid_package: bytes
) -> None:
    """Found by the fuzz test above: zipfile raises NotImplementedError for it."""
    data = bytearray(valid_package)
    directory = data.index(b"PK\x01\x02")  # the first central directory entry
    data[directory + 6 : directory + 8] = (64).to_bytes(2, "little")  # version needed: 6.4
    path = tmp_path / "newer-zip.apkg"
    path.write_bytes(bytes(data))
    staging = tmp_path / "staging"
    staging.mkdir()
    with pytest.raises(DeckError, match=r"cut short or damaged; .*\(zip file version 6\.4\)"):
        read_apkg(path, staging)
    assert list(staging.iterdir()) == []


@pytest.fixture(scope="module")
def package_with_history(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = build_package(tmp_path_factory.mktemp("history"))
    card = card_ids(path)[("chien", 0)]
    add_reviews(path, [(1_700_000_000_000 + i, card, 1 + i % 4, 5_000, i % 6) for i in range(8)])
    return path.read_bytes()


ODD_JSON = ['{"1": 5}', "[]", '{"1": {"flds": 3}}', '{"x": {"name": 1}}', '{"1": {"tmpls": [1]}}']
COLUMNS = [
    ("cards", "nid"), ("cards", "did"), ("cards", "ord"), ("cards", "type"), ("cards", "due"),
    ("cards", "odid"), ("notes", "mid"), ("notes", "flds"), ("notes", "tags"),
    ("revlog", "id"), ("revlog", "ease"), ("revlog", "time"), ("revlog", "type"),
    ("col", "models"), ("col", "decks"),
]  # fmt: skip
odd_values = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.sampled_from(ODD_JSON),
)


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(st.tuples(st.sampled_from(COLUMNS), odd_values), min_size=1, max_size=3))
def test_odd_values_in_the_collection_raise_only_recall_errors(
    tmp_path: Path, package_with_history: bytes, edits: list[tuple[tuple[str, str], object]]
) -> None:
    path = tmp_path / "odd.apkg"
    path.write_bytes(package_with_history)

    def edit(connection: sqlite3.Connection) -> None:
        for (table, column), value in edits:
            with contextlib.suppress(sqlite3.IntegrityError):  # NOT NULL columns stay set
                connection.execute(f"UPDATE {table} SET {column} = ?", (value,))

    edit_collection(path, edit)
    staging = tmp_path / "odd-staging"
    staging.mkdir(exist_ok=True)
    with contextlib.suppress(RecallError):
        read_apkg(path, staging)
    for leftover in staging.iterdir():
        assert not leftover.name.startswith(".collection")
        leftover.unlink()


def test_anki_latex_shows_the_image_the_package_carries_else_stays_to_be_typeset(
    tmp_path: Path, staging: Path
) -> None:
    drawn = math.anki_image_name("[$]x^2[/$]")
    assert drawn is not None
    (tmp_path / drawn).write_bytes(IMAGE)
    deck = genanki.Deck(2_059_400_211, "Maths")
    deck.add_note(
        genanki.Note(model=genanki.BASIC_MODEL, fields=["Square: [$]x^2[/$]", r"[$$]y^2[/$$]"])
    )
    path = tmp_path / "latex.apkg"
    genanki.Package(deck, media_files=[str(tmp_path / drawn)]).write_to_file(path)
    (card,) = cards_by_id(path, staging).values()
    assert card.front == f'Square: <img alt="$x^2$" src="{IMAGE_NAME}">'
    assert card.back == r"[$$]y^2[/$$]"
    assert [medium.name for medium in read_apkg(path, staging).media] == [IMAGE_NAME]


PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_an_image_written_into_a_field_is_decoded_checked_and_staged(
    tmp_path: Path, staging: Path
) -> None:
    encoded = base64.b64encode(PNG_1PX).decode()
    fields = [
        f'Dot: <img src="data:image/png;base64,{encoded}">',
        'Fake: <img src="data:image/png;base64,'
        + base64.b64encode(b"GIF89a not a png").decode()
        + '"> and <img src="data:text/html;base64,PHNjcmlwdD4=">'
        + ' and <img src="data:image/gif;base64,@@not base64@@">',
    ]
    deck = genanki.Deck(2_059_400_212, "Inline")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=fields))
    path = tmp_path / "inline.apkg"
    genanki.Package(deck).write_to_file(path)
    result = read_apkg(path, staging)
    stored = hashlib.sha256(PNG_1PX).hexdigest() + ".png"
    (card,) = (card for deck in result.decks for card in deck.cards)
    assert isinstance(card, BasicCard)
    assert card.front == f'Dot: <img src="{stored}">'
    assert card.back == "Fake:  and  and"
    assert [medium.name for medium in result.media] == [stored]
    assert (staging / stored).read_bytes() == PNG_1PX
    (line,) = [note for note in result.notes if "images left out" in note]
    assert "its bytes are not a PNG image" in line
    assert "not a kind of image Recall shows" in line
    assert "its base64 is damaged" in line
