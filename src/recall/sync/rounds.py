"""One sync round: send this device's changes, then read and merge the other devices' files.

Two transactions. The first turns the outbox into events, writes them as one new file
(temporary name, flush, rename) and only then commits; killed before the commit, the
round sends the same changes again next time, and merging by id makes the copy harmless.
The second reads what is new in every device's files, merges it and remembers how far
each file was read; killed before its commit, nothing of it happened and the files are
read again. Cancel is asked between the steps; a cancelled round changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from recall.errors import CancelledError, RecallError
from recall.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.storage.times import to_micros
from recall.sync import folder as sync_folder
from recall.sync import media, moves
from recall.sync.clock import Clock
from recall.sync.events import Event, EventError, UnknownEventError, parse
from recall.sync.merge import Merger
from recall.sync.outgoing import Collector, review_events
from recall.sync.seeds import reseed_carried_over
from recall.sync.settings import identify

# How many times a round sends again when changes were made here while it ran, before it
# leaves receiving to the next round.
_SEND_ATTEMPTS = 3


class NoSyncFolderError(RecallError):
    """No sync folder was given and none was chosen before."""


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

    def lines(self) -> list[str]:
        """The report in words, one line each."""
        out = [f"synced {self.device[1]} ({self.device[0][:8]}) through {self.folder}"]
        out.append(
            "sent: "
            + (_counts(self.sent) or "nothing")
            + (" (everything)" if self.snapshot else "")
        )
        out.append("received: " + (_counts(self.received) or "nothing"))
        if self.replayed:
            out.append(f"rescheduled {self.replayed} card(s) from their merged history")
        names = ", ".join(f"{name} ({device[:8]})" for device, name in self.devices)
        out.append(f"devices seen: {len(self.devices)}" + (f": {names}" if names else ""))
        out += [f"note: {note}" for note in self.notes]
        return out


def _counts(counts: Counter[str]) -> str:
    return ", ".join(f"{count} {kind}(s)" for kind, count in sorted(counts.items()) if count)


def sync(
    database: Database,
    now: datetime,
    folder: Path | None = None,
    name: str | None = None,
    schedulers: Schedulers | None = None,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> SyncReport:
    """Do one round through ``folder`` (remembered for next time), or the one chosen before.

    Raises:
        NoSyncFolderError: No folder given and none chosen before.
        SyncFolderError: The folder cannot be used.
        CancelledError: ``cancelled()`` turned true; this round changed nothing here.
    """
    schedulers = schedulers or Schedulers()
    with database.transaction() as transaction:
        device = identify(transaction, now, name)
        if folder is None:
            if device.folder is None:
                raise NoSyncFolderError(
                    "no sync folder chosen: name one with --folder (it is remembered)"
                )
            folder = Path(device.folder)
        folder = folder.expanduser().absolute()
        base = sync_folder.root(folder)
        if device.folder != str(folder):
            transaction.sync.update_device(folder=str(folder))
    progress(0, 3)
    notes: list[str] = []
    sent: Counter[str] = Counter()
    file: str | None = None
    snapshot = False
    received: Counter[str] = Counter()
    replayed = 0
    for _attempt in range(_SEND_ATTEMPTS):
        more_sent, written, whole = _send(database, base, now, cancelled, notes, schedulers)
        sent += more_sent
        file = written or file
        snapshot = snapshot or whole
        progress(1, 3)
        if cancelled():
            raise CancelledError("sync stopped after sending; nothing was received")
        done = _receive(database, base, now, schedulers, cancelled)
        if done is not None:
            received, more_notes, replayed = done
            notes += more_notes
            break
    else:
        notes.append(
            "changes were made here while this round ran: what the others sent is merged "
            "at the next round"
        )
    media.fetch(database, base, received, notes, cancelled)
    progress(3, 3)
    with database.reading() as transaction:
        device = transaction.sync.device() or device
        devices = [seen for seen in transaction.sync.seen_devices() if seen[0] != device.id]
    return SyncReport(
        device=(device.id, device.name),
        folder=folder,
        sent=sent,
        received=received,
        devices=devices,
        notes=notes,
        file=file,
        snapshot=snapshot,
        replayed=replayed,
    )


def _send(
    database: Database,
    base: Path,
    now: datetime,
    cancelled: Cancelled,
    notes: list[str],
    schedulers: Schedulers,
) -> tuple[Counter[str], str | None, bool]:
    micros = to_micros(now)
    assert micros is not None
    with database.transaction() as transaction:
        device = transaction.sync.device()
        assert device is not None
        sync_folder.remove_temporary(base, device.id)
        known = transaction.sync.files()
        own = {name for (dev, name), (_, mine) in known.items() if dev == device.id and mine}
        present = sync_folder.event_files(base, device.id)
        lost = sorted(own - set(present))
        if lost:
            transaction.sync.forget_files(device.id, lost)
        # Another computer's folder gone (a retired computer's, cleaned away): what it sent
        # lives on here only, so this round sends everything, for computers yet to come.
        folders = set(sync_folder.devices(base))
        gone = sorted({dev for dev, _ in known if dev != device.id and dev not in folders})
        for other in gone:
            transaction.sync.forget_files(other, [name for dev, name in known if dev == other])
        if gone:
            notes.append(
                f"the folder of {len(gone)} other computer(s) is gone: everything was sent again"
            )
        snapshot = not own or bool(lost) or bool(gone)
        if snapshot:
            reseeded = reseed_carried_over(transaction, schedulers)
            if reseeded:
                notes.append(
                    f"{reseeded} card(s) from before cards had seeds were given one of their "
                    "own and rescheduled from their history (docs/sync.md)"
                )
        if moves.rekey_returned(transaction):
            notes.append(
                "a card moved back to keys the other computers hold as deleted got a new key"
            )
        # Each change is stamped when it was made (or just after the last stamp seen), not
        # when it is sent: of two edits of one field, the later wins, whichever computer
        # syncs last.
        clock = Clock(device.clock)
        upto = transaction.sync.outbox_end()
        out = Collector(transaction, device.id, clock, schedulers).changes(upto, snapshot, micros)
        transaction.sync.quiet(True)
        for kind, key, card in out.redeleted:
            if kind == "card":
                found = transaction.synced.cards([(key, card)])
                transaction.synced.delete_cards([found[(key, card)][0]] if found else [])
            elif kind == "deck" and (deck := transaction.synced.decks([key]).get(key)):
                transaction.synced.delete_deck(deck[0])
        transaction.sync.quiet(False)
        if out.redeleted:
            notes.append(
                f"{len(out.redeleted)} deck(s) or card(s) made here again after another "
                "device deleted them were removed: a deletion is final (docs/sync.md)"
            )
        sent: Counter[str] = Counter()

        def events() -> Iterator[dict[str, object]]:
            for event in out.fields:
                sent[str(event["type"])] += 1
                yield event
            for event in review_events(transaction, out):
                sent[str(event["type"])] += 1
                if sum(sent.values()) % 10_000 == 0 and cancelled():
                    raise CancelledError("sync stopped; nothing was changed")
                yield event

        media.send(transaction, database, base / device.id, out.fields, sent, notes, cancelled)
        written = sync_folder.write_file(
            base,
            device.id,
            device.next_file,
            {"device": device.id, "name": device.name, "written": micros},
            events(),
        )
        if cancelled():
            raise CancelledError("sync stopped; nothing was changed")
        if written is not None:
            transaction.sync.set_file(device.id, written.name, written.size, own=True)
        transaction.sync.clear_outbox(upto)
        transaction.sync.update_device(clock=clock.value, next_file=device.next_file + 1)
    return sent, None if written is None else written.name, snapshot


def _receive(
    database: Database, base: Path, now: datetime, schedulers: Schedulers, cancelled: Cancelled
) -> tuple[Counter[str], list[str], int] | None:
    """Merge what is new in the folder; None (nothing done) when a change was made here
    after this round sent: merging over a change not yet stamped would overwrite it."""
    notes: list[str] = []
    with database.transaction() as transaction:
        if transaction.sync.outbox_end():
            return None
        device = transaction.sync.device()
        assert device is not None
        known = transaction.sync.files()
        events = []
        unknown: Counter[str] = Counter()
        positions: list[tuple[str, str, int]] = []
        for other in sync_folder.devices(base):
            files = sync_folder.event_files(base, other)
            for name, size in sorted(files.items()):
                offset, _own = known.get((other, name), (0, False))
                if size == offset:
                    continue
                if size < offset:
                    offset = 0  # replaced by a different file of the same name: read it all
                read = read_events(base, other, name, offset, device.id)
                if isinstance(read, str):
                    notes.append(read)
                    continue
                seen_name, found, end, more_unknown, bad = read
                if seen_name is not None:
                    transaction.sync.saw_device(other, seen_name, name)
                events += found
                unknown.update(more_unknown)
                if bad:
                    notes.append(f"{other[:8]}/{name}: {bad} line(s) that are not events, skipped")
                positions.append((other, name, end))
            if cancelled():
                raise CancelledError("sync stopped after sending; nothing was received")
        for what, count in sorted(unknown.items()):
            notes.append(
                f"{count} event(s) of an {what.removeprefix('unknown event ')} (from a newer "
                "Recall) skipped; they stay in the sync folder"
            )
        clock = Clock(device.clock)
        merged = Merger(transaction, schedulers, clock, now).apply(events)
        media.want(transaction, events, database)
        if cancelled():
            raise CancelledError("sync stopped after sending; nothing was received")
        for other, name, end in positions:
            mine = known.get((other, name), (0, False))[1]
            transaction.sync.set_file(other, name, end, own=mine)
        transaction.sync.update_device(clock=clock.value, last_sync=to_micros(now))
        notes += merged.notes
        held = transaction.sync.held_count()
        if held:
            notes.append(
                f"{held} review(s) held: their card is still on its way, or their time has not come"
            )
    return merged.received, notes, merged.replayed


def read_events(
    base: Path, device: str, name: str, offset: int, me: str
) -> str | tuple[str | None, list[Event], int, Counter[str], int]:
    """The events of a file after ``offset``, line by line: (the writer's name when the
    header was read, the events, the offset after the last complete line, unknown event
    types, lines that are not events); or a note saying why the file is skipped."""
    found: list[Event] = []
    unknown: Counter[str] = Counter()
    bad = 0
    end = offset
    seen_name: str | None = None
    try:
        for line in sync_folder.lines_after(base, device, name, offset):
            if end == 0:
                header = sync_folder.header(line)
                problem = sync_folder.header_problem(header)
                if problem is not None:
                    return f"{device[:8]}/{name} {problem}; skipped, kept"
                if device != me:
                    seen_name = str(header.get("name", "?"))
            elif line.strip():
                try:
                    found.append(parse(line))
                except UnknownEventError as error:
                    unknown[str(error)] += 1
                except EventError:
                    bad += 1
            end += len(line)
    except OSError as error:
        return f"{device[:8]}/{name} could not be read: {error.strerror or error}"
    return seen_name, found, end, unknown, bad
