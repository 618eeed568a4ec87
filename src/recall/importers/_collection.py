"""An Anki collection read through a read-only, bounded connection, as plain values.

Both layouts Anki writes are read: schema 11 (note types and decks as JSON in ``col``, as
in packages made with "Support older Anki versions") and today's (note types, fields,
templates and decks in their own tables, with protobuf settings; ``_collection_tables``).
The collection is untrusted: only real tables Recall expects are read, views, triggers,
virtual tables and generated columns are refused, and SQLite's work is bounded by a step
budget and size limits, checked with the learner's Cancel, so no file can make a read spin
or grow without end.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall.core.errors import DeckError, ImportCancelledError
from recall.core.i18n import mark, tr
from recall.importers import Cancelled, _collection_guard, never_cancelled
from recall.importers._collection_guard import bound, check_schema

NEWER_ANKI_ADVICE = mark(
    'in Anki, export the deck again with "Support older Anki versions" checked, then import '
    "that file"
)
REVIEW_BATCH = 2000
_CONDITIONAL = re.compile(r"\{\{[#^/][^{}]*\}\}")
_FIELD_REFERENCE = re.compile(r"\{\{\s*([^{}#^/:]+?)\s*\}\}")
_CLOZE_REFERENCE = re.compile(r"\{\{cloze:\s*([^{}]+?)\s*\}\}")


@dataclass(frozen=True)
class NoteType:
    """An Anki note type: its fields in order, and each card template's formats and name."""

    name: str
    is_cloze: bool
    field_names: tuple[str, ...]
    question_formats: dict[int, str]
    answer_formats: dict[int, str] = field(default_factory=dict)
    template_names: dict[int, str] = field(default_factory=dict)
    css: str = ""

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
class AnkiDeck:
    """An Anki deck: its name (with ``::`` between levels) and its description (HTML)."""

    name: str
    description: str


