"""Packages from Anki's own library: today's format, the older one and .colpkg give the same."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import genanki
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.cli.main import main
from recall.content.deck_format import BasicCard, ChoiceCard
from recall.core.errors import DeckError
from recall.host import paths
from recall.importers import ImportedPackage, _protobuf
from recall.importers.apkg import read_apkg
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.helpers.anki_collections import (
    DECK,
    FIRST_REVIEW_MS,
    MCNT_FIELDS,
    PNG,
    SVG,
    Made,
    make_packages,
)
from tests.helpers.anki_packages import build_package

FORMATS = ("latest", "legacy", "colpkg")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Made, dict[str, Path]]:
    return make_packages(tmp_path_factory.mktemp("anki"))


@pytest.fixture
def packages(made: tuple[Made, dict[str, Path]], tmp_path: Path) -> dict[str, Path]:
    """Fresh copies, so a test may rewrite them."""
    copies = {}
    for name, path in made[1].items():
        copies[name] = tmp_path / path.name
        copies[name].write_bytes(path.read_bytes())
    return copies


def read(path: Path, tmp_path: Path) -> ImportedPackage:
    staging = tmp_path / f"staging-{path.stem}"
    staging.mkdir(exist_ok=True)
    return read_apkg(path, staging)


def problem_of(path: Path, tmp_path: Path) -> str:
    with pytest.raises(DeckError) as caught:
        read(path, tmp_path)
    (problem,) = caught.value.problems
    return problem


def summary(package: ImportedPackage) -> object:
    """Everything that should not depend on the package format."""
    return (
        [(deck.id, deck.name, deck.description, deck.cards) for deck in package.decks],
        package.reviews,
        sorted(item.name for item in package.media),
        [item.path.read_bytes() for item in sorted(package.media, key=lambda item: item.name)],
        package.notes,
    )


def test_todays_format_is_what_anki_writes_by_default(packages: dict[str, Path]) -> None:
    with zipfile.ZipFile(packages["latest"]) as archive:
        names = set(archive.namelist())
        assert {"meta", "collection.anki21b", "media"} <= names
        assert archive.read("meta") == b"\x08\x03"  # PackageMetadata.version = 3
        assert (
            zstandard.ZstdDecompressor()
            .decompressobj()
            .decompress(archive.read("collection.anki21b"))
            .startswith(b"SQLite format 3\x00")
        )
    with zipfile.ZipFile(packages["legacy"]) as archive:
        assert "collection.anki21" in archive.namelist()


def test_every_format_gives_the_same_deck_cards_images_and_history(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    results = {name: summary(read(packages[name], tmp_path)) for name in FORMATS}
    assert results["latest"] == results["legacy"] == results["colpkg"]


def test_the_deck_its_description_cards_and_images_come_along(
    made: tuple[Made, dict[str, Path]], packages: dict[str, Path], tmp_path: Path
) -> None:
    info, _ = made
    package = read(packages["latest"], tmp_path)
    (deck,) = package.decks
    assert (deck.id, deck.name) == (f"anki-deck-{info.deck_id}", DECK)
    assert deck.description == "Bones of the arm & hand\nfrom the atlas"
    basic = [card for card in deck.cards if isinstance(card, BasicCard)]
    png = hashlib.sha256(PNG).hexdigest() + ".png"
    svg = hashlib.sha256(SVG).hexdigest() + ".svg"
    humerus = next(card for card in basic if card.front.startswith("humerus"))
    assert humerus.front == f'humerus <img src="{png}">'
    assert humerus.back == f'upper arm <img src="{svg}">'
    assert {item.name: item.path.read_bytes() for item in package.media} == {png: PNG, svg: SVG}
    fronts = {card.front for card in basic}
    assert {"radius", "forearm, thumb side", "The ulna is [...]", "The [...] is medial"} <= fronts


def test_review_history_comes_along(
    made: tuple[Made, dict[str, Path]], packages: dict[str, Path], tmp_path: Path
) -> None:
    info, _ = made
    package = read(packages["latest"], tmp_path)
    history = package.reviews[(f"anki-deck-{info.deck_id}", f"anki-{info.reviewed_card}")]
    assert [review.reviewed_at for review in history] == [
        datetime.fromtimestamp((FIRST_REVIEW_MS + day * 86_400_000) / 1000, UTC) for day in range(3)
    ]
    assert [int(review.rating) for review in history] == [3, 1, 3]


def choice_cards(package: ImportedPackage) -> list[ChoiceCard]:
    return [card for deck in package.decks for card in deck.cards if isinstance(card, ChoiceCard)]


def test_multiple_choice_notes_become_choice_cards(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    package = read(packages["latest"], tmp_path)
    cards = {card.question: card for card in choice_cards(package)}
    single = cards["**Legs**\n\nLongest bone?"]
    assert [(c.text, c.correct) for c in single.choices] == [
        ("femur", False),
        ("tibia", True),
        ("fibula", False),
    ]
    assert single.source == "Gray's Anatomy"
    assert single.explanation == "The *tibia* is shorter\\."
    several = cards["Bones of the forearm?"]
    assert several.correct_indexes == {0, 1}
    kprim = cards["True or false?"]
    assert [c.text for c in kprim.choices] == [
        "206 bones",
        "skull is one bone",
        "ribs: 12 pairs",
        "femur is long",
    ]
    assert kprim.correct_indexes == {0, 2, 3}
    carpal = cards["Which are carpal bones?"]
    assert [c.text for c in carpal.choices] == ["scaphoid", "femur", "lunate"]
    assert carpal.correct_indexes == {0, 2}
    assert (carpal.source, carpal.explanation) == ("Atlas p. 12", "Both are in the wrist\\.")
    assert len(cards) == 4


def test_the_report_counts_choice_cards_and_names_the_notes_that_are_not(
    made: tuple[Made, dict[str, Path]], packages: dict[str, Path], tmp_path: Path
) -> None:
    info, _ = made
    notes = read(packages["latest"], tmp_path).notes
    assert "1 Multiple Choice Note Type note became a choice card" in notes
    assert (
        '3 anki-mc AllInOne notes became choice cards; 1 kprim question became "select all '
        'that apply", the true statements being the right choices'
    ) in notes
    assert (
        "2 multiple-choice notes imported as basic cards: "
        f"note {info.note_ids['no answer']}: no choice is marked right; "
        f"note {info.note_ids['mismatch']}: it gives 2 answers for 3 choices"
    ) in notes


def test_invalid_multiple_choice_notes_are_kept_as_basic_cards(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    package = read(packages["latest"], tmp_path)
    basic = [card for deck in package.decks for card in deck.cards if isinstance(card, BasicCard)]
    fronts = [card.front for card in basic]
    assert "Nothing right?<ol><li>one</li><li>two</li></ol>" in fronts
    assert "Count?<ol><li>one</li><li>two</li><li>three</li></ol>" in fronts
    assert {"Answers: 0 0", "Answers: 1 0"} <= {card.back for card in basic}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def dump(path: Path) -> list[object]:
    connection = sqlite3.connect(path)
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"
            )
        ]
        return [(t, connection.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()) for t in tables]
    finally:
        connection.close()


@pytest.mark.parametrize("kind", FORMATS)
def test_the_command_line_imports_each_format_with_history_once(
    kind: str,
    made: tuple[Made, dict[str, Path]],
    packages: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    info, _ = made
    data = tmp_path / "data"
    package = packages[kind]
    status, out, err = run(capsys, "--data-dir", str(data), "import", str(package))
    assert (status, err) == (0, "")
    assert f"added deck '{DECK}' (anki-deck-{info.deck_id}): 11 added" in out
    assert "3 reviews" in out
    assert f"{package}: 2 images" in out
    assert "became choice cards" in out
    database = Database(paths.database_path(data))
    report = integrity.check(database, Schedulers(), datetime.now(UTC))
    database.close()
    assert report.healthy, report.problems
    before = dump(paths.database_path(data))
    status, out, _ = run(capsys, "--data-dir", str(data), "import", str(package))
    assert status == 0
    assert "0 added, 0 updated, 11 unchanged cards" in out
    assert dump(paths.database_path(data)) == before


# --- damaged and hostile packages in today's format ------------------------------------------


def entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write(path: Path, content: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in content.items():
            archive.writestr(name, data)


def zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def unzstd(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def test_a_package_from_a_newer_anki_than_recall_knows_is_refused(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    path = packages["latest"]
    write(path, {**entries(path), "meta": b"\x08\x04"})
    assert problem_of(path, tmp_path).startswith(
        "zip entry 'meta': made by a newer Anki (package version 4) than Recall can read"
    )


def test_damaged_or_cut_short_zstd_data_is_refused(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    path = packages["latest"]
    content = entries(path)
    collection = content["collection.anki21b"]
    write(path, {**content, "collection.anki21b": collection[:4] + b"junk" + collection[8:]})
    assert problem_of(path, tmp_path).startswith(
        "zip entry 'collection.anki21b': cannot be decompressed, the package is damaged"
    )
    write(path, {**content, "collection.anki21b": collection[: len(collection) // 2]})
    assert problem_of(path, tmp_path) == (
        "zip entry 'collection.anki21b': cannot be unpacked, the package is damaged "
        "(the zstd data is cut short)"
    )


def test_a_zstd_bomb_is_refused_by_what_comes_out(
    packages: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.importers import apkg

    monkeypatch.setattr(apkg, "MAX_COLLECTION_BYTES", 4 * 1024**2)
    path = packages["latest"]
    bomb = zstandard.ZstdCompressor(write_content_size=False).compress(bytes(64 * 1024**2))
    assert len(bomb) < 10_000
    write(path, {**entries(path), "collection.anki21b": bomb})
    assert problem_of(path, tmp_path) == (
        "zip entry 'collection.anki21b': unpacks to more than 4 MiB (the limit for this entry); "
        "refusing a possible zip bomb"
    )


def media_list(path: Path) -> bytes:
    return unzstd(entries(path)["media"])


def test_a_media_file_that_does_not_match_its_sha1_is_refused(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    path = packages["latest"]
    content = entries(path)
    listing = media_list(path)
    first = next(name for name in ("0", "1") if unzstd(content[name]) == PNG)
    write(path, {**content, first: zstd(PNG[:-1] + b"\x00")})
    assert listing  # the list is unchanged: only the file is
    assert problem_of(path, tmp_path) == (
        f"zip entry {first!r} (media file 'bone.png') does not have the SHA-1 the media list "
        "gives; the package is damaged"
    )


def test_a_media_file_of_another_size_is_refused(packages: dict[str, Path], tmp_path: Path) -> None:
    path = packages["latest"]
    content = entries(path)
    first = next(name for name in ("0", "1") if unzstd(content[name]) == PNG)
    write(path, {**content, first: zstd(PNG + b"more")})
    assert problem_of(path, tmp_path) == (
        f"zip entry {first!r} (media file 'bone.png') holds {len(PNG) + 4} bytes, not "
        f"{len(PNG)}; the package is damaged"
    )


@pytest.mark.parametrize(
    ("listing", "problem"),
    [
        (b"\x0a\xff\xff\xff\xff\x0f", "field 1 at byte 0 runs past the end"),
        (b"\x0a" + b"\xff" * 11, "a number at byte 1 is longer than ten bytes"),
        (b"\x0a\x02\x0a", "field 1 at byte 0 runs past the end"),
        (b"\x0a\x03\x0a\x01a", "entry 0 is not what Anki writes (name, SHA-1)"),
        (b"\x0f", "field 1 at byte 0 has wire type 7"),
    ],
)
def test_a_malformed_media_list_is_refused(
    listing: bytes, problem: str, packages: dict[str, Path], tmp_path: Path
) -> None:
    path = packages["latest"]
    write(path, {**entries(path), "media": zstd(listing)})
    found = problem_of(path, tmp_path)
    assert found.startswith("zip entry 'media': ")
    assert problem in found


@pytest.mark.slow
def test_a_media_list_of_too_many_files_is_refused(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    path = packages["latest"]
    entry = b"\x0a\x01a\x10\x01\x1a\x14" + bytes(20)
    listing = (b"\x0a" + bytes([len(entry)]) + entry) * 100_001
    write(path, {**entries(path), "media": zstd(listing)})
    assert problem_of(path, tmp_path) == (
        "zip entry 'media': lists 100,001 media files (at most 100,000)"
    )


def test_unsafe_svg_images_are_left_out_with_a_note(
    packages: dict[str, Path], tmp_path: Path
) -> None:
    path = packages["legacy"]
    content = entries(path)
    listing = json.loads(content["media"])
    svg_entry = next(entry for entry, name in listing.items() if name == "shape.svg")
    hostile = b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>'
    write(path, {**content, svg_entry: hostile})
    package = read(path, tmp_path)
    assert [item.name.endswith(".svg") for item in package.media] == [False]
    assert any(
        "'shape.svg' in note" in note and "an SVG that refers to other files" in note
        for note in package.notes
    )


def iter_cards(package: ImportedPackage) -> Iterator[object]:
    for deck in package.decks:
        yield from deck.cards


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_are_a_protobuf_message_or_a_protobuf_error(data: bytes) -> None:
    try:
        found = list(_protobuf.fields(data))
    except _protobuf.ProtobufError:
        return
    assert all(item.number > 0 for item in found)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(meta=st.binary(max_size=16), listing=st.binary(max_size=64))
def test_any_meta_and_media_list_give_a_package_or_a_message(
    meta: bytes, listing: bytes, made: tuple[Made, dict[str, Path]], tmp_path: Path
) -> None:
    path = tmp_path / "any.apkg"
    write(path, {**entries(made[1]["latest"]), "meta": meta, "media": zstd(listing)})
    staging = tmp_path / "any-staging"
    staging.mkdir(exist_ok=True)
    problems: list[str] = []
    try:
        read_apkg(path, staging)
    except DeckError as error:
        problems = [error.source, *error.problems]
    assert not problems or (problems[0] == str(path) and len(problems) > 1)
    for leftover in staging.iterdir():
        leftover.unlink()


def test_a_multiple_choice_note_with_an_image_stays_a_basic_card_with_its_image(
    tmp_path: Path,
) -> None:
    model = genanki.Model(
        1_607_392_400,
        "Multiple Choice Note Type",
        fields=[{"name": name} for name in MCNT_FIELDS],
        templates=[{"name": "Card 1", "qfmt": "{{question}}", "afmt": "{{answers}}"}],
    )
    fields = ["1", 'Which animal? <img src="cat.png">', "cat", "dog", *[""] * 8, "a", "", ""]
    path = build_package(tmp_path, {"Pets": [genanki.Note(model=model, fields=fields)]})
    package = read(path, tmp_path)
    ((card,),) = [deck.cards for deck in package.decks]
    assert isinstance(card, BasicCard)
    (image,) = package.media
    assert card.front == f'Which animal? <img src="{image.name}"><ol><li>cat</li><li>dog</li></ol>'
    assert card.back == "Answers: a"
    assert any(
        "1 multiple-choice note imported as basic cards" in note
        and "it shows images, and choice cards show text only" in note
        for note in package.notes
    )


def test_a_damaged_package_of_todays_format_changes_nothing(
    packages: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    run(capsys, "--data-dir", str(data), "decks")
    before = dump(paths.database_path(data))
    broken = packages["latest"]
    content = entries(broken)
    first = next(name for name in ("0", "1") if unzstd(content[name]) == PNG)
    write(broken, {**content, first: zstd(PNG[:-1] + b"\x00")})
    status, out, err = run(
        capsys, "--data-dir", str(data), "import", str(packages["legacy"]), str(broken)
    )
    assert (status, out) == (1, "")
    assert err.startswith(f"{broken}: zip entry {first!r} (media file 'bone.png')")
    assert dump(paths.database_path(data)) == before
    media = paths.media_dir(data)
    assert not media.exists() or not any(media.iterdir())
    assert not any((data / "tmp").iterdir())
