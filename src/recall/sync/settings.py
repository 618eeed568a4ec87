"""This device and where it syncs: made, read and chosen without running a round.

Kept apart from the rounds so the window can show the status line at start without
loading what merging needs.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recall.core.i18n import number, tr, trn
from recall.storage import Database, Transaction
from recall.storage.sync_state import DeviceRow
from recall.storage.times import from_micros, to_micros


def device_name() -> str:
    """The name a new device gets: the computer's."""
    return socket.gethostname() or "this computer"


def identify(transaction: Transaction, now: datetime, name: str | None = None) -> DeviceRow:
    """This device, made on first use (a random id and the computer's name)."""
    device = transaction.sync_state.device()
    if device is None:
        from recall.sync import folder as sync_folder  # the window reads status at start

        micros = to_micros(now)
        assert micros is not None
        device = transaction.sync_state.create_device(
            sync_folder.new_device_id(), name or device_name(), micros
        )
    elif name is not None and name != device.name:
        transaction.sync_state.update_device(name=name)
    return device


@dataclass(frozen=True)
class SyncStatus:
    """This device's sync settings and what the last round saw.

    Attributes:
        folder: The sync folder chosen, if any.
        name: This device's name (the computer's until changed).
        last_sync: When the last round finished, if one did.
        devices: (id, name) of every other device whose files were read.
    """

    folder: Path | None
    name: str
    last_sync: datetime | None
    devices: list[tuple[str, str]]

    def summary(self, local: datetime | None = None) -> str:
        """A status line: "Synced 10:32 · 2 devices", or why not."""
        if self.folder is None:
            return tr("Sync off")
        if self.last_sync is None:
            return tr("Not synced yet")
        moment = local or self.last_sync
        count = len(self.devices) + 1
        return trn(
            "Synced {time} · {count} device", "Synced {time} · {count} devices", count
        ).format(time=f"{moment:%H:%M}", count=number(count))


def status(database: Database) -> SyncStatus:
    """This device's sync settings; nothing is written."""
    with database.reading() as transaction:
        device = transaction.sync_state.device()
        seen = transaction.sync_state.seen_devices()
    if device is None:
        return SyncStatus(None, device_name(), None, [])
    return SyncStatus(
        folder=Path(device.folder) if device.folder else None,
        name=device.name,
        last_sync=from_micros(device.last_sync),
        devices=[item for item in seen if item[0] != device.id],
    )


def choose(database: Database, folder: Path | None, name: str, now: datetime) -> None:
    """Set (or, with None, clear) the sync folder and this device's name.

    Raises:
        SyncFolderError: The folder does not exist or cannot hold Recall's part.
    """
    if folder is not None:
        from recall.sync import folder as sync_folder

        folder = folder.expanduser().absolute()
        sync_folder.root(folder)
    with database.transaction() as transaction:
        identify(transaction, now, name.strip() or device_name())
        transaction.sync_state.update_device(folder=None if folder is None else str(folder))
