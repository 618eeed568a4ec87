"""An Anki collection (SQLite, schema 11) read through a read-only connection, as plain values."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall.errors import DeckError

NEWER_ANKI_ADVICE = (
    'in Anki, export the deck again with "Support older Anki versions" checked, then import '
    "that file"
)
REVIEW_BATCH = 2000
_CONDITIONAL = re.compile(r"\{\{[#^/][^{}]*\}\}")
_FIELD_REFERENCE = re.compile(r"\{\{\s*([^{}#^/:]+?)\s*\}\}")
_CLOZE_REFERENCE = re.compile(r"\{\{cloze:\s*([^{}]+?)\s*\}\}")


@dataclass(frozen=True)
class NoteType:
    """An Anki note type: its fields in order and each card template's question format."""

    name: str
    is_cloze: bool
    field_names: tuple[str, ...]
    question_formats: dict[int, str]

    def question_field(self, ord_: int) -> int:
        """The field a standard card asks about: the only one its question shows, else 0."""
        question = self.question_formats.get(ord_, "")
        reference = _FIELD_REFERENCE.fullmatch(_CONDITIONAL.sub("", question).strip())
        if reference and reference.group(1) in self.field_names:
            return self.field_names.index(reference.group(1))
        return 0

    def cloze_field(self) -> int:
        """The field a cloze note type deletes from: the one ``{{cloze:...}}`` names, else 0."""
        for question in self.question_formats.values():
            reference = _CLOZE_REFERENCE.search(question)
            if reference and reference.group(1) in self.field_names:
                return self.field_names.index(reference.group(1))
        return 0


@dataclass(frozen=True)
class AnkiNote:
    """A note: its type, its fields (HTML) and its tags."""

    id: int
    type_id: int
    fields: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class AnkiCard:
    """A card: its note, its home deck, its template number and its place in the new queue."""

    id: int
    note_id: int
    deck_id: int
    ord: int
    is_new: bool
    due: int
    suspended: bool


@dataclass(frozen=True)
class AnkiReview:
    """One revlog row: id (ms since the epoch), card, ease 0-4, time in ms, and entry type."""

    id: int
    card_id: int
    ease: int
    time_ms: int
    kind: int


