"""The sync folder: each device's own event files under ``Recall/<device id>/``.

A device only ever adds files to its own folder: each is written under a hidden temporary
name, flushed to disk and renamed, and never changed after. Reading takes only complete
lines, so a file a sync tool has only partly delivered is read on as more of it arrives.
Conflict copies a sync tool makes (``*.sync-conflict-*``, "conflicted copy") are read like
any other file: events are merged by id, so a line read twice changes nothing.

Everything below ``Recall/`` is written by other programs and computers, so nothing there
is reached through a symbolic link, read before it is known to be a regular file
(``safe_files``), or read as a line longer than ``MAX_LINE_BYTES``; and Recall writes
nothing through a link: a ``Recall/`` or a device folder that is one is refused.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall.core import wording
from recall.core.errors import RecallError
from recall.core.i18n import tr, trn
from recall.host.files import fsync_folder
from recall.sync import safe_files
from recall.sync.events import FORMAT, encode
from recall.sync.validation import loads

ROOT = "Recall"
SUFFIX = ".jsonl"
MAX_LINE_BYTES = 8 * 1024**2
"""The longest line read as an event (a card at its largest takes a few hundred kB);
a longer one is skipped, read a piece at a time, never held whole."""
_DEVICE_ID = re.compile(r"[0-9a-f]{32}")
_PIECE = 1 << 20


class SyncFolderError(RecallError):
    """The sync folder cannot be used: missing, not a folder, or not writable."""


class SyncWriteError(SyncFolderError):
    """This device's file cannot be written (the folder is read-only or full); what the
    other devices wrote can still be read.

    Attributes:
        reason: Why, in a few words ("the sync folder is read-only here"); the message
            adds the file and the system's words.
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason} ({detail})")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class LongLine:
    """A complete line longer than ``MAX_LINE_BYTES``, skipped unread: its size only."""

    size: int


@dataclass(frozen=True, slots=True)
class Written:
    """A file this device wrote."""

    name: str
    size: int
    events: int


def root(folder: Path) -> Path:
    """Recall's part of the sync folder, made if missing.

    Raises:
        SyncFolderError: The folder does not exist or cannot hold Recall's part.
    """
    if not folder.is_dir():
        raise SyncFolderError(
            tr("the sync folder {folder} does not exist or is not a folder").format(folder=folder)
        )
    path = folder / ROOT
    if safe_files.is_link(path):
        raise SyncFolderError(
            tr(
                "{path} is a symbolic link: Recall reads and writes nothing through links in "
                "the sync folder. Replace it with a folder (move its files into it)"
            ).format(path=path)
        )
    if path.exists() and not path.is_dir():
        raise SyncFolderError(
            tr("{path} is not a folder: Recall keeps its files in a folder there").format(path=path)
        )
    try:
        path.mkdir(exist_ok=True)
    except OSError as error:
        if error.errno not in _CANNOT_WRITE:
            raise SyncFolderError(
                tr("cannot make {path}: {reason}").format(path=path, reason=error.strerror or error)
            ) from None
        # A folder this computer cannot write: what is there can still be read, and
        # writing says why it cannot when it tries.
    return path


def new_device_id() -> str:
    """A random device id (32 hex digits)."""
    return secrets.token_hex(16)


def write_file(
    base: Path,
    device: str,
    number: int,
    header: dict[str, Any],
    events: Iterable[dict[str, Any]],
    version: int = FORMAT,
) -> Written | None:
    """Write events as this device's next file: temporary name, flush, rename.

    Returns None (and writes nothing) when there are no events. ``version`` is the format
    the header names: the oldest that can read every event the file may hold.

    Raises:
        SyncFolderError: The file cannot be written (``SyncWriteError``), or this
            device's folder is a link.
    """
    folder = own_folder(base, device)
    name = f"{number:06d}-{secrets.token_hex(4)}{SUFFIX}"
    temporary = folder / f".{name}.tmp"
    count = 0
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with temporary.open("xb") as out:
            out.write(json.dumps({"recall_sync": version, **header}).encode() + b"\n")
            for event in events:
                out.write(encode(event))
                count += 1
            out.flush()
            if count:
                os.fsync(out.fileno())
        if not count:
            temporary.unlink()
            return None
        temporary.replace(folder / name)
        fsync_folder(folder)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise SyncWriteError(
            write_problem(error), f"{folder / name}: {error.strerror or error}"
        ) from None
    except BaseException:  # cancelled while writing: no temporary file left behind
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise
    return Written(name=name, size=(folder / name).stat().st_size, events=count)


def own_folder(base: Path, device: str) -> Path:
    """This device's folder in ``base`` (made by the caller if missing), checked not to be
    a symbolic link, nor to hold one as its ``media/``: what is written there would land
    wherever the link leads.

    Raises:
        SyncWriteError: It, or its ``media/``, is a link or not a folder; nothing is written
            (this device's changes are kept, as for a read-only folder).
    """
    folder = base / device
    for path in (folder, folder / "media"):
        if safe_files.is_link(path) or (os.path.lexists(path) and not path.is_dir()):
            raise SyncWriteError(
                tr("this computer's folder in the sync folder is a link or not a folder"),
                tr("{path}: Recall writes nothing through links; replace it with a folder").format(
                    path=path
                ),
            )
    return folder


