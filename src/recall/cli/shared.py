"""What every command shares: the database named by --data-dir, the clock, and the printing.

One table printer serves every command that prints a table; JSON and the progress line
are printed the same way everywhere too.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Collection, Iterator, Sequence
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, TypeAlias

from recall.core.i18n import tr
from recall.host import paths

if TYPE_CHECKING:
    from recall.safekeeping.backups import Backup
    from recall.storage import Database

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


# What a terminal acts on instead of showing: C0 and C1 controls (escape sequences that
# clear the screen or move the cursor, line breaks that fake a line), DEL, the line and
# paragraph separators, the bidirectional overrides (text shown in another order than it
# reads), and lone surrogates (a file name's bytes that are not UTF-8; they cannot be
# printed at all).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_BATCH = 1000
"""Entries of ``print_json``'s list written to the terminal at a time."""


def terminal_text(text: str) -> str:
    """Text from outside (a deck, device, preset or tag name, a card's text) made safe to print.

    Each character a terminal would act on instead of showing is written out as Python
    writes it in a string: ``\\n``, ``\\x1b``, ``\\u202e``. JSON output needs none of this
    (``json.dumps`` escapes control characters itself).
    """
    return _UNSAFE.sub(lambda found: _escaped(found.group()), text)


def _escaped(char: str) -> str:
    point = ord(char)
    return _NAMED.get(char) or (f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}")


def say(line: object, to_stderr: bool = False) -> None:
    """Print one line of human-readable output, made safe with ``terminal_text``."""
    print(terminal_text(str(line)), file=sys.stderr if to_stderr else sys.stdout)


def now() -> datetime:
    """The current time, aware UTC."""
    return datetime.now(UTC)


def open_database(args: argparse.Namespace, install: bool = True) -> Database:
    """Open the library in the data folder the arguments name (``opening.open_library``).

    Args:
        args: The parsed command line; its ``data_dir`` names the folder and its
            ``lock_wait`` how long to wait for another program holding the database.
        install: Also install or update the bundled decks.

    Returns:
        The open database; the caller closes it.
    """
    # Storage and the deck models load here, not at start: --version and --help stay quick.
    from recall.collection import opening

    data_dir = paths.data_dir(args.data_dir)
    notes: list[str] = []
    database = opening.open_library(data_dir, now(), install, lock_wait_ms(args), notes)
    for note in notes:
        print(note, file=sys.stderr)
    return database


def lock_wait_ms(args: argparse.Namespace) -> int:
    """How long ``--lock-wait`` says to wait for another program holding the database."""
    from recall.storage import BUSY_TIMEOUT_MS

    seconds: float | None = args.lock_wait
    return BUSY_TIMEOUT_MS if seconds is None else round(seconds * 1000)


def print_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()
) -> None:
    """Print rows under a header in aligned columns, two spaces apart.

    Numbers (and the columns in ``right``) are aligned right, text left; the last column
    is never padded, so a long path or name runs on.

    Args:
        header: The column titles.
        rows: The rows, one value per column; whole numbers get thousands separators.
        right: Further columns to align right.
    """
    table = [[str(cell) for cell in header]] + [[_cell(cell) for cell in row] for row in rows]
    table = [[terminal_text(cell) for cell in row] for row in table]
    numeric = {
        column
        for column in range(len(header))
        if rows and all(isinstance(row[column], int | float) for row in rows)
    } | set(right)
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]
    for row in table:
        cells = [
            cell.rjust(width) if column in numeric else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        if len(header) - 1 not in numeric:
            cells[-1] = row[-1]
        print("  ".join(cells).rstrip())


def _cell(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def print_json(value: object, one_per_line: str | None = None, encoded: bool = False) -> None:
    """Print a value as indented JSON, keeping non-ASCII text readable.

    Args:
        value: What to print.
        one_per_line: A key of ``value`` (a dict) whose list prints one compact entry per
            line: a list of 100,000 cards indented field by field took Python's slower
            encoder 15 s. The entries are written a batch at a time, never all joined.
        encoded: That list's entries (any iterable) are JSON already, each as
            ``json.dumps(entry, ensure_ascii=False)`` writes it, and are printed as they are.
    """
    if not isinstance(value, dict) or one_per_line not in value:
        print(json.dumps(value, indent=2, ensure_ascii=False))
        return
    rest = {key: item for key, item in value.items() if key != one_per_line}
    entries: Iterator[str] = iter(value[one_per_line])
    if not encoded:
        entries = map(json.JSONEncoder(ensure_ascii=False).encode, entries)  # one encoder
    head = json.dumps(rest, indent=2, ensure_ascii=False)
    out = sys.stdout
    out.write(f"{head[:-2]},\n  " if rest else "{\n  ")
    out.write(f"{json.dumps(one_per_line)}: ")
    written = False
    while batch := list(islice(entries, _JSON_BATCH)):
        out.write((",\n    " if written else "[\n    ") + ",\n    ".join(batch))
        written = True
    out.write("\n  ]\n}\n" if written else "[]\n}\n")


class ProgressLine:
    """A self-rewriting ``importing... 42%`` line on the terminal."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._shown = -1

    def __call__(self, done: int, total: int) -> None:
        percent = 100 * done // total if total else 100
        if percent != self._shown:
            self._shown = percent
            print(f"\r{self._label}... {percent}%", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        """Clear the line once the work is done."""
        if self._shown >= 0:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def point_at_newest_backup(found: list[Backup]) -> None:
    """Name the newest backup and the command that brings it back, if there is one."""
    if found:
        newest = found[0]
        print(
            tr("newest backup: {path} ({made}); `recall restore {path}` brings it back").format(
                path=newest.path, made=f"{newest.made_at.astimezone():%Y-%m-%d %H:%M}"
            ),
            file=sys.stderr,
        )
