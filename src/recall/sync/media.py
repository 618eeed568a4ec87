"""Card media through the sync folder: images and sounds, named by their content.

A card refers to a media file by its stored name (``card_html.media_name``: the SHA-256 of
its bytes and its suffix), in ``<img src>`` or ``[sound:...]``. Each device copies the
files the cards it sends refer to into its own ``Recall/<device>/media/`` (temporary
hidden name, flush, rename; a name is never written twice, the bytes under it never
change). A device receiving a card looks for each file it lacks in every device's
``media/``, takes it only when its bytes hash to its name (a file still arriving is not
taken) and copies it into the data folder's media folder the same way. What has not
arrived yet is remembered (``sync_media_wanted``) and looked for again at each round, so
the card need not change again. Only names passing ``card_html.is_media_name`` ever become
paths; a file in the sync folder is read only when it is a regular file reached through no
symbolic link (``safe_files``), and only up to the size an import takes for its kind.
"""

from __future__ import annotations

import errno
import hashlib
import html
import json
import os
import re
import secrets
import stat
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from recall.content import card_html, sound
from recall.core import wording
from recall.core.errors import CancelledError
from recall.core.i18n import tr, trn
from recall.core.progress import Cancelled, Progress, no_progress
from recall.host import paths
from recall.host.files import fsync_folder
from recall.storage import Database, Transaction
from recall.storage.sync_media import Wanted
from recall.sync import folder as sync_folder
from recall.sync import safe_files
from recall.sync.events import Event, FieldEvent
from recall.sync.folder import SyncWriteError
from recall.sync.report import MEDIA_COUNTED
from recall.sync.values import CONTENT, DELETED

