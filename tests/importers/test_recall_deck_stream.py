"""A Recall JSON deck imported card by card stores what the whole-deck path stores, and a
large file with a bad card or bad JSON near its end is refused whole."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall.collection import import_report, importing, spooled_writing
from recall.content import json_stream
from recall.content.deck_format import load_deck
from recall.core.errors import DeckErrors, ImportCancelledError
from recall.importers import card_spool
from recall.scheduling import Schedulers
from recall.storage import Database, card_index
from tests.conftest import DATA, Clock

LARGE = 250_000
"""Cards in the large generated file: many spool batches and many pieces of the file."""


def _cards(count: int, version: int) -> list[dict[str, object]]:
    cards: list[dict[str, object]] = []
    for index in range(count):
        if index % 3 == 0:
            cards.append(
                {
                    "id": f"q{index}",
                    "type": "choice",
                    "question": f"  Question {index}, version {version}? ",
                    "choices": [
                        {"text": "right", "correct": True},
                        {"text": f"wrong {index}", "why": "Because."},
                    ],
                    "tags": ["t", f"v{version}"],
                    "shuffle": index % 2 == 0,
                }
            )
        else:
            cards.append(
                {
                    "id": f"b{index}",
                    "type": "basic",
                    "front": f"Front {index} \u00e9\U0001f600 \\ud83d",
                    "back": f"Back {index}" if version == 1 or index % 5 else "Changed",
                    "markup": "html" if index % 4 == 0 else "markdown",
                    "hints": ["a hint"] if index % 7 == 0 else [],
                }
            )
    return cards


def _write_deck(path: Path, cards: list[dict[str, object]], name: str = "Stream") -> Path:
    deck = {"format": "recall-deck", "version": 1, "id": "stream", "name": name, "cards": cards}
    path.write_text(json.dumps(deck, indent=1), encoding="utf-8")
    return path


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, in row order, without what differs from run to run: the
    random seed each new card draws, the replay marks drawn with it, and the wall-clock
    time and sequence number of each sync event."""
    connection = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        dump: dict[str, list[tuple[object, ...]]] = {}
        for table in tables:
            cursor = connection.execute(f'SELECT * FROM "{table}"')
            columns = [column[0] for column in cursor.description]
            keep = [i for i, column in enumerate(columns) if (table, column) not in _DRAWN]
            rows = [tuple(row[i] for i in keep) for row in cursor]
            # A bulk write queues each set's sync events after the others: compared as a set.
            dump[table] = sorted(rows, key=repr) if table == "sync_outbox" else rows
        return dump
    finally:
        connection.close()


