"""Today's Anki collection layout: note types, fields, templates and decks in their own tables.

Since schema 15 Anki keeps these out of ``col``'s JSON, in tables whose settings are
protobuf blobs. Recall reads only what it needs: each note type's kind (cloze or not),
its field names in order, its CSS, and each template's name, question and answer; each
deck's name (levels joined by ``\\x1f`` in the table, shown with ``::``) and description.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from recall.core.i18n import tr
from recall.importers import _protobuf
from recall.importers._collection import AnkiDeck, Collection, NoteType

# Field numbers in Anki's proto/anki/notetypes.proto and decks.proto.
_NOTETYPE_KIND = 1  # Notetype.Config.kind: 0 normal, 1 cloze
_CLOZE_KIND = 1
_NOTETYPE_CSS = 3  # Notetype.Config.css
_TEMPLATE_QUESTION = 1  # Notetype.Template.Config.q_format
_TEMPLATE_ANSWER = 2  # Notetype.Template.Config.a_format
_DECK_NORMAL = 1  # Deck.KindContainer.normal
_DECK_DESCRIPTION = 4  # Deck.Normal.description
_LEVEL_SEPARATOR = "\x1f"
T = TypeVar("T")


def read_note_types(collection: Collection) -> dict[int, NoteType]:
    """Note types by id, from the ``notetypes``, ``fields`` and ``templates`` tables.

    Raises:
        DeckError: A row or a settings blob is not what Anki writes.
    """
    fields: dict[int, list[tuple[int, str]]] = {}
    for type_id, ord_, name in collection.rows("SELECT ntid, ord, name FROM fields"):
        where = f"fields (note type {type_id!r:.40})"
        key = _whole(type_id, where, collection)
        fields.setdefault(key, []).append(
            (_whole(ord_, where, collection), _string(name, where, collection))
        )
    questions: dict[int, dict[int, str]] = {}
    answers: dict[int, dict[int, str]] = {}
    names: dict[int, dict[int, str]] = {}
    query = "SELECT ntid, ord, name, config FROM templates"
    for type_id, ord_, template_name, config in collection.rows(query):
        where = f"templates (note type {type_id!r:.40})"
        key = _whole(type_id, where, collection)
        number = _whole(ord_, where, collection)
        question = _read(config, where, collection, _protobuf.last_text, _TEMPLATE_QUESTION)
        questions.setdefault(key, {})[number] = question
        answer = _read(config, where, collection, _protobuf.last_text, _TEMPLATE_ANSWER)
        answers.setdefault(key, {})[number] = answer
        names.setdefault(key, {})[number] = _string(template_name, where, collection)
    note_types: dict[int, NoteType] = {}
    for type_id, name, config in collection.rows("SELECT id, name, config FROM notetypes"):
        where = f"notetypes (id {type_id!r:.40})"
        key = _whole(type_id, where, collection)
        kind = _read(config, where, collection, _protobuf.last_int, _NOTETYPE_KIND)
        css = _read(config, where, collection, _protobuf.last_text, _NOTETYPE_CSS)
        note_types[key] = NoteType(
            name=_string(name, where, collection),
            is_cloze=kind == _CLOZE_KIND,
            field_names=tuple(name for _, name in sorted(fields.get(key, []))),
            question_formats=questions.get(key, {}),
            answer_formats=answers.get(key, {}),
            template_names=names.get(key, {}),
            css=css,
        )
    return note_types


def read_decks(collection: Collection) -> dict[int, AnkiDeck]:
    """Decks by id, from the ``decks`` table; a filtered deck has no description.

    Raises:
        DeckError: A row or a settings blob is not what Anki writes.
    """
    decks: dict[int, AnkiDeck] = {}
    for deck_id, name, kind in collection.rows("SELECT id, name, kind FROM decks"):
        where = f"decks (id {deck_id!r:.40})"
        normal = _read(kind, where, collection, _protobuf.last_bytes, _DECK_NORMAL)
        description = (
            ""
            if normal is None
            else _read(normal, where, collection, _protobuf.last_text, _DECK_DESCRIPTION)
        )
        decks[_whole(deck_id, where, collection)] = AnkiDeck(
            name=_string(name, where, collection).replace(_LEVEL_SEPARATOR, "::"),
            description=description,
        )
    return decks


def _read(
    blob: object,
    where: str,
    collection: Collection,
    reader: Callable[[bytes, int], T],
    number: int,
) -> T:
    if not isinstance(blob, bytes):
        raise collection.error(tr("{where}: the settings are not a blob").format(where=where))
    try:
        return reader(blob, number)
    except _protobuf.ProtobufError as error:
        what = tr("{where}: the settings are not what Anki writes ({error})").format(
            where=where, error=error
        )
        raise collection.error(what) from None


def _whole(value: object, where: str, collection: Collection) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise collection.error(
        tr("{where}: {value} is not a whole number").format(where=where, value=f"{value!r:.40}")
    )


def _string(value: object, where: str, collection: Collection) -> str:
    if isinstance(value, str):
        return value
    raise collection.error(
        tr("{where}: {value} is not text").format(where=where, value=f"{value!r:.40}")
    )