FOLDER = "media"  # beside a device's event files
_CHUNK = 1 << 20  # files are copied this much at a time, never held whole
MAX_SOUND_BYTES = 64 * 1024**2
"""The largest sound or image taken from the sync folder (what imports take)."""
MAX_VIDEO_BYTES = 256 * 1024**2
"""The largest video taken from the sync folder (what imports take)."""
_SHOWN = 5  # missing files a note names before it says "and N more"
_IMAGE_SOURCE = re.compile(
    r"""<img\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.IGNORECASE
)


def card_media(content: Any) -> set[str]:
    """The stored media names a card's content refers to.

    Args:
        content: A card's content (its JSON from the deck file, parsed), or any JSON value
            holding some of it, such as the ``content.*`` fields of a card event.

    Returns:
        Every name in an ``<img src>`` or a ``[sound:...]`` of any text in it that is a
        stored media name; anything else (a web address, a path) is left out.
    """
    found: set[str] = set()
    pending = [content]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if "src" in value or "SRC" in value or "[sound:" in value:
                found.update(_referenced(value))
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return found


def _referenced(text: str) -> set[str]:
    images = (
        html.unescape(next(group for group in match.groups() if group is not None)).strip()
        for match in _IMAGE_SOURCE.finditer(text)
    )
    return {name for name in (*images, *sound.references(text)) if card_html.is_media_name(name)}


def local_folder(database: Database) -> Path:
    """The media folder of the data folder ``database`` lives in."""
    return paths.media_dir(database.path.parent)


# Sending


def send(
    transaction: Transaction,
    database: Database,
    own: Path,
    events: Iterable[dict[str, Any]],
    sent: Counter[str],
    notes: list[str],
    cancelled: Cancelled,
) -> None:
    """Copy the media the round's card events refer to into this device's ``media/``.

    Each file held here and not there yet is written (temporary name, flush, rename) and
    counted in ``sent``. Called before the round's event file is written, so a device
    that reads the card can find its files. A file missing here is noted, unless it is
    one this device is waiting for itself (its sender wrote it).

    Args:
        transaction: The round's sending transaction.
        database: The collection (its data folder holds the media folder).
        own: This device's folder in the sync folder.
        events: The round's events; card events' ``content.*`` fields are looked at.
        sent: The round's counts.
        notes: The round's notes.
        cancelled: Asked between two files.

    Raises:
        SyncWriteError: A file cannot be written to the sync folder (read-only, full).
        CancelledError: ``cancelled()`` turned true between two files.
    """
    cards = [event for event in events if event["type"] == "card"]
    # A snapshot sends a deleted card's last text too: its files are no longer needed.
    deleted = {(event["deck"], event["card"]) for event in cards if DELETED in event["fields"]}
    names: set[str] = set()
    for event in cards:
        if (event["deck"], event["card"]) not in deleted:
            fields = event["fields"]
            names |= card_media([value for key, value in fields.items() if key.startswith(CONTENT)])
    if names:
        _write(transaction, database, own / FOLDER, names, sent, notes, cancelled)


def send_again_if_lost(
    transaction: Transaction,
    database: Database,
    own: Path,
    sent: Counter[str],
    notes: list[str],
    cancelled: Cancelled,
) -> None:
    """Write again every file the cards here use when this device's ``media/`` is gone
    (deleted by hand, or by a sync program), for the devices still waiting for them.

    Looks at every card only when the folder is missing; the folder is made even when no
    card uses media, so later rounds look at nothing.

    Raises:
        SyncWriteError: The folder or a file cannot be written (read-only, full).
        CancelledError: ``cancelled()`` turned true between two files.
    """
    target = own / FOLDER
    if target.is_dir():
        return
    names: set[str] = set()
    for _card_id, _keys, columns in transaction.sync_local.all_cards():
        names |= card_media(json.loads(columns["content"]))
    _write(transaction, database, target, names, sent, notes, cancelled)


def _write(
    transaction: Transaction,
    database: Database,
    target: Path,
    names: set[str],
    sent: Counter[str],
    notes: list[str],
    cancelled: Cancelled,
) -> None:
    """Copy the named files held here into ``target`` (made if missing) that are not there
    yet, each checked against its name; note the missing and the damaged."""
    held = local_folder(database)
    missing: list[str] = []
    damaged: list[str] = []
    count = 0
    try:
        target.mkdir(parents=True, exist_ok=True)
        for leftover in target.glob(".*.tmp"):  # a killed round's
            leftover.unlink(missing_ok=True)
        for name in sorted(names):
            if os.path.lexists(target / name):
                continue  # written before: its bytes never change
            if cancelled():
                raise CancelledError(tr("sync stopped; nothing was changed"))
            try:
                descriptor = os.open(
                    held / name,
                    os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                )
            except OSError:
                missing.append(name)
                continue
            if _copy_checked(descriptor, name, target):
                count += 1
            else:
                damaged.append(name)
        if count:
            fsync_folder(target)
    except OSError as error:
        raise SyncWriteError(
            sync_folder.write_problem(error), f"{target}: {error.strerror or error}"
        ) from None
    if count:
        sent[MEDIA_COUNTED] += count
    if missing:
        awaited = {name for name, _deck, _card in transaction.sync_media.wanted()}
        missing = [name for name in missing if name not in awaited]
    if missing:
        notes.append(
            trn(
                "{count} media file the cards sent refer to is not in this computer's media "
                "folder, so it was not sent: {names}",
                "{count} media files the cards sent refer to are not in this computer's media "
                "folder, so they were not sent: {names}",
                len(missing),
            ).format(count=wording.number(len(missing)), names=_names(missing))
        )
    if damaged:
        notes.append(
            trn(
                "{count} media file in this computer's media folder does not match its name "
                "(damaged), so it was not sent: {names}",
                "{count} media files in this computer's media folder do not match their names "
                "(damaged), so they were not sent: {names}",
                len(damaged),
            ).format(count=wording.number(len(damaged)), names=_names(damaged))
        )


# Receiving


def want(transaction: Transaction, events: Iterable[Event], database: Database) -> None:
    """Remember the media that cards just merged refer to and that are not here.

    Only cards whose received content refers to media are looked at, each as it stands
    after the merge (an edit that lost to a later one wants nothing).
    """
    keys = {
        event.key
        for event in events
        if isinstance(event, FieldEvent)
        and event.type == "card"
        and card_media([value for key, value in event.fields.items() if key.startswith(CONTENT)])
    }
    if not keys:
        return
    held = local_folder(database)
    rows: list[Wanted] = []
    for (deck_key, card_key), (_card_id, columns) in transaction.sync_local.cards(keys).items():
        for name in sorted(card_media(json.loads(columns["content"]))):
            if not (held / name).is_file():
                rows.append((name, deck_key, card_key))
    transaction.sync_media.want(rows)


def fetch(
    database: Database,
    base: Path,
    received: Counter[str],
    notes: list[str],
    cancelled: Cancelled,
    progress: Progress = no_progress,
    describe: Callable[[str], None] = lambda _text: None,
) -> None:
    """Copy in the wanted media that have arrived in any device's ``media/``.

    A file is taken only when its bytes hash to its name; one that does not (damaged, or
    still arriving) is left, with a note, and looked at again next round. Files taken are
    counted in ``received``; what is still missing is named in a note.

    Raises:
        CancelledError: ``cancelled()`` turned true between two files; those copied are
            kept, the rest wait for the next round.
    """
    with database.reading() as transaction:
        wanted = transaction.sync_media.wanted()
        if not wanted:
            return
        cards = transaction.sync_local.cards({(deck, card) for _name, deck, card in wanted})
    finished: list[Wanted] = []
    by_name: dict[str, list[Wanted]] = {}
    for row in wanted:
        name, deck_key, card_key = row
        found = cards.get((deck_key, card_key))
        if found is None or name not in card_media(json.loads(found[1]["content"])):
            finished.append(row)  # the card is gone, or no longer refers to the file
        else:
            by_name.setdefault(name, []).append(row)
    held = local_folder(database)
    held.mkdir(parents=True, exist_ok=True)
    for leftover in held.glob(".*.sync.tmp"):  # a killed round's
        leftover.unlink(missing_ok=True)
    devices = sync_folder.devices(base)
    missing: list[str] = []
    damaged: list[str] = []
    count = 0
    stopped = False
    if by_name:
        describe(
            f"Copying {wording.count(len(by_name), 'image or sound', 'images and sounds')} "
            "from the sync folder..."
        )
    for done, (name, rows) in enumerate(sorted(by_name.items())):
        progress(done, len(by_name))
        if cancelled():
            stopped = True
            break
        if (held / name).is_file():  # came by an import meanwhile
            finished += rows
            continue
        outcome = "absent"
        for device in devices:
            outcome = _take(base, device, name, held) or outcome
            if outcome == "taken":
                break
        if outcome == "taken":
            count += 1
            finished += rows
        elif outcome.startswith(_NOT_TAKEN):
            notes.append(
                tr("media file {name} was not taken: {reason}").format(
                    name=sound.short_name(name), reason=outcome.removeprefix(_NOT_TAKEN)
                )
            )
            missing.append(name)
        elif outcome == "damaged":
            damaged.append(name)
        else:
            missing.append(name)
    if finished:
        with database.transaction() as transaction:
            transaction.sync_media.drop(finished)
    if stopped:
        raise CancelledError(
            tr("sync stopped while copying images and sounds; the rest come at the next sync")
        )
    if count:
        received[MEDIA_COUNTED] += count
    if damaged:
        notes.append(
            trn(
                "{count} media file in the sync folder does not match its name (damaged, or not "
                "fully arrived), so it was not taken; it is looked for again at the next sync: "
                "{names}",
                "{count} media files in the sync folder do not match their names (damaged, or "
                "not fully arrived), so they were not taken; they are looked for again at the "
                "next sync: {names}",
                len(damaged),
            ).format(count=wording.number(len(damaged)), names=_names(damaged))
        )
    if missing:
        notes.append(
            trn(
                "{count} media file the cards refer to has not arrived yet; it is looked for "
                "again at the next sync: {names}",
                "{count} media files the cards refer to have not arrived yet; they are looked for "
                "again at the next sync: {names}",
                len(missing),
            ).format(count=wording.number(len(missing)), names=_names(missing))
        )


_NOT_TAKEN = "not taken: "


def max_bytes(name: str) -> int:
    """The largest file of this name taken from the sync folder."""
    return MAX_VIDEO_BYTES if sound.kind_of(name) is sound.MediaKind.EXTERNAL else MAX_SOUND_BYTES


def _take(base: Path, device: str, name: str, held: Path) -> str | None:
    """Copy a device's ``media/name`` into ``held`` when its bytes hash to ``name``.

    Returns "taken", "damaged", "not taken: <why>" (a link, a named pipe or a device,
    larger than ``max_bytes``, unreadable), or None when the file is not there.
    """
    limit = max_bytes(name)
    try:
        descriptor = safe_files.open_file(base, (device, FOLDER, name), limit)
    except safe_files.TooLargeError as error:
        return (
            f"{_NOT_TAKEN}it is {error.size / 1024**2:,.0f} MiB, larger than the "
            f"{limit // 1024**2} MiB Recall takes for one"
        )
    except OSError as error:
        return None if error.errno == errno.ENOENT else _unreadable(error)
    try:
        return "taken" if _copy_checked(descriptor, name, held, limit) else "damaged"
    except OSError as error:
        return _unreadable(error)


def _unreadable(error: OSError) -> str:
    return f"{_NOT_TAKEN}{error.strerror or error}"


# Files


def _copy_checked(descriptor: int, name: str, folder: Path, limit: int | None = None) -> bool:
    """Copy the open file into ``folder/name`` when its bytes hash to ``name``: a hidden
    temporary name, flushed, then renamed. Closes ``descriptor``.

    Returns:
        False (and nothing written) when the bytes do not match the name, the file is not
        a plain file, or it grows past ``limit`` bytes while it is copied.

    Raises:
        OSError: Reading or writing failed.
    """
    temporary = folder / f".{name}.{secrets.token_hex(4)}.sync.tmp"
    digest = hashlib.sha256()
    with os.fdopen(descriptor, "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            return False
        try:
            copied = 0
            with temporary.open("xb") as out:
                while chunk := source.read(_CHUNK):
                    copied += len(chunk)
                    if limit is not None and copied > limit:
                        break  # grown past the limit since it was looked at: not taken
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                matches = (limit is None or copied <= limit) and digest.hexdigest() == name.split(
                    ".", 1
                )[0]
                if matches:
                    os.fsync(out.fileno())
            if not matches:
                temporary.unlink()
                return False
            temporary.replace(folder / name)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    return True


def _names(names: list[str]) -> str:
    shown = ", ".join(sound.short_name(name) for name in names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")
