"""Importing: read deck files of any supported format, then write them in one transaction.

Formats: Recall's JSON deck, Anki text/CSV exports, and Anki packages (``.apkg`` and
``.colpkg``, with their review history and images). Every file is read and checked before
anything is written; one bad file means nothing is imported. Images are moved into the media folder
inside the same all-or-nothing step.
"""

from __future__ import annotations

import functools
import shutil
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from recall.content import sound
from recall.content.deck_format import Deck
from recall.core.errors import DeckError, DeckErrors, ImportCancelledError, RecallError, printable
from recall.core.memory import FUTURE_TOLERANCE, MemoryState
from recall.host import paths, workspace
from recall.importers import (
    Cancelled,
    ImportedPackage,
    ImportedReview,
    Progress,
    never_cancelled,
    no_progress,
)
from recall.scheduling import PastReview, Schedulers
from recall.storage import Database, NewCard, NewReview, Transaction

JSON_SUFFIXES = frozenset({".json"})
TEXT_SUFFIXES = frozenset({".txt", ".csv", ".tsv"})
PACKAGE_SUFFIXES = frozenset({".apkg", ".colpkg"})
CANCEL_CHECK_CARDS = 200  # replaying a card's history is slow enough to check this often
SUPPORTED_SUFFIXES = JSON_SUFFIXES | TEXT_SUFFIXES | PACKAGE_SUFFIXES


@dataclass(frozen=True)
class DeckReport:
    """What importing changed in one deck.

    Attributes:
        kept: Cards the database has that the file no longer lists; import never deletes.
        reviews: Reviews added from the file's history.
    """

    deck_key: str
    deck_name: str
    new_deck: bool
    added: int
    updated: int
    unchanged: int
    kept: int
    reviews: int = 0

    def describe(self, with_key: bool = True) -> str:
        """One line for the terminal (with the deck's id, which commands take) or the
        window (``with_key`` False: the deck's name alone, as the deck list shows it)."""
        verb = "added deck" if self.new_deck else "updated deck"
        # "added", not "new": an imported card may come with its history, no new card then.
        counts = f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged cards"
        if self.reviews:
            counts += f", {self.reviews} reviews"
        if self.kept:
            counts += f"; {self.kept} kept that the file no longer lists"
        key = f" ({self.deck_key})" if with_key else ""
        return f"{verb} {self.deck_name!r}{key}: {counts}"


@dataclass(frozen=True)
class ImportReport:
    """What importing one file did: its decks, its media, and notes on what was left out.

    Attributes:
        media: Images kept.
        sounds: Sounds kept (played in Recall).
        videos: Videos kept (opened with the system's player).
    """

    source: str
    decks: list[DeckReport]
    media: int = 0
    notes: list[str] = field(default_factory=list)
    sounds: int = 0
    videos: int = 0

    def lines(self, with_source: bool = True, with_keys: bool = True) -> list[str]:
        """The report as lines: one per deck, then the images, then each note.

        Args:
            with_source: Start each line with the file's name, as the terminal shows it.
            with_keys: Name each deck's id too, as the terminal shows it (commands take it).
        """
        lines = [deck.describe(with_keys) for deck in self.decks]
        kept = [
            f"{count} {word}{'s' if count != 1 else ''}"
            for count, word in (
                (self.media, "image"),
                (self.sounds, "sound"),
                (self.videos, "video"),
            )
            if count
        ]
        if kept:
            lines.append(", ".join(kept))
        lines += [f"note: {note}" for note in self.notes]
        return [f"{self.source}: {line}" for line in lines] if with_source else lines


