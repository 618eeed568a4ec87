"""Reading an untrusted zip: entries looked up by name only, every unpacked byte counted."""

from __future__ import annotations

import lzma
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from recall.errors import DeckError, ImportCancelledError
from recall.importers._report import byte_size

CHUNK_BYTES = 1024 * 1024
_END_OF_DIRECTORY = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END_OF_DIRECTORY = b"PK\x06\x06"
_UNPACK_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError)


def _declared_entry_count(file: BinaryIO) -> int | None:
    """The entry count the zip's end record claims, read before zipfile loads the directory.

    zipfile builds an object per entry before anyone can count them, so a directory of
    millions of entries would exhaust memory first; this reads the claim from the end record.
    """
    file.seek(0, 2)
    size = file.tell()
    tail_length = min(size, 22 + 65535 + 20)
    file.seek(size - tail_length)
    tail = file.read(tail_length)
    end = tail.rfind(_END_OF_DIRECTORY)
    if end < 0 or len(tail) - end < 22:
        return None
    count = int.from_bytes(tail[end + 10 : end + 12], "little")
    locator = end - 20
    if count != 0xFFFF or locator < 0 or tail[locator : locator + 4] != _ZIP64_LOCATOR:
        return count
    file.seek(int.from_bytes(tail[locator + 8 : locator + 16], "little"))
    record = file.read(56)
    if record[:4] != _ZIP64_END_OF_DIRECTORY or len(record) < 40:
        return None
    return int.from_bytes(record[32:40], "little")


class SafeZip:
    """An open untrusted zip archive.

    Entries are read by exact name, never extracted by name: whatever an archive calls its
    entries, nothing is written to a path made from it. Each read is capped, and the bytes
    unpacked from the whole archive are counted against a total, whatever the headers claim.
    """

    def __init__(self, archive: zipfile.ZipFile, source: str, max_total_bytes: int) -> None:
        self._archive = archive
        self._source = source
        self._max_total_bytes = max_total_bytes
        self._unpacked = 0

    @classmethod
    def open(cls, path: Path, source: str, max_entries: int, max_total_bytes: int) -> SafeZip:
        """Open ``path`` as a zip after checking how many entries it claims.

        Raises:
            DeckError: The file cannot be read, is not a zip, is cut short, or holds too
                many entries.
        """
        try:
            with path.open("rb") as file:
                start = file.read(4)
                declared = _declared_entry_count(file)
        except OSError as error:
            raise DeckError(source, [f"cannot be read ({error.strerror or error})"]) from None
        if declared is not None and declared > max_entries:
            raise DeckError(source, [_too_many(declared, max_entries)])
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, EOFError, ValueError, IndexError, OSError) as error:
            if start == b"PK\x03\x04":
                raise DeckError(
                    source,
                    [f"the package is cut short or damaged; download or export it again ({error})"],
                ) from None
            raise DeckError(source, ["not an Anki package (not a zip file)"]) from None
        count = len(archive.infolist())
        if count > max_entries:
            archive.close()
            raise DeckError(source, [_too_many(count, max_entries)])
        return cls(archive, source, max_total_bytes)

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._archive.close()

    def names(self) -> list[str]:
        """The entry names, as the archive spells them (never to be used as paths)."""
        return self._archive.namelist()

    def has(self, name: str) -> bool:
        """Whether the archive has an entry called exactly ``name``."""
        try:
            self._archive.getinfo(name)
        except KeyError:
            return False
        return True

    def read(self, name: str, limit: int) -> bytes:
        """The unpacked bytes of one entry.

        Raises:
            DeckError: The entry unpacks to more than ``limit`` bytes, the archive passes its
                total, or the entry is damaged, encrypted or packed in an unknown way.
        """
        parts: list[bytes] = []
        self.unpack(name, limit, parts.append)
        return b"".join(parts)

    def unpack(
        self,
        name: str,
        limit: int,
        sink: Callable[[bytes], object],
        cancelled: Callable[[], bool] = lambda: False,
    ) -> None:
        """Hand an entry's unpacked bytes to ``sink`` chunk by chunk, counting as it goes.

        Raises:
            DeckError: As for ``read``.
            ImportCancelledError: ``cancelled()`` became true between chunks.
        """
        info = self._archive.getinfo(name)
        if info.file_size > limit:
            raise self._error(name, f"unpacks to {byte_size(info.file_size)}; {_bomb(limit)}")
        count = 0
        with self._unpacking(name):
            stream = self._archive.open(info)
        with stream:
            while True:
                with self._unpacking(name):
                    chunk = stream.read(CHUNK_BYTES)
                if not chunk:
                    return
                count += len(chunk)
                self._unpacked += len(chunk)
                if count > limit:
                    raise self._error(name, f"unpacks to more than {_bomb(limit)}")
                if self._unpacked > self._max_total_bytes:
                    raise self._error(
                        name,
                        "the package unpacks to more than "
                        f"{byte_size(self._max_total_bytes)} in all; refusing a possible zip bomb",
                    )
                sink(chunk)
                if cancelled():
                    raise ImportCancelledError

    @contextmanager
    def _unpacking(self, name: str) -> Iterator[None]:
        """Turn zipfile's complaints about one entry into a DeckError naming it."""
        try:
            yield
        except NotImplementedError:
            raise self._error(
                name, "packed with a compression method Recall cannot unpack"
            ) from None
        except RuntimeError:  # zipfile's word for an encrypted entry
            raise self._error(
                name, "is encrypted; export the package again without a password"
            ) from None
        except _UNPACK_ERRORS as error:
            raise self._error(
                name, f"cannot be unpacked, the package is damaged ({error})"
            ) from None

    def _error(self, name: str, what: str) -> DeckError:
        return DeckError(self._source, [f"zip entry {name!r}: {what}"])


def _bomb(limit: int) -> str:
    return f"{byte_size(limit)} (the limit for this entry); refusing a possible zip bomb"


def _too_many(count: int, limit: int) -> str:
    return f"the zip holds {count} entries (at most {limit}); refusing a possible zip bomb"
