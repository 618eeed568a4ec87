"""Exporting a deck: to Recall's JSON (imports back card for card) or to an Anki package."""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re
import sqlite3
import tempfile
import time
import zipfile
from pathlib import Path

from recall import cardhtml, paths
from recall.deckfile import CARD_ADAPTER, BasicCard, ChoiceCard, Deck, dump_deck
from recall.errors import RecallError, UnknownDeckError
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
    return Deck(
        format="recall-deck",
        version=1,
        id=deck.key,
        name=deck.name,
        description=deck.description,
        cards=cards,
    )


def export_deck(database: Database, deck_key: str, target: Path) -> int:
    """Write a deck to ``target``; its suffix picks the format (.json or .apkg).

    The file is written beside the target and renamed over it when complete.

    Returns:
        The number of cards written.

    Raises:
        UnknownDeckError: No deck has that id.
        ExportError: The suffix is not supported, or the file cannot be written.
    """
    suffix = target.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise ExportError(
            f"{target}: Recall exports decks as .json or .apkg, not {suffix or 'this'}"
        )
    deck = load_stored_deck(database, deck_key)
    try:
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as folder:
            partial = Path(folder) / target.name
            if suffix == ".json":
                partial.write_text(dump_deck(deck), encoding="utf-8")
            else:
                _write_apkg(deck, partial, paths.media_dir(database.path.parent))
            partial.replace(target)
    except OSError as error:
        raise ExportError(f"cannot write {target}: {error.strerror}") from None
    return len(deck.cards)


def _write_apkg(deck: Deck, target: Path, media_dir: Path) -> None:
    import genanki  # only when exporting: it is slow to import and the window rarely needs it

    anki_deck = genanki.Deck(_anki_id(deck.id), deck.name, description=deck.description)
    media: set[Path] = set()
    for card in deck.cards:
        front, back = _anki_fields(card)
        for source in _IMAGE_SOURCE.findall(front + back):
            if cardhtml.is_media_name(source) and (media_dir / source).is_file():
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
    # the collection beside the target instead, and zip it the way Anki packages are zipped.
    collection = target.with_name(target.name + ".anki2")
    connection = sqlite3.connect(collection)
    try:
        stamp = time.time()
        genanki.Package(anki_deck).write_to_db(
            connection.cursor(), stamp, itertools.count(int(stamp * 1000))
        )
        connection.commit()
    finally:
        connection.close()
    files = sorted(media)
    try:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as package:
            package.write(collection, "collection.anki2")
            package.writestr("media", json.dumps({str(i): p.name for i, p in enumerate(files)}))
            for index, path in enumerate(files):
                package.write(path, str(index))
    finally:
        collection.unlink(missing_ok=True)


def _anki_fields(card: ChoiceCard | BasicCard) -> tuple[str, str]:
    """Front and back HTML of the Basic note a card becomes."""
    if isinstance(card, BasicCard):
        if card.markup == "html":
            front, back = cardhtml.sanitize(card.front), cardhtml.sanitize(card.back)
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
