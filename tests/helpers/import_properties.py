"""The property every import path keeps, for hypothesis tests of any format.

Whatever a file holds, importing it either succeeds or fails with a ``RecallError`` whose
every line reads ``FILE: where: what`` (or ``FILE: what`` for a problem of the whole file),
is printable, and leaves the database file and the media folder byte for byte as they were.
Anything else (a traceback, a half-written database) fails the test.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from recall.collection import importing
from recall.collection.import_report import ImportReport
from recall.core.errors import DeckErrors, RecallError
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database

NOW = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Failed:
    """An import that was refused: each line of its message."""

    lines: list[str]


class ImportChecker:
    """A real database in a data folder, and imports into it checked against the property."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        self.database = Database(paths.database_path(data_dir))
        self.scheduler = Schedulers(fuzz=False)

    def close(self) -> None:
        """Close the database."""
        self.database.close()

    def state(self) -> tuple[str, list[str], dict[str, str]]:
        """The database file's bytes (as a hash), its contents, and the media folder's files."""
        database_path = self.database.path
        file_hash = hashlib.sha256(database_path.read_bytes()).hexdigest()
        connection = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True)
        try:
            dump = list(connection.iterdump())
        finally:
            connection.close()
        media = paths.media_dir(self.data_dir)
        files = (
            {item.name: hashlib.sha256(item.read_bytes()).hexdigest() for item in media.iterdir()}
            if media.exists()
            else {}
        )
        return file_hash, dump, files

    def check(self, files: Sequence[Path]) -> list[ImportReport] | Failed:
        """Import ``files``; assert the property; return the reports or the refusal."""
        before = self.state()
        try:
            reports = importing.import_files(self.database, self.scheduler, files, NOW)
        except RecallError as error:
            assert self.state() == before, "a refused import changed the database or media"
            lines = str(error).splitlines()
            assert lines, "a refusal without a message"
            sources = (
                [str(error_.source) for error_ in error.errors]
                if isinstance(error, DeckErrors)
                else []
            )
            for line in lines:
                assert_message_line(line, sources)
            return Failed(lines)
        for report in reports:
            for line in report.lines():
                line.encode("utf-8")  # printable: no lone surrogate
        return reports


def assert_message_line(line: str, sources: Sequence[str]) -> None:
    """One line of a refusal: ``FILE: where: what`` in printable text."""
    line.encode("utf-8")  # raises on a lone surrogate, which no terminal can show
    assert "Traceback" not in line
    source = next((source for source in sources if line.startswith(f"{source}: ")), None)
    assert source is not None, f"the line does not start with the file's name: {line!r}"
    what = line[len(source) + 2 :]
    assert what.strip(), f"the line says nothing after the file's name: {line!r}"