@dataclass(frozen=True)
class AnkiNote:
    """A note: its type, its fields (HTML), its tags, its guid and when it was last changed.

    Attributes:
        mod: Anki's ``notes.mod``: seconds since the epoch of the note's last change.
        guid: Anki's ``notes.guid``: matched against the notes Recall exported, never shown.
    """

    id: int
    type_id: int
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    mod: int = 0
    guid: str = ""


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

    def __init__(
        self,
        connection: sqlite3.Connection,
        entry: str,
        source: str,
        cancelled: Cancelled = never_cancelled,
    ) -> None:
        self._connection = connection
        self._entry = entry
        self._source = source
        self._cancelled = cancelled

    def note_types(self) -> dict[int, NoteType]:
        """Note types by id, from ``col.models``."""
        raw = self._col_json("models")
        if not raw and self.has_table("notetypes"):
            from recall.importers._collection_tables import read_note_types

            return read_note_types(self)
        note_types: dict[int, NoteType] = {}
        for key, model in raw.items():
            where = f"col.models[{key!r}]"
            model = _mapping(model, where, self)
            fields = sorted(
                (_mapping(item, f"{where}.flds", self) for item in _list(model, "flds", self)),
                key=lambda item: _number(item.get("ord", 0), f"{where}.flds", self),
            )
            templates = [_mapping(t, f"{where}.tmpls", self) for t in _list(model, "tmpls", self)]
            ords = [
                _number(t.get("ord", index), f"{where}.tmpls", self)
                for index, t in enumerate(templates)
            ]
            note_types[_number(key, where, self)] = NoteType(
                name=_text(model.get("name", ""), f"{where}.name", self),
                is_cloze=model.get("type") == 1,
                field_names=tuple(_text(f.get("name", ""), f"{where}.flds", self) for f in fields),
                question_formats={
                    ord_: _text(t.get("qfmt", ""), f"{where}.tmpls", self)
                    for ord_, t in zip(ords, templates, strict=True)
                },
                answer_formats={
                    ord_: _text(t.get("afmt", ""), f"{where}.tmpls", self)
                    for ord_, t in zip(ords, templates, strict=True)
                },
                template_names={
                    ord_: _text(t.get("name", ""), f"{where}.tmpls", self)
                    for ord_, t in zip(ords, templates, strict=True)
                },
                css=_text(model.get("css", ""), f"{where}.css", self),
            )
        return note_types

    def decks(self) -> dict[int, AnkiDeck]:
        """Decks by id, from ``col.decks`` or, in today's layout, the ``decks`` table."""
        raw = self._col_json("decks")
        if not raw and self.has_table("decks"):
            from recall.importers._collection_tables import read_decks

            return read_decks(self)
        decks = {}
        for key, deck in raw.items():
            where = f"col.decks[{key!r}]"
            deck = _mapping(deck, where, self)
            decks[_number(key, where, self)] = AnkiDeck(
                name=_text(deck.get("name", ""), f"{where}.name", self),
                description=_text(deck.get("desc", ""), f"{where}.desc", self),
            )
        return decks

    def notes(self) -> dict[int, AnkiNote]:
        """Every note by id."""
        notes: dict[int, AnkiNote] = {}
        rows = self.rows("SELECT id, mid, flds, tags, mod, guid FROM notes")
        if self._typed("notes", ("id", "mid", "mod"), ("flds", "tags", "guid")):
            for note_id, type_id, fields, tags, mod, guid in rows:
                if note_id in notes:
                    raise self.error(
                        tr("note {note}: appears twice in the notes table").format(note=note_id)
                    )
                notes[note_id] = AnkiNote(
                    note_id, type_id, tuple(fields.split("\x1f")), tuple(tags.split()), mod, guid
                )
            return notes
        for row in rows:
            note_id = _number(row[0], "notes: an id", self)
            where = f"note {note_id}"
            if note_id in notes:
                raise self.error(
                    tr("note {note}: appears twice in the notes table").format(note=note_id)
                )
            notes[note_id] = AnkiNote(
                id=note_id,
                type_id=_number(row[1], f"{where}: mid", self),
                fields=tuple(_text(row[2], f"{where}: flds", self).split("\x1f")),
                tags=tuple(_text(row[3], f"{where}: tags", self).split()),
                mod=row[4] if isinstance(row[4], int) else 0,  # only compared on re-import
                guid=row[5] if isinstance(row[5], str) else "",  # only matched, never shown
            )
        return notes

    def cards(self) -> list[AnkiCard]:
        """Every card, in its home deck (a card lent to a filtered deck goes back home)."""
        cards: list[AnkiCard] = []
        seen: set[int] = set()
        columns = ("id", "nid", "did", "ord", "type", "queue", "due", "odid", "odue")
        query = f"SELECT {', '.join(columns)} FROM cards ORDER BY id"
        typed = self._typed("cards", columns, ())
        for row in self.rows(query):
            card_id = row[0] if typed else _number(row[0], "cards: an id", self)
            where = f"card {card_id}"
            if card_id in seen:
                raise self.error(
                    tr("card {card}: appears twice in the cards table").format(card=card_id)
                )
            seen.add(card_id)
            values = row[1:] if typed else [_number(v, f"{where}: a column", self) for v in row[1:]]
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
        (row,) = self.rows("SELECT count(*) FROM revlog")
        return _number(row[0], "revlog", self)

    def reviews(self) -> Iterator[AnkiReview]:
        """Every revlog row, oldest first."""
        columns = ("id", "cid", "ease", "time", "type")
        query = f"SELECT {', '.join(columns)} FROM revlog ORDER BY id"
        typed = self._typed("revlog", columns, ())
        try:
            cursor = self._connection.execute(query)
            while batch := cursor.fetchmany(REVIEW_BATCH):
                for row in batch:
                    if typed:
                        yield AnkiReview(*row)
                    else:
                        yield AnkiReview(*[_number(v, "revlog: a column", self) for v in row])
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def _col_json(self, column: str) -> dict[str, Any]:
        rows = self.rows(f"SELECT {column} FROM col LIMIT 1")
        if not rows:
            raise self.error(tr("col: the collection has no settings row"))
        where = f"col.{column}"
        text = _text(rows[0][0], where, self)
        if not text.strip():
            return {}
        try:
            value = json.loads(text)
        except RecursionError:
            raise self.error(tr("{where}: nested too deeply").format(where=where)) from None
        except ValueError as error:
            if "digits" in str(error):  # past Python's limit on converting numbers
                raise self.error(
                    tr("{where}: a number has more than 4,300 digits").format(where=where)
                ) from None
            raise self.error(
                tr("{where}: not valid JSON ({reason})").format(where=where, reason=str(error)[:80])
            ) from None
        return _mapping(value, where, self)

    def _typed(self, table: str, integers: tuple[str, ...], texts: tuple[str, ...]) -> bool:
        """Whether every value of these columns has the SQLite type Anki writes there.

        When they all do, rows are read as they come; otherwise value by value, so the
        first odd one is named.
        """
        checks = [f"typeof({column}) != 'integer'" for column in integers]
        checks += [f"typeof({column}) != 'text'" for column in texts]
        (row,) = self.rows(f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {' OR '.join(checks)})")
        return bool(row[0] == 0)

    def has_table(self, name: str) -> bool:
        """Whether the collection has a table called ``name`` (checked to be a real one)."""
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return bool(self.rows(query, (name,)))

    def rows(self, query: str, parameters: tuple[object, ...] = ()) -> list[Any]:
        try:
            return self._connection.execute(query, parameters).fetchall()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def _unreadable(self, error: sqlite3.Error) -> Exception:
        if isinstance(error, sqlite3.OperationalError) and str(error) == "interrupted":
            return self._stopped()
        return self.error(
            tr("not an Anki collection Recall can read ({error})").format(error=error)
        )

    def _stopped(self) -> Exception:
        """Why SQLite was interrupted: the learner's Cancel, or the step budget ran out."""
        if self._cancelled():
            return ImportCancelledError()
        return self.error(
            tr(
                "reading the collection takes far more work than any Anki collection needs; "
                "refusing a file made to be slow"
            )
        )

    def error(self, what: str) -> DeckError:
        """A DeckError naming the package, then this collection's zip entry and ``what``."""
        return DeckError(
            self._source,
            [tr("zip entry {name}: {problem}").format(name=repr(self._entry), problem=what)],
        )


