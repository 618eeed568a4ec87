"""Quiz questions (Moodle's GIFT and XML formats, QTI items) as cards, decks by category.

The readers of each format turn a file into ``Question`` values; ``BankBuilder`` turns
those into cards. Multiple choice and true/false questions become choice cards: each
answer's feedback is the choice's ``why`` note and the general feedback the explanation.
Short answer and numerical questions become basic cards whose back lists the accepted
answers (a type-in card when the reader says the answer is typed, as QTI text entry is);
matching questions basic cards whose back pairs each item with its match. A
question that shows images becomes an HTML basic card (choice cards show text only).
Essays, descriptions and the kinds Recall cannot ask are skipped, with a note.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from recall.content import card_html
from recall.content.card_limits import MAX_NAME_CHARS, length_problem
from recall.content.deck_format import (
    MAX_CHOICES,
    MIN_CHOICES,
    BasicCard,
    Choice,
    ChoiceCard,
    Deck,
)
from recall.core import deck_tree, i18n, wording
from recall.core.errors import DeckError, printable
from recall.core.i18n import mark, tr, trn
from recall.importers import ImportedPackage, StagedMedia
from recall.importers._cards import CardBounds, FieldTooLargeError, is_blank, make_deck
from recall.importers._html_text import has_image, html_to_markdown, html_to_text
from recall.importers._report import Tally

Format = Literal["html", "plain", "markdown"]
Kind = Literal["multichoice", "truefalse", "shortanswer", "numerical", "matching"]
MAX_QUESTIONS = 100_000
"""Questions one file may hold."""
MAX_ANSWERS = 1_000
"""Answers (or matching pairs) one question may hold."""
_CATEGORY_ROOT = re.compile(r"^\$[a-z0-9]*\$/")
_EPSILON = 1e-6

# Where in a question an image was, as the report says it.
_PARTS = {
    "question": mark("in the question"),
    "answer": mark("in the answer"),
    "feedback": mark("in the feedback"),
    "general feedback": mark("in the general feedback"),
    "item": mark("in the item"),
}


@dataclass(frozen=True)
class Rich:
    """A piece of question text and how it is written.

    Moodle's own "auto-format" is HTML whose line breaks show, so readers hand it in as HTML
    with ``<br>`` for each line break.
    """

    text: str
    format: Format = "html"

    def html(self) -> str:
        """The text as an HTML fragment (not yet cleaned)."""
        if self.format == "html":
            return self.text
        return card_html.plain_text_to_html(self.text.strip())

    def markdown(self) -> str:
        """The text as Markdown showing the same words (HTML images cannot come along)."""
        if self.format == "markdown":
            return self.text.strip()
        return html_to_markdown(self.html())

    def plain(self) -> str:
        """The text as plain words."""
        if self.format == "html":
            return html_to_text(self.text)
        return self.text.strip()

    def is_blank(self) -> bool:
        """Whether the text shows nothing."""
        return is_blank(self.html()) if self.format == "html" else not self.text.strip()


NO_TEXT = Rich("", "plain")


@dataclass(frozen=True)
class Answer:
    """One answer of a question.

    Attributes:
        text: The answer as shown (for numerical questions, the accepted number or range).
        fraction: The share of the marks it earns, in percent (-100 to 100).
        feedback: Shown to a learner who gives it.
    """

    text: Rich
    fraction: float
    feedback: Rich = NO_TEXT


@dataclass(frozen=True)
class Question:
    """A question as a quiz format holds it, before it becomes a card.

    Attributes:
        kind: What kind of question it is.
        name: Its name in the question bank ("" when it has none).
        text: The question.
        line: The line of the file where it starts.
        answers: Its answers (multiple choice, true/false, short answer, numerical).
        pairs: Items and their matches (matching); an item with blank text is an extra
            match that belongs to no item.
        general_feedback: Shown after every answer.
        single: For multiple choice, whether one answer is to be chosen (None: decide
            from the answers).
        file: The file inside a package that holds the question ("" for the file itself),
            named before its line in messages.
        type_in: For short answer, the learner types the answer in: the card compares
            what they typed with the first of the best accepted answers.
    """

    kind: Kind
    name: str
    text: Rich
    line: int
    answers: tuple[Answer, ...] = ()
    pairs: tuple[tuple[Rich, Rich], ...] = ()
    general_feedback: Rich = NO_TEXT
    single: bool | None = None
    file: str = ""
    type_in: bool = False

    @property
    def where(self) -> str:
        """Where the question starts, for messages: ``line 12`` or ``items/q1.xml line 12``."""
        if self.file:
            return tr("{file} line {line}").format(file=self.file, line=self.line)
        return tr("line {line}").format(line=self.line)


def file_deck_name(path: Path) -> str:
    """A file's name as a deck name: bytes that are not UTF-8 become U+FFFD."""
    try:
        return path.stem.encode("utf-8", "surrogateescape").decode("utf-8", "replace").strip()
    except UnicodeEncodeError:  # a lone surrogate that no byte gave (Windows names)
        return printable(path.stem).strip()


