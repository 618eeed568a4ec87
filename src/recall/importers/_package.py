"""Which layout an Anki package (``.apkg`` or ``.colpkg``) uses, and its media list.

Anki has written three layouts. Packages made with "Support older Anki versions" (and
every package from Anki 2.1.49 or older) hold ``collection.anki21`` or
``collection.anki2`` and a ``media`` JSON object mapping numbered zip entries to file
names. Packages made by today's Anki with its default options start with a ``meta``
entry (protobuf ``PackageMetadata``, version 3), hold the collection zstd-compressed as
``collection.anki21b``, a zstd-compressed protobuf ``MediaEntries`` list (name, size and
SHA-1 of each file, whose zip entry is its position in the list) and each media file
zstd-compressed; they also carry a stub ``collection.anki2`` that only asks to update Anki.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from recall.core import i18n, wording
from recall.core.errors import DeckError
from recall.core.i18n import tr, trn
from recall.importers import Cancelled, _protobuf
from recall.importers._collection import NEWER_ANKI_ADVICE
from recall.importers._zip import SafeZip

META_ENTRY = "meta"
MEDIA_ENTRY = "media"
MAX_META_BYTES = 1024
MAX_MEDIA_FILES = 100_000
# PackageMetadata.Version: the collection entry each version stores, and whether zstd is used.
VERSIONS = {
    1: ("collection.anki2", False),
    2: ("collection.anki21", False),
    3: ("collection.anki21b", True),
}
_META_VERSION = 1
_MEDIA_ENTRIES = 1  # MediaEntries.entries
_MEDIA_NAME, _MEDIA_SIZE, _MEDIA_SHA1 = 1, 2, 3  # MediaEntries.MediaEntry
_SHA1_BYTES = 20


@dataclass(frozen=True)
class MediaFile:
    """Where one media file is in the zip, and what today's packages promise about it.

    Attributes:
        entry: Its zip entry (a number).
        zstd: Whether the entry is zstd-compressed.
        size: The size the media list promises, or None (older packages promise none).
        sha1: The SHA-1 the media list promises, or None.
    """

    entry: str
    zstd: bool = False
    size: int | None = None
    sha1: bytes | None = None


@dataclass(frozen=True)
class Layout:
    """How a package is laid out: its collection entry and whether it is zstd-compressed."""

    collection: str
    zstd: bool
    version: int


class PackageMedia:
    """A package's media files by their name in Anki, read and checked against the list."""

    def __init__(self, archive: SafeZip, files: dict[str, MediaFile], source: str) -> None:
        self._archive = archive
        self._files = files
        self._source = source

    def __contains__(self, name: object) -> bool:
        return name in self._files

    def present(self, name: str) -> bool:
        """Whether the list names ``name`` and the zip has its entry."""
        found = self._files.get(name)
        return found is not None and self._archive.has(found.entry)

    def read(self, name: str, limit: int) -> bytes:
        """The bytes of the file called ``name``, checked against its size and SHA-1.

        Raises:
            DeckError: The entry is too large or damaged, or does not match the list.
        """
        found = self._files[name]
        if found.zstd:
            data = self._archive.read_zstd(found.entry, limit)
        else:
            data = self._archive.read(found.entry, limit)
        if found.size is not None and len(data) != found.size:
            raise self._mismatch(
                found,
                name,
                tr("holds {count} bytes, not {size}").format(
                    count=f"{len(data):,}", size=f"{found.size:,}"
                ),
            )
        if found.sha1 is not None and hashlib.sha1(data, usedforsecurity=False).digest() != (
            found.sha1
        ):
            raise self._mismatch(found, name, tr("does not have the SHA-1 the media list gives"))
        return data

    def _mismatch(self, found: MediaFile, name: str, what: str) -> DeckError:
        shown = name if len(name) <= 60 else name[:57] + "..."
        return DeckError(
            self._source,
            [
                tr(
                    "zip entry {entry} (media file {name}) {problem}; the package is damaged"
                ).format(entry=repr(found.entry), name=repr(shown), problem=what)
            ],
        )


def read_layout(archive: SafeZip, source: str) -> Layout:
    """The package's layout, from its ``meta`` entry or, without one, the entries it holds.

    Without ``meta`` the newest collection entry present is read (Anki itself would take
    ``collection.anki2`` there, which in today's packages only asks to update Anki).

    Raises:
        DeckError: The package is from an Anki newer than Recall knows, or holds no
            collection.
    """
    if archive.has(META_ENTRY):
        data = archive.read(META_ENTRY, MAX_META_BYTES)
        try:
            version = _protobuf.last_int(data, _META_VERSION)
        except _protobuf.ProtobufError as error:
            raise DeckError(
                source,
                [
                    tr("zip entry {entry}: not what Anki writes there ({error})").format(
                        entry=repr(META_ENTRY), error=error
                    )
                ],
            ) from None
        if version not in VERSIONS:
            raise DeckError(
                source,
                [
                    tr(
                        "zip entry {entry}: made by a newer Anki (package version {version}) than "
                        "Recall can read; {advice}"
                    ).format(
                        entry=repr(META_ENTRY), version=version, advice=i18n.tr(NEWER_ANKI_ADVICE)
                    )
                ],
            )
        entry, zstd = VERSIONS[version]
        if not archive.has(entry):
            raise DeckError(
                source,
                [
                    tr("the package says it holds {entry}, but it has no such entry").format(
                        entry=repr(entry)
                    )
                ],
            )
        return Layout(entry, zstd, version)
    for version in (3, 2, 1):
        entry, zstd = VERSIONS[version]
        if archive.has(entry):
            return Layout(entry, zstd, version)
    names = archive.names()
    listing = ", ".join(repr(name) for name in names[:10]) or tr("nothing")
    if len(names) > 10:
        listing = tr("{entries} and {count} more entries").format(
            entries=listing, count=len(names) - 10
        )
    raise DeckError(
        source, [tr("no Anki collection inside (the zip holds {entries})").format(entries=listing)]
    )


