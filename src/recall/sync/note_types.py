"""Anki note types through the sync folder: one file each, named by its content's hash.

A card imported from Anki names its note type by key (``content.anki_note``: the SHA-256
of the note type's canonical JSON), and a note type never changes under its key, as a
media file never does. So note types travel as media do: each round that sends something
first writes into the device's own ``Recall/<device>/notetypes/`` every note type its
database holds that is not there yet, as ``<key>.json`` (temporary hidden name, flush,
rename; never written twice; a folder lost is written again). A device receiving looks,
at each round, for every note type its cards name and it lacks in every device's
``notetypes/``, read through no symbolic link and within a note type's bound, and keeps it
only when it is a note type Recall can read whose content hashes to its key. Anything else
is refused with a note naming the device and why; the cards meanwhile show their stored
sides.

A Recall from before cards kept their note cannot show a card that holds one: a device
whose collection holds a note type (or a card naming one) writes its event files in
format 2 (``file_format``), which such a Recall skips whole with a note saying to update,
keeping the file to read once it is updated; a collection without one writes format 1,
which every Recall reads.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path

from recall.content.anki_note import (
    MAX_NOTE_TYPE_BYTES,
    NoteTypeError,
    note_type_json,
    parse_note_type,
)
from recall.core import wording
from recall.core.i18n import tr, trn
from recall.host.files import fsync_folder
from recall.storage import Transaction
from recall.sync import folder as sync_folder
from recall.sync import safe_files
from recall.sync.events import FORMAT, FORMAT_WITHOUT_NOTES
from recall.sync.folder import SyncWriteError

FOLDER = "notetypes"  # beside a device's event files and its media/
_KEY = re.compile(r"^[0-9a-f]{64}$")


def send(transaction: Transaction, own: Path) -> int:
    """Copy every note type this database holds that this device's ``notetypes/`` lacks.

    Called before a round's event file is written, so a device that reads a card can find
    its note type; a folder lost since is written again. Returns how many files were
    written.

    Raises:
        SyncWriteError: A file cannot be written (read-only, full), or ``notetypes/`` is a
            link or not a folder.
    """
    keys = transaction.note_types.stored_keys()
    if not keys:
        return 0
    target = own / FOLDER
    if safe_files.is_link(target) or (os.path.lexists(target) and not target.is_dir()):
        raise SyncWriteError(
            tr("this computer's folder in the sync folder holds a link for its note types"),
            tr("{path}: Recall writes nothing through links; replace it with a folder").format(
                path=target
            ),
        )
    try:
        present = {path.name for path in target.iterdir()}
    except FileNotFoundError:
        present = set()
    except OSError as error:
        raise SyncWriteError(
            sync_folder.write_problem(error), f"{target}: {error.strerror or error}"
        ) from None
    written = 0
    for key in keys:
        content = transaction.note_types.content(key)
        if content is None or f"{key}.json" in present:
            continue
        _write(target, f"{key}.json", content.encode())
        written += 1
    if written:
        fsync_folder(target)
    return written


def _write(folder: Path, name: str, data: bytes) -> None:
    temporary = folder / f".{name}.{secrets.token_hex(4)}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with temporary.open("xb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(folder / name)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise SyncWriteError(
            sync_folder.write_problem(error), f"{folder / name}: {error.strerror or error}"
        ) from None


def receive(transaction: Transaction, base: Path) -> list[str]:
    """Keep each note type the cards here name and this database lacks, from the folder.

    Args:
        transaction: The round's receiving transaction (after its cards are merged).
        base: The sync folder's ``Recall/``.

    Returns:
        The round's notes: each note type refused, with its device and why, and how many
        the cards name that are not in the folder.
    """
    notes: list[str] = []
    wanted = [key for key in transaction.note_types.missing() if _KEY.match(key)]
    if not wanted:
        return notes
    devices = sync_folder.devices(base)
    waiting = 0
    for key in wanted:
        found = False
        for device in devices:
            text = _read(base, device, key, notes)
            if text is None:
                continue
            try:
                note_type = parse_note_type(text, key)
            except NoteTypeError as error:
                notes.append(
                    tr("a note type from {device} was refused: {error}").format(
                        device=device[:8], error=error
                    )
                )
                continue
            transaction.note_types.add(key, note_type_json(note_type))
            found = True
            break
        waiting += not found
    if waiting:
        notes.append(
            trn(
                "{count} Anki note type that cards here name not in the sync folder yet: those "
                "cards show the sides stored with them",
                "{count} Anki note types that cards here name not in the sync folder yet: those "
                "cards show the sides stored with them",
                waiting,
            ).format(count=wording.number(waiting))
        )
    return notes


def _read(base: Path, device: str, key: str, notes: list[str]) -> bytes | None:
    try:
        with safe_files.reading(base, (device, FOLDER, f"{key}.json"), MAX_NOTE_TYPE_BYTES) as f:
            return f.read(MAX_NOTE_TYPE_BYTES + 1)  # one past: a file grown since is refused
    except FileNotFoundError:
        return None
    except safe_files.TooLargeError:
        notes.append(
            tr("a note type from {device} was refused: it is larger than any Recall keeps").format(
                device=device[:8]
            )
        )
    except safe_files.NotAFileError:
        notes.append(
            tr("a note type from {device} was refused: it is a link or not a file").format(
                device=device[:8]
            )
        )
    except OSError as error:
        notes.append(
            tr("a note type from {device} cannot be read ({error})").format(
                device=device[:8], error=error.strerror or error
            )
        )
    return None


def file_format(transaction: Transaction) -> int:
    """The format this device's next event file is written in: ``FORMAT`` when its
    collection holds an Anki note type or a card naming one (its cards may carry their
    note; a note type is never removed, so once one is stored every later file is of that
    format too), else ``FORMAT_WITHOUT_NOTES``."""
    queries = transaction.note_types
    return FORMAT if queries.stored_keys() or queries.missing() else FORMAT_WITHOUT_NOTES
