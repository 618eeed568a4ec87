"""One sync round: send this device's changes, then read and merge the other devices' files.

Two transactions. The first turns the outbox into events, writes them as one new file
(temporary name, flush, rename) and only then commits; killed before the commit, the
round sends the same changes again next time, and merging by id makes the copy harmless.
The second reads what is new in every device's files, merges it and remembers how far
each file was read; killed before its commit, nothing of it happened and the files are
read again. Cancel is asked inside the long loops (writing, reading, replaying); a round
cancelled in a step leaves that step undone (each is one transaction).

When this device's file cannot be written (a read-only or full sync folder), the
changes are stamped all the same and kept in the database (``sync_pending``), the round
still receives, and the next round that can write sends them first.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from recall.core import wording
from recall.core.errors import CancelledError, RecallError
from recall.core.i18n import tr, trn
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.storage.times import to_micros
from recall.sync import deletions, media, moves, note_types
from recall.sync import folder as sync_folder
from recall.sync.clock import Clock
from recall.sync.incoming import FileRead, collect, read_events
from recall.sync.merge import Merger
from recall.sync.outgoing import Collector, review_events
from recall.sync.report import SyncReport
from recall.sync.seeds import reseed_carried_over
from recall.sync.settings import identify

# How many times a round sends again when changes were made here while it ran, before it
# leaves receiving to the next round.
_SEND_ATTEMPTS = 3


class NoSyncFolderError(RecallError):
    """No sync folder was given and none was chosen before."""


def no_description(_text: str) -> None:
    """A ``describe`` that shows nothing (the command line)."""


@dataclass
class _Sent:
    """What one attempt at sending did."""

    counts: Counter[str] = field(default_factory=Counter)
    file: str | None = None
    snapshot: bool = False
    problem: str | None = None
    reason: str | None = None
    kept: int = 0


def sync(
    database: Database,
    now: datetime,
    folder: Path | None = None,
    name: str | None = None,
    schedulers: Schedulers | None = None,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
    describe: Callable[[str], None] = no_description,
) -> SyncReport:
    """Do one round through ``folder`` (remembered for next time), or the one chosen before.

    Args:
        progress: Told the work done in the step running (events written, bytes read,
            cards rescheduled), against its total.
        describe: Told what the step running does, in words, as it starts.

    Raises:
        NoSyncFolderError: No folder given and none chosen before.
        SyncFolderError: The folder cannot be used.
        CancelledError: ``cancelled()`` turned true; the step running changed nothing.
    """
    schedulers = schedulers or Schedulers()
    with database.transaction() as transaction:
        device = identify(transaction, now, name)
        if folder is None:
            if device.folder is None:
                raise NoSyncFolderError(
                    tr("no sync folder chosen: name one with --folder (it is remembered)")
                )
            folder = Path(device.folder)
        folder = folder.expanduser().absolute()
        base = sync_folder.root(folder)
        if device.folder != str(folder):
            transaction.sync_state.update_device(folder=str(folder))
    notes: list[str] = sync_folder.not_read(base)
    sent = _Sent()
    received: Counter[str] = Counter()
    replayed = 0
    for _attempt in range(_SEND_ATTEMPTS):
        describe(tr("Writing this computer's changes..."))
        more = _send(database, base, now, cancelled, notes, schedulers, progress)
        sent.counts += more.counts
        sent.file = more.file or sent.file
        sent.snapshot = sent.snapshot or more.snapshot
        sent.problem, sent.reason, sent.kept = more.problem, more.reason, more.kept
        if cancelled():
            raise CancelledError(tr("sync stopped after sending; nothing was received"))
        describe(tr("Looking for the other computers' changes..."))
        done = _receive(database, base, now, schedulers, progress, describe, cancelled)
        if done is not None:
            received, more_notes, replayed = done
            notes += more_notes
            break
    else:
        notes.append(
            tr(
                "changes were made here while this round ran: what the others sent is merged "
                "at the next round"
            )
        )
    media.fetch(database, base, received, notes, cancelled, progress, describe)
    with database.reading() as transaction:
        device = transaction.sync_state.device() or device
        devices = [seen for seen in transaction.sync_state.seen_devices() if seen[0] != device.id]
    return SyncReport(
        device=(device.id, device.name),
        folder=folder,
        sent=sent.counts,
        received=received,
        devices=devices,
        notes=notes,
        file=sent.file,
        snapshot=sent.snapshot,
        replayed=replayed,
        problem=sent.problem,
        reason=sent.reason,
        kept=sent.kept,
    )


def _send(
    database: Database,
    base: Path,
    now: datetime,
    cancelled: Cancelled,
    notes: list[str],
    schedulers: Schedulers,
    progress: Progress,
) -> _Sent:
    micros = to_micros(now)
    assert micros is not None
    result = _Sent()
    with database.transaction() as transaction:
        device = transaction.sync_state.device()
        assert device is not None
        sync_folder.remove_temporary(base, device.id)
        known = transaction.sync_state.files()
        own = {name for (dev, name), (_, mine) in known.items() if dev == device.id and mine}
        present = sync_folder.event_files(base, device.id)
        lost = sorted(own - set(present))
        if lost:
            transaction.sync_state.forget_files(device.id, lost)
        # Another computer's folder gone (a retired computer's, cleaned away): what it sent
        # lives on here only, so this round sends everything, for computers yet to come.
        folders = set(sync_folder.devices(base))
        gone = sorted({dev for dev, _ in known if dev != device.id and dev not in folders})
        for other in gone:
            transaction.sync_state.forget_files(
                other, [name for dev, name in known if dev == other]
            )
        if gone:
            notes.append(
                trn(
                    "the folder of {count} other computer is gone: everything was sent again",
                    "the folder of {count} other computers are gone: everything was sent again",
                    len(gone),
                ).format(count=wording.number(len(gone)))
            )
        snapshot = not own or bool(lost) or bool(gone) or device.owes_snapshot
        if snapshot:
            reseeded = reseed_carried_over(transaction, schedulers)
            if reseeded:
                notes.append(
                    trn(
                        "{count} card from before cards had seeds was given one of its own and "
                        "rescheduled from its history (docs/sync.md)",
                        "{count} cards from before cards had seeds were given one of their own "
                        "and rescheduled from their history (docs/sync.md)",
                        reseeded,
                    ).format(count=wording.number(reseeded))
                )
        if moves.rekey_returned(transaction):
            notes.append(
                tr("a card moved back to keys the other computers hold as deleted got a new key")
            )
        # Each change is stamped when it was made (or just after the last stamp seen), not
        # when it is sent: of two edits of one field, the later wins, whichever computer
        # syncs last.
        clock = Clock(device.clock)
        upto = transaction.sync_state.outbox_end()
        out = Collector(transaction, device.id, clock, schedulers).changes(upto, snapshot, micros)
        transaction.sync_state.quiet(True)
        for kind, key, card in out.redeleted:
            if kind == "card":
                found = transaction.sync_local.cards([(key, card)])
                transaction.sync_local.delete_cards([found[(key, card)][0]] if found else [])
            elif kind == "deck" and (deck := transaction.sync_local.decks([key]).get(key)):
                transaction.sync_local.delete_deck(deck[0])
        transaction.sync_state.quiet(False)
        if out.redeleted:
            notes.append(
                trn(
                    "{count} deck or card made here again after another device deleted it was "
                    "removed: a deletion is final (docs/sync.md)",
                    "{count} decks or cards made here again after another device deleted them "
                    "were removed: a deletion is final (docs/sync.md)",
                    len(out.redeleted),
                ).format(count=wording.number(len(out.redeleted)))
            )
        if snapshot:
            transaction.sync_state.clear_pending()  # everything is sent: what waited too
        pending = transaction.sync_state.pending_count()
        reviews = transaction.history.count() if out.all_reviews else len(out.reviews)
        total = pending + len(out.fields) + reviews + len(out.unreviews)
        sent = result.counts

        def fresh() -> Iterator[dict[str, object]]:
            yield from out.fields
            yield from review_events(transaction, out)

        def events() -> Iterator[dict[str, object]]:
            waiting = (json.loads(text) for text in transaction.sync_state.pending())
            for event in itertools.chain(waiting if pending else (), fresh()):
                sent[str(event["type"])] += 1
                if sum(sent.values()) % 1_000 == 0:
                    progress(sum(sent.values()), total)
                    if cancelled():
                        raise CancelledError(tr("sync stopped; nothing was changed"))
                yield event

        progress(0, total)
        written: sync_folder.Written | None = None
        try:
            sync_folder.own_folder(base, device.id)  # never written through a link
            if not snapshot:
                # This device's media/ gone while its event files stayed: the files its
                # cards use are written again, for the devices still waiting for them.
                media.send_again_if_lost(
                    transaction, database, base / device.id, sent, notes, cancelled
                )
            if total:
                # The files the cards refer to go first, so that a device reading the card
                # can find them (those of the changes kept from an earlier round too).
                waiting = (json.loads(text) for text in transaction.sync_state.pending())
                sending = list(itertools.chain(waiting if pending else (), out.fields))
                media.send(transaction, database, base / device.id, sending, sent, notes, cancelled)
                note_types.send(transaction, base / device.id)
                written = sync_folder.write_file(
                    base,
                    device.id,
                    device.next_file,
                    {"device": device.id, "name": device.name, "written": micros},
                    events(),
                    note_types.file_format(transaction),
                )
        except sync_folder.SyncWriteError as error:
            # Stamped all the same and kept here, so that receiving can go on: merging
            # never meets a change of this computer that has no stamp.
            sent.clear()
            result.problem, result.reason = str(error), error.reason
            if snapshot:
                transaction.sync_state.update_device(owes_snapshot=True)
                result.kept = -1
            else:
                transaction.sync_state.keep_pending(
                    json.dumps(event, ensure_ascii=False) for event in fresh()
                )
                result.kept = transaction.sync_state.pending_count()
        if cancelled():
            raise CancelledError(tr("sync stopped; nothing was changed"))
        progress(total, total)
        if written is not None:
            transaction.sync_state.set_file(device.id, written.name, written.size, own=True)
            transaction.sync_state.clear_pending()
        if result.problem is None:
            transaction.sync_state.update_device(owes_snapshot=False)
        transaction.sync_state.clear_outbox(upto)
        transaction.sync_state.update_device(
            clock=clock.value, next_file=device.next_file + (written is not None)
        )
    result.file = None if written is None else written.name
    result.snapshot = snapshot
    return result


def _receive(
    database: Database,
    base: Path,
    now: datetime,
    schedulers: Schedulers,
    progress: Progress,
    describe: Callable[[str], None],
    cancelled: Cancelled,
) -> tuple[Counter[str], list[str], int] | None:
    """Merge what is new in the folder; None (nothing done) when a change was made here
    after this round sent: merging over a change not yet stamped would overwrite it."""
    with database.transaction() as transaction:
        if transaction.sync_state.outbox_end():
            return None
        device = transaction.sync_state.device()
        assert device is not None
        incoming = collect(transaction, base, device.id, now, progress, describe, cancelled)
        notes = incoming.notes
        # Before anything is deleted here on another computer's word: counted, and backed
        # up when many.
        notes += deletions.back_up_if_many(
            database,
            now,
            deletions.count(transaction, incoming.events, incoming.origins),
            dict(transaction.sync_state.seen_devices()),
        )
        clock = Clock(device.clock)
        merging = len(incoming.events)
        describe(
            trn("Merging {count} change...", "Merging {count} changes...", merging).format(
                count=wording.number(merging)
            )
        )
        progress(0, 0)  # no count of its own: the dialog shows it is busy

        def replaying(done: int, total: int) -> None:
            if done == 0:
                describe(
                    trn(
                        "Rescheduling {count} card from their history...",
                        "Rescheduling {count} cards from their history...",
                        total,
                    ).format(count=wording.number(total))
                )
            progress(done, total)

        merged = Merger(transaction, schedulers, clock, now).apply(
            incoming.events, replaying, cancelled
        )
        media.want(transaction, incoming.events, database)
        notes += note_types.receive(transaction, base)
        if cancelled():
            raise CancelledError(tr("sync stopped after sending; nothing was received"))
        known = transaction.sync_state.files()
        for other, name, end in incoming.positions:
            mine = known.get((other, name), (0, False))[1]
            transaction.sync_state.set_file(other, name, end, own=mine)
        transaction.sync_state.update_device(clock=clock.value, last_sync=to_micros(now))
        notes += merged.notes
        held = transaction.sync_state.held_count()
        if held:
            notes.append(
                trn(
                    "{count} review held: their card is still on its way, or their time has not "
                    "come",
                    "{count} reviews held: their card is still on its way, or their time has not "
                    "come",
                    held,
                ).format(count=wording.number(held))
            )
    return merged.received, notes, merged.replayed


__all__ = ["FileRead", "NoSyncFolderError", "SyncReport", "read_events", "sync"]
