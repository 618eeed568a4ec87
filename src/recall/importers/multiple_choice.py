"""Anki's multiple-choice note types, recognised by their fields and made native choice cards.

Two add-ons' note types are known (docs/anki-import.md shows their field layouts):

- "AllInOne (kprim, mc, sc)" from the anki-mc add-on: ``Question``, ``Title``,
  ``QType (0=kprim,1=mc,2=sc)``, ``Q_1`` to ``Q_5``, ``Answers`` (``1`` or ``0`` per
  choice, separated by spaces), ``Sources``, ``Extra 1`` (and, in the notes Recall exports,
  up to ``Q_10`` and a note per choice in ``Why_1`` to ``Why_10``). Single choice (sc) gives a card
  with one right answer, multiple choice (mc) a "select all that apply" card, and kprim
  (judge each statement true or false) a "select all that apply" card whose right
  choices are the true statements.
- "Multiple Choice Note Type" (AnkiWeb add-on 1859136708): ``number``, ``question``,
  ``a`` to ``j``, ``answers`` (the right letters, separated by commas), ``ref``,
  ``explanation``.

A note whose fields do not make a valid choice card is left to the caller, with the
reason, to import as a basic card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import ValidationError

from recall.content.deck_format import MAX_CHOICES, MIN_CHOICES, Choice, ChoiceCard
from recall.core.i18n import tr
from recall.importers._html_text import has_image, html_to_markdown, html_to_text

ANKI_MC = "anki-mc AllInOne"
MCNT = "Multiple Choice Note Type"
KPRIM, MULTIPLE, SINGLE = 0, 1, 2
_OPTION = re.compile(r"q_(\d+)")
_WHY = re.compile(r"why_(\d+)")
_LETTERS = "abcdefghij"


@dataclass(frozen=True)
class ChoiceLayout:
    """Where a recognised note type keeps each part of a choice question (field positions).

    Attributes:
        label: The note type's family, for the report.
        question: The question field.
        options: The choice fields, in order.
        answers: The field saying which choices are right.
        title: A heading shown above the question, if the type has one.
        kind: The field holding anki-mc's question type (kprim, mc or sc), if any.
        source: The field holding the source, if any.
        explanation: The field holding the explanation, if any.
        notes: For each choice field, the field holding its note ("why"), if any.
    """

    label: str
    question: int
    options: tuple[int, ...]
    answers: int
    title: int | None = None
    kind: int | None = None
    source: int | None = None
    explanation: int | None = None
    notes: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class Conversion:
    """A note turned into a choice card, or the reason it could not be.

    Attributes:
        card: The choice card, or None.
        problem: Why the note is not a valid choice card ("" when it is).
        kprim: The note was an anki-mc kprim question (true/false statements).
    """

    card: ChoiceCard | None
    problem: str = ""
    kprim: bool = False


def choice_layout(field_names: tuple[str, ...]) -> ChoiceLayout | None:
    """The layout of a known multiple-choice note type, or None for any other note type."""
    names = {name.strip().casefold(): index for index, name in enumerate(field_names)}
    kind = next((i for name, i in names.items() if name.startswith("qtype")), None)
    numbered = sorted(
        (int(match.group(1)), index)
        for name, index in names.items()
        if (match := _OPTION.fullmatch(name)) and len(match.group(1)) <= 2
    )
    if {"question", "answers"} <= names.keys() and kind is not None and len(numbered) >= 2:
        whys = {
            match.group(1): index
            for name, index in names.items()
            if (match := _WHY.fullmatch(name)) and len(match.group(1)) <= 2
        }
        return ChoiceLayout(
            label=ANKI_MC,
            question=names["question"],
            options=tuple(index for _, index in numbered),
            answers=names["answers"],
            title=names.get("title"),
            kind=kind,
            source=names.get("sources"),
            explanation=names.get("extra 1", names.get("extra")),
            notes=tuple(whys.get(str(number)) for number, _ in numbered),
        )
    letters = [names[letter] for letter in _LETTERS if letter in names]
    if {"question", "answers", "a", "b"} <= names.keys() and len(letters) >= 2:
        return ChoiceLayout(
            label=MCNT,
            question=names["question"],
            options=tuple(letters),
            answers=names["answers"],
            source=names.get("ref"),
            explanation=names.get("explanation"),
        )
    return None


def convert(
    layout: ChoiceLayout, fields: tuple[str, ...], card_id: str, tags: list[str]
) -> Conversion:
    """A note's fields (Anki HTML) as a choice card, or the reason they do not make one."""

    def field(index: int | None) -> str:
        return fields[index] if index is not None and index < len(fields) else ""

    shown = [field(layout.question), field(layout.title), *map(field, layout.options)]
    if any(has_image(text) for text in shown):
        return Conversion(None, tr("it shows images, and choice cards show text only"))
    options = [(i, html_to_markdown(field(index))) for i, index in enumerate(layout.options)]
    if layout.label == ANKI_MC:
        kind_text = html_to_text(field(layout.kind)).strip()
        if kind_text not in ("0", "1", "2"):
            return Conversion(
                None,
                tr("its question type {kind} is not 0, 1 or 2").format(kind=repr(kind_text[:20])),
            )
        kind = int(kind_text)
        right, problem = _flags(html_to_text(field(layout.answers)), options)
    else:
        kind = None
        right, problem = _letters(html_to_text(field(layout.answers)), options)
    if problem:
        return Conversion(None, problem)
    whys = [html_to_markdown(field(index)) for index in layout.notes]
    why = {i: whys[i] for i in range(len(whys)) if whys[i]}
    choices = [(text, i in right, why.get(i)) for i, text in options if text]
    if not any(correct for _, correct, _ in choices):
        return Conversion(None, tr("no choice is marked right"))
    if kind == SINGLE and sum(correct for _, correct, _ in choices) > 1:
        return Conversion(None, tr("a single-choice question marks several choices right"))
    if not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
        return Conversion(
            None, tr("it has {count} choices (Recall needs 2 to 10)").format(count=len(choices))
        )
    question = html_to_markdown(field(layout.question))
    title = html_to_markdown(field(layout.title))
    if title:
        question = f"**{title}**\n\n{question}" if question else title
    try:
        card = ChoiceCard(
            id=card_id,
            type="choice",
            question=question,
            choices=[Choice(text=text, correct=correct, why=why) for text, correct, why in choices],
            explanation=html_to_markdown(field(layout.explanation)),
            source=html_to_text(field(layout.source)).replace("\n", " ").strip(),
            tags=tags,
        )
    except ValidationError as error:
        return Conversion(None, "; ".join(str(detail["msg"]) for detail in error.errors()))
    return Conversion(card, kprim=kind == KPRIM)