def read_media(archive: SafeZip, layout: Layout, source: str, limit: int) -> PackageMedia:
    """The package's media list, in whichever form its layout uses.

    Raises:
        DeckError: The list is too large, damaged, or not what Anki writes.
    """
    if not archive.has(MEDIA_ENTRY):
        return PackageMedia(archive, {}, source)
    where = tr("zip entry {entry}").format(entry=repr(MEDIA_ENTRY))
    if layout.zstd:
        files = _media_entries(archive.read_zstd(MEDIA_ENTRY, limit), where, source)
    else:
        files = _media_json(archive.read(MEDIA_ENTRY, limit), where, source)
    return PackageMedia(archive, files, source)


def _too_many(count: int, where: str, source: str) -> DeckError:
    return DeckError(
        source,
        [
            trn(
                "{where}: lists {count} media file (at most {most})",
                "{where}: lists {count} media files (at most {most})",
                count,
            ).format(where=where, count=wording.number(count), most=f"{MAX_MEDIA_FILES:,}")
        ],
    )


def _media_json(data: bytes, where: str, source: str) -> dict[str, MediaFile]:
    """Anki 2.1's media list: a JSON object from zip entry to file name."""
    try:
        listing = json.loads(data.decode("utf-8")) if data.strip() else {}
    except RecursionError:
        raise DeckError(source, [tr("{where}: nested too deeply").format(where=where)]) from None
    except ValueError as error:  # bad UTF-8 or JSON, or a number past Python's digit limit
        if "digits" in str(error):
            raise DeckError(
                source, [tr("{where}: a number has more than 4,300 digits").format(where=where)]
            ) from None
        raise DeckError(
            source,
            [
                tr("{where}: the media list is in a format Recall cannot read; {advice}").format(
                    where=where, advice=i18n.tr(NEWER_ANKI_ADVICE)
                )
            ],
        ) from None
    if not isinstance(listing, dict) or not all(isinstance(v, str) for v in listing.values()):
        raise DeckError(source, [tr("{where}: not the media list Anki writes").format(where=where)])
    if len(listing) > MAX_MEDIA_FILES:
        raise _too_many(len(listing), where, source)
    files: dict[str, MediaFile] = {}
    for entry, name in listing.items():
        files.setdefault(name, MediaFile(entry))
    return files


def _media_entries(data: bytes, where: str, source: str) -> dict[str, MediaFile]:
    """Today's media list: ``MediaEntries``, each file's zip entry being its position."""
    files: dict[str, MediaFile] = {}
    try:
        index = -1
        for item in _protobuf.fields(data):
            if item.number != _MEDIA_ENTRIES:
                continue
            index += 1
            if index >= MAX_MEDIA_FILES:
                raise _too_many(index + 1, where, source)
            message = item.value
            if not isinstance(message, bytes):
                raise DeckError(
                    source,
                    [
                        tr("{where}: entry {index} is not what Anki writes").format(
                            where=where, index=index
                        )
                    ],
                )
            name = _protobuf.last_text(message, _MEDIA_NAME)
            size = _protobuf.last_int(message, _MEDIA_SIZE)
            sha1 = _protobuf.last_bytes(message, _MEDIA_SHA1)
            if not name or sha1 is None or len(sha1) != _SHA1_BYTES:
                raise DeckError(
                    source,
                    [
                        tr("{where}: entry {index} is not what Anki writes (name, SHA-1)").format(
                            where=where, index=index
                        )
                    ],
                )
            files.setdefault(name, MediaFile(str(index), zstd=True, size=size, sha1=sha1))
    except _protobuf.ProtobufError as error:
        raise DeckError(
            source,
            [
                tr("{where}: not the media list Anki writes ({error})").format(
                    where=where, error=error
                )
            ],
        ) from None
    return files


def copy_collection(
    archive: SafeZip, layout: Layout, staging: Path, source: str, cancelled: Cancelled, limit: int
) -> Path:
    """Unpack the collection (decompressing it if zstd), at most ``limit`` bytes, into a
    generated name in ``staging``."""
    failure = tr("cannot copy the collection into {folder} ({reason})")
    try:
        descriptor, name = tempfile.mkstemp(prefix=".collection-", suffix=".anki2", dir=staging)
    except OSError as error:
        raise DeckError(source, [failure.format(folder=staging, reason=error.strerror)]) from None
    copy = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as file:
            archive.unpack(layout.collection, limit, file.write, cancelled, layout.zstd)
    except OSError as error:
        copy.unlink(missing_ok=True)
        raise DeckError(source, [failure.format(folder=staging, reason=error.strerror)]) from None
    except BaseException:
        copy.unlink(missing_ok=True)
        raise
    return copy
