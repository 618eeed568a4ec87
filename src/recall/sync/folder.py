"""The sync folder: each device's own event files under ``Recall/<device id>/``.

A device only ever adds files to its own folder: each is written under a hidden temporary
name, flushed to disk and renamed, and never changed after. Reading takes only complete
lines, so a file a sync tool has only partly delivered is read on as more of it arrives.
Conflict copies a sync tool makes (``*.sync-conflict-*``, "conflicted copy") are read like
any other file: events are merged by id, so a line read twice changes nothing.
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

from recall.core.errors import RecallError
from recall.host.files import fsync_folder
from recall.sync.events import FORMAT, encode
from recall.sync.validation import loads

ROOT = "Recall"
SUFFIX = ".jsonl"
_DEVICE_ID = re.compile(r"[0-9a-f]{32}")


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
        raise SyncFolderError(f"the sync folder {folder} does not exist or is not a folder")
    path = folder / ROOT
    try:
        path.mkdir(exist_ok=True)
    except OSError as error:
        if error.errno not in _CANNOT_WRITE:
            raise SyncFolderError(f"cannot make {path}: {error.strerror or error}") from None
        # A folder this computer cannot write: what is there can still be read, and
        # writing says why it cannot when it tries.
    return path


def new_device_id() -> str:
    """A random device id (32 hex digits)."""
    return secrets.token_hex(16)


def write_file(
    base: Path, device: str, number: int, header: dict[str, Any], events: Iterable[dict[str, Any]]
) -> Written | None:
    """Write events as this device's next file: temporary name, flush, rename.

    Returns None (and writes nothing) when there are no events.

    Raises:
        SyncFolderError: The file cannot be written.
    """
    folder = base / device
    name = f"{number:06d}-{secrets.token_hex(4)}{SUFFIX}"
    temporary = folder / f".{name}.tmp"
    count = 0
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as out:
            out.write(json.dumps({"recall_sync": FORMAT, **header}).encode() + b"\n")
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


_CANNOT_WRITE = {errno.EACCES, errno.EPERM, errno.EROFS}
_FULL = {errno.ENOSPC, errno.EDQUOT}


def write_problem(error: OSError) -> str:
    """Why a file of this device could not be written, in a few words."""
    if error.errno in _CANNOT_WRITE:
        return "the sync folder is read-only here"
    if error.errno in _FULL:
        return "the disk of the sync folder is full"
    return "the sync folder cannot be written"


def remove_temporary(base: Path, device: str) -> None:
    """Remove temporary files a killed round of this device left (those it can)."""
    folder = base / device
    if folder.is_dir():
        for path in folder.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)


def devices(base: Path) -> list[str]:
    """The device folders present (none when Recall's part could not be made)."""
    if not base.is_dir():
        return []
    return sorted(
        path.name for path in base.iterdir() if path.is_dir() and _DEVICE_ID.fullmatch(path.name)
    )


def event_files(base: Path, device: str) -> dict[str, int]:
    """A device's event files (conflict copies too) with their sizes; hidden files left out."""
    found: dict[str, int] = {}
    folder = base / device
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for entry in entries:
        if entry.name.startswith((".", "~")) or entry.name.endswith(".tmp"):
            continue
        if SUFFIX not in entry.name:
            continue
        try:
            if entry.is_file():
                found[entry.name] = entry.stat().st_size
        except OSError:
            continue
    return found


def lines_after(base: Path, device: str, name: str, offset: int) -> Iterator[bytes]:
    """The complete lines of a file after ``offset``, one at a time (a file of a million
    reviews is never held whole); bytes after the last line break are left for the next
    read. Empty lines come too: the caller counts their bytes.

    Raises:
        OSError: The file cannot be opened.
    """
    with (base / device / name).open("rb") as source:
        source.seek(offset)
        for line in source:
            if not line.endswith(b"\n"):
                return
            yield line


def header(line: bytes) -> dict[str, Any]:
    """A file's first line as its header ({} when it is not a JSON object, or nests too
    deep to read)."""
    try:
        loaded = loads(line)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def header_problem(header: dict[str, Any]) -> str | None:
    """Why a file with this header is not read, or None when it is."""
    version = header.get("recall_sync")
    if not isinstance(version, int):
        return "is not a Recall sync file"
    if version > FORMAT:
        return f"was written by a newer Recall (format {version}); update Recall to read it"
    return None