def deck_name_for(category: str) -> str:
    """A Moodle category path as a deck name: ``$course$/top/Maths/Algebra`` is
    ``Maths::Algebra`` (Moodle writes a slash inside a name as ``//``)."""
    path = _CATEGORY_ROOT.sub("", category.strip())
    parts = [part.strip().replace("\x00", "/") for part in path.replace("//", "\x00").split("/")]
    parts = [part for part in parts if part]
    if parts and parts[0] == "top":
        parts = parts[1:]
    return deck_tree.SEPARATOR.join(parts)


def _slug_id(prefix: str, text: str) -> str:
    folded = " ".join(unicodedata.normalize("NFC", text).split()).casefold()
    ascii_text = unicodedata.normalize("NFKD", folded).encode("ascii", "ignore").decode()
    readable = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:40].strip("-")
    digest = hashlib.sha256(folded.encode()).hexdigest()[:12]
    return f"{prefix}-{readable}-{digest}" if readable else f"{prefix}-{digest}"


@dataclass
class _Deck:
    name: str
    description: str = ""
    cards: list[BasicCard | ChoiceCard] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)


class BankBuilder:
    """Questions in, decks out: one deck per category, cards in the file's order.

    Ids are stable: a deck's comes from its category path, a card's from the question's
    name (or, without one, its text), so importing the file again updates the same cards.
    A name used twice in a category gives ``-2``, ``-3`` ... to the later questions.

    Args:
        source: The file, for messages.
        default_deck: The deck of questions before any category (the file's name).
        resolve: Maps an image reference in the HTML to a staged media name, or None.
    """

    def __init__(self, source: str, default_deck: str, resolve: card_html.MediaResolver) -> None:
        self._source = source
        self._resolve = resolve
        self._decks: dict[str, _Deck] = {}
        self._current = self._deck_for(default_deck or "Moodle")
        self._skipped = Tally()
        self._bounds = CardBounds("question")
        self._as_basic = Tally()
        self._images_dropped = Tally()
        self._questions = 0

    def category(self, path: str, description: str = "") -> None:
        """Put the questions that follow into the deck of this category."""
        name = deck_name_for(path)
        if not name:
            return
        self._current = self._deck_for(name)
        if description and length_problem(description) is None:
            self._current.description = description

    def _deck_for(self, name: str) -> _Deck:
        name = name[:MAX_NAME_CHARS]
        key = _slug_id("moodle", name)
        return self._decks.setdefault(key, _Deck(name))

    def skip(self, line: int, what: str, file: str = "") -> None:
        """Count a question that gives no card, saying why (and in which file of a package)."""
        if file:
            skipped = tr("{file} line {line} ({reason})").format(file=file, line=line, reason=what)
        else:
            skipped = tr("line {line} ({reason})").format(line=line, reason=what)
        self._skipped.add(skipped)

    def _skip(self, question: Question, what: str) -> None:
        self.skip(question.line, what, question.file)

    def add(self, question: Question) -> None:
        """Turn one question into its card (or count it as skipped).

        Raises:
            DeckError: The file holds more questions than one import takes.
        """
        self._questions += 1
        if self._questions > MAX_QUESTIONS:
            raise DeckError(
                self._source,
                [
                    tr("{where}: more than {most} questions; split the file").format(
                        where=question.where, most=f"{MAX_QUESTIONS:,}"
                    )
                ],
            )
        if len(question.answers) > MAX_ANSWERS or len(question.pairs) > MAX_ANSWERS:
            self._skip(question, tr("more than {most} answers").format(most=f"{MAX_ANSWERS:,}"))
            return
        deck = self._current
        base = _slug_id("q", question.name or question.text.plain())
        card_id, count = base, 1
        while card_id in deck.ids:
            count += 1
            card_id = f"{base}-{count}"
        try:
            card = self._card(card_id, question)
        except FieldTooLargeError as error:
            self._bounds.refuse(error)
            return
        if card is None:
            return
        deck.ids.add(card_id)
        deck.cards.append(card)

    def _card(self, card_id: str, question: Question) -> BasicCard | ChoiceCard | None:
        where = question.where
        if question.text.is_blank():
            self._skip(question, tr("its question text is blank"))
            return None
        if question.kind in ("multichoice", "truefalse"):
            return self._choice(card_id, question, where)
        if question.kind == "matching":
            return self._matching(card_id, question, where)
        return self._answers(card_id, question, where)

    def _markdown(self, where: str, part: str, text: Rich) -> str:
        if text.format == "html" and has_image(text.text):
            inside = (
                i18n.tr(_PARTS[part]) if part in _PARTS else tr("in the {part}").format(part=part)
            )
            self._images_dropped.add(tr("{where}: {part}").format(where=where, part=inside))
        markdown = text.markdown()
        self._bounds.check_length(where, part, markdown)
        return markdown

    def _html(self, where: str, part: str, text: Rich) -> str:
        return self._bounds.cleaned(where, part, text.html(), self._resolve)

    def _choice(
        self, card_id: str, question: Question, where: str
    ) -> BasicCard | ChoiceCard | None:
        answers = [answer for answer in question.answers if not answer.text.is_blank()]
        if not any(answer.fraction > _EPSILON for answer in answers):
            self._skip(question, tr("no answer is marked right"))
            return None
        single = question.single
        if single is None:
            single = sum(answer.fraction > _EPSILON for answer in answers) == 1 or any(
                answer.fraction >= 100 - _EPSILON for answer in answers
            )
        best = max(answer.fraction for answer in answers)
        right = [
            (answer.fraction >= best - _EPSILON) if single else (answer.fraction > _EPSILON)
            for answer in answers
        ]
        shows_image = any(
            text.format == "html" and has_image(text.text)
            for text in (question.text, *(answer.text for answer in answers))
        )
        problem = ""
        if shows_image:
            problem = tr("it shows images, and choice cards show text only")
        elif not MIN_CHOICES <= len(answers) <= MAX_CHOICES:
            problem = tr("it has {count} answers (choice cards hold 2 to 10)").format(
                count=len(answers)
            )
        if not problem:
            try:
                return ChoiceCard(
                    id=card_id,
                    type="choice",
                    question=self._markdown(where, "question", question.text),
                    choices=[
                        Choice(
                            text=self._markdown(where, "answer", answer.text),
                            correct=correct,
                            why=self._markdown(where, "feedback", answer.feedback) or None,
                        )
                        for answer, correct in zip(answers, right, strict=True)
                    ],
                    explanation=self._markdown(
                        where, "general feedback", question.general_feedback
                    ),
                    shuffle=question.kind != "truefalse",
                )
            except ValidationError as error:
                problem = "; ".join(str(detail["msg"]) for detail in error.errors())
        self._as_basic.add(f"{where} ({problem})")
        items = "".join(f"<li>{self._html(where, 'answer', a.text)}</li>" for a in answers)
        front = f"{self._html(where, 'question', question.text)}<ol>{items}</ol>"
        lines = []
        for answer, correct in zip(answers, right, strict=True):
            if correct:
                line = self._html(where, "answer", answer.text)
                if not answer.feedback.is_blank():
                    line += f" ({self._html(where, 'feedback', answer.feedback)})"
                lines.append(f"<li>{line}</li>")
        return self._basic(card_id, question, where, front, f"<ul>{''.join(lines)}</ul>")

    def _answers(self, card_id: str, question: Question, where: str) -> BasicCard | None:
        accepted = [
            answer
            for answer in question.answers
            if answer.fraction > _EPSILON and answer.text.plain() != "*"
        ]
        if not accepted:
            self._skip(question, tr("no answer is accepted"))
            return None
        best = max(answer.fraction for answer in accepted)
        markdown = question.text.format == "markdown" and all(
            answer.feedback.is_blank() and answer.fraction >= best - _EPSILON for answer in accepted
        )
        if markdown:
            # The answers of a Markdown question are Markdown too, as GIFT writes them.
            back = "\n\n".join(answer.text.text.strip() for answer in accepted)
            self._bounds.check_length(where, "back", back)
            return self._made(
                card_id, where, question, question.text.text.strip(), back, "markdown"
            )
        lines = []
        for answer in accepted:
            line = html.escape(answer.text.plain())
            if answer.fraction < best - _EPSILON:
                line += f" (accepted for {answer.fraction:g}%)"
            if not answer.feedback.is_blank():
                line += f" — {self._html(where, 'feedback', answer.feedback)}"
            lines.append(line)
        front = self._html(where, "question", question.text)
        typed = ""
        if question.type_in:
            typed = next(a for a in accepted if a.fraction >= best - _EPSILON).text.plain()
            self._bounds.check_length(where, "answer", typed)
        return self._basic(card_id, question, where, front, "<br>".join(lines), typed)

    def _matching(self, card_id: str, question: Question, where: str) -> BasicCard | None:
        pairs = [(item, match) for item, match in question.pairs if not item.is_blank()]
        if not pairs:
            self._skip(question, tr("a matching question without items"))
            return None
        extra = [match for item, match in question.pairs if item.is_blank()]
        matches = [html.escape(match.plain()) for _, match in question.pairs]
        items = "".join(f"<li>{self._html(where, 'item', item)}</li>" for item, _ in pairs)
        front = (
            f"{self._html(where, 'question', question.text)}<ul>{items}</ul>"
            f"Matches: {', '.join(sorted(matches, key=str.casefold))}"
        )
        rows = "".join(
            f"<li>{self._html(where, 'item', item)} → {html.escape(match.plain())}</li>"
            for item, match in pairs
        )
        back = f"<ul>{rows}</ul>"
        if extra:
            back += f"Matching nothing: {', '.join(html.escape(m.plain()) for m in extra)}"
        return self._basic(card_id, question, where, front, back)

    def _basic(
        self,
        card_id: str,
        question: Question,
        where: str,
        front: str,
        back: str,
        type_answer: str = "",
    ) -> BasicCard:
        front = self._bounds.cleaned(where, "front", front, card_html.stored_media_only)
        back = self._bounds.cleaned(where, "back", back, card_html.stored_media_only)
        return self._made(card_id, where, question, front, back, "html", type_answer)

    def _made(
        self,
        card_id: str,
        where: str,
        question: Question,
        front: str,
        back: str,
        markup: Literal["html", "markdown"],
        type_answer: str = "",
    ) -> BasicCard:
        explanation = self._markdown(where, "general feedback", question.general_feedback)
        try:
            return BasicCard(
                id=card_id,
                type="basic",
                markup=markup,
                front=front,
                back=back,
                explanation=explanation,
                type_answer=type_answer,
            )
        except ValidationError as error:
            problems = [f"{where}: {detail['msg']}" for detail in error.errors()]
            raise DeckError(self._source, problems) from None

    def package(self, media: list[StagedMedia], notes: list[str]) -> ImportedPackage:
        """The decks built, the staged media, and the report's notes.

        Raises:
            DeckError: No question gave a card.
        """
        decks: list[Deck] = [
            make_deck(self._source, key, deck.name, deck.cards).model_copy(
                update={"description": deck.description}
            )
            for key, deck in self._decks.items()
            if deck.cards
        ]
        if not decks:
            first = self._skipped.examples[:1] or self._bounds.refused.examples[:1]
            if first:
                problem = tr(
                    "no cards to import: the file holds no question Recall asks, the first being "
                    "{first}"
                ).format(first=first[0])
            else:
                problem = tr("no cards to import: the file holds no question Recall asks")
            raise DeckError(self._source, [problem])
        notes = list(notes)
        notes += self._skipped.line(
            trn(
                "{count} question skipped", "{count} questions skipped", self._skipped.count
            ).format(count=wording.number(self._skipped.count))
        )
        notes += self._as_basic.line(
            trn(
                "{count} choice question imported as basic cards",
                "{count} choice questions imported as basic cards",
                self._as_basic.count,
            ).format(count=wording.number(self._as_basic.count))
        )
        notes += self._images_dropped.line(
            trn(
                "{count} image left out of feedback and choice text (choice cards and "
                "explanations show text only)",
                "{count} images left out of feedback and choice text (choice cards and "
                "explanations show text only)",
                self._images_dropped.count,
            ).format(count=wording.number(self._images_dropped.count))
        )
        notes += self._bounds.lines()
        return ImportedPackage(decks=decks, media=media, notes=notes)