_CANNOT_WRITE = {errno.EACCES, errno.EPERM, errno.EROFS}
_FULL = {errno.ENOSPC, errno.EDQUOT}


def write_problem(error: OSError) -> str:
    """Why a file of this device could not be written, in a few words."""
    if error.errno in _CANNOT_WRITE:
        return tr("the sync folder is read-only here")
    if error.errno in _FULL:
        return tr("the disk of the sync folder is full")
    return tr("the sync folder cannot be written")


def remove_temporary(base: Path, device: str) -> None:
    """Remove temporary files a killed round of this device left (those it can)."""
    folder = base / device
    if folder.is_dir() and not safe_files.is_link(folder):
        for path in folder.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)


def devices(base: Path) -> list[str]:
    """The device folders present (none when Recall's part could not be made); a link is
    no device folder."""
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    return sorted(
        entry.name for entry in entries if _DEVICE_ID.fullmatch(entry.name) and _is_folder(entry)
    )


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def not_read(base: Path) -> list[str]:
    """Notes naming the device folders and event files in ``base`` that are not read
    because they are links, named pipes or devices rather than folders and files."""
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    odd: list[str] = []
    for entry in sorted(entries, key=lambda entry: entry.name):
        if not _DEVICE_ID.fullmatch(entry.name):
            continue
        if not _is_folder(entry):
            odd.append(entry.name[:8] + "/")
            continue
        try:
            inside = sorted(os.scandir(entry.path), key=lambda inner: inner.name)
        except OSError:
            continue
        for inner in inside:
            if not _is_event_file(inner.name):
                continue
            with contextlib.suppress(OSError):
                if not inner.is_file(follow_symlinks=False):
                    odd.append(f"{entry.name[:8]}/{inner.name}")
    if not odd:
        return []
    shown = ", ".join(odd[:5])
    if len(odd) > 5:
        shown = tr("{items} and {count} more").format(items=shown, count=len(odd) - 5)
    many = len(odd)
    return [
        trn(
            "{count} item in the sync folder is a link, named pipe or device, not a folder or "
            "file, so it was not read: {items}",
            "{count} items in the sync folder are links, named pipes or devices, not folders or "
            "files, so they were not read: {items}",
            many,
        ).format(count=wording.number(many), items=shown)
    ]


def _is_event_file(name: str) -> bool:
    return not name.startswith((".", "~")) and not name.endswith(".tmp") and SUFFIX in name


def event_files(base: Path, device: str) -> dict[str, int]:
    """A device's event files (conflict copies too) with their sizes; hidden files left out."""
    found: dict[str, int] = {}
    folder = base / device
    if safe_files.is_link(folder):
        return found
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for entry in entries:
        if not _is_event_file(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False):  # a link, a pipe: never read
                found[entry.name] = entry.stat().st_size
        except OSError:
            continue
    return found


def lines_after(base: Path, device: str, name: str, offset: int) -> Iterator[bytes | LongLine]:
    """The complete lines of a file after ``offset``, one at a time (a file of a million
    reviews is never held whole); bytes after the last line break are left for the next
    read. Empty lines come too: the caller counts their bytes. A line longer than
    ``MAX_LINE_BYTES`` comes as a ``LongLine``, read a piece at a time and dropped.

    Raises:
        OSError: The file cannot be opened, or is not a regular file
            (``safe_files.NotAFileError``: a link, a named pipe, a device).
    """
    with safe_files.reading(base, (device, name)) as source:
        source.seek(offset)
        while line := source.readline(MAX_LINE_BYTES + 1):
            if line.endswith(b"\n"):
                yield line
                continue
            if len(line) <= MAX_LINE_BYTES:
                return  # the last line has not fully arrived
            size = len(line)
            while piece := source.readline(_PIECE):
                size += len(piece)
                if piece.endswith(b"\n"):
                    yield LongLine(size)
                    break
            else:
                return  # not ended yet: looked at again when more arrives


def header(line: bytes) -> dict[str, Any]:
    """A file's first line as its header ({} when it is not a JSON object, or nests too
    deep to read)."""
    try:
        loaded = loads(line)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def header_problem(header: dict[str, Any], known: int | None = None) -> str | None:
    """Why a file with this header is not read by a Recall that reads formats up to
    ``known`` (this one's, ``FORMAT``, unless given), or None when it is."""
    version = header.get("recall_sync")
    if not isinstance(version, int):
        return tr("is not a Recall sync file")
    if version > (FORMAT if known is None else known):
        return tr(
            "was written by a newer Recall (format {version}); update Recall to read it"
        ).format(version=version)
    return None
