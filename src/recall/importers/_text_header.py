"""The header lines of an Anki text export (``#separator:``, ``#html:``, ...) and the separator."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field

from recall.content.card_limits import MAX_NAME_CHARS, MAX_SOURCE_FIELD_CHARS
from recall.core.errors import DeckError
from recall.core.i18n import tr

SEPARATORS = {
    "comma": ",",
    "semicolon": ";",
    "tab": "\t",
    "space": " ",
    "pipe": "|",
    "colon": ":",
}
SEPARATOR_NAMES = {character: name for name, character in SEPARATORS.items()}
GUESS_ORDER = ("\t", ";", ",", "|", ":")
ROLES = ("deck", "tags", "guid", "notetype")
MAX_TEXT_BYTES = 128 * 1024**2
"""The largest text file Recall imports."""

# The csv module refuses fields over 128 KiB by default, far below what a file may hold;
# a field up to MAX_SOURCE_FIELD_CHARS is read (and judged by the card limits, with its
# line), and a longer one stops the read with its line, before the module's field buffer
# (four bytes a character) grows with it.
csv.field_size_limit(MAX_SOURCE_FIELD_CHARS)
MAX_COLUMN_DIGITS = 4
_CLOZE_MARKUP = re.compile(r"\{\{c\d{1,9}::|::|\}\}")


def quoted(value: str, limit: int = 40) -> str:
    """A value quoted for a message, cut short when long (a header line may hold megabytes)."""
    if len(value) <= limit:
        return repr(value)
    return tr("{text}... ({count} characters)").format(
        text=repr(value[:limit]), count=f"{len(value):,}"
    )


@dataclass
class Header:
    """What the header lines say; ``start`` is the index of the first line after them.

    Attributes:
        role_columns: The 0-based column of each role (deck, tags, guid, notetype).
        columns: The ``#columns:`` line's text (split once the separator is known).
    """

    start: int = 0
    separator: str | None = None
    html: bool = False
    tags: str = ""
    deck: str = ""
    notetype: str = ""
    columns: str | None = None
    role_columns: dict[str, int] = field(default_factory=dict)


def read_header(lines: list[str], source: str) -> Header:
    """Parse the ``#key:value`` lines at the top of the file; other ``#`` lines are comments.

    Raises:
        DeckError: A header line has a value Anki would not write; names the line.
    """
    header = Header()
    problems: list[str] = []
    for index, line in enumerate(lines):
        if not line.startswith("#"):
            if line.strip():
                break
            header.start = index + 1
            continue
        header.start = index + 1
        key, colon, raw = line[1:].rstrip("\r\n").partition(":")
        key = key.strip().casefold()
        if not colon:
            continue
        problem = _apply(header, key, raw)
        if problem:
            problems.append(tr("line {line}: {problem}").format(line=index + 1, problem=problem))
    if problems:
        raise DeckError(source, problems)
    return header


def _apply(header: Header, key: str, raw: str) -> str | None:
    """Record one header line; returns what is wrong with it, if anything."""
    value = raw.strip()
    if key == "separator":
        if value.casefold() in SEPARATORS:
            header.separator = SEPARATORS[value.casefold()]
        elif len(raw) == 1 and raw not in '"\r\n':
            header.separator = raw
        else:
            names = ", ".join(name.capitalize() for name in SEPARATORS)
            return tr("'#separator:' must be {names} or one character (found {found})").format(
                names=names, found=quoted(raw)
            )
    elif key == "html":
        if value.casefold() not in ("true", "false"):
            return tr("'#html:' must be true or false (found {found})").format(found=quoted(value))
        header.html = value.casefold() == "true"
    elif key == "deck" and len(value) > MAX_NAME_CHARS:
        return tr("'#deck:' names a deck of {count} characters (at most {most})").format(
            count=f"{len(value):,}", most=MAX_NAME_CHARS
        )
    elif key == "tags" and (
        long := next((w for w in value.split() if len(w) > MAX_NAME_CHARS), "")
    ):
        return tr("'#tags:' holds a tag of {count} characters (at most {most})").format(
            count=f"{len(long):,}", most=MAX_NAME_CHARS
        )
    elif key in ("tags", "deck", "notetype"):
        setattr(header, key, value)
    elif key == "columns":
        header.columns = raw
    elif key.endswith(" column") and key.removesuffix(" column") in ROLES:
        return _apply_role(header, key.removesuffix(" column"), value)
    return None


def _apply_role(header: Header, role: str, value: str) -> str | None:
    if not value.isdecimal() or len(value) > MAX_COLUMN_DIGITS or int(value) < 1:
        return tr("'#{role} column:' must be a column number from 1 (found {found})").format(
            role=role, found=quoted(value)
        )
    column = int(value) - 1
    for other, taken in header.role_columns.items():
        if taken == column and other != role:
            return tr(
                "'#{role} column:' names column {column}, which is already the {other} column"
            ).format(role=role, column=value, other=other)
    header.role_columns[role] = column
    return None


def split_line(line: str, separator: str) -> list[str]:
    """One line split as CSV with ``separator``; a line that is not valid CSV is one field."""
    try:
        return next(csv.reader([line], delimiter=separator, strict=True), [])
    except csv.Error:
        return [line]


def guess_separator(line: str) -> str:
    """The separator a header-less file most likely uses, judged from its first data line.

    A tab wins whenever it splits the line (card text seldom holds tabs); otherwise the
    character that splits the line into the most fields, ties going to semicolon, then
    comma, pipe and colon. A line none of them splits is read with tabs (one column).
    Spaces are never guessed: card text is full of them, and neither is a character that
    appears only in cloze markup (the colons of ``{{c1::...}}``).
    """
    if "{{c" in line:
        line = _CLOZE_MARKUP.sub("", line)
    best, most = "\t", 1
    for separator in GUESS_ORDER:
        count = len(split_line(line, separator))
        if count > most:
            if separator == "\t":
                return separator
            best, most = separator, count
    return best


def infer_roles(header: Header, separator: str) -> None:
    """Columns named Tags, Deck, Notetype or GUID in ``#columns:`` take that role.

    An explicit ``#... column:`` line wins over a name.
    """
    if header.columns is None:
        return
    taken = set(header.role_columns.values())
    for index, name in enumerate(split_line(header.columns.strip("\r\n"), separator)):
        role = name.strip().casefold()
        if role in ROLES and role not in header.role_columns and index not in taken:
            header.role_columns[role] = index
            taken.add(index)
