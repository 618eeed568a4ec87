"""Importing: read deck files of any supported format, then write them in one transaction.

Formats: Recall's JSON deck, Anki text/CSV exports, Anki packages (``.apkg`` and
``.colpkg``, with their review history and images), Moodle question banks (GIFT
``.gift`` and Moodle XML ``.xml``, with the XML's embedded images), and IMS QTI 2.1 items
(an ``assessmentItem`` ``.xml``, or a ``.zip`` content package with its images). Every file
is read and checked before anything is written; one bad file means nothing is imported.
Images are moved into the media folder inside the same all-or-nothing step.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import stat
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from recall.changes import decks as deck_changes
from recall.collection import deck_merging, imported_history, reimport
from recall.collection._bulk_import import BULK_FROM_CARDS, rows_written
from recall.collection._imported_schedule import write_card_states
from recall.collection.import_report import DeckReport, ImportReport
from recall.collection.imported_presets import give_preset
from recall.collection.spooled_writing import card_total, spool_for, write_spooled
from recall.content import sound
from recall.content.deck_format import CARD_ADAPTER, BasicCard, ChoiceCard, Deck
from recall.content.search_text import search_text
from recall.core import wording
from recall.core.collector import collector_paused
from recall.core.errors import DeckError, DeckErrors, ImportCancelledError, RecallError, printable
from recall.core.i18n import tr, trn
from recall.core.memory import FUTURE_TOLERANCE
from recall.host import paths, workspace
from recall.importers import (
    Cancelled,
    ImportedChange,
    ImportedPackage,
    ImportedReview,
    Progress,
    never_cancelled,
    no_progress,
)
from recall.importers.recall_notes import fields_fingerprint
from recall.scheduling import Schedulers
from recall.storage import Database, DeckRow, NewCard, Transaction

JSON_SUFFIXES = frozenset({".json"})
TEXT_SUFFIXES = frozenset({".txt", ".csv", ".tsv"})
PACKAGE_SUFFIXES = frozenset({".apkg", ".colpkg"})
GIFT_SUFFIXES = frozenset({".gift"})
MOODLE_XML_SUFFIXES = frozenset({".xml"})  # also a lone QTI item, told apart by its root
QTI_PACKAGE_SUFFIXES = frozenset({".zip"})
SUPPORTED_SUFFIXES = (
    JSON_SUFFIXES
    | TEXT_SUFFIXES
    | PACKAGE_SUFFIXES
    | GIFT_SUFFIXES
    | MOODLE_XML_SUFFIXES
    | QTI_PACKAGE_SUFFIXES
)
Entry = TypeVar("Entry", ImportedReview, ImportedChange)


def read_file(
    path: Path,
    staging: Path,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
    plain_templates: bool = True,
) -> ImportedPackage:
    """Read one file in whichever supported format its name says.

    ``plain_templates`` is ``read_apkg``'s: False renders every Anki card through the
    template language (the same cards; for tests and measurement).

    Raises:
        DeckError: The file cannot be read or is not valid; the error says where.
        ImportCancelledError: ``cancelled()`` became true.
    """
    _check_is_a_file(path)
    suffix = path.suffix.lower()
    if suffix in JSON_SUFFIXES:
        from recall.importers.recall_deck import read_recall_deck

        return read_recall_deck(path, staging, progress, cancelled)
    if suffix in TEXT_SUFFIXES:
        from recall.importers.anki_text import read_anki_text

        return read_anki_text(path, progress, cancelled)
    if suffix in PACKAGE_SUFFIXES:
        from recall.importers.apkg import read_apkg

        return read_apkg(path, staging, progress, cancelled, plain_templates)
    if suffix in GIFT_SUFFIXES:
        from recall.importers.gift import read_gift

        return read_gift(path)
    if suffix in MOODLE_XML_SUFFIXES | QTI_PACKAGE_SUFFIXES:
        from recall.importers import qti

        if suffix in QTI_PACKAGE_SUFFIXES or qti.is_qti_item(path):
            return qti.read_qti(path, staging, cancelled)
        from recall.importers.moodle_xml import read_moodle_xml

        return read_moodle_xml(path, staging)
    known = ", ".join(sorted(SUPPORTED_SUFFIXES))
    if not suffix:
        problem = tr("the name has no file type; Recall reads {known} files").format(known=known)
    else:
        problem = tr("Recall cannot import {suffix} files (it reads {known})").format(
            suffix=printable(suffix), known=known
        )
    raise DeckError(str(path), [problem])


def _check_is_a_file(path: Path) -> None:
    """Refuse what is not a file to read: nothing there, a folder, a device or a pipe.

    Raises:
        DeckError: Says which.
    """
    known = ", ".join(sorted(SUPPORTED_SUFFIXES))
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise DeckError(str(path), [tr("no such file")]) from None
    except OSError as error:
        raise DeckError(str(path), [_unreadable(error)]) from None
    if stat.S_ISDIR(mode):
        raise DeckError(
            str(path),
            [
                tr(
                    "is a folder; import the files inside it instead (Recall reads {known} files)"
                ).format(known=known)
            ],
        )
    if not stat.S_ISREG(mode):
        raise DeckError(str(path), [tr("is not a regular file (a device, pipe or socket)")])


def _unreadable(error: OSError) -> str:
    return tr("cannot be read ({reason})").format(reason=error.strerror or error)


def import_files(
    database: Database,
    schedulers: Schedulers,
    files: Sequence[Path],
    now: datetime,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
    bulk: bool | None = None,
    plain_templates: bool = True,
) -> list[ImportReport]:
    """Import files together: each is read and checked first, then all are written at once.

    Args:
        database: Where to import.
        schedulers: Replay imported review history into each card's schedule, under the
            preset of the card's deck.
        files: Deck files of any supported format.
        now: The import's time, aware UTC.
        progress: Called with (done, total) as files are read and cards written.
        cancelled: Checked as the work goes; once true the import stops, writing nothing.
        bulk: Write the rows with the per-row insert triggers lifted and their work done
            once per set (``storage.bulk_rows``): the same rows, faster. None: from
            ``BULK_FROM_CARDS`` cards on; False: row by row, as every other write.
        plain_templates: Fill the Anki templates that only name fields from compiled
            patterns (``read_apkg``): the same cards, faster. False renders every card
            through the template language.

    Raises:
        DeckErrors: At least one file is invalid; every bad file's problems are listed
            and nothing is written.
        ImportCancelledError: The learner stopped the import; nothing is written.
    """
    with collector_paused(), workspace.work_folder(database.path.parent, "import") as staging:
        packages: list[tuple[str, ImportedPackage]] = []
        errors: list[DeckError] = []
        for file in files:
            try:
                package = read_file(file, staging, progress, cancelled, plain_templates)
                packages.append((printable(str(file)), package))
            except DeckError as error:
                errors.append(error)
            except OSError as error:
                errors.append(DeckError(str(file), [_unreadable(error)]))
        if errors:
            raise DeckErrors(errors)
        return _write(database, schedulers, packages, now, progress, cancelled, bulk)


def import_deck(
    database: Database, deck: Deck, now: datetime, keep_edited: bool = False
) -> DeckReport:
    """Add or update one validated deck in a single transaction.

    Args:
        database: Where to write.
        deck: The deck.
        now: The import's time.
        keep_edited: Leave alone what the learner changed in Recall (the bundled decks'
            rule): the deck's name and description once installed, cards edited, tagged or
            moved to another deck. Cards are never deleted either way.
    """
    with database.transaction() as transaction:
        return _write_deck(transaction, deck, now, keep_edited)


def _write(
    database: Database,
    schedulers: Schedulers,
    packages: list[tuple[str, ImportedPackage]],
    now: datetime,
    progress: Progress,
    cancelled: Cancelled,
    bulk: bool | None = None,
    plain_templates: bool = True,
) -> list[ImportReport]:
    media_dir = paths.media_dir(database.path.parent)
    placed: list[Path] = []
    total = sum(card_total(package) for _, package in packages)
    if bulk is None:
        bulk = total >= BULK_FROM_CARDS
    done = 0
    try:
        with database.transaction() as transaction, rows_written(transaction, bulk):
            reports = []
            for source, read in packages:
                targets = deck_merging.deck_targets(transaction, read)
                package = deck_merging.retargeted(read, targets)
                for key, content in read.note_types.items():
                    transaction.note_types.add(key, content)
                # Once per file, not once per deck: each deck's write picks its own cards.
                history = _until(package.reviews, now + FUTURE_TOLERANCE)
                changes = _until(package.changes, now + FUTURE_TOLERANCE)
                decks = []
                for target in targets:
                    deck = target.deck
                    if cancelled():
                        raise ImportCancelledError
                    spooled = spool_for(package, target)
                    if spooled is not None:
                        written = write_spooled(transaction, target, *spooled, now)
                    else:
                        written = _write_deck(
                            transaction,
                            deck,
                            now,
                            modified=package.modified,
                            exported=package.exported,
                        )
                    report = _merged(written, target)
                    imported = package.presets.get(deck.id)
                    if imported is not None:
                        deck_row = transaction.decks.by_key(deck.id)
                        assert deck_row is not None
                        give_preset(transaction, deck_row.id, imported)
                    reviews = imported_history.write_history(
                        transaction,
                        schedulers,
                        deck,
                        history,
                        cancelled,
                        functools.partial(_replayed, progress, done, len(deck.cards), total),
                        changes,
                    )
                    write_card_states(transaction, deck, package.card_states)
                    decks.append(_with_reviews(report, reviews))
                    done += spooled[0].count if spooled else len(deck.cards)
                    progress(done, total)
                placed += _place_media(package, media_dir)
                parents = deck_changes.add_parents(transaction, now)
                notes = [*package.notes, *_future_note(package, now), *_parent_notes(parents)]
                kinds = [sound.kind_of(item.name) for item in package.media]
                reports.append(
                    ImportReport(
                        source,
                        decks,
                        media=kinds.count(None),
                        notes=notes,
                        sounds=kinds.count(sound.MediaKind.SOUND),
                        videos=kinds.count(sound.MediaKind.EXTERNAL),
                    )
                )
            if cancelled():
                raise ImportCancelledError
    except BaseException:
        for path in placed:
            path.unlink(missing_ok=True)
        raise
    return reports


def _until(
    reviews: dict[tuple[str, str], list[Entry]], latest: datetime
) -> dict[tuple[str, str], list[Entry]]:
    """The entries dated no later than ``latest``: one from the future is left out."""
    return {
        key: [review for review in history if review.reviewed_at <= latest]
        for key, history in reviews.items()
    }


def _future_note(package: ImportedPackage, now: datetime) -> list[str]:
    latest = now + FUTURE_TOLERANCE
    future = [
        review.reviewed_at
        for history in package.reviews.values()
        for review in history
        if review.reviewed_at > latest
    ]
    if not future:
        return []
    return [
        trn(
            "{count} review dated after now (the latest {latest} UTC) was left out: the clock "
            "of the machine that made them was probably wrong. The file is unchanged; import it "
            "again once that time has passed to bring them in",
            "{count} reviews dated after now (the latest {latest} UTC) were left out: the clock "
            "of the machine that made them was probably wrong. The file is unchanged; import it "
            "again once that time has passed to bring them in",
            len(future),
        ).format(count=wording.number(len(future)), latest=f"{max(future):%Y-%m-%d %H:%M}")
    ]


def _replayed(progress: Progress, done: int, cards: int, total: int, count: int) -> None:
    """Progress while a deck's history is replayed: ``count`` of its cards are done."""
    progress(done + min(count, cards), total)