def basic_sides(layout: ChoiceLayout, fields: tuple[str, ...]) -> tuple[str, str]:
    """The HTML sides of the basic card a note becomes when it is not a valid choice card.

    The front shows the title, the question and the choices as a numbered list; the back
    the answers as the note gives them, then the explanation and the source.
    """

    def field(index: int | None) -> str:
        return fields[index] if index is not None and index < len(fields) else ""

    options = [field(index) for index in layout.options if html_to_text(field(index))]
    items = "".join(f"<li>{option}</li>" for option in options)
    title = field(layout.title)
    front = (f"<b>{title}</b><br>" if title else "") + field(layout.question)
    if items:
        front += f"<ol>{items}</ol>"
    back = [f"Answers: {field(layout.answers)}", field(layout.explanation), field(layout.source)]
    return front, "<br>".join(part for part in back if html_to_text(part))


def _flags(answers: str, options: list[tuple[int, str]]) -> tuple[set[int], str]:
    """anki-mc's answers: ``1`` or ``0`` per choice, in order, for the choices it has."""
    flags = answers.split()
    if any(flag not in ("0", "1") for flag in flags):
        return set(), tr("its answers {answers} are not 1s and 0s").format(
            answers=repr(answers[:30])
        )
    filled = [i for i, text in options if text]
    last = max(filled, default=-1)
    if len(flags) not in (len(filled), last + 1):
        return set(), tr("it gives {count} answers for {choices} choices").format(
            count=len(flags), choices=len(filled)
        )
    positions = filled if len(flags) == len(filled) else list(range(last + 1))
    return {position for position, flag in zip(positions, flags, strict=True) if flag == "1"}, ""


def _letters(answers: str, options: list[tuple[int, str]]) -> tuple[set[int], str]:
    """The Multiple Choice Note Type's answers: the right letters, separated by commas."""
    letters = [part.strip().casefold() for part in answers.split(",") if part.strip()]
    right: set[int] = set()
    for letter in letters:
        position = _LETTERS.find(letter) if len(letter) == 1 else -1
        if position < 0 or position >= len(options) or not options[position][1]:
            return set(), tr("its answer {answer} names no choice it has").format(
                answer=repr(letter[:10])
            )
        right.add(position)
    return right, ""
