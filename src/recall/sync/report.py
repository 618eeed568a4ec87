"""What one sync round did, in numbers and in words (the command line and the window)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from recall.core import wording

MEDIA_COUNTED = "media file"  # the name media files go by in a round's counts


@dataclass(frozen=True)
class SyncReport:
    """What one round did.

    Attributes:
        device: This device's id and name.
        folder: The sync folder.
        sent: Events written, by type, and media files copied (``media file``);
            ``file`` the file the events went into.
        received: Events merged from other devices, by type, and media files taken in.
        devices: (id, name) of every other device seen.
        notes: What was skipped and why.
        snapshot: This round wrote everything (first round, or the folder was lost).
        replayed: Cards rescheduled from their merged history.
        problem: Why this device's changes could not be written, if they could not:
            ``reason`` in a few words, with the file and the system's words.
        kept: Changes waiting in the database to be written (when ``problem``); -1 when
            the next round that can sends everything.
    """

    device: tuple[str, str]
    folder: Path
    sent: Counter[str]
    received: Counter[str]
    devices: list[tuple[str, str]]
    notes: list[str] = field(default_factory=list)
    file: str | None = None
    snapshot: bool = False
    replayed: int = 0
    problem: str | None = None
    reason: str | None = None
    kept: int = 0

    def not_sent(self, detail: bool = True) -> str | None:
        """Why nothing went out this round, with what happens to the changes (or None);
        without ``detail``, the reason in a few words, without the file's name."""
        if self.problem is None:
            return None
        waiting = "everything" if self.kept < 0 else wording.count(self.kept, "change")
        return (
            f"sending failed: {self.problem if detail else self.reason}; your changes are "
            f"kept ({waiting}) and sent when it can be written"
        )

    def lines(self) -> list[str]:
        """The report in words, one line each."""
        out = [f"synced {self.device[1]} ({self.device[0][:8]}) through {self.folder}"]
        not_sent = self.not_sent()
        if not_sent is not None:
            out.append(f"sent: nothing: {not_sent}")
        else:
            out.append(
                "sent: "
                + (_counts(self.sent) or "nothing")
                + (" (everything)" if self.snapshot else "")
            )
        out.append("received: " + (_counts(self.received) or "nothing"))
        if self.replayed:
            out.append(
                f"rescheduled {wording.count(self.replayed, 'card')} from their merged history"
            )
        names = ", ".join(f"{name} ({device[:8]})" for device, name in self.devices)
        out.append(f"devices seen: {len(self.devices)}" + (f": {names}" if names else ""))
        out += [f"note: {note}" for note in self.notes]
        return out


def _counts(counts: Counter[str]) -> str:
    return ", ".join(wording.count(count, kind) for kind, count in sorted(counts.items()) if count)


def changes(counts: Counter[str]) -> int:
    """Events counted, without the media files copied beside them."""
    return sum(count for kind, count in counts.items() if kind != MEDIA_COUNTED)
