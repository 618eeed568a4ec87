"""Card templates of literal text and plain field references, compiled once per template.

Most shared decks' note types (Basic, Basic and reversed) write their question as
``{{Front}}`` and their answer as ``{{FrontSide}}<hr id=answer>{{Back}}``. For such a
template the template language (``content.anki_template``) does nothing but put each
named field's text where it is named: no section tests a field, no filter changes one, no
special field (``{{Tags}}``, ``{{Deck}}`` ...) or cloze deletion is read, nothing is a hint,
a type-in box or speech. So the template is compiled to one ``str.format`` pattern whose
replacements are the note's fields by position, and a card's side is that pattern filled
with its note's fields: the same text ``render_side`` gives, without building the special
fields, testing every field for emptiness and walking the nodes for each card. Any other
template (and every cloze note type) returns None here and keeps the general renderer.
"""

from __future__ import annotations

from dataclasses import dataclass

from recall.content.anki_template import Replacement, Template, Text, field_is_empty
from recall.importers._collection import AnkiNote, NoteType

# The name ``{{FrontSide}}`` takes in an answer's pattern (a field's is its position).
FRONT_SIDE = "front"


@dataclass(frozen=True)
class PlainTemplates:
    """A card template's question and answer, as ``str.format`` patterns over the fields.

    Attributes:
        question: The question's pattern: ``{0}`` for the note type's first field, and so on.
        answer: The answer's pattern, with ``{front}`` where ``{{FrontSide}}`` stands.
        shown: The positions of the fields the question names: Anki makes the card only
            when one of them is not empty (``anki_template.renders_with_fields``).
        field_count: How many fields the note type names (a note with fewer has the rest
            empty, as the general renderer reads them).
    """

    question: str
    answer: str
    shown: tuple[int, ...]
    field_count: int

    def fields(self, note: AnkiNote) -> tuple[str, ...]:
        """The note's fields as the patterns read them, missing ones empty."""
        missing = self.field_count - len(note.fields)
        return note.fields + ("",) * missing if missing > 0 else note.fields

    def makes_card(self, fields: tuple[str, ...]) -> bool:
        """Whether the question shows a field that is not empty (else Anki makes no card)."""
        return any(not field_is_empty(fields[index]) for index in self.shown)


def compile_plain(
    note_type: NoteType, question: Template, answer: Template
) -> PlainTemplates | None:
    """The card template as patterns, or None when it needs the general renderer.

    A template qualifies when it parsed and holds only text and ``{{Field}}`` references
    without filters, each naming one of the note type's fields (the last of that name, as
    the renderer's fields by name keep it), and, on the answer only, ``{{FrontSide}}``
    (which the renderer reads before any field of that name). Cloze note types never do:
    their cards exist by their deletions, not by the question's fields.
    """
    if note_type.is_cloze or question.error is not None or answer.error is not None:
        return None
    positions = {name: index for index, name in enumerate(note_type.field_names)}
    question_pattern = _pattern(question, positions, front_side=False)
    answer_pattern = _pattern(answer, positions, front_side=True)
    if question_pattern is None or answer_pattern is None:
        return None
    shown = tuple(positions[node.key] for node in question.nodes if isinstance(node, Replacement))
    return PlainTemplates(question_pattern, answer_pattern, shown, len(note_type.field_names))


def _pattern(template: Template, positions: dict[str, int], front_side: bool) -> str | None:
    """``template`` as a ``str.format`` pattern, or None when it is not plain."""
    parts: list[str] = []
    for node in template.nodes:
        if isinstance(node, Text):
            parts.append(node.text.replace("{", "{{").replace("}", "}}"))
        elif not isinstance(node, Replacement) or node.filters:
            return None  # a section, or a filter (text:, hint:, type:, cloze:, tts ...)
        elif node.key == "FrontSide":
            if not front_side:
                return None  # empty on a question, yet counted as a field by the card rule
            parts.append("{" + FRONT_SIDE + "}")
        elif node.key in positions and node.key:  # "" renders nothing, whatever is named so
            parts.append("{" + str(positions[node.key]) + "}")
        else:
            return None  # a special field, c1, or a missing field (the card says so)
    return "".join(parts)
