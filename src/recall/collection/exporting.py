"""Exporting a deck: to Recall's JSON (imports back card for card) or to an Anki package."""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re
import sqlite3
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from recall.content import card_html, sound
from recall.content.deck_format import (
    CARD_ADAPTER,
    BasicCard,
    Card,
    ChoiceCard,
    Deck,
    deck_json_parts,
    dump_deck,
)
from recall.core.errors import RecallError, UnknownDeckError
from recall.host import paths, workspace
from recall.host.files import OutputError, output_file
from recall.storage import Database

EXPORT_SUFFIXES = frozenset({".json", ".apkg"})
_IMAGE_SOURCE = re.compile(r'<img[^>]*\ssrc="([^"]+)"')


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


def export_deck(database: Database, deck_key: str, target: Path) -> int:
    """Write a deck to ``target``; its suffix picks the format (.json or .apkg).

    A regular file is written beside the target and renamed over it when complete; a FIFO
    or device (``/dev/stdout``) is written straight through (``files.output_file``).

    Returns:
        The number of cards written.

    Raises:
        UnknownDeckError: No deck has that id.
        ExportError: The suffix is not supported, or the file cannot be written.
    """
    check_suffix(target)
    if target.suffix.lower() == ".json":
        return _stream_json(database, deck_key, target)
    deck = load_stored_deck(database, deck_key)
    return write_deck(deck, target, database.path.parent)


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
            raise ExportError(f"cannot write {target}: {error.strerror}") from None
    return written


def check_suffix(target: Path) -> None:
    """Refuse a target whose suffix names no export format.

    Raises:
        ExportError: The suffix is neither .json nor .apkg.
    """
    suffix = target.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise ExportError(
            f"{target}: Recall exports decks as .json or .apkg, not {suffix or 'this'}"
        )


def write_deck(deck: Deck, target: Path, data_dir: Path) -> int:
    """Write a deck model to ``target`` (.json or .apkg), its images from ``data_dir``'s media.

    A regular file is written beside the target and renamed over it when complete; a FIFO
    or device (``/dev/stdout``) is written straight through (``files.output_file``).

    Returns:
        The number of cards written.

    Raises:
        ExportError: The suffix is not supported, or the file cannot be written.
    """
    check_suffix(target)
    suffix = target.suffix.lower()
    try:
        if suffix == ".json":
            with output_file(target) as stream:
                stream.write(dump_deck(deck).encode("utf-8"))
        else:
            with workspace.work_folder(data_dir, "export") as folder:
                collection = _anki_collection(deck, folder, paths.media_dir(data_dir))
                with output_file(target) as stream:
                    _zip_package(collection, stream)
    except OutputError as error:
        raise ExportError(str(error)) from None
    except OSError as error:
        raise ExportError(f"cannot write {target}: {error.strerror}") from None
    except sqlite3.Error as error:  # the package's collection, built in the scratch folder
        raise ExportError(
            f"cannot write {target}: building its collection failed ({error})"
        ) from None
    return len(deck.cards)


def _anki_collection(deck: Deck, folder: Path, media_dir: Path) -> tuple[Path, list[Path]]:
    """Build the deck's Anki collection in ``folder``; returns it and the images it uses."""
    import genanki  # only when exporting: it is slow to import and the window rarely needs it

    anki_deck = genanki.Deck(_anki_id(deck.id), deck.name, description=deck.description)
    media: set[Path] = set()
    for card in deck.cards:
        front, back = _anki_fields(card)
        sounds = sound.references(front + back)
        for source in _IMAGE_SOURCE.findall(front + back) + sounds:
            if card_html.is_media_name(source) and (media_dir / source).is_file():
                media.add(media_dir / source)
        anki_deck.add_note(
            genanki.Note(
                model=genanki.BASIC_MODEL,
                fields=[front, back],
                tags=list(card.tags),
                guid=genanki.guid_for(deck.id, card.id),
            )
        )
    # genanki's write_to_file leaves its collection in the system's temporary folder; build
    # it in Recall's own scratch folder instead, and zip it the way Anki packages are zipped.
    collection = folder / "collection.anki2"
    connection = sqlite3.connect(collection)
    try:
        stamp = time.time()
        genanki.Package(anki_deck).write_to_db(
            connection.cursor(), stamp, itertools.count(int(stamp * 1000))
        )
        connection.commit()
    finally:
        connection.close()
    return collection, sorted(media)


def _zip_package(built: tuple[Path, list[Path]], stream: BinaryIO) -> None:
    collection, files = built
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as package:
        package.write(collection, "collection.anki2")
        package.writestr("media", json.dumps({str(i): p.name for i, p in enumerate(files)}))
        for index, path in enumerate(files):
            package.write(path, str(index))


def _anki_fields(card: ChoiceCard | BasicCard) -> tuple[str, str]:
    """Front and back HTML of the Basic note a card becomes."""
    if isinstance(card, BasicCard):
        if card.markup == "html":
            front, back = card_html.sanitize(card.front), card_html.sanitize(card.back)
        else:
            front, back = _markdown_html(card.front), _markdown_html(card.back)
        return front, back + _extra(card.explanation, card.source)
    letters = "ABCDEFGHIJ"
    choices = "".join(
        f"<li>{letters[index]}. {_markdown_html(choice.text)}</li>"
        for index, choice in enumerate(card.choices)
    )
    front = f"{_markdown_html(card.question)}<ul style='list-style:none'>{choices}</ul>"
    right = [
        f"{letters[index]}. {_markdown_html(card.choices[index].text)}"
        for index in sorted(card.correct_indexes)
    ]
    back = "<b>Answer:</b> " + "<br>".join(right)
    return front, back + _extra(card.explanation, card.source)


def _extra(explanation: str, source: str) -> str:
    extra = f"<p>{_markdown_html(explanation)}</p>" if explanation else ""
    if source:
        extra += f"<p><i>Source:</i> {_markdown_html(source)}</p>"
    return extra


def _markdown_html(text: str) -> str:
    """Deck Markdown as simple HTML: escaped text, code spans, bold and italic, line breaks."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    escaped = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", escaped)
    escaped = re.sub(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])", r"<i>\1</i>", escaped)
    return escaped.replace("\n\n", "<br><br>").replace("\n", " ")


def _anki_id(key: str) -> int:
    """A stable Anki deck id for a Recall deck id (Anki wants a positive 63-bit number)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:15], 16)
