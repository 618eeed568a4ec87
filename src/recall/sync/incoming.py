"""What a round reads from the other devices' files, and what it keeps to come back to.

Each file is read from where the last round stopped, up to its last complete line.
Nothing read is ever dropped for good:

- Events of a type this Recall does not know are skipped, and the file is noted with the
  offset of the first of them and the types this Recall knows (``sync_revisit``): a
  Recall that knows other types reads it again from there (merging by id makes the lines
  read twice harmless).
- A file of a newer format is not read at all, so it is read whole once Recall is
  updated.
- A change stamped more than a year ahead of this computer's clock is held in the
  database (``sync_held_change``), not merged and not let move this computer's clock, and
  merged at the first round when this computer's clock is within a year of it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from recall.core import wording
from recall.core.errors import CancelledError
from recall.core.i18n import tr, trn
from recall.core.memory import FUTURE_TOLERANCE
from recall.core.progress import Cancelled, Progress
from recall.storage import Transaction
from recall.storage.times import from_micros, to_micros
from recall.sync import events as sync_events
from recall.sync import folder as sync_folder
from recall.sync.events import Event, EventError, FieldEvent, UnknownEventError, field_event, parse

AHEAD_LIMIT = timedelta(days=366)
"""A change stamped further ahead of this computer's clock than this waits for it."""

_LINES_PER_TICK = 2_000

Describe = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class FileRead:
    """What one file held after an offset.

    Attributes:
        name: The writer's name, when the header was read.
        events: The events this Recall knows.
        end: The offset after the last complete line.
        unknown: Events of a type this Recall does not know, by what was said of them.
        first_unknown: Where the first of those starts (None when there were none).
        bad: Lines that are not events.
        set_aside: Where each of those starts, with what is wrong with it.
        too_long: Lines longer than ``folder.MAX_LINE_BYTES``, skipped unread.
    """

    name: str | None
    events: list[Event]
    end: int
    unknown: Counter[str]
    first_unknown: int | None
    bad: int
    set_aside: list[tuple[int, str]] = field(default_factory=list)
    too_long: int = 0


