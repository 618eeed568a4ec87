"""Exporting a deck: to Recall's JSON (imports back card for card), to an Anki package
(a deck with its subdecks, or the whole collection, with schedules and history), or to
Moodle's GIFT (``gift_export``)."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from recall.collection import anki_package
from recall.collection.anki_package import StudiedCard
from recall.content.anki_note import AnkiNoteType, NoteTypeError, parse_note_type
from recall.content.deck_format import (
    CARD_ADAPTER,
    BasicCard,
    Card,
    Deck,
    deck_json_parts,
    dump_deck,
)
from recall.core import deck_tree
from recall.core.errors import RecallError, UnknownDeckError
from recall.core.i18n import tr
from recall.core.memory import NEW_CARD
from recall.host import paths, workspace
from recall.host.files import OutputError, output_file
from recall.storage import Database

EXPORT_SUFFIXES = frozenset({".json", ".apkg", ".colpkg", ".gift"})


class ExportError(RecallError):
    """A deck could not be written to the chosen file."""


def load_stored_deck(database: Database, deck_key: str) -> Deck:
    """A deck as stored, as a deck model, cards in deck order.

    Raises:
        UnknownDeckError: No deck has that id.
    """
    with database.reading() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        cards = [
            CARD_ADAPTER.validate_json(row.content) for row in transaction.cards.of_deck(deck.id)
        ]
    # Built without validating again what was validated card by card (one call over a
    # 100,000-card list would hold Python's lock, and the window, for most of a second).
    return Deck.model_construct(
        format="recall-deck",
        version=1,
        id=deck.key,
        name=deck.name,
        description=deck.description,
        cards=cards,
    )


def export_deck(
    database: Database, deck_key: str, target: Path, now: datetime | None = None
) -> int:
    """Write a deck to ``target``; its suffix picks the format (.json, .apkg or .colpkg).

    An Anki package (``anki_package``) carries each card's schedule, flag, suspension,
    burying and review history; an ``.apkg`` holds the deck and its subdecks, a
    ``.colpkg`` every deck of the collection (whichever deck is named).

    A regular file is written beside the target and renamed over it when complete; a FIFO
    or device (``/dev/stdout``) is written straight through (``files.output_file``).

    Args:
        database: The collection.
        deck_key: The deck's id.
        target: The file to write.
        now: The export's time (aware UTC; None for the clock's): a card buried until
            later goes to Anki buried.

    Returns:
        The number of cards written.

    Raises:
        UnknownDeckError: No deck has that id.
        ExportError: The suffix is not supported, or the file cannot be written.
    """
    check_suffix(target)
    suffix = target.suffix.lower()
    if suffix == ".json":
        return _stream_json(database, deck_key, target)
    if suffix == ".gift":
        return _write_gift(load_stored_deck(database, deck_key), target)
    cards, descriptions, hour = _studied_cards(database, None if suffix == ".colpkg" else deck_key)
    note_types = stored_note_types(database, (card.card for card in cards))
    moment = now if now is not None else datetime.now(UTC)
    _write_package(cards, descriptions, target, database.path.parent, moment, hour, note_types)
    return len(cards)


def _stream_json(database: Database, deck_key: str, target: Path) -> int:
    """``write_deck`` to JSON, card by card from the database: the same text, without a
    whole deck of card models alive at once (at 100,000 cards the garbage collector's full
    passes over them held Python's lock, and the window, for a second each)."""
    written = 0

    def cards(contents: Iterator[str]) -> Iterator[Card]:
        nonlocal written
        for content in contents:
            written += 1
            yield CARD_ADAPTER.validate_json(content)

    with database.reading() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        head = Deck.model_construct(
            format="recall-deck",
            version=1,
            id=deck.key,
            name=deck.name,
            description=deck.description,
            cards=[],
        )
        parts = deck_json_parts(head, cards(transaction.cards.contents_of_deck(deck.id)))
        try:
            with output_file(target) as stream:
                for part in parts:
                    stream.write(part.encode("utf-8"))
        except OutputError as error:
            raise ExportError(str(error)) from None
        except OSError as error:
            raise ExportError(_cannot_write(target, error.strerror)) from None
    return written


def _write_gift(deck: Deck, target: Path) -> int:
    """The deck as GIFT text (``gift_export``); returns the number of cards written."""
    from recall.collection.gift_export import gift_text

    try:
        with output_file(target) as stream:
            stream.write(gift_text(deck).encode("utf-8"))
    except OutputError as error:
        raise ExportError(str(error)) from None
    except OSError as error:
        raise ExportError(_cannot_write(target, error.strerror)) from None
    return len(deck.cards)


def check_suffix(target: Path) -> None:
    """Refuse a target whose suffix names no export format.

    Raises:
        ExportError: The suffix is not .json, .apkg, .colpkg or .gift.
    """
    suffix = target.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        if suffix:
            refused = tr(
                "{file}: Recall exports decks as .json, .apkg, .colpkg or .gift, not {suffix}"
            )
        else:
            refused = tr("{file}: Recall exports decks as .json, .apkg, .colpkg or .gift, not this")
        raise ExportError(refused.format(file=target, suffix=suffix))


def write_deck(
    deck: Deck,
    target: Path,
    data_dir: Path,
    note_types: dict[str, AnkiNoteType] | None = None,
) -> int:
    """Write a deck model to ``target`` (.json or .apkg), its images from ``data_dir``'s media.

    The cards go to Anki as new cards: a deck model carries no schedule (``export_deck``
    exports a stored deck with its history). Cards imported from Anki whose note type is in
    ``note_types`` (``stored_note_types``) go as their own notes.

    A regular file is written beside the target and renamed over it when complete; a FIFO
    or device (``/dev/stdout``) is written straight through (``files.output_file``).

    Returns:
        The number of cards written.

    Raises:
        ExportError: The suffix is not supported, or the file cannot be written.
    """
    check_suffix(target)
    if target.suffix.lower() == ".gift":
        return _write_gift(deck, target)
    if target.suffix.lower() == ".json":
        try:
            with output_file(target) as stream:
                stream.write(dump_deck(deck).encode("utf-8"))
        except OutputError as error:
            raise ExportError(str(error)) from None
        except OSError as error:
            raise ExportError(_cannot_write(target, error.strerror)) from None
        return len(deck.cards)
    cards = [
        StudiedCard(deck.id, deck.name, card, NEW_CARD, False, None, 0, position, ())
        for position, card in enumerate(deck.cards)
    ]
    now = datetime.now(UTC)
    _write_package(cards, {deck.name: deck.description}, target, data_dir, now, 4, note_types)
    return len(cards)


def _studied_cards(
    database: Database, deck_key: str | None
) -> tuple[list[StudiedCard], dict[str, str], int]:
    """The cards of a deck and its subdecks (every deck for None) with their schedules and
    histories; the decks' descriptions by name; the study day's rollover hour.

    Raises:
        UnknownDeckError: No deck has that id.
    """
    cards: list[StudiedCard] = []
    with database.reading() as transaction:
        decks = transaction.browsing.decks()
        if deck_key is not None:
            chosen = next((deck for deck in decks if deck.key == deck_key), None)
            if chosen is None:
                raise UnknownDeckError(deck_key)
            inside = chosen.name + deck_tree.SEPARATOR
            decks = [deck for deck in decks if deck is chosen or deck.name.startswith(inside)]
        presets = transaction.options.deck_presets()
        hour = transaction.options.preferences().day_rollover_hour
        for deck in decks:
            retention = presets.of_deck(deck.id).desired_retention
            studied = list(transaction.history.per_card(deck.id))
            marks = {row.id: row for row in transaction.browsing.rows([c.id for c, _ in studied])}
            for row, history in sorted(studied, key=lambda item: (item[0].position, item[0].id)):
                mark = marks[row.id]
                cards.append(
                    StudiedCard(
                        deck_key=deck.key,
                        deck_name=deck.name,
                        card=CARD_ADAPTER.validate_json(row.content),
                        memory=row.memory,
                        suspended=mark.suspended,
                        buried_until=mark.buried_until,
                        flag=mark.flag,
                        position=row.position,
                        history=history,
                        desired_retention=retention,
                    )
                )
        descriptions = {deck.name: deck.description for deck in decks}
    return cards, descriptions, hour


def stored_note_types(database: Database, cards: Iterable[Card]) -> dict[str, AnkiNoteType]:
    """The stored note types the cards imported from Anki name; one this database lacks or
    cannot read is left out (its cards go to Anki as Basic notes)."""
    keys = {card.anki.note_type for card in cards if isinstance(card, BasicCard) and card.anki}
    found: dict[str, AnkiNoteType] = {}
    with database.reading() as transaction:
        for key in sorted(keys):
            content = transaction.note_types.content(key)
            try:
                if content is not None:
                    found[key] = parse_note_type(content, key)
            except NoteTypeError:
                continue
    return found


def _write_package(
    cards: list[StudiedCard],
    descriptions: dict[str, str],
    target: Path,
    data_dir: Path,
    now: datetime,
    hour: int,
    note_types: dict[str, AnkiNoteType] | None = None,
) -> None:
    moments = [review.reviewed_at for card in cards for review in card.history]
    moments += [card.memory.due for card in cards if card.memory.due is not None]
    clock = anki_package.AnkiDays(anki_package.collection_start(now, moments, hour), hour)
    try:
        with workspace.work_folder(data_dir, "export") as folder:
            collection = folder / "collection.anki2"
            media = anki_package.build_collection(
                cards, descriptions, collection, paths.media_dir(data_dir), clock, now, note_types
            )
            with output_file(target) as stream:
                _zip_package((collection, media), stream)
    except OutputError as error:
        raise ExportError(str(error)) from None
    except OSError as error:
        raise ExportError(_cannot_write(target, error.strerror)) from None
    except sqlite3.Error as error:  # the package's collection, built in the scratch folder
        raise ExportError(
            tr("cannot write {file}: building its collection failed ({error})").format(
                file=target, error=error
            )
        ) from None


def _zip_package(built: tuple[Path, list[Path]], stream: BinaryIO) -> None:
    collection, files = built
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as package:
        package.write(collection, "collection.anki2")
        package.writestr("media", json.dumps({str(i): p.name for i, p in enumerate(files)}))
        for index, path in enumerate(files):
            package.write(path, str(index))


def _cannot_write(target: Path, reason: str | None) -> str:
    return tr("cannot write {file}: {reason}").format(file=target, reason=reason)
