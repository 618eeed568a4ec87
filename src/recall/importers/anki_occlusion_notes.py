"""The occlusion cards of a package's Image Occlusion notes, one per cloze number."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

from recall.content.card_limits import MAX_SOURCE_FIELD_CHARS
from recall.content.deck_format import BasicCard
from recall.core import wording
from recall.core.i18n import tr, trn
from recall.importers._cards import CardBounds, FieldTooLargeError
from recall.importers._collection import AnkiCard, AnkiNote
from recall.importers._report import Tally
from recall.importers.anki_occlusion import (
    EnhancedFields,
    OcclusionFields,
    ParsedOcclusion,
    enhanced_card,
    occlusion_card,
    parse_occlusions,
    stored_image,
)


class OcclusionNotes:
    """Turns the cards of Image Occlusion notes into occlusion cards, noting what is left out.

    Each Anki card keeps its id (``anki-<card id>``), so its history and schedule come in
    as any other card's do.
    """

    def __init__(
        self, clean: Callable[[str, int], str], bounds: CardBounds, skipped: Tally
    ) -> None:
        """Args:
        clean: Sanitizes a field of a note (by id), staging its images.
        bounds: Checks and refuses sides that are too long.
        skipped: Counts the cards left out.
        """
        self._clean = clean
        self._bounds = bounds
        self._skipped = skipped
        self._note: tuple[int, ParsedOcclusion, str | None] | None = None
        self._cards = 0
        self._problems = Tally()

    def card(
        self, card: AnkiCard, note: AnkiNote, fields: OcclusionFields, where: str
    ) -> BasicCard | None:
        """The occlusion card of an Anki card, or None (counted, with a note) if it has none."""

        def field(index: int | None) -> str:
            return note.fields[index] if index is not None and index < len(note.fields) else ""

        if any(len(text) > MAX_SOURCE_FIELD_CHARS for text in note.fields):
            self._bounds.refuse(FieldTooLargeError(_field_too_long(where)))
            return None
        if self._note is None or self._note[0] != note.id:  # the note's cards come together
            parsed = parse_occlusions(field(fields.occlusion))
            for problem in parsed.problems:
                self._problems.add(
                    tr("note {note}: {problem}").format(note=note.id, problem=problem)
                )
            image = stored_image(self._clean(field(fields.image), note.id))
            self._note = (note.id, parsed, image)
        _, parsed, image = self._note
        number = card.ord + 1
        if image is None:
            self._skipped.add(
                tr("{where}: its image occlusion note has no image Recall can show").format(
                    where=where
                )
            )
            return None
        if number not in parsed.ordinals:
            self._skipped.add(
                tr("{where}: the note has no occlusion shape c{number}").format(
                    where=where, number=number
                )
            )
            return None
        header, back_extra, comments = (
            self._clean(field(index), note.id)
            for index in (fields.header, fields.back_extra, fields.comments)
        )
        try:
            self._bounds.check_side(where, "front", header)
            self._bounds.check_side(where, "back", back_extra)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)
            return None
        tags = self._bounds.tags(where, list(dict.fromkeys(note.tags)))
        try:
            made = occlusion_card(
                f"anki-{card.id}", number, parsed, image, (header, back_extra, comments), tags
            )
        except ValidationError as error:
            self._skipped.add(f"{where}: {error.errors()[0]['msg']}")
            return None
        self._cards += 1
        return made

    def enhanced_card(
        self, card: AnkiCard, note: AnkiNote, fields: EnhancedFields, where: str
    ) -> BasicCard | None:
        """The card of an Image Occlusion Enhanced note, its mask images drawn over its
        image, or None (counted, with a note) when its image or question mask is missing."""

        def joined(indexes: tuple[int, ...]) -> str:
            cleaned = (self._clean(note.fields[index], note.id) for index in indexes)
            return "<br>".join(part for part in cleaned if part.strip())

        if any(len(text) > MAX_SOURCE_FIELD_CHARS for text in note.fields):
            self._bounds.refuse(FieldTooLargeError(_field_too_long(where)))
            return None
        image, question_mask, answer_mask = (
            stored_image(self._clean(note.fields[index], note.id))
            if index < len(note.fields)
            else None
            for index in (fields.image, fields.question_mask, fields.answer_mask)
        )
        if image is None or question_mask is None:
            self._skipped.add(
                tr(
                    "{where}: its Image Occlusion Enhanced note lacks an image or a mask Recall "
                    "can show"
                ).format(where=where)
            )
            return None
        front, back = joined(fields.front), joined(fields.back)
        try:
            self._bounds.check_side(where, "front", front)
            self._bounds.check_side(where, "back", back)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)
            return None
        tags = self._bounds.tags(where, list(dict.fromkeys(note.tags)))
        try:
            made = enhanced_card(
                f"anki-{card.id}", (image, question_mask, answer_mask), (front, back, ""), tags
            )
        except ValidationError as error:
            self._skipped.add(f"{where}: {error.errors()[0]['msg']}")
            return None
        self._cards += 1
        return made

    def report_lines(self) -> list[str]:
        """Report lines on the occlusion cards made and the shapes left out of them."""
        lines = []
        if self._cards:
            lines.append(
                trn(
                    "{count} image occlusion card shown with their masks drawn over the image",
                    "{count} image occlusion cards shown with their masks drawn over the image",
                    self._cards,
                ).format(count=wording.number(self._cards))
            )
        count = self._problems.count
        return lines + self._problems.line(
            trn(
                "{count} occlusion shape left out (not drawn)",
                "{count} occlusion shapes left out (not drawn)",
                count,
            ).format(count=wording.number(count))
        )


def _field_too_long(where: str) -> str:
    return tr("{where}: a field is longer than {most} characters").format(
        where=where, most=f"{MAX_SOURCE_FIELD_CHARS:,}"
    )