class Collection:
    """The tables Recall reads from an open collection; every value is checked for its type."""

    def __init__(self, connection: sqlite3.Connection, entry: str, source: str) -> None:
        self._connection = connection
        self._entry = entry
        self._source = source

    def note_types(self) -> dict[int, NoteType]:
        """Note types by id, from ``col.models``."""
        raw = self._col_json("models")
        if not raw and self._has_table("notetypes"):
            raise self.error(f"the collection is in a newer Anki's layout; {NEWER_ANKI_ADVICE}")
        note_types: dict[int, NoteType] = {}
        for key, model in raw.items():
            where = f"col.models[{key!r}]"
            model = _mapping(model, where, self)
            fields = sorted(
                (_mapping(item, f"{where}.flds", self) for item in _list(model, "flds", self)),
                key=lambda item: _number(item.get("ord", 0), f"{where}.flds", self),
            )
            templates = [_mapping(t, f"{where}.tmpls", self) for t in _list(model, "tmpls", self)]
            note_types[_number(key, where, self)] = NoteType(
                name=_text(model.get("name", ""), f"{where}.name", self),
                is_cloze=model.get("type") == 1,
                field_names=tuple(_text(f.get("name", ""), f"{where}.flds", self) for f in fields),
                question_formats={
                    _number(t.get("ord", index), f"{where}.tmpls", self): _text(
                        t.get("qfmt", ""), f"{where}.tmpls", self
                    )
                    for index, t in enumerate(templates)
                },
            )
        return note_types

    def deck_names(self) -> dict[int, str]:
        """Deck names (with Anki's ``::`` hierarchy) by deck id, from ``col.decks``."""
        decks = {}
        for key, deck in self._col_json("decks").items():
            where = f"col.decks[{key!r}]"
            name = _mapping(deck, where, self).get("name", "")
            decks[_number(key, where, self)] = _text(name, f"{where}.name", self)
        return decks

    def notes(self) -> dict[int, AnkiNote]:
        """Every note by id."""
        notes: dict[int, AnkiNote] = {}
        for row in self._rows("SELECT id, mid, flds, tags FROM notes"):
            note_id = _number(row[0], "notes: an id", self)
            where = f"note {note_id}"
            if note_id in notes:
                raise self.error(f"{where}: appears twice in the notes table")
            notes[note_id] = AnkiNote(
                id=note_id,
                type_id=_number(row[1], f"{where}: mid", self),
                fields=tuple(_text(row[2], f"{where}: flds", self).split("\x1f")),
                tags=tuple(_text(row[3], f"{where}: tags", self).split()),
            )
        return notes

    def cards(self) -> list[AnkiCard]:
        """Every card, in its home deck (a card lent to a filtered deck goes back home)."""
        cards: list[AnkiCard] = []
        seen: set[int] = set()
        query = "SELECT id, nid, did, ord, type, queue, due, odid, odue FROM cards ORDER BY id"
        for row in self._rows(query):
            card_id = _number(row[0], "cards: an id", self)
            where = f"card {card_id}"
            if card_id in seen:
                raise self.error(f"{where}: appears twice in the cards table")
            seen.add(card_id)
            values = [_number(value, f"{where}: a column", self) for value in row[1:]]
            note_id, deck_id, ord_, kind, queue, due, home_deck, home_due = values
            lent = home_deck != 0
            cards.append(
                AnkiCard(
                    id=card_id,
                    note_id=note_id,
                    deck_id=home_deck if lent else deck_id,
                    ord=ord_,
                    is_new=kind == 0,
                    due=home_due if lent else due,
                    suspended=queue == -1,
                )
            )
        return cards

    def review_count(self) -> int:
        """How many revlog rows there are."""
        (row,) = self._rows("SELECT count(*) FROM revlog")
        return _number(row[0], "revlog", self)

    def reviews(self) -> Iterator[AnkiReview]:
        """Every revlog row, oldest first."""
        query = "SELECT id, cid, ease, time, type FROM revlog ORDER BY id"
        try:
            cursor = self._connection.execute(query)
            while batch := cursor.fetchmany(REVIEW_BATCH):
                for row in batch:
                    values = [_number(value, "revlog: a column", self) for value in row]
                    yield AnkiReview(*values)
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def _col_json(self, column: str) -> dict[str, Any]:
        rows = self._rows(f"SELECT {column} FROM col LIMIT 1")
        if not rows:
            raise self.error("col: the collection has no settings row")
        where = f"col.{column}"
        text = _text(rows[0][0], where, self)
        if not text.strip():
            return {}
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise self.error(f"{where}: not valid JSON") from None
        return _mapping(value, where, self)

    def _has_table(self, name: str) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return bool(self._rows(query, (name,)))

    def _rows(self, query: str, parameters: tuple[object, ...] = ()) -> list[Any]:
        try:
            return self._connection.execute(query, parameters).fetchall()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def _unreadable(self, error: sqlite3.Error) -> DeckError:
        return self.error(f"not an Anki collection Recall can read ({error})")

    def error(self, what: str) -> DeckError:
        """A DeckError naming the package, then this collection's zip entry and ``what``."""
        return DeckError(self._source, [f"zip entry {self._entry!r}: {what}"])


@contextmanager
def open_collection(path: Path, entry: str, source: str) -> Iterator[Collection]:
    """Open a private copy of a collection read-only, with untrusted-schema protection.

    The copy's header is switched out of WAL mode first, so a read-only connection never
    needs ``-wal`` or ``-shm`` files next to it.

    Raises:
        DeckError: The file is not SQLite or fails ``PRAGMA quick_check``.
    """
    with path.open("r+b") as file:
        header = file.read(20)
        if len(header) == 20 and header[18:20] == b"\x02\x02":
            file.seek(18)
            file.write(b"\x01\x01")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise DeckError(source, [f"zip entry {entry!r}: cannot be opened ({error})"]) from None
    with closing(connection):
        collection = Collection(connection, entry, source)
        try:
            connection.execute("PRAGMA trusted_schema = OFF")
            connection.execute("PRAGMA query_only = ON")
            result = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.Error as error:
            raise collection.error(f"not an Anki collection Recall can read ({error})") from None
        if result != ["ok"]:
            lines = [line for row in result for line in str(row).splitlines()]
            found = next((line for line in lines if not line.startswith("***")), "no answer")
            raise collection.error(f"the collection is damaged (SQLite's quick_check: {found})")
        yield collection


def _mapping(value: object, where: str, collection: Collection) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise collection.error(f"{where}: not what Anki writes there (expected an object)")
    return value


def _list(model: dict[str, Any], key: str, collection: Collection) -> list[Any]:
    value = model.get(key, [])
    if not isinstance(value, list):
        raise collection.error(f"{key}: not what Anki writes there (expected a list)")
    return value


def _number(value: object, where: str, collection: Collection) -> int:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return value
    raise collection.error(f"{where}: {value!r:.40} is not a whole number")


def _text(value: object, where: str, collection: Collection) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            pass
    elif isinstance(value, str):
        return value
    raise collection.error(f"{where}: {value!r:.40} is not text")
