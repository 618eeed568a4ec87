"""Anki packages (``.apkg``, ``.colpkg``): decks, cards, tags, images, sounds and history."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from recall.content import speech
from recall.content.card_limits import MAX_SOURCE_FIELD_CHARS
from recall.content.deck_format import BasicCard, ChoiceCard, Deck, card_limit_problems
from recall.core import i18n, wording
from recall.core.errors import DeckError, ImportCancelledError
from recall.core.i18n import tr, trn
from recall.importers import (
    Cancelled,
    ImportedPackage,
    Progress,
    never_cancelled,
    no_progress,
)
from recall.importers._anki_cards import CardRenderer
from recall.importers._anki_history import moment, read_reviews
from recall.importers._anki_presets import read_presets
from recall.importers._anki_schedule import read_schedule
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
    AnkiDeck,
    AnkiNote,
    Collection,
    NoteType,
    open_collection,
)
from recall.importers._html_text import html_to_text
from recall.importers._media import MediaStager, count_audio_video, without_sounds
from recall.importers._package import copy_collection, read_layout, read_media
from recall.importers._report import Tally, rendering_lines
from recall.importers._zip import SafeZip
from recall.importers.anki_notes import NoteData
from recall.importers.anki_occlusion import (
    EnhancedFields,
    OcclusionFields,
    enhanced_fields,
    occlusion_fields,
)
from recall.importers.anki_occlusion_notes import OcclusionNotes
from recall.importers.cloze import cloze_numbers
from recall.importers.multiple_choice import (
    ChoiceLayout,
    basic_sides,
    choice_layout,
    convert,
)
from recall.importers.recall_notes import fields_fingerprint, recall_keys

# Limits on an untrusted package, in unpacked bytes counted as they are read.
MAX_ENTRIES = 100_000  # checked from the zip's end record, before its directory is loaded
MAX_TOTAL_BYTES = 2 * 1024**3  # everything unpacked from one package
MAX_COLLECTION_BYTES = 1024**3
MAX_MEDIA_LIST_BYTES = 32 * 1024**2
MAX_IMAGE_BYTES = 64 * 1024**2  # one image

PLACEHOLDER_TEXT = "update to the latest anki"
CHECK_EVERY = 500

_ANKI_DEFAULT_PRESET = 1  # the preset of a deck that names none


def read_apkg(
    path: Path,
    staging: Path,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
    plain_templates: bool = True,
) -> ImportedPackage:
    """Read an Anki package: a deck package (``.apkg``) or a whole collection (``.colpkg``).

    Packages of every Anki version are read: today's (``collection.anki21b`` and media
    compressed with zstd, a protobuf media list) and the older ones (``collection.anki21``
    or ``collection.anki2``, a JSON media list). Each Anki card becomes a basic HTML card
    ``anki-<card id>`` in the deck ``anki-deck-<deck id>`` named as in Anki (with ``::``),
    so importing the package again updates the same cards. Cloze notes give one card per
    deletion; notes of the known multiple-choice note types (``multiple_choice``) become
    choice cards.

    The package is untrusted: entries are read by name, never extracted by name, and
    unpacking stops at the limits above (100,000 entries; 2 GiB in all; 1 GiB for the
    collection, 32 MiB for the media list, 64 MiB per image, counted after zstd as well)
    whatever the zip's headers claim. The collection is opened read-only with
    ``trusted_schema=OFF`` after ``PRAGMA quick_check``, with only its real tables read
    and SQLite's work bounded (``_collection``). Review times are capped at one hour
    (``MAX_DURATION_MS``); cram entries are left out of the history. Forgets, due dates set
    by hand, each review card's due day, suspension, burying and flags are kept
    (``_anki_schedule``).

    Args:
        path: The ``.apkg`` file.
        staging: An existing folder inside the data directory. The temporary copy of the
            collection lives here while the package is read and is always removed; the
            images the cards show are left here for the caller to move (they are removed
            again if reading fails).
        progress: Called with (done, total) over the package's cards and review rows.
        cancelled: Checked every few hundred cards or review rows, between chunks of the
            collection as it is unpacked, and while SQLite works.
        plain_templates: Fill the card templates of only text and ``{{Field}}``
            references from patterns compiled once (``_plain_templates``): the same cards
            as the template language gives, faster. False renders every card through it.

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
            layout = read_layout(archive, source)
            media = read_media(archive, layout, source, MAX_MEDIA_LIST_BYTES)
            stager = MediaStager(media, staging, source, MAX_IMAGE_BYTES)
            copy = copy_collection(
                archive, layout, staging, source, cancelled, MAX_COLLECTION_BYTES
            )
            try:
                with open_collection(copy, layout.collection, source, cancelled) as collection:
                    reader = _PackageReader(
                        collection, stager, source, progress, cancelled, plain_templates
                    )
                    return reader.read()
            finally:
                for suffix in ("", "-journal", "-wal", "-shm"):
                    Path(f"{copy}{suffix}").unlink(missing_ok=True)
    except BaseException:
        for created in stager.created if stager else []:
            created.unlink(missing_ok=True)
        raise