_DRAWN = {
    ("card", "seed"),
    ("replay_change", "mark"),
    ("sync_outbox", "at"),
    ("sync_outbox", "seq"),
}


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read files 97 characters at a time, spool cards to a file past the first few
    thousand characters, and add them 13 at a time."""
    monkeypatch.setattr(json_stream, "PIECE_CHARS", 97)
    monkeypatch.setattr(card_spool, "IN_MEMORY_CHARS", 5000)
    monkeypatch.setattr(spooled_writing, "BATCH_CARDS", 13)


def _imports(
    database: Path, files: list[Path], clock: Clock
) -> Iterator[list[import_report.ImportReport]]:
    for file in files:
        opened = Database(database)
        try:
            yield importing.import_files(opened, Schedulers(fuzz=False), [file], clock())
        finally:
            opened.close()


def test_streamed_import_stores_what_the_whole_deck_path_stores(
    tmp_path: Path, clock: Clock, small_pieces: None
) -> None:
    first = _write_deck(tmp_path / "first.json", _cards(600, 1))
    # Again with changed text, a card dropped, the order reversed and new cards.
    changed = _cards(660, 2)[10:]
    second = _write_deck(tmp_path / "second.json", changed[::-1], name="Stream renamed")
    streamed, whole = tmp_path / "streamed.sqlite3", tmp_path / "whole.sqlite3"
    reports: list[import_report.DeckReport] = []
    for file in (first, second, DATA / "decks" / "tiny.json"):
        for written in _imports(streamed, [file], clock):
            reports += [deck for report in written for deck in report.decks]
        database = Database(whole)
        try:
            importing.import_deck(database, load_deck(file), clock())
        finally:
            database.close()
        clock.advance(hours=1)
    assert _dump(streamed) == _dump(whole)
    assert not list(tmp_path.rglob("*.spool"))  # the spool goes with the import's folder
    assert [deck.added for deck in reports] == [600, 60, 2]
    assert reports[1].updated > 0
    assert reports[1].kept == 10


def _cards_text(count: int) -> Iterator[str]:
    for index in range(count):
        yield json.dumps({"id": f"c{index}", "type": "basic", "front": "f", "back": "b"})


def _large_file(path: Path, last: str) -> Path:
    head = '{"format": "recall-deck", "version": 1, "id": "large", "name": "Large", "cards": [\n'
    with path.open("w", encoding="utf-8") as file:
        file.write(head)
        file.write(",\n".join(_cards_text(LARGE - 1)))
        file.write(",\n" + last + "\n]}\n")
    return path


@pytest.mark.parametrize(
    ("last", "problem"),
    [
        (
            '{"id": "last", "type": "basic", "front": "f", "back": "b", "bakc": "x"}',
            f"cards[{LARGE - 1}] (id 'last'): bakc: unknown field, not part of the deck "
            "format; did you mean 'back'?",
        ),
        (
            '{"id": "c7", "type": "basic", "front": "f", "back": "b"}',
            f"cards[{LARGE - 1}] reuses the id 'c7' of cards[7]; card ids must be unique "
            "within a deck",
        ),
        (
            '{"id": "last", "type": "basic", "front": "f", "back": "b",}',
            f"line {LARGE + 1}, column 59: not valid JSON (Expecting property name enclosed "
            "in double quotes)",
        ),
    ],
    ids=["bad card", "repeated id", "bad JSON"],
)
def test_bad_input_at_the_end_of_a_large_file_is_refused_whole(
    tmp_path: Path, clock: Clock, last: str, problem: str
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    database = data / "recall.sqlite3"
    list(_imports(database, [DATA / "decks" / "tiny.json"], clock))
    before = _dump(database)
    large = _large_file(tmp_path / "large.json", last)
    opened = Database(database)
    try:
        with pytest.raises(DeckErrors) as caught:
            importing.import_files(opened, Schedulers(fuzz=False), [large], clock())
    finally:
        opened.close()
    (error,) = caught.value.errors
    assert error.problems == [problem]
    assert _dump(database) == before
    assert not list(data.rglob("*.spool"))


def test_an_import_cancelled_while_its_cards_are_read_writes_nothing(
    tmp_path: Path, clock: Clock
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    database = data / "recall.sqlite3"
    list(_imports(database, [DATA / "decks" / "tiny.json"], clock))
    before = _dump(database)
    deck = _write_deck(tmp_path / "deck.json", _cards(3000, 1))
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return True

    opened = Database(database)
    try:
        with pytest.raises(ImportCancelledError):
            importing.import_files(
                opened, Schedulers(fuzz=False), [deck], clock(), cancelled=cancelled
            )
    finally:
        opened.close()
    assert asked == [1]  # at the first check, a thousand cards in
    assert _dump(database) == before
    assert not list(data.rglob("*.spool"))


def test_progress_is_told_as_the_cards_are_read_then_written(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_stream, "PIECE_CHARS", 4096)
    deck = _write_deck(tmp_path / "deck.json", _cards(3000, 1))
    told: list[tuple[int, int]] = []
    database = Database(tmp_path / "recall.sqlite3")
    try:
        importing.import_files(
            database,
            Schedulers(fuzz=False),
            [deck],
            clock(),
            progress=lambda done, total: told.append((done, total)),
        )
    finally:
        database.close()
    size = deck.stat().st_size
    read = [done for done, total in told if total == size]
    assert len(read) == 3  # every thousand cards, in the file's bytes
    assert read == sorted(read)
    assert 0 < read[0] < size
    assert told[-1] == (3000, 3000)


def test_the_search_text_written_with_each_card_is_the_one_sql_derives(
    tmp_path: Path, clock: Clock, small_pieces: None
) -> None:
    cards = _cards(600, 1)
    cards[3]["question"] = 'Tab\tand "quotes" \\ and\nlines'
    cards[4]["front"] = "NUL \u0000 here"  # left to SQL
    deck = _write_deck(tmp_path / "deck.json", cards)
    database = tmp_path / "recall.sqlite3"
    for _ in _imports(database, [deck], clock):
        pass
    connection = sqlite3.connect(database)
    try:
        derived = card_index._texts("content")
        rows = connection.execute(f"SELECT search_text, {derived} FROM card").fetchall()
    finally:
        connection.close()
    assert len(rows) == 600
    assert all(stored == text for stored, text in rows)
