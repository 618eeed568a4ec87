"""Preset names, alike on every device: names are unique in a database, and two devices may
each make a preset of one name before they sync.

Of the presets whose merged name is the same, the one with the least id on every device
keeps it and the others get " (2)", " (3)", ... in the order of their ids, so every
device names each preset the same way, whatever order their files arrived in.
"""

from __future__ import annotations

from recall.storage import Transaction
from recall.sync import values
from recall.sync.events import DEFAULT_PRESET


def name_alike(tx: Transaction) -> None:
    """Rename this database's presets to the names every device gives them."""
    local = {uid: preset_id for preset_id, uid in tx.sync_state.preset_uids().items()}
    local[DEFAULT_PRESET] = 1
    stored = tx.sync_local.presets()
    groups: dict[str, list[str]] = {}
    for (_, uid, _), fields in tx.sync_state.all_entities("preset"):
        if values.DELETED in fields or "name" not in fields or local.get(uid) not in stored:
            continue
        groups.setdefault(str(fields["name"][2]), []).append(uid)
    wanted: dict[int, str] = {}
    for name, uids in groups.items():
        for number, uid in enumerate(sorted(uids), start=1):
            wanted[local[uid]] = name if number == 1 else f"{name} ({number})"
    renamed = {
        preset_id: name for preset_id, name in wanted.items() if stored[preset_id][0] != name
    }
    # Through names no preset has, so no rename meets a name another is about to leave.
    for preset_id in renamed:
        tx.sync_local.put_preset(preset_id, f"\x00{preset_id}", stored[preset_id][1])
    for preset_id, name in renamed.items():
        tx.sync_local.put_preset(preset_id, name, stored[preset_id][1])