def _note_changed(note: AnkiNote) -> datetime | None:
    """When a note was last changed in Anki (``notes.mod``, seconds), or None if unknown."""
    return moment(note.mod * 1000) if note.mod > 0 else None


class _PackageReader:
    """Turns one open collection into Recall decks, history and report notes."""

    def __init__(
        self,
        collection: Collection,
        stager: MediaStager,
        source: str,
        progress: Progress,
        cancelled: Cancelled,
        plain_templates: bool = True,
    ) -> None:
        self._collection = collection
        self._plain_templates = plain_templates
        self._stager = stager
        self._source = source
        self._progress = progress
        self._cancelled = cancelled
        self._done = 0
        self._total = 0
        self._skipped = Tally()
        self._bounds = CardBounds("card")
        self._audio_video = 0
        self._choices: dict[int, ChoiceLayout | None] = {}
        self._choice_notes: dict[str, int] = {}
        self._kprim = 0
        self._not_choices = Tally()
        self._exported: dict[tuple[str, str], str] = {}
        self._deck_ids: dict[str, int] = {}  # the Anki deck that names each Recall deck
        self._renderer = CardRenderer({})
        self._empty_fronts = Tally()
        self._speech = 0
        self._template_problems = Tally()
        self._scripted = 0
        self._cleaned_sides: tuple[int, dict[str, str]] = (0, {})
        self._styled: dict[str, int] = {}
        self._occlusion_types: dict[int, OcclusionFields | EnhancedFields | None] = {}
        self._occlusions = OcclusionNotes(self._clean_side, self._bounds, self._skipped)
        self._note_data = NoteData(stager)

    def read(self) -> ImportedPackage:
        """Everything the package holds, in Recall's terms."""
        note_types = self._collection.note_types()
        anki_decks = self._collection.decks()
        self._renderer = CardRenderer(
            {key: deck.name for key, deck in anki_decks.items()}, self._plain_templates
        )
        self._note_data.deck_names = {key: deck.name for key, deck in anki_decks.items()}
        notes = self._collection.notes()
        first_field = next(iter(notes.values())).fields[0] if notes else ""
        if len(notes) == 1 and PLACEHOLDER_TEXT in first_field.lower():
            raise self._collection.error(
                tr(
                    "made by a newer Anki (the collection inside only asks to update Anki); "
                    "{advice}"
                ).format(advice=i18n.tr(NEWER_ANKI_ADVICE))
            )
        cards = self._collection.cards()
        self._total = len(cards) + self._collection.review_count()
        by_deck: dict[str, list[tuple[tuple[int, int, int], BasicCard | ChoiceCard]]] = {}
        keys: dict[int, tuple[str, str]] = {}
        modified: dict[tuple[str, str], datetime] = {}
        per_note: dict[int, int] = {}
        for card in cards:
            per_note[card.note_id] = per_note.get(card.note_id, 0) + 1
        for card in sorted(cards, key=lambda card: (card.note_id, card.ord, card.id)):
            self._tick()
            converted = self._card(card, notes, note_types)
            if converted is None:
                continue
            if per_note[card.note_id] > 1:  # siblings: the note's cards wait for each other
                converted = converted.model_copy(update={"note": f"anki-{card.note_id}"})
            deck_key, converted = self._home(card, notes[card.note_id], converted)
            order = (1, card.due, card.id) if card.is_new else (0, 0, card.id)
            by_deck.setdefault(deck_key, []).append((order, converted))
            keys[card.id] = (deck_key, converted.id)
            changed = _note_changed(notes[card.note_id])
            if changed is not None:
                modified[keys[card.id]] = changed
        decks = self._decks(by_deck, anki_decks)
        presets, deck_presets = read_presets(self._collection)
        chosen = {
            key: presets[deck_presets.get(self._deck_ids[key], _ANKI_DEFAULT_PRESET)]
            for key in by_deck
            if deck_presets.get(self._deck_ids[key], _ANKI_DEFAULT_PRESET) in presets
        }
        reviews, left_out = read_reviews(self._collection, keys, self._tick)
        schedule = read_schedule(self._collection, keys, reviews)
        self._progress(self._total, self._total)
        notes_lines = self._choice_lines()
        notes_lines += self._skipped.line(
            trn("{count} card skipped", "{count} cards skipped", self._skipped.count).format(
                count=wording.number(self._skipped.count)
            )
        )
        notes_lines += rendering_lines(
            self._empty_fronts,
            self._template_problems,
            self._styled,
            self._scripted,
            self._speech,
        )
        notes_lines += self._occlusions.report_lines()
        notes_lines += self._bounds.lines()
        if self._audio_video:
            notes_lines.append(
                trn(
                    "{count} audio/video reference in multiple-choice notes left out (Recall "
                    "plays sounds on the other cards)",
                    "{count} audio/video references in multiple-choice notes left out (Recall "
                    "plays sounds on the other cards)",
                    self._audio_video,
                ).format(count=wording.number(self._audio_video))
            )
        notes_lines += self._stager.report_lines() + schedule.notes
        media = list(self._stager.media)
        return ImportedPackage(
            decks,
            reviews,
            media,
            notes_lines + left_out,
            exported=self._exported,
            modified=modified,
            changes=schedule.changes,
            card_states=schedule.states,
            presets=chosen,
            note_types=self._note_data.note_types,
        )

    def _home(
        self, card: AnkiCard, note: AnkiNote, converted: BasicCard | ChoiceCard
    ) -> tuple[str, BasicCard | ChoiceCard]:
        """The deck id and card of an Anki card: a note Recall exported (its guid names the
        Recall card) goes back to that card, any other to ``anki-<card id>`` in its deck."""
        recall = recall_keys(note.guid) if card.ord == 0 else None
        if recall is None:
            deck_key = f"anki-deck-{card.deck_id}"
        else:
            deck_key, card_key = recall
            converted = converted.model_copy(update={"id": card_key})
            self._exported[recall] = fields_fingerprint(note.fields)
        self._deck_ids.setdefault(deck_key, card.deck_id)
        return deck_key, converted

    def _tick(self) -> None:
        self._done += 1
        if self._done % CHECK_EVERY == 0:
            if self._cancelled():
                raise ImportCancelledError
            self._progress(self._done, self._total)

    def _choice_lines(self) -> list[str]:
        """Report lines on the notes that became choice cards and those that could not."""
        lines = []
        for label, count in sorted(self._choice_notes.items()):
            line = trn(
                "{count} {note_type} note became a choice card",
                "{count} {note_type} notes became choice cards",
                count,
            ).format(count=wording.number(count), note_type=label)
            if label == "anki-mc AllInOne" and self._kprim:
                line += "; " + trn(
                    '{count} kprim question became "select all that apply", the true statements '
                    "being the right choices",
                    '{count} kprim questions became "select all that apply", the true statements '
                    "being the right choices",
                    self._kprim,
                ).format(count=wording.number(self._kprim))
            lines.append(line)
        summary = trn(
            "{count} multiple-choice note imported as basic cards",
            "{count} multiple-choice notes imported as basic cards",
            self._not_choices.count,
        ).format(count=wording.number(self._not_choices.count))
        return lines + self._not_choices.line(summary)

    def _choice(
        self, card: AnkiCard, note: AnkiNote, note_type: NoteType
    ) -> ChoiceCard | BasicCard | None:
        """The card for a note of a known multiple-choice type, or None for other notes.

        A note that does not make a valid choice card becomes a basic card, with a note.

        Raises:
            FieldTooLargeError: The choice card holds more than a card may (its card is
                left out).
        """
        if note.type_id not in self._choices:
            self._choices[note.type_id] = choice_layout(note_type.field_names)
        layout = self._choices[note.type_id]
        if layout is None or card.ord != 0:
            return None
        sounds = sum(count_audio_video(field) for field in note.fields)
        fields = tuple(without_sounds(field) for field in note.fields)
        tags = list(dict.fromkeys(note.tags))
        result = convert(layout, fields, f"anki-{card.id}", tags)
        if result.card is None:
            self._not_choices.add(f"note {note.id}: {result.problem}")
            sides = basic_sides(layout, tuple(note.fields))  # a basic card keeps its sounds
            front, back = (self._stager.sanitize(side, note.id) for side in sides)
            if is_blank(front) or is_blank(back):
                return None  # read as any other note, which reports a blank side
            return html_card(self._source, f"anki-{card.id}", front, back, tags)
        too_large = card_limit_problems(result.card)
        if too_large:
            raise FieldTooLargeError(f"note {note.id} (card {card.id}): {too_large[0]}")
        self._audio_video += sounds
        self._choice_notes[layout.label] = self._choice_notes.get(layout.label, 0) + 1
        self._kprim += result.kprim
        return result.card

    def _card(
        self, card: AnkiCard, notes: dict[int, AnkiNote], note_types: dict[int, NoteType]
    ) -> BasicCard | ChoiceCard | None:
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
        if note.type_id not in self._occlusion_types:
            found = occlusion_fields(note_type)
            self._occlusion_types[note.type_id] = found or enhanced_fields(note_type)
        occlusion = self._occlusion_types[note.type_id]
        if isinstance(occlusion, OcclusionFields):
            return self._occlusions.card(card, note, occlusion, where)
        if isinstance(occlusion, EnhancedFields):
            return self._occlusions.enhanced_card(card, note, occlusion, where)
        try:
            choice = self._choice(card, note, note_type)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)  # this card is left out, never the package
            return None
        if choice is not None:
            return choice
        return self._rendered(card, note, note_type, where)

    def _rendered(
        self, card: AnkiCard, note: AnkiNote, note_type: NoteType, where: str
    ) -> BasicCard | None:
        """The card its template gives, or None (with a note) when Anki makes no such card.

        A blank back is a side like any other (the front alone, or a sound); fields of up
        to ``MAX_SOURCE_FIELD_CHARS`` are kept whole.
        """
        try:
            for index, field in enumerate(note.fields):
                if len(field) > MAX_SOURCE_FIELD_CHARS:
                    raise FieldTooLargeError(
                        f"{where}: field {index + 1} is {len(field):,} characters long "
                        f"(fields are kept up to {MAX_SOURCE_FIELD_CHARS:,})"
                    )
            if note_type.is_cloze:
                number = card.ord + 1
                if not any(number in cloze_numbers(field) for field in note.fields):
                    self._skipped.add(f"{where}: the note has no cloze deletion c{number}")
                    return None
            sides = self._renderer.sides(card, note, note_type)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)
            return None
        except RecursionError:
            raise self._collection.error(f"{where}: it is nested too deeply to read") from None
        if sides is None:
            self._empty_fronts.add(where)
            return None
        self._scripted += sides.scripted
        if sides.problem is not None:
            self._template_problems.add(f"{where}: {sides.problem}")
        if self._renderer.styles(note.type_id, note_type).left_out:
            self._styled[note_type.name] = self._styled.get(note_type.name, 0) + 1
        front = self._clean_side(sides.front, note.id)
        back = self._clean_side(sides.back, note.id)
        hints = [self._clean_side(hint, note.id) for hint in sides.hints]
        try:
            for side, text in (("front", front), ("back", back), *(("hint", h) for h in hints)):
                self._bounds.check_side(where, side, text)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)
            return None
        self._speech += speech.count(front) + speech.count(back)
        tags = self._bounds.tags(where, list(dict.fromkeys(note.tags)))
        # The deck format wants text on each side: a blank one keeps a line break.
        return html_card(
            self._source,
            f"anki-{card.id}",
            front if front.strip() else "<br>",
            back if back.strip() else "<br>",
            tags,
            hints=[hint for hint in hints if not is_blank(hint)],
            type_answer=sides.type_answer,
            anki=self._note_data.origin(card, note, note_type),
        )

    def _clean_side(self, fragment: str, note_id: int) -> str:
        """A side sanitized, images staged; kept for the note's next card (a reversed card's
        front is often the first card's back)."""
        if self._cleaned_sides[0] != note_id:
            self._cleaned_sides = (note_id, {})
        known = self._cleaned_sides[1]
        if fragment not in known:
            known[fragment] = self._stager.sanitize(fragment, note_id)
        return known[fragment]

    def _decks(
        self,
        by_deck: dict[str, list[tuple[tuple[int, int, int], BasicCard | ChoiceCard]]],
        anki_decks: dict[int, AnkiDeck],
    ) -> list[Deck]:
        """One deck per Anki deck with cards, by name; studied cards first, then new ones."""
        if not by_deck:
            if self._skipped.count:
                problem = tr("no cards to import: every card was skipped, the first being {first}")
            else:
                problem = tr("no cards to import: the package holds no cards")
            first = self._skipped.examples[0] if self._skipped.examples else ""
            raise DeckError(self._source, [problem.format(first=first)])
        empty = AnkiDeck("", "")
        anki_ids = self._deck_ids
        named = {
            key: anki_decks.get(anki_ids[key], empty).name.strip() or f"Anki deck {anki_ids[key]}"
            for key in by_deck
        }
        decks = []
        for key in sorted(by_deck, key=lambda key: (named[key].casefold(), anki_ids[key], key)):
            deck = make_deck(
                self._source,
                key,
                named[key],
                [card for _, card in sorted(by_deck[key], key=lambda item: item[0])],
            )
            description = html_to_text(anki_decks.get(anki_ids[key], empty).description)
            # A plain string on a deck already validated: no rule applies to descriptions.
            decks.append(deck.model_copy(update={"description": description}))
        return decks