def _merged(report: DeckReport, target: deck_merging.DeckTarget) -> DeckReport:
    """The deck's report saying which of the file's decks were merged into it."""
    if not target.merged_from:
        return report
    return dataclasses.replace(
        report, merged_from=target.merged_from, merged_into_existing=bool(target.existing_name)
    )


def _parent_notes(parents: list[DeckRow]) -> list[str]:
    return [
        tr("added the deck {deck} ({key}) to hold its subdecks, as Anki has it").format(
            deck=repr(deck.name), key=deck.key
        )
        for deck in parents
    ]


def _with_reviews(report: DeckReport, reviews: int) -> DeckReport:
    return DeckReport(**{**report.__dict__, "reviews": reviews})


def _place_media(package: ImportedPackage, media_dir: Path) -> list[Path]:
    """Move staged media into the media folder; returns the files that are new there."""
    media_dir.mkdir(parents=True, exist_ok=True)
    placed = []
    for item in package.media:
        target = media_dir / item.name
        if target.exists():
            continue
        try:
            shutil.move(item.path, target)
        except OSError as error:
            raise RecallError(
                tr("cannot copy {file} into {folder}: {reason}").format(
                    file=item.name, folder=media_dir, reason=error.strerror
                )
            ) from None
        placed.append(target)
    return placed


