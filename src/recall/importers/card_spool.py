"""A deck's checked cards kept in a file between reading and writing, not in memory.

Every file of an import is read and checked before anything is written; a deck of a
million cards held as card objects until then takes gigabytes. Its cards go to a spool
file beside the import instead, one line each (id, type, stored JSON), and are read
back from it, a batch at a time, when the deck is written. Each card's search text
(``content.search_text``) goes with it, so the write need not derive it from the JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

IN_MEMORY_CHARS = 64 * 1024 * 1024
"""Cards are kept in memory until their JSON reaches this much, then go to the file (a
deck the size a whole read allows never touches the disk)."""


class CardSpool:
    """The cards of one deck, in order, in memory and then in a file of the import's
    work folder.

    Attributes:
        path: The spool file.
        count: How many cards it holds.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self._held: list[tuple[str, str, str, str | None]] = []
        self._held_chars = 0
        self._file: BinaryIO | None = None

    def add(self, key: str, kind: str, content: str, search_text: str | None = None) -> None:
        """Append a card: its id, its type, its JSON as stored and its search text (None:
        derived when written).

        The JSON is one line (pydantic escapes every control character in strings), the
        search text goes into the file as a JSON string (one line too), and neither an id
        nor a type holds a tab.
        """
        self.count += 1
        if self._file is None and self._held_chars + len(content) <= IN_MEMORY_CHARS:
            self._held.append((key, kind, content, search_text))
            self._held_chars += len(content) + len(search_text or "")
            return
        if self._file is None:
            self._file = self.path.open("wb")
        self._file.write(f"{key}\t{kind}\t{json.dumps(search_text)}\t{content}\n".encode())

    def close(self) -> None:
        """Finish writing; the cards can be read from then on."""
        if self._file is not None and not self._file.closed:
            self._file.close()

    def discard(self) -> None:
        """Close and delete the spool file."""
        self.close()
        self._held = []
        self.path.unlink(missing_ok=True)

    def cards(self) -> Iterator[tuple[int, str, str, str, str | None]]:
        """Each card as (position, id, type, JSON, search text), in the file's order."""
        self.close()
        for position, (key, kind, content, search_text) in enumerate(self._held):
            yield position, key, kind, content, search_text
        if self._file is None:
            return
        loads = json.loads
        with self.path.open("rb") as file:
            for position, line in enumerate(file, len(self._held)):
                key, kind, search_text, content = line[:-1].decode().split("\t", 3)
                yield position, key, kind, content, loads(search_text)