@dataclass
class Incoming:
    """What a round read: the events to merge and how far each file was read."""

    events: list[Event] = field(default_factory=list)
    positions: list[tuple[str, str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)  # unreview id -> its folder's device


def known_types() -> str:
    """The event types this Recall knows, as noted beside a file to read again."""
    return json.dumps(sorted(sync_events.TYPES))


def ahead_limit(now: datetime) -> int:
    """The latest stamp merged now (UTC microseconds): later ones are held."""
    micros = to_micros(now + FUTURE_TOLERANCE + AHEAD_LIMIT)
    assert micros is not None
    return micros


def collect(
    transaction: Transaction,
    base: Path,
    me: str,
    now: datetime,
    progress: Progress,
    describe: Describe,
    cancelled: Cancelled,
) -> Incoming:
    """Read what is new in every device's files, with the held changes whose time came.

    Raises:
        CancelledError: ``cancelled()`` turned true; nothing was written.
    """
    incoming = Incoming()
    known = transaction.sync_state.files()
    revisits = transaction.sync_state.revisits()
    signature = known_types()
    names = dict(transaction.sync_state.seen_devices())
    plan: list[tuple[str, str, int, int]] = []
    for other in sync_folder.devices(base):
        files = sync_folder.event_files(base, other)
        for device, name in revisits:
            if device == other and name not in files:
                transaction.sync_state.forget_revisit(device, name)
        for name, size in sorted(files.items()):
            offset = known.get((other, name), (0, False))[0]
            if size < offset:
                offset = 0  # replaced by a different file of the same name: read it all
            revisit = revisits.get((other, name))
            if revisit is not None and revisit[1] != signature:
                # Read by a Recall that knew other event types: read again from the first
                # event it did not know.
                transaction.sync_state.forget_revisit(other, name)
                offset = min(offset, revisit[0])
            if size != offset:
                plan.append((other, name, offset, size))
    total = sum(size - offset for _, _, offset, size in plan)
    done = 0
    unknown: Counter[str] = Counter()
    for other, name, offset, size in plan:
        if other not in names:
            names[other] = _writer(base, other, name)
        if other == me:
            describe(
                tr("Reading this computer's changes ({size})...").format(size=_size(size - offset))
            )
        else:
            describe(
                tr("Reading {device}'s changes ({size})...").format(
                    device=names[other], size=_size(size - offset)
                )
            )
        start = done

        def tick(read: int, start: int = start) -> None:
            progress(start + read, total)
            if cancelled():
                raise CancelledError(tr("sync stopped; nothing was received"))

        read = read_events(base, other, name, offset, me, tick)
        done = start + (size - offset)
        progress(done, total)
        if isinstance(read, str):
            incoming.notes.append(read)
            continue
        if read.name is not None:
            transaction.sync_state.saw_device(other, read.name, name)
            names[other] = read.name
        incoming.events += read.events
        incoming.origins.update(
            (event.id, other) for event in read.events if isinstance(event, sync_events.Unreview)
        )
        unknown.update(read.unknown)
        if read.first_unknown is not None:
            transaction.sync_state.set_revisit(other, name, read.first_unknown, signature)
        if read.bad:
            incoming.notes.append(set_aside_note(names.get(other, other[:8]), other, name, read))
        if read.too_long:
            incoming.notes.append(
                trn(
                    "{file}: {count} line longer than {size} MiB, skipped unread",
                    "{file}: {count} lines longer than {size} MiB, skipped unread",
                    read.too_long,
                ).format(
                    file=f"{other[:8]}/{name}",
                    count=wording.number(read.too_long),
                    size=sync_folder.MAX_LINE_BYTES // 1024**2,
                )
            )
        incoming.positions.append((other, name, read.end))
    for what, count in sorted(unknown.items()):
        incoming.notes.append(
            trn(
                "{count} event of a {kind} (from a newer Recall) skipped; it stays in the sync "
                "folder and is read again when Recall is updated",
                "{count} events of a {kind} (from a newer Recall) skipped; they stay in the sync "
                "folder and are read again when Recall is updated",
                count,
            ).format(count=wording.number(count), kind=what.removeprefix("unknown event "))
        )
    _hold_far_ahead(transaction, incoming, now)
    return incoming


_REASONS_SHOWN = 3


def set_aside_note(writer: str, device: str, name: str, read: FileRead) -> str:
    """The report's note on the lines of a file set aside: how many, where and why.

    Said once: the next round reads the file on from after them.
    """
    reasons = "; ".join(
        tr("at byte {offset}: {reason}").format(offset=f"{offset:,}", reason=f"{reason:.200}")
        for offset, reason in read.set_aside[:_REASONS_SHOWN]
    )
    more = read.bad - len(read.set_aside)
    if more > 0:
        reasons += tr("; and {count} more").format(count=f"{more:,}")
    return trn(
        "{file}: {count} line that is not an event Recall can merge (what no import would "
        "accept either) set aside ({reasons}); the rest of the file was merged",
        "{file}: {count} lines that are not events Recall can merge (what no import would "
        "accept either) set aside ({reasons}); the rest of the file was merged",
        read.bad,
    ).format(
        file=f"{writer} ({device[:8]})/{name}",
        count=wording.number(read.bad),
        reasons=reasons,
    )


def _hold_far_ahead(transaction: Transaction, incoming: Incoming, now: datetime) -> None:
    """Hold the changes stamped too far ahead; add the held ones whose time came."""
    limit = ahead_limit(now)
    kept: list[Event] = []
    held: list[tuple[str, int, str]] = []
    for event in incoming.events:
        if isinstance(event, FieldEvent) and event.stamp > limit:
            data = field_event(
                event.id, event.type, event.stamp, event.device, event.key, event.fields
            )
            held.append((event.id, event.stamp, json.dumps(data, ensure_ascii=False)))
        else:
            kept.append(event)
    transaction.sync_state.hold_changes(held)
    released = [parse(text.encode()) for text in transaction.sync_state.release_changes(limit)]
    incoming.events = released + kept
    if released:
        incoming.notes.append(
            trn(
                "{count} change held because it was stamped more than a year ahead of this "
                "computer's clock was merged: its clock has come within a year of it",
                "{count} changes held because they were stamped more than a year ahead of this "
                "computer's clock were merged: its clock has come within a year of them",
                len(released),
            ).format(count=wording.number(len(released)))
        )
    count, earliest = transaction.sync_state.held_changes()
    if count:
        first = _merge_day(earliest)
        note = trn(
            "{count} change stamped more than a year ahead of this computer's clock (is it set "
            "right? or was another computer's?) is held, not merged, until this computer's clock "
            "is within a year of it",
            "{count} changes stamped more than a year ahead of this computer's clock (is it set "
            "right? or was another computer's?) are held, not merged, until this computer's "
            "clock is within a year of them",
            count,
        ).format(count=wording.number(count))
        if first:
            note += " " + tr("(the first on {day})").format(day=first)
        incoming.notes.append(note)


def _merge_day(stamp: int | None) -> str | None:
    """The day a change of this stamp is merged, or None past the calendar's end (a stamp
    thousands of years ahead)."""
    try:
        held_until = from_micros(stamp)
        if held_until is None:
            return None
        return f"{held_until - AHEAD_LIMIT - FUTURE_TOLERANCE:%Y-%m-%d}"
    except (OverflowError, ValueError):
        return None


def _writer(base: Path, device: str, name: str) -> str:
    """The name a file's header gives its writer (before the file is read)."""
    try:
        first = next(sync_folder.lines_after(base, device, name, 0), b"")
    except OSError:
        first = b""
    if not isinstance(first, bytes):
        first = b""
    return str(sync_folder.header(first).get("name") or "another computer")


def _size(count: int) -> str:
    if count < 1_000_000:
        return f"{max(1, count // 1000):,} kB"
    return f"{count / 1_000_000:,.1f} MB"


def read_events(
    base: Path,
    device: str,
    name: str,
    offset: int,
    me: str,
    tick: Callable[[int], None] | None = None,
) -> str | FileRead:
    """The events of a file after ``offset``, line by line (``tick`` is told the bytes
    read every few thousand lines); or a note saying why the file is skipped."""
    found: list[Event] = []
    unknown: Counter[str] = Counter()
    first_unknown: int | None = None
    bad = 0
    set_aside: list[tuple[int, str]] = []
    too_long = 0
    end = offset
    seen_name: str | None = None
    lines = 0
    try:
        for line in sync_folder.lines_after(base, device, name, offset):
            if isinstance(line, sync_folder.LongLine):
                if end == 0:
                    return f"{device[:8]}/{name} is not a Recall sync file; skipped, kept"
                too_long += 1
                end += line.size
                if tick is not None:
                    tick(end - offset)
                continue
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
                    if first_unknown is None:
                        first_unknown = end
                except EventError as error:
                    bad += 1
                    if len(set_aside) < _REASONS_SHOWN:
                        set_aside.append((end, str(error)))
            end += len(line)
            lines += 1
            if tick is not None and lines % _LINES_PER_TICK == 0:
                tick(end - offset)
    except OSError as error:
        return f"{device[:8]}/{name} could not be read: {error.strerror or error}"
    return FileRead(seen_name, found, end, unknown, first_unknown, bad, set_aside, too_long)