def _write_deck(
    transaction: Transaction,
    deck: Deck,
    now: datetime,
    keep_edited: bool = False,
    modified: dict[tuple[str, str], datetime] | None = None,
    exported: dict[tuple[str, str], str] | None = None,
) -> DeckReport:
    existing = transaction.decks.by_key(deck.id)
    if existing is None:
        deck_row = transaction.decks.add(deck.id, deck.name, deck.description, now)
    else:
        deck_row = existing
        if not keep_edited and (existing.name, existing.description) != (
            deck.name,
            deck.description,
        ):
            transaction.decks.rename(existing.id, deck.name, deck.description, now)
    known = transaction.cards.keys(deck_row.id)
    away = transaction.cards.moved_away(deck.id)
    edited = transaction.browsing.edited_keys(deck_row.id) if keep_edited else set()
    marks = transaction.cards.changed_marks(deck_row.id) if not keep_edited else {}
    changed_at = modified or {}
    to_add: list[NewCard] = []
    moved: list[tuple[int, int]] = []
    updated = unchanged = newer_kept = noted = kept_sides = elsewhere = 0
    for position, card in enumerate(deck.cards):
        file_key = card.id
        stored = known.get(file_key)
        there = away.get(file_key) if stored is None else None
        if file_key in edited or (there is not None and keep_edited):
            unchanged += 1  # a moved card is one the learner changed
            continue
        if stored is None and there is None:
            to_add.append(_new_card(card, position))
            continue
        mark: tuple[datetime, bool] | None
        if there is not None:
            # Where the learner put it: under its key there, at its place in that deck.
            stored, card, mark = reimport.where_moved(there, card)
            position = there.stored.position
            elsewhere += 1
        else:
            assert stored is not None
            mark = marks.get(card.id)
            if exported and _as_exported(deck.id, card.id, stored.content, exported):
                unchanged += 1  # back from Anki as Recall wrote it: the card keeps its text
                if stored.position != position:
                    moved.append((stored.id, position))
                continue
        outcome = reimport.compare(stored, card, mark, changed_at.get((deck.id, file_key)))
        kept_sides += outcome.kept_sides
        if outcome.content is None:
            newer_kept += outcome.newer_kept
            unchanged += not outcome.newer_kept
            if stored.position != position:
                moved.append((stored.id, position))
            continue
        transaction.cards.update(
            stored.id, NewCard(card.id, position, card.type, outcome.content), now
        )
        updated += 1
        noted += outcome.gained_note
    transaction.cards.set_positions(moved)
    added = transaction.cards.add(deck_row.id, to_add, now)
    file_keys = {card.id for card in deck.cards}
    return DeckReport(
        deck_key=deck.id,
        deck_name=deck.name,
        new_deck=existing is None,
        added=added,
        updated=updated,
        unchanged=unchanged,
        kept=sum(1 for key in known if key not in file_keys),
        newer_kept=newer_kept,
        noted=noted,
        kept_sides=kept_sides,
        elsewhere=elsewhere,
    )


def _new_card(card: BasicCard | ChoiceCard, position: int) -> NewCard:
    return NewCard(
        key=card.id,
        position=position,
        kind=card.type,
        content=card.model_dump_json(exclude_defaults=True),
        search_text=search_text(card),
    )


def _as_exported(
    deck_key: str, card_key: str, content: str, exported: dict[tuple[str, str], str]
) -> bool:
    """Whether a note Recall exported came back with the fields it was exported with."""
    fingerprint = exported.get((deck_key, card_key))
    if fingerprint is None:
        return False
    from recall.collection.anki_package import note_fields

    return fields_fingerprint(note_fields(CARD_ADAPTER.validate_json(content))) == fingerprint