def read_file(
    path: Path,
    staging: Path,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> ImportedPackage:
    """Read one file in whichever supported format its name says.

    Raises:
        DeckError: The file cannot be read or is not valid; the error says where.
        ImportCancelledError: ``cancelled()`` became true.
    """
    _check_is_a_file(path)
    suffix = path.suffix.lower()
    if suffix in JSON_SUFFIXES:
        from recall.importers.recall_deck import read_recall_deck

        return read_recall_deck(path, staging)
    if suffix in TEXT_SUFFIXES:
        from recall.importers.anki_text import read_anki_text

        return read_anki_text(path, progress, cancelled)
    if suffix in PACKAGE_SUFFIXES:
        from recall.importers.apkg import read_apkg

        return read_apkg(path, staging, progress, cancelled)
    known = ", ".join(sorted(SUPPORTED_SUFFIXES))
    if not suffix:
        problem = f"the name has no file type; Recall reads {known} files"
    else:
        problem = f"Recall cannot import {printable(suffix)} files (it reads {known})"
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
        raise DeckError(str(path), ["no such file"]) from None
    except OSError as error:
        raise DeckError(str(path), [f"cannot be read ({error.strerror or error})"]) from None
    if stat.S_ISDIR(mode):
        raise DeckError(
            str(path),
            [f"is a folder; import the files inside it instead (Recall reads {known} files)"],
        )
    if not stat.S_ISREG(mode):
        raise DeckError(str(path), ["is not a regular file (a device, pipe or socket)"])


def import_files(
    database: Database,
    schedulers: Schedulers,
    files: Sequence[Path],
    now: datetime,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
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

    Raises:
        DeckErrors: At least one file is invalid; every bad file's problems are listed
            and nothing is written.
        ImportCancelledError: The learner stopped the import; nothing is written.
    """
    with workspace.work_folder(database.path.parent, "import") as staging:
        packages: list[tuple[str, ImportedPackage]] = []
        errors: list[DeckError] = []
        for file in files:
            try:
                package = read_file(file, staging, progress, cancelled)
                packages.append((printable(str(file)), package))
            except DeckError as error:
                errors.append(error)
            except OSError as error:
                errors.append(DeckError(str(file), [f"cannot be read ({error.strerror or error})"]))
        if errors:
            raise DeckErrors(errors)
        return _write(database, schedulers, packages, now, progress, cancelled)


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
) -> list[ImportReport]:
    media_dir = paths.media_dir(database.path.parent)
    placed: list[Path] = []
    total = sum(len(deck.cards) for _, package in packages for deck in package.decks)
    done = 0
    try:
        with database.transaction() as transaction:
            reports = []
            for source, package in packages:
                decks = []
                for deck in package.decks:
                    if cancelled():
                        raise ImportCancelledError
                    report = _write_deck(transaction, deck, now)
                    history = _until(package.reviews, now + FUTURE_TOLERANCE)
                    reviews = _write_history(
                        transaction,
                        schedulers,
                        deck,
                        history,
                        cancelled,
                        functools.partial(_replayed, progress, done, len(deck.cards), total),
                    )
                    decks.append(_with_reviews(report, reviews))
                    done += len(deck.cards)
                    progress(done, total)
                placed += _place_media(package, media_dir)
                notes = [*package.notes, *_future_note(package, now)]
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
    reviews: dict[tuple[str, str], list[ImportedReview]], latest: datetime
) -> dict[tuple[str, str], list[ImportedReview]]:
    """The reviews dated no later than ``latest``: a review from the future is left out."""
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
        f"{len(future)} review(s) dated after now (the latest {max(future):%Y-%m-%d %H:%M} UTC) "
        "were left out: the clock of the machine that made them was probably wrong. The file "
        "is unchanged; import it again once that time has passed to bring them in"
    ]


def _replayed(progress: Progress, done: int, cards: int, total: int, count: int) -> None:
    """Progress while a deck's history is replayed: ``count`` of its cards are done."""
    progress(done + min(count, cards), total)


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
                f"cannot copy {item.name} into {media_dir}: {error.strerror}"
            ) from None
        placed.append(target)
    return placed


def _write_deck(
    transaction: Transaction, deck: Deck, now: datetime, keep_edited: bool = False
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
    edited = transaction.browsing.edited_keys() if keep_edited else set()
    to_add: list[NewCard] = []
    updated = unchanged = 0
    for position, card in enumerate(deck.cards):
        incoming = NewCard(
            key=card.id,
            position=position,
            kind=card.type,
            content=card.model_dump_json(exclude_defaults=True),
        )
        stored = known.get(card.id)
        if card.id in edited:
            unchanged += 1
            continue
        if stored is None:
            to_add.append(incoming)
            continue
        if (stored.position, stored.kind, stored.content) == (
            position,
            card.type,
            incoming.content,
        ):
            unchanged += 1
        else:
            transaction.cards.update(stored.id, incoming, now)
            updated += 1
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
    )


def _write_history(
    transaction: Transaction,
    schedulers: Schedulers,
    deck: Deck,
    reviews: dict[tuple[str, str], list[ImportedReview]],
    cancelled: Cancelled = never_cancelled,
    replayed: Callable[[int], object] = lambda _count: None,
) -> int:
    """Append a deck's imported reviews that are not stored yet, and replay each card.

    Every ``CANCEL_CHECK_CARDS`` cards ``cancelled`` is asked and ``replayed`` told how
    many cards are done.

    A review counts as stored when the card already has one at the same moment, so
    importing the same history twice adds it once. Each card is replayed over its whole
    history in time order, so a review older than one already stored lands where it
    belongs and the schedule is the one a fresh import of the same history gives.
    """
    incoming = {
        card_key: history
        for (deck_key, card_key), history in reviews.items()
        if deck_key == deck.id
    }
    if not incoming:
        return 0
    deck_row = transaction.decks.by_key(deck.id)
    assert deck_row is not None
    scheduler = schedulers.for_deck(transaction.options.deck_presets(), deck_row.id)
    keys = transaction.cards.keys(deck_row.id)
    stored = {card.id: history for card, history in transaction.history.per_card(deck_row.id)}
    rows: list[NewReview] = []
    memories: dict[int, MemoryState] = {}
    for count, (card_key, history) in enumerate(incoming.items(), 1):
        if count % CANCEL_CHECK_CARDS == 0:
            if cancelled():
                raise ImportCancelledError
            replayed(count)
        card_id, seed = keys[card_key].id, keys[card_key].seed
        past = [
            PastReview(review.reviewed_at, review.rating, review.kind, review.set_due)
            for review in stored.get(card_id, [])
        ]
        seen = {review.reviewed_at for review in past}
        new = sorted(
            (review for review in history if review.reviewed_at not in seen),
            key=lambda item: item.reviewed_at,
        )
        if not new:
            continue
        merged = sorted(
            [*past, *(PastReview(review.reviewed_at, review.rating) for review in new)],
            key=lambda item: item.reviewed_at,
        )
        states, memory = scheduler.replay_with_states(seed, merged)
        for review in new:
            rows.append(
                NewReview.rated(
                    card_id=card_id,
                    reviewed_at=review.reviewed_at,
                    rating=review.rating,
                    duration_ms=review.duration_ms,
                    state_before=states[review.reviewed_at],
                )
            )
        memories[card_id] = memory
    transaction.history.add_many(rows)
    transaction.cards.set_memories(memories.items())
    return len(rows)
