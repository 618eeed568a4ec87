"""Anki ``.apkg`` packages: decks, cards, tags, images and review history."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.deckfile import BasicCard, Deck
from recall.errors import DeckError, ImportCancelledError
from recall.importers import (
    Cancelled,
    ImportedPackage,
    ImportedReview,
    Progress,
    never_cancelled,
    no_progress,
)
from recall.importers._cards import (
    CardBounds,
    FieldTooLargeError,
    html_card,
    is_blank,
    make_deck,
)
from recall.importers._collection import (
    NEWER_ANKI_ADVICE,
    AnkiCard,
    AnkiNote,
    Collection,
    NoteType,
    open_collection,
)
from recall.importers._media import MediaStager, count_audio_video, without_sounds
from recall.importers._report import Tally, counted
from recall.importers._zip import SafeZip
from recall.importers.cloze import cloze_faces, cloze_numbers
from recall.memory import Rating

# Limits on an untrusted package, in unpacked bytes counted as they are read.
MAX_ENTRIES = 100_000  # checked from the zip's end record, before its directory is loaded
MAX_TOTAL_BYTES = 2 * 1024**3  # everything unpacked from one package
MAX_COLLECTION_BYTES = 1024**3
MAX_MEDIA_LIST_BYTES = 32 * 1024**2
MAX_IMAGE_BYTES = 64 * 1024**2  # one image
# Anki stops its answer clock at 60 s by default; longer is the learner walking away.
MAX_DURATION_MS = 60 * 60 * 1000

COLLECTION_ENTRIES = ("collection.anki21", "collection.anki2")
NEWER_COLLECTION_ENTRY = "collection.anki21b"
MEDIA_ENTRY = "media"
PLACEHOLDER_TEXT = "update to the latest anki"
CHECK_EVERY = 500

MANUAL_KINDS = frozenset({4, 5})  # Anki's revlog types: manual, rescheduled
CRAM_KIND = 3  # a review in a filtered deck
REVIEW_KINDS = frozenset({0, 1, 2})  # learning, review, relearning
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def read_apkg(
    path: Path,
    staging: Path,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> ImportedPackage:
    """Read an Anki package exported with "Support older Anki versions".

    Each Anki card becomes a basic HTML card ``anki-<card id>`` in the deck
    ``anki-deck-<deck id>`` named as in Anki (with ``::``), so importing the package again
    updates the same cards. Cloze notes give one card per deletion.

    The package is untrusted: entries are read by name, never extracted by name, and
    unpacking stops at the limits above (100,000 entries; 2 GiB in all; 1 GiB for the
    collection, 32 MiB for the media list, 64 MiB per image) whatever the zip's headers
    claim. The collection is opened read-only with ``trusted_schema=OFF`` after
    ``PRAGMA quick_check``. Review times are capped at one hour (``MAX_DURATION_MS``);
    manual, rescheduling and cram entries are left out of the history.

    Args:
        path: The ``.apkg`` file.
        staging: An existing folder inside the data directory. The temporary copy of the
            collection lives here while the package is read and is always removed; the
            images the cards show are left here for the caller to move (they are removed
            again if reading fails).
        progress: Called with (done, total) over the package's cards and review rows.
        cancelled: Checked every few hundred cards or review rows and between chunks of
            the collection as it is unpacked.

    Returns:
        The decks, the history by (deck id, card id), the staged images, and notes on what
        was left out.

    Raises:
        DeckError: The file is not a package Recall can read; the problem names the zip
            entry, note or card.
        ImportCancelledError: ``cancelled()`` became true.
    """
    source = str(path)
    stager: MediaStager | None = None
    try:
        with SafeZip.open(path, source, MAX_ENTRIES, MAX_TOTAL_BYTES) as archive:
            entry = _collection_entry(archive, source)
            stager = MediaStager(
                archive, _media_entries(archive, source), staging, source, MAX_IMAGE_BYTES
            )
            copy = _copy_collection(archive, entry, staging, source, cancelled)
            try:
                with open_collection(copy, entry, source) as collection:
                    reader = _PackageReader(collection, stager, source, progress, cancelled)
                    return reader.read()
            finally:
                for suffix in ("", "-journal", "-wal", "-shm"):
                    Path(f"{copy}{suffix}").unlink(missing_ok=True)
    except BaseException:
        for created in stager.created if stager else []:
            created.unlink(missing_ok=True)
        raise


def _collection_entry(archive: SafeZip, source: str) -> str:
    """The collection to read: Anki 2.1's, else Anki 2.0's; the newer zstd one is refused."""
    newest, oldest = COLLECTION_ENTRIES
    if archive.has(newest):
        return newest
    if archive.has(NEWER_COLLECTION_ENTRY):
        raise DeckError(
            source,
            [
                f"zip entry {NEWER_COLLECTION_ENTRY!r}: made by a newer Anki in a format Recall "
                f"cannot read; {NEWER_ANKI_ADVICE}"
            ],
        )
    if archive.has(oldest):
        return oldest
    names = archive.names()
    listing = ", ".join(repr(name) for name in names[:10]) or "nothing"
    if len(names) > 10:
        listing += f" and {len(names) - 10} more entries"
    raise DeckError(source, [f"no Anki collection inside (the zip holds {listing})"])


def _media_entries(archive: SafeZip, source: str) -> dict[str, str]:
    """The zip entry of each media file, by its name in Anki (the ``media`` JSON inverted)."""
    if not archive.has(MEDIA_ENTRY):
        return {}
    where = f"zip entry {MEDIA_ENTRY!r}"
    data = archive.read(MEDIA_ENTRY, MAX_MEDIA_LIST_BYTES)
    try:
        listing = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise DeckError(
            source, [f"{where}: the media list is in a newer Anki's format; {NEWER_ANKI_ADVICE}"]
        ) from None
    if not isinstance(listing, dict) or not all(isinstance(v, str) for v in listing.values()):
        raise DeckError(source, [f"{where}: not the media list Anki writes"])
    entries: dict[str, str] = {}
    for entry, name in listing.items():
        entries.setdefault(name, entry)
    return entries


def _copy_collection(
    archive: SafeZip, entry: str, staging: Path, source: str, cancelled: Cancelled
) -> Path:
    """Unpack the collection into a file with a generated name in ``staging``."""
    failure = f"cannot copy the collection into {staging}"
    try:
        descriptor, name = tempfile.mkstemp(prefix=".collection-", suffix=".anki2", dir=staging)
    except OSError as error:
        raise DeckError(source, [f"{failure} ({error.strerror})"]) from None
    copy = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as file:
            archive.unpack(entry, MAX_COLLECTION_BYTES, file.write, cancelled)
    except OSError as error:
        copy.unlink(missing_ok=True)
        raise DeckError(source, [f"{failure} ({error.strerror})"]) from None
    except BaseException:
        copy.unlink(missing_ok=True)
        raise
    return copy


def _moment(milliseconds: int) -> datetime | None:
    """A revlog id as aware UTC, or None when it is no plausible moment."""
    if milliseconds < 0:
        return None
    try:
        return _EPOCH + timedelta(milliseconds=milliseconds)
    except OverflowError:
        return None


class _PackageReader:
    """Turns one open collection into Recall decks, history and report notes."""

    def __init__(
        self,
        collection: Collection,
        stager: MediaStager,
        source: str,
        progress: Progress,
        cancelled: Cancelled,
    ) -> None:
        self._collection = collection
        self._stager = stager
        self._source = source
        self._progress = progress
        self._cancelled = cancelled
        self._done = 0
        self._total = 0
        self._skipped = Tally()
        self._bounds = CardBounds("card")
        self._audio_video = 0
        self._cleaned: tuple[int, list[str]] | None = None

    def read(self) -> ImportedPackage:
        """Everything the package holds, in Recall's terms."""
        note_types = self._collection.note_types()
        deck_names = self._collection.deck_names()
        notes = self._collection.notes()
        first_field = next(iter(notes.values())).fields[0] if notes else ""
        if len(notes) == 1 and PLACEHOLDER_TEXT in first_field.lower():
            raise self._collection.error(
                "made by a newer Anki (the collection inside only asks to update Anki); "
                + NEWER_ANKI_ADVICE
            )
        cards = self._collection.cards()
        self._total = len(cards) + self._collection.review_count()
        by_deck: dict[int, list[tuple[tuple[int, int, int], BasicCard]]] = {}
        keys: dict[int, tuple[str, str]] = {}
        suspended = 0
        for card in sorted(cards, key=lambda card: (card.note_id, card.ord, card.id)):
            self._tick()
            converted = self._card(card, notes, note_types)
            if converted is None:
                continue
            order = (1, card.due, card.id) if card.is_new else (0, 0, card.id)
            by_deck.setdefault(card.deck_id, []).append((order, converted))
            keys[card.id] = (f"anki-deck-{card.deck_id}", converted.id)
            suspended += card.suspended
        decks = self._decks(by_deck, deck_names)
        reviews, left_out = self._reviews(keys)
        self._progress(self._total, self._total)
        notes_lines = self._skipped.line(f"{counted(self._skipped.count, 'card')} skipped")
        notes_lines += self._bounds.lines()
        if self._audio_video:
            notes_lines.append(
                f"{counted(self._audio_video, 'audio/video reference')} left out "
                "(Recall does not play sound or video)"
            )
        left = self._stager.left_out
        notes_lines += left.line(f"{counted(left.count, 'image')} left out")
        if suspended:
            notes_lines.append(
                f"{counted(suspended, 'suspended card')} imported as ordinary cards "
                "(Recall does not suspend cards)"
            )
        media = list(self._stager.media)
        return ImportedPackage(decks, reviews, media, notes_lines + left_out)

    def _tick(self) -> None:
        self._done += 1
        if self._done % CHECK_EVERY == 0:
            if self._cancelled():
                raise ImportCancelledError
            self._progress(self._done, self._total)

    def _card(
        self, card: AnkiCard, notes: dict[int, AnkiNote], note_types: dict[int, NoteType]
    ) -> BasicCard | None:
        """The Recall card for an Anki card, or None (counted as skipped) if it has none."""
        note = notes.get(card.note_id)
        if note is None:
            self._skipped.add(f"card {card.id}: its note {card.note_id} is missing")
            return None
        where = f"note {note.id} (card {card.id})"
        note_type = note_types.get(note.type_id)
        if note_type is None:
            self._skipped.add(f"{where}: its note type is missing")
            return None
        fields = self._clean_fields(note)
        if note_type.is_cloze:
            text = note_type.cloze_field()
            raw = without_sounds(note.fields[text]) if text < len(note.fields) else ""
            number = card.ord + 1
            if number not in cloze_numbers(raw):
                self._skipped.add(f"{where}: the note has no cloze deletion c{number}")
                return None
            question, answer = cloze_faces(raw, number)
            front = self._stager.sanitize(question, note.id)
            backs = [self._stager.sanitize(answer, note.id)]
        else:
            text = note_type.question_field(card.ord)
            front = fields[text] if text < len(fields) else ""
            backs = []
        backs += [field for i, field in enumerate(fields) if i != text and not is_blank(field)]
        back = "<br>".join(backs)
        if is_blank(front) or is_blank(back):
            self._skipped.add(f"{where}: the {'front' if is_blank(front) else 'back'} is blank")
            return None
        try:
            self._bounds.check_length(where, "front", front)
            self._bounds.check_length(where, "back", back)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)
            return None
        tags = self._bounds.tags(where, list(dict.fromkeys(note.tags)))
        return html_card(self._source, f"anki-{card.id}", front, back, tags)

    def _clean_fields(self, note: AnkiNote) -> list[str]:
        """The note's fields sanitized, images staged; cached for the note's next card."""
        if self._cleaned is None or self._cleaned[0] != note.id:
            self._audio_video += sum(count_audio_video(field) for field in note.fields)
            cleaned = [self._stager.sanitize(without_sounds(f), note.id) for f in note.fields]
            self._cleaned = (note.id, cleaned)
        return self._cleaned[1]

    def _decks(
        self,
        by_deck: dict[int, list[tuple[tuple[int, int, int], BasicCard]]],
        deck_names: dict[int, str],
    ) -> list[Deck]:
        """One deck per Anki deck with cards, by name; studied cards first, then new ones."""
        if not by_deck:
            reason = (
                f"every card was skipped, the first being {self._skipped.examples[0]}"
                if self._skipped.count
                else "the package holds no cards"
            )
            raise DeckError(self._source, [f"no cards to import: {reason}"])
        named = {
            deck_id: (deck_names.get(deck_id) or "").strip() or f"Anki deck {deck_id}"
            for deck_id in by_deck
        }
        return [
            make_deck(
                self._source,
                f"anki-deck-{deck_id}",
                named[deck_id],
                [card for _, card in sorted(by_deck[deck_id], key=lambda item: item[0])],
            )
            for deck_id in sorted(by_deck, key=lambda did: (named[did].casefold(), did))
        ]

    def _reviews(
        self, keys: dict[int, tuple[str, str]]
    ) -> tuple[dict[tuple[str, str], list[ImportedReview]], list[str]]:
        """The history of the imported cards, oldest first, and a note on what was left out."""
        reviews: dict[tuple[str, str], list[ImportedReview]] = {}
        manual = cram = unreadable = not_imported = 0
        for review in self._collection.reviews():
            self._tick()
            key = keys.get(review.card_id)
            moment = _moment(review.id)
            if key is None:
                not_imported += 1
            elif review.kind in MANUAL_KINDS or review.ease == 0:
                manual += 1
            elif review.kind == CRAM_KIND:
                cram += 1
            elif review.kind not in REVIEW_KINDS or not 1 <= review.ease <= 4 or moment is None:
                unreadable += 1
            else:
                duration = min(max(review.time_ms, 0), MAX_DURATION_MS)
                reviews.setdefault(key, []).append(
                    ImportedReview(moment, Rating(review.ease), duration)
                )
        parts = [
            counted(manual, "manual or rescheduling entry", "manual or rescheduling entries"),
            counted(cram, "cram (filtered deck) review"),
            counted(unreadable, "unreadable entry", "unreadable entries"),
            counted(not_imported, "entry of a skipped card", "entries of skipped cards"),
        ]
        counts = (manual, cram, unreadable, not_imported)
        shown = [part for part, count in zip(parts, counts, strict=True) if count]
        if not shown:
            return reviews, []
        total = counted(sum(counts), "review history entry", "review history entries")
        return reviews, [f"{total} left out of the replay: {', '.join(shown)}"]
