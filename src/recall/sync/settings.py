"""Where this device syncs and what it has seen: read and chosen without running a round."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recall.storage import Database
from recall.storage.times import from_micros
from recall.sync import folder as sync_folder
from recall.sync.rounds import device_name, identify


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
            return "Sync: no folder chosen"
        if self.last_sync is None:
            return "Not synced yet"
        moment = local or self.last_sync
        count = len(self.devices) + 1
        return f"Synced {moment:%H:%M} · {count} device{'s' if count != 1 else ''}"


def status(database: Database) -> SyncStatus:
    """This device's sync settings; nothing is written."""
    with database.reading() as transaction:
        device = transaction.sync.device()
        seen = transaction.sync.seen_devices()
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
        folder = folder.expanduser().absolute()
        sync_folder.root(folder)
    with database.transaction() as transaction:
        identify(transaction, now, name.strip() or device_name())
        transaction.sync.update_device(folder=None if folder is None else str(folder))
