"""What one sync round did, in numbers and in words (the command line and the window)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from recall.core import wording
from recall.core.i18n import tr, trn

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
        problem = self.problem if detail else self.reason
        if self.kept < 0:
            return tr(
                "sending failed: {problem}; your changes are kept (everything) and sent when it "
                "can be written"
            ).format(problem=problem)
        return trn(
            "sending failed: {problem}; your changes are kept ({count} change) and sent when "
            "it can be written",
            "sending failed: {problem}; your changes are kept ({count} changes) and sent when "
            "it can be written",
            self.kept,
        ).format(problem=problem, count=wording.number(self.kept))

    def lines(self) -> list[str]:
        """The report in words, one line each."""
        out = [
            tr("synced {device} ({id}) through {folder}").format(
                device=self.device[1], id=self.device[0][:8], folder=self.folder
            )
        ]
        not_sent = self.not_sent()
        if not_sent is not None:
            out.append(tr("sent: nothing: {reason}").format(reason=not_sent))
        elif not _counts(self.sent):
            out.append(tr("sent: nothing"))
        elif self.snapshot:
            out.append(tr("sent: {counts} (everything)").format(counts=_counts(self.sent)))
        else:
            out.append(tr("sent: {counts}").format(counts=_counts(self.sent)))
        received = _counts(self.received)
        out.append(
            tr("received: {counts}").format(counts=received)
            if received
            else tr("received: nothing")
        )
        if self.replayed:
            out.append(
                trn(
                    "rescheduled {count} card from their merged history",
                    "rescheduled {count} cards from their merged history",
                    self.replayed,
                ).format(count=wording.number(self.replayed))
            )
        names = ", ".join(f"{name} ({device[:8]})" for device, name in self.devices)
        if names:
            out.append(
                tr("devices seen: {count}: {names}").format(count=len(self.devices), names=names)
            )
        else:
            out.append(tr("devices seen: {count}").format(count=len(self.devices)))
        out += [tr("note: {notice}").format(notice=note) for note in self.notes]
        return out


def _counts(counts: Counter[str]) -> str:
    return ", ".join(_count(count, kind) for kind, count in sorted(counts.items()) if count)


def _count(count: int, kind: str) -> str:
    """A count of one kind of event (or of media files), in words."""
    forms = {
        "card": trn("{count} card", "{count} cards", count),
        "deck": trn("{count} deck", "{count} decks", count),
        "preset": trn("{count} preset", "{count} presets", count),
        "review": trn("{count} review", "{count} reviews", count),
        "unreview": trn("{count} unreview", "{count} unreviews", count),
        MEDIA_COUNTED: trn("{count} media file", "{count} media files", count),
    }
    if kind not in forms:
        return wording.count(count, kind)
    return forms[kind].format(count=wording.number(count))


def changes(counts: Counter[str]) -> int:
    """Events counted, without the media files copied beside them."""
    return sum(count for kind, count in counts.items() if kind != MEDIA_COUNTED)
