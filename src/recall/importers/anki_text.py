"""Anki text and CSV exports (``.txt``, ``.csv``, ``.tsv``): header lines, rows, decks, clozes."""

from __future__ import annotations

import csv
import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from recall.content import card_html
from recall.content.card_limits import (
    MAX_CLOZE_CARDS,
    MAX_FIELD_CHARS,
    MAX_NAME_CHARS,
    MAX_SOURCE_FIELD_CHARS,
)
from recall.content.deck_format import BasicCard
from recall.content.deck_json import decode_text
from recall.core import wording
from recall.core.errors import DeckError, ImportCancelledError, printable
from recall.core.i18n import tr, trn
from recall.importers import Cancelled, ImportedPackage, Progress, never_cancelled, no_progress
from recall.importers._cards import (
    CardBounds,
    FieldTooLargeError,
    html_card,
    is_blank,
    make_deck,
    unique_words,
)
from recall.importers._report import Tally, byte_size
from recall.importers._text_header import (
    MAX_TEXT_BYTES,
    SEPARATOR_NAMES,
    Header,
    guess_separator,
    infer_roles,
    read_header,
)
from recall.importers.cloze import ClozeText

MAX_CARD_TEXT = 256 * 1024**2
"""Characters of card text one file may make (a cloze row repeats its text on each card)."""
MAX_COLUMNS = 1_000
CHECK_EVERY = 500
_SIMPLE_DECK_NAME = re.compile(r"[a-z0-9_]+(?: [a-z0-9_]+)*(?:::[a-z0-9_]+(?: [a-z0-9_]+)*)*")
_APKG_DECK_ID = re.compile(r"deck-\d+")
_IMAGE = re.compile(r"<img\b", re.IGNORECASE)
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")


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
    builder = _Builder(source, header, _readable(path.stem).strip() or "Anki")
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
            tr(
                "no '#separator:' line: the separator {separator} was guessed from line {line}"
            ).format(separator=SEPARATOR_NAMES[separator], line=records[0][0])
        )
    return builder.package(notes)