@contextmanager
def open_collection(
    path: Path, entry: str, source: str, cancelled: Cancelled = never_cancelled
) -> Iterator[Collection]:
    """Open a private copy of a collection read-only, with untrusted-schema protection.

    The copy's header is switched out of WAL mode first, so a read-only connection never
    needs ``-wal`` or ``-shm`` files next to it. SQLite checks ``cancelled`` every few
    thousand steps and stops once it is true or once the step budget for the file's size is
    spent; values are capped at ``MAX_VALUE_BYTES``.

    Raises:
        DeckError: The file is not SQLite, fails ``PRAGMA quick_check``, holds views,
            triggers, virtual tables or generated columns, or is made to be slow.
        ImportCancelledError: ``cancelled()`` became true while SQLite worked.
    """
    with path.open("r+b") as file:
        header = file.read(20)
        if len(header) == 20 and header[18:20] == b"\x02\x02":
            file.seek(18)
            file.write(b"\x01\x01")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise DeckError(
            source,
            [
                tr("zip entry {name}: cannot be opened ({error})").format(
                    name=repr(entry), error=error
                )
            ],
        ) from None
    with closing(connection):
        collection = Collection(connection, entry, source, cancelled)
        bound(connection, path.stat().st_size, cancelled)
        try:
            connection.execute("PRAGMA trusted_schema = OFF")
            connection.execute("PRAGMA query_only = ON")
            connection.execute(f"PRAGMA cache_size = -{_collection_guard.CACHE_KIB}")
            result = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.Error as error:
            raise collection._unreadable(error) from None
        if result != ["ok"]:
            lines = [line for row in result for line in str(row).splitlines()]
            found = next((line for line in lines if not line.startswith("***")), tr("no answer"))
            raise collection.error(
                tr("the collection is damaged (SQLite's quick_check: {answer})").format(
                    answer=found
                )
            )
        check_schema(collection)
        yield collection


def _mapping(value: object, where: str, collection: Collection) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise collection.error(
            tr("{where}: not what Anki writes there (expected an object)").format(where=where)
        )
    return value


def _list(model: dict[str, Any], key: str, collection: Collection) -> list[Any]:
    value = model.get(key, [])
    if not isinstance(value, list):
        raise collection.error(
            tr("{where}: not what Anki writes there (expected a list)").format(where=key)
        )
    return value


def _number(value: object, where: str, collection: Collection) -> int:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return value
    raise collection.error(
        tr("{where}: {value} is not a whole number").format(where=where, value=f"{value!r:.40}")
    )


def _text(value: object, where: str, collection: Collection) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            pass
    elif isinstance(value, str):
        return value
    raise collection.error(
        tr("{where}: {value} is not text").format(where=where, value=f"{value!r:.40}")
    )
