"""Reading an untrusted zip: entries looked up by name only, every unpacked byte counted.

Entries of Anki's current packages are zstd-compressed inside the zip; they are
decompressed as a stream in bounded chunks, so what counts is the bytes that come out,
never the sizes an entry or a zstd frame declares.
"""

from __future__ import annotations

import lzma
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, BinaryIO

import zstandard

from recall.core import i18n
from recall.core.errors import DeckError, ImportCancelledError
from recall.core.i18n import mark, tr
from recall.importers._report import byte_size

CHUNK_BYTES = 1024 * 1024
_END_OF_DIRECTORY = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END_OF_DIRECTORY = b"PK\x06\x06"
_UNPACK_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError)
# zstd's own default ceiling on the window a frame may ask the decoder to hold in memory.
MAX_ZSTD_WINDOW = 1 << 27
ZSTD_INPUT_BYTES = 1024  # at most 32 MiB out per step, at zstd's largest ratio


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
    def open(
        cls,
        path: Path,
        source: str,
        max_entries: int,
        max_total_bytes: int,
        kind: str = mark("an Anki package"),
    ) -> SafeZip:
        """Open ``path`` as a zip after checking how many entries it claims.

        ``kind`` names what the zip should be (marked for translation), for the message when
        it is no zip at all.

        Raises:
            DeckError: The file cannot be read, is not a zip, is cut short, or holds too
                many entries.
        """
        try:
            with path.open("rb") as file:
                start = file.read(4)
                declared = _declared_entry_count(file)
        except OSError as error:
            raise DeckError(
                source, [tr("cannot be read ({reason})").format(reason=error.strerror or error)]
            ) from None
        if declared is not None and declared > max_entries:
            raise DeckError(source, [_too_many(declared, max_entries)])
        try:
            archive = zipfile.ZipFile(path)
        # NotImplementedError: an entry claims a zip version newer than Python reads.
        except (
            zipfile.BadZipFile,
            EOFError,
            ValueError,
            IndexError,
            OSError,
            NotImplementedError,
        ) as error:
            if start == b"PK\x03\x04":
                raise DeckError(
                    source,
                    [
                        tr(
                            "the package is cut short or damaged; download or export it again "
                            "({error})"
                        ).format(error=error)
                    ],
                ) from None
            raise DeckError(
                source, [tr("not {kind} (not a zip file)").format(kind=i18n.tr(kind))]
            ) from None
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
        zstd: bool = False,
    ) -> None:
        """Hand an entry's unpacked bytes to ``sink`` chunk by chunk, counting as it goes.

        Args:
            name: The entry.
            limit: The most the entry may unpack to (after zstd, when ``zstd``).
            sink: Receives each chunk.
            cancelled: Checked between chunks.
            zstd: The entry is zstd-compressed inside the zip (Anki's current packages):
                hand on the decompressed bytes. Both the bytes read from the zip and the
                bytes decompressed from them count against the package's total.

        Raises:
            DeckError: As for ``read``, or the zstd data is damaged.
            ImportCancelledError: ``cancelled()`` became true between chunks.
        """
        info = self._archive.getinfo(name)
        if info.file_size > (self._max_total_bytes if zstd else limit):
            raise self._error(
                name,
                tr("unpacks to {size}; {refusal}").format(
                    size=byte_size(info.file_size), refusal=_bomb(limit)
                ),
            )
        count = 0
        with self._unpacking(name):
            stream = self._archive.open(info)
        with stream:
            counted = _Counted(stream, self, name)
            chunks = _zstd_chunks(counted) if zstd else iter(lambda: counted.read(), b"")
            while True:
                with self._unpacking(name):
                    chunk = next(chunks, b"")
                if not chunk:
                    return
                count += len(chunk)
                if count > limit:
                    raise self._error(
                        name, tr("unpacks to more than {refusal}").format(refusal=_bomb(limit))
                    )
                if zstd:
                    self._count(name, len(chunk))
                sink(chunk)
                if cancelled():
                    raise ImportCancelledError

    def read_zstd(self, name: str, limit: int) -> bytes:
        """The decompressed bytes of a zstd-compressed entry; see ``unpack``.

        Raises:
            DeckError: As for ``unpack``.
        """
        parts: list[bytes] = []
        self.unpack(name, limit, parts.append, zstd=True)
        return b"".join(parts)

    def _count(self, name: str, size: int) -> None:
        """Count bytes against the package's total."""
        self._unpacked += size
        if self._unpacked > self._max_total_bytes:
            raise self._error(
                name,
                tr(
                    "the package unpacks to more than {size} in all; refusing a possible zip bomb"
                ).format(size=byte_size(self._max_total_bytes)),
            )

    @contextmanager
    def _unpacking(self, name: str) -> Iterator[None]:
        """Turn zipfile's complaints about one entry into a DeckError naming it."""
        try:
            yield
        except NotImplementedError:
            raise self._error(
                name, tr("packed with a compression method Recall cannot unpack")
            ) from None
        except RuntimeError:  # zipfile's word for an encrypted entry
            raise self._error(
                name, tr("is encrypted; export the package again without a password")
            ) from None
        except zstandard.ZstdError as error:
            raise self._error(
                name,
                tr("cannot be decompressed, the package is damaged ({error})").format(error=error),
            ) from None
        except _UNPACK_ERRORS as error:
            raise self._error(
                name, tr("cannot be unpacked, the package is damaged ({error})").format(error=error)
            ) from None

    def _error(self, name: str, what: str) -> DeckError:
        return DeckError(
            self._source, [tr("zip entry {name}: {problem}").format(name=repr(name), problem=what)]
        )


class _Counted:
    """A zip entry's stream that counts every byte read from it against the package's total."""

    def __init__(self, stream: IO[bytes], archive: SafeZip, name: str) -> None:
        self._stream = stream
        self._archive = archive
        self._name = name

    def read(self) -> bytes:
        chunk = self._stream.read(CHUNK_BYTES)
        self._archive._count(self._name, len(chunk))
        return chunk


def _zstd_chunks(source: _Counted) -> Iterator[bytes]:
    """Decompress zstd frames from ``source``, a little input at a time.

    Each call to the decoder gets at most ``ZSTD_INPUT_BYTES``, so one output chunk is at
    most that times zstd's largest ratio (a 128 KiB block from 4 bytes), whatever the
    frame declares. Data that stops inside a frame is damaged.
    """
    decoder = zstandard.ZstdDecompressor(max_window_size=MAX_ZSTD_WINDOW).decompressobj()
    started = False
    while compressed := source.read():
        for start in range(0, len(compressed), ZSTD_INPUT_BYTES):
            data = compressed[start : start + ZSTD_INPUT_BYTES]
            while data:
                started = True
                output = decoder.decompress(data)
                if output:
                    yield output
                data = decoder.unused_data if decoder.eof else b""
                if decoder.eof:
                    decoder = zstandard.ZstdDecompressor(
                        max_window_size=MAX_ZSTD_WINDOW
                    ).decompressobj()
                    started = bool(data)
    if started and not decoder.eof:
        raise EOFError("the zstd data is cut short")


def _bomb(limit: int) -> str:
    return tr("{size} (the limit for this entry); refusing a possible zip bomb").format(
        size=byte_size(limit)
    )


def _too_many(count: int, limit: int) -> str:
    return tr(
        "the zip holds {count} entries (at most {most}); refusing a possible zip bomb"
    ).format(count=count, most=limit)