def _readable(name: str) -> str:
    """A file name as a deck name: bytes that are not UTF-8 become U+FFFD (messages show
    them as ``\\xe9`` escapes instead)."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a lone surrogate that no byte gave (Windows names)
        return printable(name)


def _read_lines(path: Path, source: str) -> list[str]:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TEXT_BYTES + 1)
        if len(data) > MAX_TEXT_BYTES:
            size = max(path.stat().st_size, len(data))
            limit = byte_size(MAX_TEXT_BYTES)
            problem = tr("the file is {size}; text imports are limited to {limit}").format(
                size=byte_size(size), limit=limit
            )
            raise DeckError(source, [problem])
    except OSError as error:
        raise DeckError(
            source, [tr("cannot be read ({reason})").format(reason=error.strerror or error)]
        ) from None
    text = decode_text(data, source)
    del data  # a large file is held once at a time, not as bytes and text together
    if "\x00" in text:
        text = text.replace("\x00", "")
    # Lines as the csv module reads a file opened with newline="" (ending in \n, \r\n or
    # \r), without the copy a StringIO would make (four bytes a character).
    return _LINE.findall(text)


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
            where, what = position.record, tr("a quoted field starting on this line never closes")
        elif "field larger than field limit" in message:
            where = position.line
            what = tr(
                "a field is longer than {longest} characters (cards hold at most {most} per "
                "field); shorten it or leave it out"
            ).format(longest=f"{MAX_SOURCE_FIELD_CHARS:,}", most=f"{MAX_FIELD_CHARS:,}")
        elif "expected after" in message:
            what = tr('text follows a closing quote (inside quotes, write a quote as "")')
            where = position.line
        else:
            where, what = position.line, message
        raise DeckError(
            source, [tr("line {line}: {problem}").format(line=where, problem=what)]
        ) from None
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
    lines: dict[str, int] = field(default_factory=dict)


class _RowSkippedError(Exception):
    """A row that gives no card; the message says why, for the report."""


class _Builder:
    """Turns rows into cards, grouped by deck, later rows replacing earlier twins."""

    def __init__(self, source: str, header: Header, default_deck: str) -> None:
        self._source = source
        self._header = header
        self._default_deck = header.deck or default_deck
        self._roles = header.role_columns
        self._decks: dict[str, _Deck] = {}
        self._skipped = Tally()
        self._bounds = CardBounds("row")
        self._merged = Tally()
        self._images = 0
        self._text = 0

    def add(self, line: int, row: list[str]) -> None:
        """Turn one row into its cards (or count it as skipped, saying why)."""
        try:
            self._add(line, row)
        except _RowSkippedError as error:
            self._skipped.add(tr("line {line} ({reason})").format(line=line, reason=error))
        except FieldTooLargeError as error:
            self._bounds.refuse(error)

    def _add(self, line: int, row: list[str]) -> None:
        if len(row) > MAX_COLUMNS:
            raise _RowSkippedError(
                tr("{count} columns; a row may have {most}").format(
                    count=f"{len(row):,}", most=f"{MAX_COLUMNS:,}"
                )
            )
        content = [cell for index, cell in enumerate(row) if index not in self._roles.values()]
        where = tr("line {line}").format(line=line)
        for index, cell in enumerate(content):
            self._bounds.check_source(where, "front" if index == 0 else "back", cell)
        if self._header.html:
            self._images += sum(len(_IMAGE.findall(cell)) for cell in content)
        front = self._prepare(content[0] if content else "")
        backs = [self._prepare(cell) for cell in content[1:] if cell.strip()]
        guid = self._cell(row, "guid").strip()
        notetype = self._cell(row, "notetype").strip() or self._header.notetype
        tags = self._bounds.tags(where, unique_words([self._header.tags, self._cell(row, "tags")]))
        name = self._cell(row, "deck").strip() or self._default_deck
        if len(name) > MAX_NAME_CHARS:
            raise _RowSkippedError(
                tr("a deck name of {count} characters; names hold at most {most}").format(
                    count=f"{len(name):,}", most=MAX_NAME_CHARS
                )
            )
        cleaned_front = self._clean(where, "front", front)
        key = _key("g", guid) if guid else _key("f", cleaned_front)
        cloze = ClozeText(front)
        if cloze.numbers or "cloze" in notetype.casefold():
            cards = self._cloze_cards(line, key, cloze, backs, tags)
        else:
            cards = self._basic_card(line, key, cleaned_front, backs, tags)
        if not cards:
            return
        self._text += sum(len(card.front) + len(card.back) for card in cards)
        if self._text > MAX_CARD_TEXT:
            raise DeckError(
                self._source,
                [
                    tr(
                        "line {line}: the cards up to here hold {count} characters of text, more "
                        "than one import may make ({most}); split the file"
                    ).format(line=line, count=f"{self._text:,}", most=f"{MAX_CARD_TEXT:,}")
                ],
            )
        deck = self._decks.setdefault(deck_id_for(name), _Deck(name))
        if key in deck.rows:
            self._merged.add(
                tr("line {line} repeats line {earlier}").format(line=line, earlier=deck.lines[key])
            )
        else:
            deck.lines[key] = line
        deck.rows[key] = cards

    def _cell(self, row: list[str], role: str) -> str:
        column = self._roles.get(role)
        return row[column] if column is not None and column < len(row) else ""

    def _prepare(self, cell: str) -> str:
        """A field as HTML, not yet cleaned: as written, or escaped plain text."""
        return cell if self._header.html else card_html.plain_text_to_html(cell)

    def _clean(self, where: str, side: str, fragment: str) -> str:
        """A side as the card holds it (raises FieldTooLargeError when it cannot)."""
        return self._bounds.cleaned(where, side, fragment, _no_media, html=self._header.html)

    def _back(self, where: str, backs: list[str], first: str = "") -> str:
        parts = [first] if first else []
        for back in backs:
            cleaned = self._clean(where, "back", back)
            if not is_blank(cleaned):
                parts.append(cleaned)
        joined = "<br>".join(parts)
        self._bounds.check_length(where, "back", joined)
        return joined

    def _basic_card(
        self, line: int, key: str, front: str, backs: list[str], tags: list[str]
    ) -> list[BasicCard]:
        back = self._back(tr("line {line}").format(line=line), backs)
        if is_blank(front):
            raise _RowSkippedError(tr("the front is blank"))
        if is_blank(back):
            raise _RowSkippedError(tr("the back is blank"))
        return [html_card(self._source, key, front, back, tags)]

    def _cloze_cards(
        self, line: int, key: str, cloze: ClozeText, backs: list[str], tags: list[str]
    ) -> list[BasicCard]:
        if not cloze.numbers:
            raise _RowSkippedError(tr("a cloze row without a cloze deletion"))
        if len(cloze.numbers) > MAX_CLOZE_CARDS:
            raise _RowSkippedError(
                tr("{count} cloze numbers; a note gives at most {most} cards").format(
                    count=f"{len(cloze.numbers):,}", most=MAX_CLOZE_CARDS
                )
            )
        cards = []
        for number in cloze.numbers:
            where = tr("line {line}, cloze c{number}").format(line=line, number=number)
            question, answer = cloze.faces(number)
            front = self._clean(where, "front", question)
            back = self._back(where, backs, first=self._clean(where, "back", answer))
            if is_blank(front) or is_blank(back):
                if is_blank(front):
                    blank = tr("line {line} (the front of cloze c{number} is blank)")
                else:
                    blank = tr("line {line} (the back of cloze c{number} is blank)")
                self._skipped.add(blank.format(line=line, number=number))
                continue
            cards.append(html_card(self._source, f"{key}-c{number}", front, back, tags))
        return cards

    def package(self, notes: list[str]) -> ImportedPackage:
        """The decks built so far, and the notes for the report.

        Raises:
            DeckError: No row gave a card.
        """
        if not self._decks:
            first = self._skipped.examples[:1] or self._bounds.refused.examples[:1]
            if first:
                problem = tr(
                    "no cards to import: every row was skipped, the first being {first}"
                ).format(first=first[0])
            else:
                problem = tr("no cards to import: the file has no rows")
            raise DeckError(self._source, [problem, *notes])
        decks = [
            make_deck(
                self._source, deck_id, deck.name, [c for cs in deck.rows.values() for c in cs]
            )
            for deck_id, deck in self._decks.items()
        ]
        notes += self._skipped.line(
            trn("{count} row skipped", "{count} rows skipped", self._skipped.count).format(
                count=wording.number(self._skipped.count)
            )
        )
        notes += self._bounds.lines()
        notes += self._merged.line(
            trn(
                "{count} row gave the same card as an earlier row (same guid, or the same front "
                "without one) in the same deck, so the later row was kept",
                "{count} rows gave the same card as an earlier row (same guid, or the same front "
                "without one) in the same deck, so the later row was kept",
                self._merged.count,
            ).format(count=wording.number(self._merged.count))
        )
        if self._images:
            notes.append(
                trn(
                    "{count} image left out (a text file carries no images)",
                    "{count} images left out (a text file carries no images)",
                    self._images,
                ).format(count=wording.number(self._images))
            )
        return ImportedPackage(decks=decks, notes=notes)
