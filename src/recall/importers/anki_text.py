"""Anki text and CSV exports (``.txt``, ``.csv``, ``.tsv``): header lines, rows, decks, clozes."""

from __future__ import annotations

import csv
import hashlib
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from recall import cardhtml
from recall.deckfile import BasicCard, decode_text
from recall.errors import DeckError, ImportCancelledError
from recall.importers import Cancelled, ImportedPackage, Progress, never_cancelled, no_progress
from recall.importers._cards import html_card, is_blank, make_deck, unique_words
from recall.importers._report import Tally, byte_size, counted
from recall.importers._text_header import (
    SEPARATOR_NAMES,
    Header,
    guess_separator,
    infer_roles,
    read_header,
)
from recall.importers.cloze import cloze_faces, cloze_numbers

MAX_TEXT_BYTES = 128 * 1024**2
CHECK_EVERY = 500
_SIMPLE_DECK_NAME = re.compile(r"[a-z0-9_]+(?: [a-z0-9_]+)*(?:::[a-z0-9_]+(?: [a-z0-9_]+)*)*")
_APKG_DECK_ID = re.compile(r"deck-\d+")
_IMAGE = re.compile(r"<img\b", re.IGNORECASE)


def read_anki_text(
    path: Path,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> ImportedPackage:
    """Read a file Anki exported as "Notes in Plain Text" (or any CSV of front and back).

    Rows: the deck, tags, guid and notetype columns are those the header names; of the
    other columns the first is the front and the second the back, and any further ones are
    added to the back, each on its own line. With ``#html:true`` fields are HTML (cleaned
    to the allow-list; images are dropped, a text file carries none), otherwise plain text.
    Cloze rows (notetype containing "Cloze", or text with ``{{c1::...}}``) give a card per
    cloze number. Lines starting with ``#`` between rows are comments.

    Ids are stable: a deck's id comes from its name (``anki-`` and the name in lowercase,
    with a short hash when that would lose or clash), a card's from its guid (``g-``) or,
    without one, from its front (``f-``); cloze cards add ``-c<n>``. When rows repeat a
    card in the same deck, the later row wins. Rows whose front or back is blank are
    skipped; ``notes`` says which, and what else was merged or left out.

    Args:
        path: The text file (UTF-8, a byte order mark allowed).
        progress: Called with (rows done, rows in all).
        cancelled: Checked every few hundred rows.

    Raises:
        DeckError: The file cannot be read, is not UTF-8, has a bad header line or bad
            quoting, or holds no card; each problem names the line.
        ImportCancelledError: ``cancelled()`` became true.
    """
    source = str(path)
    lines = _read_lines(path, source)
    header = read_header(lines, source)
    first_row = next((line for line in lines[header.start :] if line.strip()), "")
    separator = header.separator or guess_separator(first_row)
    infer_roles(header, separator)
    records = _records(lines, header.start, separator, source, cancelled)
    builder = _Builder(source, header, path.stem.strip() or "Anki")
    for done, (line, row) in enumerate(records, start=1):
        builder.add(line, row)
        if done % CHECK_EVERY == 0:
            if cancelled():
                raise ImportCancelledError
            progress(done, len(records))
    progress(len(records), len(records))
    notes = []
    if header.separator is None and records:
        notes.append(
            f"no '#separator:' line: the separator {SEPARATOR_NAMES[separator]} was guessed "
            f"from line {records[0][0]}"
        )
    return builder.package(notes)


def _read_lines(path: Path, source: str) -> list[str]:
    try:
        size = path.stat().st_size
        if size > MAX_TEXT_BYTES:
            limit = byte_size(MAX_TEXT_BYTES)
            problem = f"the file is {byte_size(size)}; text imports are limited to {limit}"
            raise DeckError(source, [problem])
        data = path.read_bytes()
    except OSError as error:
        raise DeckError(source, [f"cannot be read ({error.strerror or error})"]) from None
    text = decode_text(data, source)
    return io.StringIO(text.replace("\x00", ""), newline="").readlines()


@dataclass
class _Position:
    """Where the CSV reader is: the line it last took, and the line its record began on."""

    line: int = 0
    record: int = 0
    at_record_start: bool = True


def _records(
    lines: list[str], start: int, separator: str, source: str, cancelled: Cancelled
) -> list[tuple[int, list[str]]]:
    """Every non-empty row with the line it starts on; ``#`` lines between rows are skipped."""
    position = _Position()

    def feed() -> Iterator[str]:
        for index in range(start, len(lines)):
            line = lines[index]
            if position.at_record_start:
                if line.startswith("#"):
                    continue
                position.record = index + 1
            position.line = index + 1
            position.at_record_start = False
            yield line

    reader = csv.reader(feed(), delimiter=separator, quotechar='"', strict=True)
    records: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            position.at_record_start = True
            if any(cell.strip() for cell in row):
                records.append((position.record, row))
                if len(records) % CHECK_EVERY == 0 and cancelled():
                    raise ImportCancelledError
    except csv.Error as error:
        message = str(error)
        if "unexpected end of data" in message:
            where, what = position.record, "a quoted field starting on this line never closes"
        elif "expected after" in message:
            what = 'text follows a closing quote (inside quotes, write a quote as "")'
            where = position.line
        else:
            where, what = position.line, message
        raise DeckError(source, [f"line {where}: {what}"]) from None
    return records


def deck_id_for(name: str) -> str:
    """A stable deck id from a deck name, the same whatever the name's case.

    Names of lowercase-able ASCII words (with ``::`` levels) read as they are:
    ``Languages::French words`` is ``anki-languages.french-words``. Any other name keeps a
    readable part and adds 8 hex digits of its SHA-256, so different names stay apart.
    """
    folded = " ".join(name.split()).casefold()
    slug = folded.replace("::", ".").replace(" ", "-")
    if (
        name.isascii()
        and _SIMPLE_DECK_NAME.fullmatch(folded)
        and len(slug) <= 90
        and not _APKG_DECK_ID.fullmatch(slug)
    ):
        return f"anki-{slug}"
    ascii_name = unicodedata.normalize("NFKD", folded).encode("ascii", "ignore").decode()
    readable = re.sub(r"[^a-z0-9]+", "-", ascii_name).strip("-")[:60].strip("-")
    digest = hashlib.sha256(folded.encode()).hexdigest()[:8]
    return f"anki-{readable}-{digest}" if readable else f"anki-{digest}"


def _no_media(_source: str) -> None:
    """A text file carries no media: every image is dropped."""


def _key(prefix: str, text: str) -> str:
    normal = " ".join(unicodedata.normalize("NFC", text).split())
    return f"{prefix}-{hashlib.sha256(normal.encode()).hexdigest()[:16]}"


@dataclass
class _Deck:
    name: str
    rows: dict[str, list[BasicCard]] = field(default_factory=dict)


class _Builder:
    """Turns rows into cards, grouped by deck, later rows replacing earlier twins."""

    def __init__(self, source: str, header: Header, default_deck: str) -> None:
        self._source = source
        self._header = header
        self._default_deck = header.deck or default_deck
        self._roles = header.role_columns
        self._decks: dict[str, _Deck] = {}
        self._skipped = Tally()
        self._merged = 0
        self._images = 0

    def add(self, line: int, row: list[str]) -> None:
        """Turn one row into its cards (or count it as skipped)."""
        content = [cell for index, cell in enumerate(row) if index not in self._roles.values()]
        if self._header.html:
            self._images += sum(len(_IMAGE.findall(cell)) for cell in content)
        front = self._prepare(content[0] if content else "")
        backs = [self._prepare(cell) for cell in content[1:]]
        guid = self._cell(row, "guid").strip()
        notetype = self._cell(row, "notetype").strip() or self._header.notetype
        tags = unique_words([self._header.tags, self._cell(row, "tags")])
        key = _key("g", guid) if guid else _key("f", self._clean(front))
        numbers = cloze_numbers(front)
        if numbers or "cloze" in notetype.casefold():
            cards = self._cloze_cards(line, key, front, backs, sorted(numbers), tags)
        else:
            cards = self._basic_card(line, key, front, backs, tags)
        if not cards:
            return
        name = self._cell(row, "deck").strip() or self._default_deck
        deck = self._decks.setdefault(deck_id_for(name), _Deck(name))
        if key in deck.rows:
            self._merged += 1
        deck.rows[key] = cards

    def _cell(self, row: list[str], role: str) -> str:
        column = self._roles.get(role)
        return row[column] if column is not None and column < len(row) else ""

    def _prepare(self, cell: str) -> str:
        """A field as HTML, not yet cleaned: as written, or escaped plain text."""
        return cell if self._header.html else cardhtml.plain_text_to_html(cell)

    def _clean(self, fragment: str) -> str:
        if not self._header.html:
            return fragment  # escaped plain text, or cloze markup around it
        return cardhtml.sanitize(fragment, _no_media)

    def _back(self, backs: list[str], first: str = "") -> str:
        parts = [first] if first else []
        parts += [cleaned for back in backs if not is_blank(cleaned := self._clean(back))]
        return "<br>".join(parts)

    def _basic_card(
        self, line: int, key: str, front: str, backs: list[str], tags: list[str]
    ) -> list[BasicCard]:
        front = self._clean(front)
        back = self._back(backs)
        if is_blank(front) or is_blank(back):
            self._skipped.add(
                f"line {line} (the {'front' if is_blank(front) else 'back'} is blank)"
            )
            return []
        return [html_card(self._source, key, front, back, tags)]

    def _cloze_cards(
        self, line: int, key: str, text: str, backs: list[str], numbers: list[int], tags: list[str]
    ) -> list[BasicCard]:
        if not numbers:
            self._skipped.add(f"line {line} (a cloze row without a cloze deletion)")
            return []
        cards = []
        for number in numbers:
            question, answer = cloze_faces(text, number)
            front = self._clean(question)
            back = self._back(backs, first=self._clean(answer))
            if is_blank(front) or is_blank(back):
                what = "front" if is_blank(front) else "back"
                self._skipped.add(f"line {line} (the {what} of cloze c{number} is blank)")
                continue
            cards.append(html_card(self._source, f"{key}-c{number}", front, back, tags))
        return cards

    def package(self, notes: list[str]) -> ImportedPackage:
        """The decks built so far, and the notes for the report.

        Raises:
            DeckError: No row gave a card.
        """
        if not self._decks:
            reason = (
                f"every row was skipped, the first being {self._skipped.examples[0]}"
                if self._skipped.count
                else "the file has no rows"
            )
            raise DeckError(self._source, [f"no cards to import: {reason}", *notes])
        decks = [
            make_deck(
                self._source, deck_id, deck.name, [c for cs in deck.rows.values() for c in cs]
            )
            for deck_id, deck in self._decks.items()
        ]
        notes += self._skipped.line(f"{counted(self._skipped.count, 'row')} skipped")
        if self._merged:
            notes.append(
                f"{counted(self._merged, 'row')} repeated an earlier row's card (same guid, or "
                "the same front without one) in the same deck; the later row was kept"
            )
        if self._images:
            notes.append(
                f"{counted(self._images, 'image')} left out (a text file carries no images)"
            )
        return ImportedPackage(decks=decks, notes=notes)
