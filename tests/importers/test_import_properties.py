"""Any bytes in any field of a Recall deck or an Anki text export, and any file name:
a clean import, or ``FILE: where: what`` with the database and media exactly as they were."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.cli.main import main
from tests.helpers.import_properties import Failed, ImportChecker

pytestmark = pytest.mark.slow  # hundreds of generated imports

PLACEHOLDER = "\x00PLACE\x00"

BASE_DECK = {
    "format": "recall-deck",
    "version": 1,
    "id": "fuzz-deck",
    "name": "Fuzz",
    "description": "A deck",
    "cards": [
        {
            "id": "basic",
            "type": "basic",
            "front": "Front",
            "back": "Back",
            "explanation": "Because",
            "source": "A book",
            "tags": ["one", "two"],
        },
        {
            "id": "choice",
            "type": "choice",
            "question": "Which?",
            "choices": [{"text": "A", "correct": True, "why": "so"}, {"text": "B"}],
            "explanation": "It is A",
            "source": "Somewhere",
            "tags": ["t"],
        },
    ],
}

# Where a value may be replaced: a path into BASE_DECK, the last step naming the value.
DECK_SLOTS: list[tuple[str | int, ...]] = [
    ("format",),
    ("version",),
    ("id",),
    ("name",),
    ("description",),
    ("cards",),
    *(("cards", 0, key) for key in ("id", "type", "front", "back", "explanation", "source")),
    ("cards", 0, "tags", 0),
    ("cards", 0, "tags"),
    *(("cards", 1, key) for key in ("question", "explanation", "source", "choices")),
    ("cards", 1, "choices", 0, "text"),
    ("cards", 1, "choices", 0, "why"),
    ("cards", 1, "choices", 1, "correct"),
]

# Raw JSON put where a value was: any bytes, or the kinds of value that once broke an import.
raw_values = st.one_of(
    st.binary(max_size=60),
    st.binary(max_size=60).map(lambda data: b'"' + data + b'"'),
    st.integers(4_290, 6_000).map(lambda digits: b"9" * digits),
    st.integers(4_290, 6_000).map(lambda digits: b"-" + b"1" * digits),
    st.sampled_from([b'"\\ud800"', b'"a\\udfffb"', b'"\\ud83d"', b'["\\ud800"]', b"1e999999"]),
    st.integers(1, 5_000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(1, 3_000).map(lambda depth: b'"' + b"<div>" * depth + b'x"'),
    st.integers(1, 3_000).map(lambda depth: b'"' + b"- " * depth + b'x"'),
    st.integers(60_000, 70_000).map(lambda length: b'"' + b"x" * length + b'"'),
    st.text(max_size=30).map(lambda text: json.dumps(text).encode()),
)


def _deck_with(slot: tuple[str | int, ...]) -> bytes:
    deck = json.loads(json.dumps(BASE_DECK))
    target = deck
    for step in slot[:-1]:
        target = target[step]
    target[slot[-1]] = PLACEHOLDER
    return json.dumps(deck).encode()


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ImportChecker]:
    checker = ImportChecker(tmp_path_factory.mktemp("property-data"))
    yield checker
    checker.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slot=st.sampled_from(DECK_SLOTS), value=raw_values, as_key=st.booleans())
def test_any_bytes_in_any_deck_field(
    checker: ImportChecker, tmp_path_factory: pytest.TempPathFactory, slot: tuple[str | int, ...],
    value: bytes, as_key: bool,
) -> None:  # fmt: skip
    placeholder = json.dumps(PLACEHOLDER).encode()
    text = _deck_with(slot).replace(placeholder, value, 1)
    if as_key:  # the same bytes as a field's name instead
        text = _deck_with(slot).replace(placeholder, b'"x", ' + value + b': "y"', 1)
    path = tmp_path_factory.mktemp("deck") / "deck.json"
    path.write_bytes(text)
    result = checker.check([path])
    if isinstance(result, Failed):
        assert all(line.startswith(f"{path}: ") for line in result.lines)


TEXT_TEMPLATE = (
    "#separator:{separator}\n#html:{html}\n#tags:{tags}\n#deck:{deck}\n#columns:{columns}\n"
    "#notetype column:{notetype_column}\n#guid column:{guid_column}\n"
    "{front}\t{back}\t{row_tags}\t{notetype}\t{guid}\n"
    "second\t{back}\t\tBasic\tg2\n"
)
TEXT_DEFAULTS = {
    "separator": "tab",
    "html": "true",
    "tags": "t1 t2",
    "deck": "Fuzz text",
    "columns": "Front\tBack\tTags\tNotetype\tGUID",
    "notetype_column": "4",
    "guid_column": "5",
    "front": "Front",
    "back": "Back",
    "row_tags": "rt",
    "notetype": "Basic",
    "guid": "g1",
}
text_values = st.one_of(
    st.binary(max_size=60),
    st.integers(4_290, 6_000).map(lambda digits: b"7" * digits),
    st.integers(1, 3_000).map(lambda depth: b"{{c1::" * depth + b"x" + b"}}" * depth),
    st.integers(1, 3_000).map(lambda n: b"".join(b"{{c%d::" % i for i in range(1, n + 1))),
    st.integers(1, 3_000).map(lambda depth: b"<div>" * depth + b"x"),
    st.integers(1, 3_000).map(lambda depth: b"<table><tr><td>" * depth + b"x"),
    st.integers(60_000, 200_000).map(lambda length: b"y" * length),
    st.sampled_from([b"\xef\xbb\xbf", b'"', b'"x""', b"\x00", b"\xed\xa0\x80", b"\r", b"#"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    slot=st.sampled_from(sorted(TEXT_DEFAULTS)),
    value=text_values,
    suffix=st.sampled_from([".txt", ".csv", ".tsv"]),
    bom=st.booleans(),
)
def test_any_bytes_in_any_text_export_header_or_field(
    checker: ImportChecker, tmp_path_factory: pytest.TempPathFactory, slot: str, value: bytes,
    suffix: str, bom: bool,
) -> None:  # fmt: skip
    values = {key: text.encode() for key, text in TEXT_DEFAULTS.items()}
    values[slot] = value
    template = TEXT_TEMPLATE.encode()
    for key, text in values.items():
        template = template.replace(b"{" + key.encode() + b"}", text)
    path = tmp_path_factory.mktemp("text") / f"cards{suffix}"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + template)
    result = checker.check([path])
    if isinstance(result, Failed):
        assert all(line.startswith(f"{path}: ") for line in result.lines)


# Any bytes but "/" and NUL make a file name on Linux.
name_bytes = (
    st.binary(min_size=1, max_size=40)
    .map(lambda data: data.replace(b"/", b"_").replace(b"\x00", b"_"))
    .filter(lambda data: data not in (b".", b".."))
)


@pytest.mark.skipif(os.name != "posix", reason="file names of any bytes are a POSIX thing")
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(name=name_bytes, suffix=st.sampled_from([b".json", b".txt", b".apkg", b""]))
def test_any_file_name(
    tmp_path_factory: pytest.TempPathFactory, name: bytes, suffix: bytes,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    folder = tmp_path_factory.mktemp("names")
    raw = bytes(folder) + b"/" + name[:200] + suffix
    content = b"front\tback\n" if suffix == b".txt" else json.dumps(BASE_DECK).encode()
    path = Path(os.fsdecode(raw))
    path.write_bytes(content)
    checker = ImportChecker(folder / "data")
    try:
        result = checker.check([path])
    finally:
        checker.close()
    if suffix in (b".json", b".txt"):
        assert not isinstance(result, Failed), result
    else:
        assert isinstance(result, Failed)
    # The command line prints what it did, or why not, and exits with its status.
    status = main(["--data-dir", str(folder / "cli-data"), "import", str(path)])
    out, err = capsys.readouterr()
    assert status == (0 if suffix in (b".json", b".txt") else 1)
    (out + err).encode("utf-8")
